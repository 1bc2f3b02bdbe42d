# untrusted_inputs.sh - inputs rockpool did not make: it must never crash, hang, corrupt a
# file that exists, or eat the machine. The table tests/hostile/cases.txt (format described
# at its top) is run case by case, each twice: in an empty directory (exit status, message,
# nothing created) and over decoy outputs with -y (same status, decoys byte-identical).
# Then the cases a table cannot say: an existing output without -y, full disks, FIFOs,
# a closed stdout, SIGTERM during a render.
source "$(dirname "$0")/lib.sh"

HOSTILE=$TOP/tests/hostile
GEN=$WORK/gen
LIMIT=${HOSTILE_TIMEOUT:-30} # seconds per run: a hang fails (timeout's 124), never stalls
mkdir -p "$GEN"

# ---- Generated inputs (@G in the table) ----
mkfifo "$GEN/fifo.png"                       # no writer: opening it blocking would hang
mkdir -p "$GEN/dir.mp4"                      # a directory named like a video
echo "a file, not a directory" >"$GEN/afile" # used as a PNG pattern's parent
truncate -s 70M "$GEN/sparse-70M.scene"      # over the 64 MiB scene limit, costs no disk
head -c 1048576 /dev/zero | tr '\0' 'x' >"$GEN/long-line.scene"
{ printf 'size 32x32\nduration '; head -c 1048576 /dev/zero | tr '\0' '9'; printf 'f\n'; } \
    >"$GEN/long-number.scene"
{ printf '# '; head -c 1048576 /dev/zero | tr '\0' '#'; printf '\nsize 32x32\nduration 4f\n'; } \
    >"$GEN/long-comment.scene"
{ yes '# ten megabytes of comments, one line after another, and nothing else' |
    head -c 10485760; printf '\nsize 32x32\nduration 4f\nat 0s drop 5 5 radius 2 height 90\n'; } \
    >"$GEN/comments-10M.scene"
ffmpeg -v error -f lavfi -i testsrc=size=32x32:rate=5 -frames:v 3 -c:v mpeg4 "$GEN/video.mp4"

# Decoys for the second run of each case: every output name the table uses.
DECOYS="rockpool.mp4 out.mp4 out.mkv out.y4m out.txt seq/f_0.png seq/f_1.png seq/f_2.png
heights.bin state.bin"
make_decoys() {
    mkdir -p seq
    for f in $DECOYS; do printf 'decoy %s, must survive a failed run\n' "$f" >"$f"; done
}
# Every path and every file's MD5 under the current directory.
snapshot() {
    find . -print | LC_ALL=C sort
    find . -type f -exec md5sum {} + | LC_ALL=C sort -k 2
}

# has NAME FRAGMENT [STATUS]: stderr of the last run has FRAGMENT (stdout too when the
# wanted STATUS is 0).
has() {
    if grep -qF -- "$2" "$WORK/err" || { [ "${3:-1}" = 0 ] && grep -qF -- "$2" "$WORK/out"; }
    then ok "$1"; else
        bad "$1 (output lacks '$2')"
        sed 's/^/    /' "$WORK/err" | head -5
    fi
}

# run_case STATUS FRAGMENT ARGS-TEXT
run_case() {
    local want=$1 frag=$2 text=$3 name input=/dev/null word
    local -a words args=()
    read -r -a words <<<"$text"
    for word in "${words[@]}"; do
        word=${word//@H/$HOSTILE}
        word=${word//@G/$GEN}
        case $word in
        \<*) input=${word#<} ;;
        *) args+=("$word") ;;
        esac
    done
    name="hostile: ${text:0:70}"
    local dir=$WORK/case
    rm -rf "$dir" && mkdir "$dir" && cd "$dir" || return

    expect_status "$name: exit $want" "$want" \
        timeout -k 5 "$LIMIT" "$ROCKPOOL" "${args[@]}" <"$input"
    has "$name: message" "$frag" "$want"
    if [ -z "$(ls -A)" ]; then ok "$name: nothing created"; else
        bad "$name: nothing created (found: $(ls -A | tr '\n' ' '))"
    fi

    cd "$WORK" && rm -rf "$dir" && mkdir "$dir" && cd "$dir" || return
    make_decoys
    local before
    before=$(snapshot)
    expect_status "$name: -y over existing files: exit $want" "$want" \
        timeout -k 5 "$LIMIT" "$ROCKPOOL" -y "${args[@]}" <"$input"
    if [ "$(snapshot)" = "$before" ]; then ok "$name: existing files untouched"; else
        bad "$name: existing files untouched"
        diff <(echo "$before") <(snapshot) | sed 's/^/    /' | head -5
    fi
    cd "$WORK" && rm -rf "$dir"
}

ncases=0
while IFS= read -r line; do
    case $line in
    '#BUG '*) [ "${HOSTILE_BUGS:-0}" = 1 ] || continue; line=${line#\#BUG } ;;
    '#'* | '') continue ;;
    esac
    IFS='|' read -r st frag args <<<"$line"
    st=${st// /}
    frag=${frag# }
    frag=${frag% }
    args=${args# }
    if [ -z "$st" ] || [ -z "$frag" ] || [ -z "$args" ]; then
        bad "cases.txt: malformed line: $line"
        continue
    fi
    run_case "$st" "$frag" "$args"
    ncases=$((ncases + 1))
done <"$HOSTILE/cases.txt"
check "hostile: the table has at least 40 cases ($ncases)" test "$ncases" -ge 40

# ---- Cases a table cannot say ----
cd "$WORK" || exit 1
mkdir -p special && cd special || exit 1

# An existing output without -y: refused, left byte-identical (video, PNG frame, heights).
make_decoys
before=$(snapshot)
expect_status "existing out.mp4 without -y: exit 2" 2 "$ROCKPOOL" -q -s 32x32 -n 2 -o out.mp4
stderr_has "existing out.mp4 without -y: message" "already exists"
expect_status "existing PNG frame without -y: exit 2" 2 "$ROCKPOOL" -q -s 32x32 -n 2 \
    -o seq/f_%d.png
expect_status "existing --dump-heights file without -y: exit 2" 2 "$ROCKPOOL" -q -s 32x32 -n 2 \
    -o fresh.mp4 --dump-heights heights.bin
check "existing outputs without -y: all byte-identical, nothing added" \
    test "$(snapshot)" = "$before"
cd "$WORK" && rm -rf special && mkdir special && cd special || exit 1

# Disk full on stdout: Y4M, framemd5, and --hash next to a video (which must not be kept).
# (Only the command's stdout is redirected, in these wrappers, not the test's own output.)
to_full() { "$@" >/dev/full; }
closed_stdout() { "$@" >&-; }
expect_status "-o - to /dev/full: exit 1" 1 to_full "$ROCKPOOL" -q -s 32x32 -n 2 -o -
stderr_has "-o - to /dev/full: message" "No space left on device"
expect_status "framemd5 to /dev/full: exit 1" 1 to_full "$ROCKPOOL" -q -s 32x32 -n 2 \
    -f framemd5 -o -
expect_status "--hash to /dev/full: exit 1" 1 to_full "$ROCKPOOL" -q -s 32x32 -n 2 --hash \
    -o out.mp4
check "--hash to /dev/full: no video left" test -z "$(ls -A)"

# A closed stdout: EBADF, not a crash.
expect_status "-o - with stdout closed: exit 1" 1 closed_stdout "$ROCKPOOL" -q -s 32x32 -n 2 -o -

# A full filesystem: a 64 KiB tmpfs (root only; skipped with a note otherwise).
TINY=$WORK/tiny
mkdir -p "$TINY"
if mount -t tmpfs -o size=64k tmpfs "$TINY" 2>/dev/null; then
    # (about 250 KiB on a disk with room: four times the filesystem; at 640x480 the
    # smoother water of the refraction's footprint came to 54 KiB, which fitted)
    expect_status "full disk, mp4: exit 1" 1 "$ROCKPOOL" -q "$TOP/examples/rain.scene" \
        -s 1280x960 -n 60 -o "$TINY/out.mp4"
    stderr_has "full disk, mp4: message" "No space left on device"
    check "full disk, mp4: nothing left" test -z "$(ls -A "$TINY")"
    rm -rf "${TINY:?}"/*
    expect_status "full disk, PNG: exit 1" 1 "$ROCKPOOL" -q "$TOP/examples/rain.scene" \
        -s 320x240 -n 30 -o "$TINY/seq/f_%03d.png"
    check "full disk, PNG: no temporary file left" \
        test -z "$(find "$TINY" -type f ! -name 'f_[0-9][0-9][0-9].png')"
    # a failed run removes the frames it finished and the directory it made (rockpool(1)
    # FILES), so no complete-looking part of the sequence is left
    check "full disk, PNG: no frame and no directory left" test -z "$(ls -A "$TINY")"
    rm -rf "${TINY:?}"/*
    expect_status "full disk, --dump-heights: exit 1" 1 "$ROCKPOOL" -q -s 320x240 -n 30 \
        -f framemd5 -o out.txt --dump-heights "$TINY/h.bin"
    check "full disk, --dump-heights: nothing left" test -z "$(ls -A "$TINY")"
    check "full disk, --dump-heights: no framemd5 left" test ! -e out.txt
    umount "$TINY"
else
    bad "full-filesystem cases: cannot mount a tmpfs here (run as root)"
fi

# SCENE from a FIFO with a writer, and from process substitution (also a FIFO or pipe).
printf 'size 32x32\nduration 4f\nat 0s drop 5 5 radius 2 height 90\n' >small.scene
mkfifo scene.fifo
timeout 30 cat small.scene >scene.fifo &
writer=$!
expect_status "SCENE is a FIFO with a writer: --check works" 0 \
    timeout -k 5 "$LIMIT" "$ROCKPOOL" scene.fifo --check
wait $writer
has "SCENE is a FIFO: summary" "size:       32x32" 0
expect_status "SCENE is <(process substitution): renders" 0 \
    timeout -k 5 "$LIMIT" "$ROCKPOOL" -q <(cat small.scene) -f framemd5 -o sub.txt
check "SCENE is <(...): 4 frame lines" test "$(grep -vc '^#' sub.txt)" = 4

# Output into a FIFO we made (written in place, never renamed over).
mkfifo out.fifo
timeout 30 cat out.fifo >fifo.y4m &
reader=$!
expect_status "Y4M into a FIFO with a reader: exit 0" 0 \
    timeout -k 5 "$LIMIT" "$ROCKPOOL" -q -s 32x32 -n 3 -f y4m -o out.fifo
wait $reader
check "Y4M into a FIFO: still a FIFO, the reader got YUV4MPEG2" \
    sh -c 'test -p out.fifo && head -c 9 fifo.y4m | grep -q YUV4MPEG2'
rm -f out.fifo fifo.y4m

# SIGTERM during a render: exit 143, the video finished and playable with the frames said;
# a PNG sequence keeps whole frames only.
# rendering PID TEST...: wait until PID catches SIGTERM (bit 15 of SigCgt) and TEST holds:
# a fixed 2 s could signal a sanitizer build on a busy machine before either (SIGTERM is
# not ignored in a background job: the run then dies without its message or its file).
rendering() {
    local pid=$1
    shift
    for _ in $(seq 1200); do
        catches "$pid" 15 && "$@" >/dev/null 2>&1 && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.05
    done
}
"$ROCKPOOL" -q "$TOP/examples/rain.scene" -s 320x240 -n 100000 -o term.mkv --progress-fd 3 \
    3>term.progress 2>term.err &
pid=$!
rendering "$pid" grep -q '^frame=[1-9]' term.progress
kill -TERM "$pid"
wait "$pid"
check "SIGTERM during a video render: exit 143" test $? -eq 143
held=$(sed -n 's/.*holds \([0-9]*\) frames.*/\1/p' term.err)
check "SIGTERM: says how many frames ($held)" test -n "$held"
check "SIGTERM: ffprobe reads the video with those frames" \
    test "$(probe term.mkv nb_read_frames 2>/dev/null)" = "${held:-x}"
"$ROCKPOOL" -q "$TOP/examples/rain.scene" -s 320x240 -n 100000 -o seq/f_%06d.png 2>term.err &
pid=$!
rendering "$pid" compgen -G 'seq/f_*.png'
kill -TERM "$pid"
wait "$pid"
check "SIGTERM during a PNG render: exit 143" test $? -eq 143
check "SIGTERM, PNG: no temporary file left" test -z "$(find seq -type f ! -name 'f_*.png')"
held=$(sed -n 's/.*holds \([0-9]*\) frames.*/\1/p' term.err)
check "SIGTERM, PNG: as many frames as said ($held)" \
    test "$(find seq -name 'f_*.png' | wc -l)" = "${held:-x}"
last=$(find seq -name 'f_*.png' | LC_ALL=C sort | tail -n 1)
check "SIGTERM, PNG: the last frame decodes" \
    test "$(probe "$last" width 2>/dev/null)" = 320
cd "$WORK" || exit 1

# A wall mask that is missing or not an image is reported at its statement, like the sky.
printf 'size 48x32\nduration 3f\n# a comment\nat 0f wall mask nothere.png\n' >missing-mask.scene
printf 'garbage' >garbage.png
printf 'size 48x32\nduration 3f\nat 0f wall mask garbage.png\n' >garbage-mask.scene
expect_status "missing wall mask: exit 2" 2 "$ROCKPOOL" --check missing-mask.scene
stderr_has "missing wall mask: at its line and column" \
    "missing-mask.scene:4:17: error: cannot read wall mask 'nothere.png'"
expect_status "wall mask that is not an image: exit 2" 2 "$ROCKPOOL" --check garbage-mask.scene
stderr_has "wall mask that is not an image: at its line and column" \
    "garbage-mask.scene:3:17: error: cannot decode image 'garbage.png'"

# Terminal escapes in a scene's paths are never echoed raw: not in errors, not in --check.
printf 'size 48x32\nduration 3f\nbackground "x\033[31mred.png"\n' >esc-bg.scene
printf 'size 48x32\nduration 3f\nat 0f wall mask "y\033]0;title\007.png"\n' >esc-mask.scene
ffmpeg -v error -y -f lavfi -i color=white:size=48x32 -frames:v 1 "$(printf 'w\033[5mw.png')"
printf 'size 48x32\nduration 3f\nbackground "w\033[5mw.png"\n' >esc-ok.scene
for s in esc-bg esc-mask; do
    expect_status "$s: exit 2" 2 "$ROCKPOOL" --check $s.scene
    check "$s: no control byte in the message" sh -c '! LC_ALL=C grep -q "[[:cntrl:]]" "$0"' \
        "$WORK/err"
done
expect_status "esc-ok: --check exit 0" 0 "$ROCKPOOL" --check esc-ok.scene
check "esc-ok: no escape byte in the summary" sh -c '! LC_ALL=C grep -q "$(printf "\033")" "$0"' \
    "$WORK/out"

# A background the scene names that is missing or not a picture: exit 2 at the scene's
# file:line:col (the path's column), nothing written; -i's are reported without a place.
printf 'size 160x96\nduration 4f\nbackground nosuch.png\n' >bgmiss.scene
expect_status "a missing scene background: exit 2" 2 "$ROCKPOOL" bgmiss.scene -o bgmiss.mp4
stderr_has "a missing scene background: at bgmiss.scene:3:12" "bgmiss.scene:3:12: error: cannot open 'nosuch.png': No such file"
check "a missing scene background: nothing written" test ! -e bgmiss.mp4
# a missing clip is not called an image (it may be a video: nothing says which)
expect_status "a missing -i clip.mp4: exit 2" 2 "$ROCKPOOL" -i nosuch.mp4 -n 2 -s 64x64 -o bgmiss.mp4
stderr_has "a missing -i clip.mp4: said as missing" "error: cannot open 'nosuch.mp4': No such file"
check "a missing -i clip.mp4: not called an image" sh -c '! grep -q "image" "$0"' "$WORK/err"
check "a missing -i clip.mp4: nothing written" test ! -e bgmiss.mp4
printf 'size 160x96\nduration 4f\nbackground "bgmiss.scene"\n' >bgtext.scene
expect_status "a scene background that is text: exit 2" 2 "$ROCKPOOL" bgtext.scene -s 160x96 -o bgmiss.mp4
stderr_has "a scene background that is text: at bgtext.scene:3:12" "bgtext.scene:3:12: error:"
