# outputs.sh - every output format and input image path, checked by FFmpeg's own tools;
# failures leave nothing behind (rockpool(1) OUTPUT FILES and EXIT STATUS).
source "$(dirname "$0")/lib.sh"

scene=$TOP/examples/rain.scene
small=(-q -s 96x64 -n 9)

# Every container: codec, size, rate, exact frame count.
for spec in mp4:h264 mkv:h264 mov:h264 webm:vp9; do
    ext=${spec%%:*} codec=${spec##*:}
    expect_status "$ext render" 0 "$ROCKPOOL" "$scene" "${small[@]}" -r 25 -o "out.$ext"
    check "$ext: $codec 96x64 25/1 9 frames" test \
        "$(probe "out.$ext" codec_name) $(probe "out.$ext" width)x$(probe "out.$ext" height) $(probe "out.$ext" r_frame_rate) $(probe "out.$ext" nb_read_frames)" \
        = "$codec 96x64 25/1 9"
done
expect_status "-f mkv overrides the extension" 0 "$ROCKPOOL" "$scene" "${small[@]}" -f mkv \
    -o forced.bin
check "forced container is matroska" \
    grep -q matroska <(ffprobe -v error -show_entries format=format_name -of csv=p=0 forced.bin)
expect_status "encoder options" 0 "$ROCKPOOL" "$scene" "${small[@]}" -c libx264 --crf 30 \
    --encoder-preset ultrafast --pix-fmt yuv444p -o opts.mp4
check "--pix-fmt yuv444p used" test "$(probe opts.mp4 pix_fmt)" = yuv444p
expect_status "bitrate" 0 "$ROCKPOOL" "$scene" "${small[@]}" -c mpeg4 -b 500k -o rate.mkv
check "-c mpeg4 used" test "$(probe rate.mkv codec_name)" = mpeg4
# --crf and -b together: one of them would be dropped unsaid (the bit rate won), so refused.
echo keep >both.mp4
expect_status "--crf with -b is refused" 2 "$ROCKPOOL" "$scene" "${small[@]}" -y --crf 20 -b 1M \
    -o both.mp4
# ... each as typed: the bit rate was named in bits, '-b/--bitrate 1000000', whatever was typed
stderr_has "... naming both as typed" "error: --crf 20 and -b 1M both set the quality of encoder"
check "... the existing file untouched" test "$(cat both.mp4)" = keep
expect_status "-crf with -b:v is refused" 2 "$ROCKPOOL" "$scene" "${small[@]}" -y -crf 20 \
    -b:v 1.5M -o both.mp4
stderr_has "... naming FFmpeg's spellings as typed" "error: -crf 20 and -b:v 1.5M both set"
expect_status "--crf with --bitrate=2500k is refused" 2 "$ROCKPOOL" "$scene" "${small[@]}" -y \
    --crf=20 --bitrate=2500k -o both.mp4
stderr_has "... naming --bitrate 2500k" "error: --crf 20 and --bitrate 2500k both set"
check "... the existing file still untouched" test "$(cat both.mp4)" = keep
expect_status "-b:v 4X: exit 2" 2 "$ROCKPOOL" "$scene" "${small[@]}" -b:v 4X -o bad.mp4
stderr_has "... names -b:v, as typed" "error: -b:v: '4X' is not a rate like 4M"
expect_status "-crf 60 with libx264: exit 2" 2 "$ROCKPOOL" "$scene" "${small[@]}" -crf 60 \
    -o bad.mp4
stderr_has "... names -crf 60, as typed" "error: encoder libx264 rejects -crf 60 (its range is 0 to 51)"
check "... nothing written" test ! -e bad.mp4

# framemd5 equals ffmpeg's over our PNG sequence.
"$ROCKPOOL" "$scene" "${small[@]}" -o png/f_%05d.png
expect_status "framemd5 output" 0 "$ROCKPOOL" "$scene" "${small[@]}" -f framemd5 -o ours.md5
# -fflags +bitexact after -i: the header carries no library version (rockpool(1)).
ffmpeg -v error -framerate 30 -i png/f_%05d.png -pix_fmt rgb24 -fflags +bitexact -f framemd5 - \
    >theirs.md5
check "framemd5 equals ffmpeg's on the PNGs" cmp -s ours.md5 theirs.md5

# The default PNG deflate (rockpool's own) writes the same bytes at every vector level and
# thread count, 1080p where its blocks and matches reach across rows; every --png-level
# (libdeflate's) gives the same pixels.
big=(-q -s 1920x1080 -n 3)
"$ROCKPOOL" "$scene" "${big[@]}" -o pz_ref/f_%d.png
for level in c sse2 avx2 avx512 avx512icl; do
    for j in 1 2 3; do
        "$ROCKPOOL" "$scene" "${big[@]}" --simd $level -j $j -o "pz_$level$j/f_%d.png"
        check "default PNG deflate, --simd $level -j $j: the same bytes" \
            cmp -s pz_ref/f_2.png "pz_$level$j/f_2.png"
        rm -rf "pz_$level$j"
    done
done
ffmpeg -v error -i pz_ref/f_%d.png -pix_fmt rgb24 -f framemd5 - | grep -v '^#' >pz_ref.md5
for lv in 0 1 6 9; do
    "$ROCKPOOL" "$scene" "${big[@]}" --png-level $lv -o "pz_l$lv/f_%d.png"
    check "--png-level $lv: the default's pixels" cmp -s pz_ref.md5 \
        <(ffmpeg -v error -i "pz_l$lv/f_%d.png" -pix_fmt rgb24 -f framemd5 - | grep -v '^#')
done
rm -rf pz_ref pz_l*

# The RGB -> YUV 4:2:0 conversion, through a lossless encoder (FFV1) and ffmpeg's decoder,
# against the BT.601 definition computed independently from the same frames' RGB.
expect_status "ffv1 yuv420p render" 0 "$ROCKPOOL" "$scene" "${small[@]}" -c ffv1 -o lossless.mkv
ffmpeg -v error -i lossless.mkv -f rawvideo -pix_fmt yuv420p lossless.yuv
ffmpeg -v error -framerate 30 -i png/f_%05d.png -f rawvideo -pix_fmt rgb24 frames.rgb
check "ffv1 is yuv420p, tagged BT.601 limited range" test \
    "$(probe lossless.mkv pix_fmt) $(probe lossless.mkv color_range) $(probe lossless.mkv color_space)" \
    = "yuv420p tv smpte170m"
check "decoded YUV 4:2:0 is BT.601 of the RGB frames, every sample" \
    python3 "$TOP/tests/tools/bt601_check.py" frames.rgb lossless.yuv 96 64
expect_status "ffv1 yuv444p render" 0 "$ROCKPOOL" "$scene" "${small[@]}" -c ffv1 --pix-fmt yuv444p \
    -o lossless444.mkv
ffmpeg -v error -i lossless444.mkv -f rawvideo -pix_fmt yuv444p lossless444.yuv
check "decoded YUV 4:4:4 is BT.601 of the RGB frames, every sample" \
    python3 "$TOP/tests/tools/bt601_check.py" frames.rgb lossless444.yuv 96 64 444
# Y4M is 4:2:0 by default (what encoders take), 4:4:4 with --pix-fmt yuv444p.
"$ROCKPOOL" "$scene" "${small[@]}" -o - >s420.y4m
check "Y4M header says 4:2:0" grep -q '^YUV4MPEG2 W96 H64 F30:1 Ip A1:1 C420jpeg' s420.y4m
ffmpeg -v error -f yuv4mpegpipe -i s420.y4m -f rawvideo -pix_fmt yuv420p y4m420.yuv
check "Y4M 4:2:0 stream is BT.601 of the RGB frames, every sample" \
    python3 "$TOP/tests/tools/bt601_check.py" frames.rgb y4m420.yuv 96 64 420
"$ROCKPOOL" "$scene" "${small[@]}" --pix-fmt yuv444p -o - |
    ffmpeg -v error -f yuv4mpegpipe -i - -f rawvideo -pix_fmt yuv444p y4m444.yuv
check "Y4M --pix-fmt yuv444p stream is BT.601 of the RGB frames, every sample" \
    python3 "$TOP/tests/tools/bt601_check.py" frames.rgb y4m444.yuv 96 64 444
"$ROCKPOOL" "$scene" "${small[@]}" -o - | ffmpeg -v error -i - -c:v libx264 -preset ultrafast y.mp4
check "rockpool -o - | ffmpeg -i - -c:v libx264 gives yuv420p" test "$(probe y.mp4 pix_fmt)" = yuv420p
expect_status "Y4M refuses other pixel formats" 2 "$ROCKPOOL" "$scene" "${small[@]}" \
    --pix-fmt rgb24 -o -
stderr_has "Y4M pixel formats named" "yuv420p (the default) or yuv444p"
# An odd size: 4:4:4 with a warning when no layout is asked for (the header read back says
# C444); --pix-fmt yuv420p asked for is refused (exit 2, nothing written), not replaced.
"$ROCKPOOL" "$scene" -s 95x63 -n 9 -o odd.y4m 2>odd.err
check "Y4M at 95x63 without --pix-fmt: C444" grep -q '^YUV4MPEG2 W95 H63 .* C444' odd.y4m
check "... with a warning" grep -q "95x63 is odd: the Y4M stream is 4:4:4" odd.err
expect_status "Y4M at 95x63 with --pix-fmt yuv420p: exit 2" 2 "$ROCKPOOL" "$scene" \
    "${small[@]}" -s 95x63 --pix-fmt yuv420p -o odd420.y4m
stderr_has "... says 4:2:0 needs even sides" "a Y4M stream of 4:2:0 needs an even width and height"
check "... nothing written" test ! -e odd420.y4m

# Y4M on stdout decodes frame for frame in ffmpeg.
"$ROCKPOOL" "$scene" "${small[@]}" -o - | ffmpeg -v error -f yuv4mpegpipe -i - -f framemd5 - \
    >y4m.md5
check "y4m pipe: ffmpeg decodes 9 frames" test "$(grep -c '^0,' y4m.md5)" = 9

# Writing into a FIFO (and devices) happens in place: the FIFO is still a FIFO afterwards.
mkfifo pipe.md5
timeout 60 cat pipe.md5 >fifo.out &
reader=$!
expect_status "framemd5 into a FIFO" 0 "$ROCKPOOL" "$scene" "${small[@]}" -f framemd5 -o pipe.md5
wait $reader
check "FIFO kept, data arrived" test -p pipe.md5 -a "$(grep -c '^0,' fifo.out)" = 9
# MP4 writes its index at the end, out of order: a FIFO or a pipe is refused up front (exit 2,
# nothing opened or read), Matroska streams into one
mkfifo pipe.mp4
expect_status "mp4 into a FIFO: refused" 2 timeout 20 "$ROCKPOOL" "$scene" "${small[@]}" -o pipe.mp4 -y
stderr_has "mp4 into a FIFO: says why" "writes its index at the end"
check "mp4 into a FIFO: the FIFO kept" test -p pipe.mp4
"$ROCKPOOL" "$scene" "${small[@]}" -f mp4 -o /dev/stdout 2>pipe.err | cat >/dev/null
check "mp4 into a pipe (-o /dev/stdout): refused, exit 2" test "${PIPESTATUS[0]}" = 2
"$ROCKPOOL" "$scene" "${small[@]}" -f mkv -o /dev/stdout | ffmpeg -v error -i - -f framemd5 - \
    >mkvpipe.md5
check "mkv into a pipe: ffmpeg decodes 9 frames" test "$(grep -c '^0,' mkvpipe.md5)" = 9
# -o - with -f mkv or -f webm: the container on stdout (it was refused as 'cannot go to
# stdout'), the same frames as the file's; MP4 still needs a file
for f in mkv webm; do
    "$ROCKPOOL" "$scene" "${small[@]}" -y -f $f -o dash.$f
    "$ROCKPOOL" "$scene" "${small[@]}" -f $f -o - 2>dash.err | ffmpeg -v error -i - -f framemd5 - \
        >dash_pipe.md5
    check "-f $f -o -: exit 0" test "${PIPESTATUS[0]}" = 0
    ffmpeg -v error -i dash.$f -f framemd5 - >dash_file.md5
    check "-f $f -o -: the file's 9 frames" \
        test "$(grep -c '^0,' dash_pipe.md5)" = 9 -a "$(grep '^0,' dash_pipe.md5 | awk -F', *' '{print $6}')" = "$(grep '^0,' dash_file.md5 | awk -F', *' '{print $6}')"
done
expect_status "-f mp4 -o -: refused" 2 "$ROCKPOOL" "$scene" "${small[@]}" -f mp4 -o -
stderr_has "-f mp4 -o -: says what can" "use -f y4m, mkv, webm or framemd5, or a file name"

# Backgrounds of another size: JPEG, and PNG with alpha (composited over black).
ffmpeg -v error -f lavfi -i testsrc=size=200x150 -frames:v 1 bg.jpg
ffmpeg -v error -f lavfi -i "color=c=white@0.0:size=50x40,format=rgba" -frames:v 1 alpha.png
expect_status "JPEG background scaled" 0 "$ROCKPOOL" "$scene" "${small[@]}" -i bg.jpg -o j/%d.png
check "JPEG background: output keeps -s 96x64" test "$(probe j/0.png width)" = 96
expect_status "transparent PNG background" 0 "$ROCKPOOL" "$scene" -q -s 40x30 -n 1 -i alpha.png \
    --preset applet \
    -f framemd5 -o alpha.md5
black=$(head -c 3600 /dev/zero | md5sum | cut -d' ' -f1)
check "fully transparent background composites to black" grep -q "$black" alpha.md5

# Failures: a clear message, the right status, nothing left behind.
expect_status "missing directory is exit 2" 2 "$ROCKPOOL" "$scene" "${small[@]}" -o nodir/x.mp4
stderr_has "missing directory named" "nodir"
# /proc takes no file: bad input (paths.sh), said before the render (it was exit 1, the
# render's "cannot create")
expect_status "a directory of the kernel's (/proc) is exit 2" 2 "$ROCKPOOL" "$scene" \
    "${small[@]}" -o /proc/rockpool-test.mp4
stderr_has "... said so" "it would be on the kernel's proc file system"
expect_status "unknown extension is exit 2" 2 "$ROCKPOOL" "$scene" "${small[@]}" -o out.xyz
stderr_has "unknown extension message" "out.xyz"
printf 'not an image' >corrupt.png
expect_status "corrupt image is exit 2" 2 "$ROCKPOOL" "$scene" "${small[@]}" -i corrupt.png \
    -o c.mp4
check "corrupt image: nothing created" test ! -e c.mp4
expect_status "odd size with yuv420p is exit 2" 2 "$ROCKPOOL" "$scene" -q -s 97x64 -n 2 -o odd.mp4
stderr_has "odd size message says what to do" "even"
check "odd size: nothing created" test ! -e odd.mp4
expect_status "output is a directory" 2 "$ROCKPOOL" "$scene" "${small[@]}" -f mp4 -o png
stderr_has "output is a directory: message" "'png' is a directory"
expect_status "disk full on stdout is exit 1" 1 sh -c "'$ROCKPOOL' '$scene' -q -s 96x64 -n 9 -o - >/dev/full"
check "no temporary files left" test -z "$(find . -name '*.tmp-*')"

# Interrupt background job $1 once its progress file $2 shows a frame written (up to 60 s:
# a signal before the handler is ignored, and the run would go on to its end); its exit
# status in $status.
interrupt_after_first_frame() {
    for _ in $(seq 600); do grep -q '^frame=[1-9]' "$2" 2>/dev/null && break; sleep 0.1; done
    kill -INT "$1"
    wait "$1"
    status=$?
}

# SIGINT during an MP4 render: the file is finished, kept, and holds the frames so far.
"$ROCKPOOL" "$scene" -q -s 320x240 -n 3000 --progress-fd 3 -o int.mp4 3>prog.txt 2>int.err &
interrupt_after_first_frame $! prog.txt
check "SIGINT exits 130" test "$status" = 130
held=$(sed -n 's/.*holds \([0-9]*\) frames.*/\1/p' int.err)
check "SIGINT: stderr says how many frames" test -n "$held"
check "SIGINT: the file plays with those frames" test "$(probe int.mp4 nb_read_frames)" = "$held"

# SIGINT while -y replaces an older PNG sequence: the frames written so far are kept, and
# the older files of the frames not reached go (no older frame follows the new ones as if
# the run had finished); frames beyond the run's range and other files stay.
mkdir -p seqint && (
    cd seqint || exit 1
    "$ROCKPOOL" "$scene" -q -s 64x48 -n 260 -o f_%03d.png && echo keep >notes.txt
) && ln -s notes.txt seqint/f_259.png.lnk
"$ROCKPOOL" "$scene" -q -s 1280x720 -n 200 -y --progress-fd 3 -o seqint/f_%03d.png \
    3>seqprog.txt 2>seqint.err &
interrupt_after_first_frame $! seqprog.txt
check "SIGINT over an older PNG sequence exits 130" test "$status" = 130
held=$(sed -n 's/.*holds \([0-9]*\) frames.*/\1/p' seqint.err)
check "SIGINT over an older sequence: stderr says how many frames" test -n "$held"
check "SIGINT over an older sequence: frames 0 to held-1 are the new ones, 1280 wide" test \
    "$(for ((k = 0; k < ${held:-0}; k += 5)); do
        ffprobe -v error -show_entries stream=width -of csv=p=0 "$(printf 'seqint/f_%03d.png' $k)" 2>&1
    done | sort -u)" = 1280
check "SIGINT over an older sequence: no older frame from held to 199" test \
    "$(find seqint -name 'f_[01]??.png' | wc -l)" = "${held:-x}"
check "SIGINT over an older sequence: frames 200 to 259, beyond the run, stay" test \
    "$(find seqint -name 'f_2[0-5]?.png' | wc -l)" = 60
check "SIGINT over an older sequence: other files stay" test -f seqint/notes.txt -a -L seqint/f_259.png.lnk
check "SIGINT over an older sequence: nothing kept aside" test -z "$(find seqint -name '.*old*')"

# --progress-fd's last block counts the frames written with or without an output file.
for what in "--hash" "-f framemd5 -o p.framemd5"; do
    # shellcheck disable=SC2086 # $what: the words of the options
    "$ROCKPOOL" "$scene" -q -s 64x48 --start 2 --end 6 $what --progress-fd 3 3>pe.txt >/dev/null
    check "--progress-fd with $what: the last block says 4 frames, the last the 6th" test \
        "$(tail -n 8 pe.txt | grep -E '^(frame|current_frame|progress)=' | tr '\n' ' ')" = \
        "frame=4 current_frame=5 progress=end "
done

# SIGINT while the scene is still being read (before any output exists): exit 130, nothing.
# (The signal once rockpool catches it: a job started with & begins with SIGINT ignored,
# and under AddressSanitizer on a loaded machine the program took over half a second to
# get to its handler.) The scene comes from a FIFO this script holds open until the signal
# has been dealt with: `(sleep 5) |` ended the scene after 5 s, and a busy machine that
# took 4 s to reach the handler then signalled a run past its read, or an empty scene.
mkfifo early.in
exec 7<>early.in
"$ROCKPOOL" - -o early.mp4 <early.in 7>&- 2>early.err &
pid=$!
for _ in $(seq 3000); do catches $pid 2 && break; kill -0 $pid 2>/dev/null || break; sleep 0.01; done
sleep 0.2
kill -INT $pid
wait $pid
status=$?
exec 7>&-
check "SIGINT before the output exists exits 130" test "$status" = 130
check "SIGINT before the output exists creates nothing" test ! -e early.mp4

# MP4 and MOV carry their index at the front (faststart) and no muxer version or date.
for ext in mp4 mov; do
    "$ROCKPOOL" "$scene" "${small[@]}" -c libx264 -o "fs.$ext" || bad "$ext render"
    check "$ext: moov before mdat" python3 -c "
import sys; d = open('fs.$ext', 'rb').read()
sys.exit(0 if 0 <= d.find(b'moov') < d.find(b'mdat') else 1)"
    check "$ext: no encoder tag" sh -c "! ffprobe -v error -show_entries format_tags=encoder \
        -of csv=p=0 fs.$ext | grep -q ."
done

# A PNG sequence that fails partway (a video background that cannot be decoded at 0.8 s:
# exit 2; a file-size limit: exit 1) leaves the frames it found as they were, -y or not:
# the frames it replaced come back, the new ones go, and its frame and AOV sequences
# both. (Before, a failed run removed the frames it had written over, old files and all.)
ffmpeg -v error -f lavfi -i testsrc=s=64x36:r=30:d=2 -c:v libx264 -pix_fmt yuv420p \
    -movflags +faststart -y clip.mp4
cp clip.mp4 broken.mp4
python3 -c "
import sys; d = bytearray(open('broken.mp4', 'rb').read()); k = len(d) * 7 // 10
d[k:k + 64] = b'\xff' * 64; open('broken.mp4', 'wb').write(d)"
mkdir -p keep
for f in p_000 p_001 h_000 h_005; do echo "mine $f" >"keep/$f.png"; done
expect_status "a PNG sequence over a background broken at 0.8 s: exit 2" 2 "$ROCKPOOL" \
    "$scene" -q -s 64x36 -n 60 -i broken.mp4 -y -o 'keep/p_%03d.png' --aov height 'keep/h_%03d.png'
check "the failed run: the frames it replaced are back, its own gone" test \
    "$(cd keep && for f in *; do printf '%s=%s ' "$f" "$(cat "$f" 2>/dev/null | head -c 20)"; done)" \
    = "h_000.png=mine h_000 h_005.png=mine h_005 p_000.png=mine p_000 p_001.png=mine p_001 "
check "the failed run: nothing aside left" test -z "$(find keep -name '.*')"
( ulimit -f 40; "$ROCKPOOL" "$scene" -q -s 320x180 -n 12 -y -o 'keep/p_%03d.png' ) 2>fs.err
check "a PNG sequence past a file-size limit: the frames it replaced are back" test \
    "$(cat keep/p_000.png keep/p_001.png | tr '\n' ' ')" = "mine p_000 mine p_001 "
check "past the file-size limit: nothing else left" test "$(ls -A keep | wc -l)" = 4
expect_status "a PNG sequence with -y that succeeds: exit 0" 0 "$ROCKPOOL" "$scene" -q -s 64x36 \
    -n 3 -y -o 'keep/p_%03d.png'
check "the run that succeeded: its frames replaced the old ones, nothing aside left" test \
    "$(ls -A keep | tr '\n' ' ')" = "h_000.png h_005.png p_000.png p_001.png p_002.png " -a \
    "$(head -c 4 keep/p_001.png | tail -c 3)" = PNG

# Frames replaced where they are written in place (a name in /dev, such as /dev/shm) have
# no aside and are written as before (the aside name there was the frame's own: the frame
# was removed and the run failed); symbolic links at frame names with -y are replaced, their
# targets untouched, and nothing is left aside.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
    shm=$(mktemp -d /dev/shm/rockpool-test.XXXXXX)
    for j in 1 2; do
        for f in 0 1 2; do echo mine >"$shm/p_00$f.png"; done
        expect_status "-y over frames in /dev/shm, -j $j: exit 0" 0 "$ROCKPOOL" "$scene" -q \
            -s 64x36 -n 3 -j $j -y -o "$shm/p_%03d.png"
        check "-y over frames in /dev/shm, -j $j: three PNGs there, nothing else" test \
            "$(for f in "$shm"/* "$shm"/.*; do [ -f "$f" ] && head -c 4 "$f" | tail -c 3; done)" \
            = PNGPNGPNG
    done
    rm -rf "$shm"
fi
mkdir -p links
echo target >links-target
ln -s ../links-target links/p_000.png
ln -s nowhere links/p_001.png
expect_status "-y over symbolic links at frame names: exit 0" 0 "$ROCKPOOL" "$scene" -q \
    -s 64x36 -n 2 -y -o 'links/p_%03d.png'
check "-y over symbolic links: two PNG files, nothing aside, the target untouched" test \
    "$(ls -A links | tr '\n' ' ')" = "p_000.png p_001.png " -a ! -L links/p_000.png -a \
    "$(cat links-target)" = target
