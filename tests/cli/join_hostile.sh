#!/usr/bin/env bash
# join_hostile.sh - rockpool-join on chunks made to hurt it. A framemd5 chunk whose
# rockpool_frames tag claims 10^15 frames is refused at once, naming it (exit 2, a few
# milliseconds, under a 1 GB memory limit): the claim is checked against the frame lines it
# holds before any list of its range is built. Video chunks whose path holds a line break
# (which FFmpeg's concat list cannot name) are refused up front, naming them, nothing
# written; framemd5 and PNG joins take such names as they are. A chunk with bytes damaged
# (flipped in the middle of an MP4, an FFV1 MKV or a PNG frame) is refused by name (exit 2),
# and a joined file damaged after the concat is never placed (exit 1).
source "$(dirname "$0")/lib.sh"

J=$TOP/scripts/rockpool-join
printf 'size 64x36\nfps 30\nat 0s drop 50%% 50%% radius 6 height 900\n' >s.scene
"$ROCKPOOL" -q s.scene -n 6 -f framemd5 -o full.md5
"$ROCKPOOL" -q s.scene -n 6 --start 0 --end 3 -f framemd5 -o c0.md5
"$ROCKPOOL" -q s.scene -n 6 --start 3 --end 6 -f framemd5 -o c1.md5

# nothing_written NAME OUTPUT: OUTPUT does not exist, and no work directory was left.
nothing_written() {
    if [ ! -e "$2" ] && [ -z "$(find . -name '.rockpool-join.*' -print -quit)" ]; then
        ok "$1: nothing written"
    else
        bad "$1: $2 or a work directory was left"
    fi
}

# bounded NAME STATUS ARGS...: rockpool-join ARGS under a 1 GB address-space limit and a
# 20 s timeout exits STATUS within 15 s (a loop over a forged count would take hours; the
# margin is for a loaded machine running the sanitizer build beside other tests).
bounded() {
    local name=$1 want=$2 t0 ms
    shift 2
    t0=$(date +%s%N)
    expect_status "$name: exit $want" "$want" \
        bash -c 'ulimit -v 1000000 && exec timeout 20 "$@"' rockpool-join "$J" "$@"
    ms=$((($(date +%s%N) - t0) / 1000000))
    if [ "$ms" -lt 15000 ]; then ok "$name: done in $ms ms"; else bad "$name: took $ms ms"; fi
}

# ---- forged rockpool_frames tags in framemd5 chunks ----
huge='#rockpool_frames: 0-999999999999998/999999999999999'
{ echo "$huge"; cat c0.md5; } >h0.md5
bounded "--check, chunk 0 claims 10^15 frames" 2 --check h0.md5 c1.md5
stderr_has "... names the chunk" "chunk 0 (h0.md5)"
stderr_has "... says what its tag claims against what it holds" \
    "claims the 999999999999999 frames 0-999999999999998, but it holds 3 frame lines"
bounded "join, chunk 0 claims 10^15 frames" 2 -o j.md5 h0.md5 c1.md5
stderr_has "... names the chunk" "chunk 0 (h0.md5)"
nothing_written "join, chunk 0 claims 10^15 frames" j.md5
bounded "--check --range, the chunk claims 10^15 frames" 2 --check --range 0-2/6 h0.md5
stderr_has "... names the chunk" "(h0.md5)"
{ echo '#rockpool_frames: 3-999999999999998/999999999999999'; cat c1.md5; } >h1.md5
bounded "join, chunk 1 claims 10^15 frames" 2 --frames 6 -o j.md5 c0.md5 h1.md5
stderr_has "... names the chunk" "chunk 1 (h1.md5)"
nothing_written "join, chunk 1 claims 10^15 frames" j.md5
{ echo '#rockpool_frames: 5-2/6'; cat c0.md5; } >back.md5
bounded "a tag whose last frame is before its first" 2 --check --range 5-2/6 back.md5
stderr_has "... names the chunk and says so" "(back.md5): its rockpool_frames tag '5-2/6' claims no frames"
{ echo '#rockpool_frames: 0-2/6'; cat c1.md5; } >other.md5
bounded "a tag of the right count over other frames" 2 --check --range 0-2/6 other.md5
stderr_has "... names the chunk" "chunk 0 (other.md5) does not hold exactly frames 0-2"
# A true tag is taken (the whole clip in one tagged chunk joins to the single run's lines).
{ echo '#rockpool_frames: 0-2/6'; cat c0.md5; } >t0.md5
bounded "--check --range of a true tag" 0 --check --frames 6 --range 0-2/6 t0.md5
{ echo '#rockpool_frames: 0-5/6'; cat full.md5; } >tfull.md5
bounded "join of one chunk with a true tag" 0 --frames 6 -o t.md5 tfull.md5
check "... its frame lines are the single run's" cmp -s <(grep -v '^#' t.md5) <(grep -v '^#' full.md5)
bounded "untagged chunks still join" 0 --frames 6 -o u.md5 c0.md5 c1.md5
check "... to the single run's manifest" cmp -s u.md5 full.md5

# ---- names with a line break ----
nl=$'v\n0.mp4'
"$ROCKPOOL" -q s.scene -n 6 --start 0 --end 3 -o v0.mp4
"$ROCKPOOL" -q s.scene -n 6 --start 3 --end 6 -o v1.mp4
cp v0.mp4 "$nl" && cp v0.mp4 $'v\r0.mp4'
expect_status "video join, a chunk named with a newline: exit 2" 2 "$J" -o j.mp4 "$nl" v1.mp4
stderr_has "... names the chunk" "chunk 0 (\$'v\\n0.mp4')"
stderr_has "... says why" "its path holds a line break, which FFmpeg's concat list cannot name"
check "... not FFmpeg's error" sh -c '! grep -q "unknown keyword" err'
nothing_written "video join, a chunk named with a newline" j.mp4
expect_status "video join, chunk 1 named with a newline: exit 2" 2 "$J" -o j.mp4 v0.mp4 "$nl"
stderr_has "... names it as chunk 1" "chunk 1 (\$'v\\n0.mp4')"
nothing_written "video join, chunk 1 named with a newline" j.mp4
expect_status "video --check, a chunk named with a newline: exit 2" 2 "$J" --check "$nl" v1.mp4
stderr_has "... names the chunk" "chunk 0 (\$'v\\n0.mp4')"
expect_status "video join, a chunk named with a carriage return: exit 2" 2 "$J" -o j.mp4 \
    $'v\r0.mp4' v1.mp4
stderr_has "... names the chunk" "chunk 0 (\$'v\\r0.mp4')"
nothing_written "video join, a chunk named with a carriage return" j.mp4
mkdir $'d\nx' && cp v0.mp4 v1.mp4 $'d\nx/'
expect_status "video join, a chunk in a directory named with a newline: exit 2" 2 "$J" \
    -o j.mp4 $'d\nx/v0.mp4' v1.mp4
stderr_has "... names the chunk" "chunk 0 (\$'d\\nx/v0.mp4')"
nothing_written "video join, a chunk in a directory named with a newline" j.mp4
# shellcheck disable=SC2016 # $1 and $2 are the inner shell's
expect_status "video join from a directory named with a newline: exit 2" 2 \
    bash -c 'cd "$1" && exec "$2" -o j.mp4 v0.mp4 v1.mp4' - $'d\nx' "$J"
stderr_has "... names the chunk" "chunk 0 (v0.mp4): its path holds a line break"
check "... nothing written there" test ! -e $'d\nx/j.mp4'
expect_status "video join, the same chunks named plainly: exit 0" 0 "$J" -o j.mp4 v0.mp4 v1.mp4
check "... all 6 frames" test "$(probe j.mp4 nb_read_frames)" = 6

cp c0.md5 $'m\n0.md5'
expect_status "framemd5 join, a chunk named with a newline: exit 0" 0 "$J" --frames 6 \
    -o $'j\n.md5' $'m\n0.md5' c1.md5
check "... to the single run's manifest" cmp -s $'j\n.md5' full.md5

# PNG chunks joined into a directory whose name ends with a newline: the frames go there,
# not into the directory of the name without it.
"$ROCKPOOL" -q s.scene -n 6 --start 0 --end 3 -o p0/f_%02d.png
"$ROCKPOOL" -q s.scene -n 6 --start 3 --end 6 -o p1/f_%02d.png
mkdir o $'o\n'
expect_status "PNG join into 'o<newline>/': exit 0" 0 "$J" -o $'o\n/f_%02d.png' p0 p1
check "... its 6 frames there" test "$(find $'o\n' -name 'f_0[0-5].png' -printf x)" = xxxxxx
check "... none in 'o'" test -z "$(ls -A o)"

# Names that begin with '-' (after --) are names, never grep's, sed's or ffmpeg's options.
cp c0.md5 ./-c0.md5
cp c1.md5 ./-c1.md5
expect_status "framemd5 join of chunks named -c0.md5, -c1.md5 into -j.md5: exit 0" 0 "$J" \
    --frames 6 -o -j.md5 -- -c0.md5 -c1.md5
check "... to the single run's manifest" cmp -s ./-j.md5 full.md5
"$ROCKPOOL" -q s.scene -n 6 --start 0 --end 3 -c ffv1 -o ./-v0.mkv
"$ROCKPOOL" -q s.scene -n 6 --start 3 --end 6 -c ffv1 -o ./-v1.mkv
expect_status "video join of chunks named -v0.mkv, -v1.mkv into -j.mkv: exit 0" 0 "$J" \
    -o -j.mkv -- -v0.mkv -v1.mkv
check "... all 6 frames" test "$(probe ./-j.mkv nb_read_frames)" = 6

# ---- chunks of other settings, rendered without --job-id=LINE ----
# A range rendered by rockpool alone carries its own job line (as --job-id prints it), so
# a chunk over another background or of another strength, which the other tags (scene,
# seed, preset, version) do not tell apart, is refused by name, nothing written.
job_of() { "$ROCKPOOL" s.scene -n 6 "$@" --job-id | sed -n 's/^job: *//p'; }
tag_of() { ffprobe -v error -show_entries format_tags=rockpool_job -of default=nw=1:nk=1 "$1"; }
"$ROCKPOOL" -q s.scene -n 6 -c ffv1 -o fv.mkv
"$ROCKPOOL" -q s.scene -n 6 --start 0 --end 3 -c ffv1 -o f0.mkv
"$ROCKPOOL" -q s.scene -n 6 --start 3 --end 6 -c ffv1 -o f1.mkv
"$ROCKPOOL" -q s.scene -n 6 --frame-range 3-5 -c ffv1 -i "$TOP/examples/island.png" -o bg1.mkv
"$ROCKPOOL" -q s.scene -n 6 --frame-range 3-5 -c ffv1 --strength 2 -o st1.mkv
check "a chunk's tag is its job line, as --job-id prints it (with -f mkv -c ffv1)" \
    test "$(tag_of f1.mkv)" = "$(job_of -f mkv -c ffv1)"
check "... and the other background's is its own" \
    test "$(tag_of bg1.mkv)" = "$(job_of -f mkv -c ffv1 -i "$TOP/examples/island.png")"
expect_status "video join of the chunks of one job: exit 0" 0 "$J" -o fj.mkv f0.mkv f1.mkv
check "... its frames are the single run's (framemd5)" cmp -s \
    <(ffmpeg -v error -i fj.mkv -f framemd5 - | grep -v '^#') \
    <(ffmpeg -v error -i fv.mkv -f framemd5 - | grep -v '^#')
expect_status "video join, chunk 1 over another background: exit 2" 2 "$J" -o b.mkv f0.mkv bg1.mkv
stderr_has "... names the chunk and what differs" \
    "chunk 1 (bg1.mkv) is of another job, which differs in: inputs (background"
nothing_written "video join, chunk 1 over another background" b.mkv
expect_status "video join, chunk 1 of another strength: exit 2" 2 "$J" -o b.mkv f0.mkv st1.mkv
stderr_has "... names the chunk and what differs" \
    "chunk 1 (st1.mkv) is of another job, which differs in: options"
nothing_written "video join, chunk 1 of another strength" b.mkv
"$ROCKPOOL" -q s.scene -n 6 --start 3 --end 6 --strength 2 -f framemd5 -o st1.md5
expect_status "framemd5 join, chunk 1 of another strength: exit 2" 2 "$J" --frames 6 \
    -o b.md5 c0.md5 st1.md5
stderr_has "... names the chunk" "chunk 1 (st1.md5) is of another job, which differs in: options"
nothing_written "framemd5 join, chunk 1 of another strength" b.md5
"$ROCKPOOL" -q s.scene -n 6 --start 0 --end 3 -o sp0/f_%02d.png
"$ROCKPOOL" -q s.scene -n 6 --start 3 --end 6 --strength 2 -o sp1/f_%02d.png
mkdir sp
expect_status "PNG join, chunk 1 of another strength: exit 2" 2 "$J" -o sp/f_%02d.png sp0 sp1
stderr_has "... names the chunk" "chunk 1 (sp1) is of another job, which differs in: options"
check "... nothing placed" test -z "$(ls -A sp)"

# ---- a join that cannot write its result (a file size limit, as a full disk) ----
# FFmpeg 5 exits 0 when it cannot write the trailer: the short result is refused, and the
# message is FFmpeg's own reason, not a chunk's fault; the manifest join says so too.
# limited KB ARGS...: rockpool-join ARGS with the files it writes limited to KB kilobytes
# (EFBIG, not SIGXFSZ); its stderr goes through a pipe to a process without the limit.
limited() {
    local kb=$1
    shift
    # shellcheck disable=SC2016 # $1 and $@ are the inner shell's
    bash -c 'set -o pipefail; trap "" XFSZ; (ulimit -f "$1"; shift; exec "$@") 2>&1 >/dev/null | cat >&2' \
        - "$kb" "$J" "$@"
}
check "(the ffv1 chunks are larger than 1 KB)" test "$(stat -c %s f0.mkv)" -gt 1024
expect_status "video join under a 1 KB file size limit: exit 1" 1 limited 1 -o big.mkv f0.mkv f1.mkv
stderr_has "... FFmpeg's reason" "File too large"
stderr_has "... says ffmpeg failed writing" "ffmpeg reported the errors above while joining (a full disk"
nothing_written "video join under a file size limit" big.mkv
expect_status "framemd5 join under a 0 KB file size limit: exit 1" 1 limited 0 --frames 6 \
    -o big.md5 c0.md5 c1.md5
stderr_has "... says the manifest could not be written" \
    "the joined manifest could not be written in . (a full disk or a file size limit?)"
nothing_written "framemd5 join under a file size limit" big.md5
expect_status "video join under a 0 KB file size limit: exit 1" 1 limited 0 -o big.mkv f0.mkv f1.mkv
stderr_has "... says it cannot write" "cannot write in . (a full disk?): nothing written"
nothing_written "video join under a 0 KB file size limit" big.mkv

# ---- damaged chunks: bytes flipped in storage or transfer ----
# Each chunk is refused by name (exit 2) before anything is written, when FFmpeg itself
# (checked here first, independently) reports the damage; the undamaged chunks join.
# flip FILE OFFSET: 8 bytes at OFFSET overwritten with others (each byte inverted).
flip() {
    local b out=""
    for b in $(od -An -tu1 -j "$2" -N 8 "$1"); do out+=$(printf '\\x%02x' $((255 - b))); done
    # shellcheck disable=SC2059 # the bytes, as printf escapes
    printf "$out" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
ffmpeg_errors() { ffmpeg -nostdin -v error -err_detect +crccheck -i "$1" -f null - 2>&1 | grep -c .; }
"$ROCKPOOL" -q s.scene -n 24 -s 160x120 --start 0 --end 12 --encoder-preset ultrafast -o d0.mp4
"$ROCKPOOL" -q s.scene -n 24 -s 160x120 --start 12 --end 24 --encoder-preset ultrafast -o d1.mp4
"$ROCKPOOL" -q s.scene -n 24 -s 160x120 --start 0 --end 12 -c ffv1 -o d0.mkv
"$ROCKPOOL" -q s.scene -n 24 -s 160x120 --start 12 --end 24 -c ffv1 -o d1.mkv
# (FFV1's slice CRCs report any damage; H.264 conceals some without a word, so the MP4 is
# damaged from its middle on, 97 bytes further each time, until FFmpeg sees it)
for e in mp4 mkv; do
    for ((off = $(stat -c %s d1.$e) / 2, tries = 0; tries < 40; off += 97, tries++)); do
        cp d1.$e bad1.$e
        flip bad1.$e $off
        [ "$(ffmpeg_errors bad1.$e)" = 0 ] || break
    done
    # shellcheck disable=SC2016 # $1..$3 are the inner shell's
    check "$e: the damaged copy differs from the chunk, and FFmpeg reports the damage" \
        sh -c '! cmp -s "$1" "$2" && [ "$3" -gt 0 ]' - d1.$e bad1.$e "$(ffmpeg_errors bad1.$e)"
    expect_status "$e join, chunk 1 damaged: exit 2" 2 "$J" -o dj.$e d0.$e bad1.$e
    stderr_has "... names the chunk" "chunk 1 (bad1.$e) is damaged: FFmpeg cannot decode it cleanly"
    nothing_written "$e join, chunk 1 damaged" dj.$e
    expect_status "$e --check --range of the damaged chunk: exit 2" 2 "$J" --check \
        --range 12-23/24 bad1.$e
    expect_status "$e join of the undamaged chunks: exit 0" 0 "$J" -o dj.$e d0.$e d1.$e
    check "... all 24 frames" test "$(probe dj.$e nb_read_frames)" = 24
done
# PNG: a damaged frame, the first the directory lists (the one whose tags are read), and
# one in the middle; the frame is named, nothing moves.
"$ROCKPOOL" -q s.scene -n 8 --start 0 --end 4 -o q0/f_%02d.png
"$ROCKPOOL" -q s.scene -n 8 --start 4 --end 8 -o q1/f_%02d.png
mkdir qo
for at in first middle; do
    rm -rf qbad && cp -r q1 qbad
    if [ $at = first ]; then f=$(find qbad -mindepth 1 -maxdepth 1 -type f -print -quit); else f=qbad/f_05.png; fi
    for off in 40 $(($(stat -c %s "$f") / 2)); do
        cp "q1/${f#qbad/}" "$f"
        flip "$f" "$off"
        check "PNG: $f damaged at $off: FFmpeg reports it" test "$(ffmpeg_errors "$f")" -gt 0
        expect_status "PNG join, $at frame of chunk 1 damaged at byte $off: exit 2" 2 "$J" \
            -o qo/f_%02d.png q0 qbad
        stderr_has "... names the frame" "chunk 1 (qbad): the frame $f is damaged"
        check "... moves nothing" test -z "$(ls -A qo)" -a "$(find q0 qbad -name '*.png' | wc -l)" = 8
        expect_status "PNG --check --range, $at frame damaged at byte $off: exit 2" 2 "$J" \
            --check --range 4-7/8 qbad
        stderr_has "... names the frame" "the frame $f is damaged"
    done
done
expect_status "PNG join of the undamaged chunks: exit 0" 0 "$J" -o qo/f_%02d.png q0 q1
check "... 8 frames placed" test "$(find qo -name '*.png' | wc -l)" = 8

# The joined file itself damaged after FFmpeg wrote it (a fake ffmpeg flips bytes in the
# concat's result, and exits 0): not placed, exit 1 (the join's own failure).
mkdir -p fakebin
cat >fakebin/ffmpeg <<EOF2
#!/usr/bin/env bash
$(declare -f flip)
"$(command -v ffmpeg)" "\$@" || exit
case " \$* " in *" concat "*) out=\${!#}; flip "\$out" \$((\$(stat -c %s "\$out") / 2)) ;; esac
EOF2
chmod +x fakebin/ffmpeg
rm -f dj.mp4
expect_status "a joined file damaged after the concat: exit 1" 1 env PATH="$WORK/fakebin:$PATH" \
    "$J" -o dj.mp4 d0.mp4 d1.mp4
stderr_has "... says it does not decode cleanly" "the joined file does not decode cleanly"
nothing_written "a joined file damaged after the concat" dj.mp4

# ---- a PNG join that fails while placing its frames ----
# A fake ln and mv fail on the 6th frame (as a full disk or a quota would): the 5 placed
# frames are taken back, with -y too, and both chunks keep all their frames for the next join.
"$ROCKPOOL" -q s.scene -n 8 --start 0 --end 4 -o l0/f_%02d.png
"$ROCKPOOL" -q s.scene -n 8 --start 4 --end 8 -o l1/f_%02d.png
mkdir -p fakeln lo
for tool in ln mv; do
    cat >fakeln/$tool <<EOF2
#!/usr/bin/env bash
case "\${!#}" in */f_05.png) echo "$tool: No space left on device" >&2; exit 1 ;; esac
exec "$(command -v $tool)" "\$@"
EOF2
    chmod +x fakeln/$tool
done
for y in "" -y; do
    expect_status "PNG join ${y:-without -y}, placing a frame fails: exit 1" 1 \
        env PATH="$WORK/fakeln:$PATH" "$J" ${y:+"$y"} -o lo/f_%02d.png l0 l1
    check "... no frame left in place" test -z "$(ls -A lo)"
    check "... both chunks whole" test "$(find l0 l1 -name '*.png' | wc -l)" = 8
done
expect_status "... the join again: exit 0" 0 "$J" -o lo/f_%02d.png l0 l1
check "... its 8 frames in place" test "$(find lo -name '*.png' | wc -l)" = 8

# ---- a join stopped by a signal while it decodes a chunk, or during the concat ----
# (a fake ffmpeg holds the step for 30 s): SIGTERM or SIGINT stops the join at once
# (within 15 s on a loaded machine, not after FFmpeg's 30 s), with its exit status, and leaves no output and no work directory.
mkdir -p slowbin
for sig in TERM INT TERM@framecrc INT@framecrc; do
    step=${sig#*@}
    [ "$step" != "$sig" ] || step=concat
    sig=${sig%@*}
    cat >slowbin/ffmpeg <<EOF2
#!/usr/bin/env bash
case " \$* " in *" $step "*) touch "$WORK/concat.started"; exec sleep 30 ;; esac
exec "$(command -v ffmpeg)" "\$@"
EOF2
    chmod +x slowbin/ffmpeg
    rm -f concat.started
    # (a background job of a script starts with SIGINT ignored: env gives it back)
    env --default-signal=INT PATH="$WORK/slowbin:$PATH" "$J" -o stop.mp4 d0.mp4 d1.mp4 2>/dev/null &
    jpid=$!
    for _ in $(seq 200); do [ -e concat.started ] && break; sleep 0.05; done
    t0=$(date +%s)
    kill -"$sig" $jpid
    wait $jpid
    rc=$?
    want=143
    [ "$sig" = TERM ] || want=130
    check "SIG$sig during the $step: the join exits $want (got $rc) within 15 s" \
        test $rc = $want -a $(($(date +%s) - t0)) -lt 15
    nothing_written "SIG$sig during the $step" stop.mp4
done

# ---- long framemd5 chunks, FFmpeg protocol names, a pattern's backslash (a red team) ----
# A framemd5 chunk without a rockpool_frames tag (which rockpool never writes into framemd5)
# has its first frame read from its first frame line: read through a pipe cut short, that
# killed the join with SIGPIPE (exit 141, no message) once the chunk outgrew the pipe.
"$ROCKPOOL" -q s.scene -n 4000 -f framemd5 -o long.md5
"$ROCKPOOL" -q s.scene -n 4000 --start 0 --end 2000 -f framemd5 -o l0.md5
"$ROCKPOOL" -q s.scene -n 4000 --start 2000 --end 4000 -f framemd5 -o l1.md5
expect_status "framemd5 join of two 2000-frame chunks: exit 0" 0 \
    "$J" -o long_j.md5 --frames 4000 l0.md5 l1.md5
check "... gives the single render's file, byte for byte" cmp -s long.md5 long_j.md5
expect_status "--check of a 2000-frame framemd5 chunk: exit 0" 0 \
    "$J" --check --range 2000-3999/4000 l1.md5
# A chunk named like an FFmpeg protocol (cache:NAME reads NAME) is read as itself: the
# foreign chunk 'cache:v1.mp4' (another size and seed) is refused, not v1.mp4 checked in
# its place; an output named so is written under its own name.
"$ROCKPOOL" -q s.scene -n 6 -s 128x72 --seed 5 --start 3 --end 6 -o 'cache:v1.mp4'
expect_status "video join, a foreign chunk named cache:v1.mp4: exit 2" 2 \
    "$J" -o pj.mp4 v0.mp4 'cache:v1.mp4'
stderr_has "... names it" "chunk 1 (./cache:v1.mp4)"
nothing_written "video join, a foreign chunk named cache:v1.mp4" pj.mp4
expect_status "video join to the output file:pj.mp4: exit 0" 0 "$J" -o 'file:pj.mp4' v0.mp4 v1.mp4
check "... placed under its own name" test -s 'file:pj.mp4' -a ! -e pj.mp4
# render-parallel names a PNG pattern's frames as rockpool does: a backslash is a plain
# character, not printf's escape (a\tb was looked for as a<TAB>b after every chunk had
# rendered); a line break in a PNG or AOV pattern is refused before anything is rendered.
R=$TOP/scripts/render-parallel
expect_status "render-parallel, a PNG pattern with a backslash: exit 0" 0 \
    "$R" -k 2 -o 'bs/a\tb_%03d.png' -- s.scene -n 6
check "... frames named as rockpool names them" test -f 'bs/a\tb_005.png'
expect_status "render-parallel, a PNG pattern with a line break: exit 2" 2 \
    "$R" -k 2 -o $'nl/a\nb_%03d.png' -- s.scene -n 6
stderr_has "... says why" "its path holds a line break"
check "... nothing created" test ! -e nl
expect_status "render-parallel, an AOV pattern with a line break: exit 2" 2 \
    "$R" -k 2 -o rp.mp4 -- s.scene -n 6 --aov height $'h\n_%03d.png'
check "... nothing created" test ! -e rp.mp4
