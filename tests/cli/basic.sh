# basic.sh - the program end to end: real files checked by FFmpeg's own tools.
source "$(dirname "$0")/lib.sh"

# --help / --version
expect_status "help exits 0" 0 "$ROCKPOOL" --help
check "help fits a screen (<= 40 lines)" test "$(wc -l <"$WORK/out")" -le 40
check "help starts with the usage line" grep -q '^Usage: rockpool' "$WORK/out"
expect_status "version exits 0" 0 "$ROCKPOOL" -V
check "version names rockpool" grep -q '^rockpool [0-9]' "$WORK/out"

# The example to MP4: exactly the scene's frames, size and rate.
expect_status "rain.scene to mp4" 0 "$ROCKPOOL" -q "$TOP/examples/rain.scene" -o rain.mp4
check "mp4 frame count is 120" test "$(probe rain.mp4 nb_read_frames)" = 120
check "mp4 size is 640x360" test "$(probe rain.mp4 width),$(probe rain.mp4 height)" = 640,360
check "mp4 rate is 30/1" test "$(probe rain.mp4 r_frame_rate)" = 30/1
check "mp4 codec is h264" test "$(probe rain.mp4 codec_name)" = h264

# Options override the scene.
expect_status "size/frames/fps options" 0 "$ROCKPOOL" -q "$TOP/examples/rain.scene" -s 160x96 \
    -n 12 -r 24 -o small.mp4
check "override: 12 frames" test "$(probe small.mp4 nb_read_frames)" = 12
check "override: 160x96" test "$(probe small.mp4 width)x$(probe small.mp4 height)" = 160x96
check "override: 24 fps" test "$(probe small.mp4 r_frame_rate)" = 24/1

# PNG sequence: the directory is created, one file per frame, ffmpeg reads them.
expect_status "png sequence" 0 "$ROCKPOOL" -q "$TOP/examples/rain.scene" -s 96x64 -n 5 \
    -o seq/f_%03d.png
check "png: 5 files f_000..f_004" test "$(ls seq | tr '\n' ' ')" = \
    "f_000.png f_001.png f_002.png f_003.png f_004.png "
check "png: ffprobe reads 96x64 rgb24" test \
    "$(probe seq/f_004.png width)x$(probe seq/f_004.png height) $(probe seq/f_004.png pix_fmt)" \
    = "96x64 rgb24"

# --hash equals md5 of the PNG's pixels decoded by ffmpeg.
expect_status "hash lines" 0 "$ROCKPOOL" -q "$TOP/examples/rain.scene" -s 96x64 -n 5 -y \
    -o seq/f_%03d.png --hash
want=$(ffmpeg -v error -i seq/f_003.png -f rawvideo -pix_fmt rgb24 - | md5sum | cut -d' ' -f1)
check "hash of frame 3 equals ffmpeg's decode of the PNG" grep -qx "3 $want" "$WORK/out"

# The same run twice gives byte-identical PNGs; thread count changes nothing.
"$ROCKPOOL" -q "$TOP/examples/rain.scene" -s 96x64 -n 5 -j 1 -o again/f_%03d.png
"$ROCKPOOL" -q "$TOP/examples/rain.scene" -s 96x64 -n 5 -j 7 -o j7/f_%03d.png
check "two runs give identical PNG bytes" cmp -s seq/f_004.png again/f_004.png
check "-j 1 and -j 7 give identical PNG bytes" cmp -s again/f_004.png j7/f_004.png
# The default threads: one per CPU the process may run on, nproc's count (at most 64);
# under taskset, those CPUs alone (a farm node's CPU set, not the machine's CPUs).
# threads_of [PREFIX...]: the threads --check reports for rain.scene, run under PREFIX
# (a command such as taskset; EXTRA holds rockpool's own options)
threads_of() {
    "$@" "$ROCKPOOL" --check "$TOP/examples/rain.scene" ${EXTRA[@]+"${EXTRA[@]}"} |
        sed -n 's/^threads: *//p'
}
n=$(nproc)
# (nproc does not count a cgroup's CPU quota: compared where none is set)
quota=$(cat /sys/fs/cgroup/cpu.max /sys/fs/cgroup/cpu/cpu.cfs_quota_us 2>/dev/null | head -1)
case $quota in '' | max* | -1)
    check "--check: the default threads are nproc's $n" test "$(threads_of)" = $((n > 64 ? 64 : n)) ;;
esac
EXTRA=(-j 3)
check "--check: -j 3 is 3 threads" test "$(threads_of)" = 3
EXTRA=()
if command -v taskset >/dev/null; then
    cpu=$(taskset -pc $$ | sed 's/.*: *//; s/[,-].*//') # the first CPU this shell may use
    check "--check under taskset -c $cpu (one CPU): 1 thread" test "$(threads_of taskset -c "$cpu")" = 1
fi

# Built-in default scene (no SCENE argument).
expect_status "default scene" 0 "$ROCKPOOL" -q -s 64x48 -n 3 -o def/%d.png
check "default scene wrote 3 frames" test -f def/2.png

# A PNG background given with -i sets the size when no scene or option does.
ffmpeg -v error -f lavfi -i testsrc=size=120x80 -frames:v 1 bg.png
expect_status "-i background" 0 "$ROCKPOOL" -q -i bg.png -n 2 \
    -o bgout/%d.png
check "background size used" test "$(probe bgout/1.png width)x$(probe bgout/1.png height)" = 120x80

# Errors: exit 2, a message, nothing created.
expect_status "unknown option is exit 2" 2 "$ROCKPOOL" --bogus
stderr_has "unknown option message" "rockpool: error: unknown option '--bogus'"
expect_status "bad --size is exit 2" 2 "$ROCKPOOL" -s 12by4
stderr_has "bad size names the option" "--size"
expect_status "existing output without -y is exit 2" 2 "$ROCKPOOL" -q -n 2 -s 32x32 -o rain.mp4
stderr_has "existing output message" "exists"
expect_status "missing scene file is exit 2" 2 "$ROCKPOOL" nosuch.scene -o none.mp4
check "no output after a failed run" test ! -e none.mp4
printf 'size 64x48\nat 0s drpo 3 4\n' >bad.scene
expect_status "scene error is exit 2" 2 "$ROCKPOOL" bad.scene -o none.mp4
stderr_has "scene error has file:line:col" "bad.scene:2:7: error:"
check "no output after a scene error" test ! -e none.mp4

# Resource limits: a run that would need too much memory is refused before allocating.
expect_status "16000x16000 MP4 over the memory limit is exit 2" 2 "$ROCKPOOL" -q \
    -s 16000x16000 -n 2 -o huge.mp4
stderr_has "memory message gives the figure and the limit" "GiB of memory, over the limit of 4.00 GiB"
check "nothing created for a refused run" test ! -e huge.mp4
expect_status "--max-memory lowers the limit" 2 "$ROCKPOOL" -q -s 640x480 -n 2 --max-memory 8M \
    -o small-limit.mp4
stderr_has "--max-memory 8M message" "over the limit of 8.0 MiB"
# a tiny limit names its figures in a unit that shows them (not "0 MiB, over 0 MiB")
expect_status "--max-memory 1K: refused" 2 "$ROCKPOOL" -q "$TOP/examples/rain.scene" \
    --max-memory 1K --check
stderr_has "--max-memory 1K: the limit in KiB" "over --max-memory (1.0 KiB)"
expect_status "--max-memory 1: refused" 2 "$ROCKPOOL" -q "$TOP/examples/rain.scene" \
    --max-memory 1 --check
stderr_has "--max-memory 1: the limit in bytes" "over the limit of 1 byte ("
# -s 1x1 with a scene of no size makes a grid of one cell: the message says where it comes from
printf 'at 0s drop 1 1 radius 1 height 1\n' >nosize.scene
expect_status "-s 1x1, a scene of no size: refused" 2 "$ROCKPOOL" -q nosize.scene -s 1x1 --check
stderr_has "-s 1x1: the message names -s 1x1, the size it comes from" \
    "error: -s 1x1 is too narrow: the water needs a width of at least 2"
expect_status "--max-memory raises it" 0 "$ROCKPOOL" -q -s 64x48 -n 2 --max-memory 1G \
    -o fine.mp4
expect_status "--max-memory takes a plain byte count" 0 "$ROCKPOOL" -q -s 64x48 -n 2 \
    --max-memory 100000000 -f framemd5 -o bytes.md5
