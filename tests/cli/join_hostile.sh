#!/usr/bin/env bash
# join_hostile.sh - rockpool-join on chunks made to hurt it. A framemd5 chunk whose
# rockpool_frames tag claims 10^15 frames is refused at once, naming it (exit 1, a few
# milliseconds, under a 1 GB memory limit): the claim is checked against the frame lines it
# holds before any list of its range is built. Video chunks whose path holds a line break
# (which FFmpeg's concat list cannot name) are refused up front, naming them, nothing
# written; framemd5 and PNG joins take such names as they are.
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
# 20 s timeout exits STATUS within 5 s.
bounded() {
    local name=$1 want=$2 t0 ms
    shift 2
    t0=$(date +%s%N)
    expect_status "$name: exit $want" "$want" \
        bash -c 'ulimit -v 1000000 && exec timeout 20 "$@"' rockpool-join "$J" "$@"
    ms=$((($(date +%s%N) - t0) / 1000000))
    if [ "$ms" -lt 5000 ]; then ok "$name: done in $ms ms"; else bad "$name: took $ms ms"; fi
}

# ---- forged rockpool_frames tags in framemd5 chunks ----
huge='#rockpool_frames: 0-999999999999998/999999999999999'
{ echo "$huge"; cat c0.md5; } >h0.md5
bounded "--check, chunk 0 claims 10^15 frames" 1 --check h0.md5 c1.md5
stderr_has "... names the chunk" "chunk 0 (h0.md5)"
stderr_has "... says what its tag claims against what it holds" \
    "claims the 999999999999999 frames 0-999999999999998, but it holds 3 frame lines"
bounded "join, chunk 0 claims 10^15 frames" 1 -o j.md5 h0.md5 c1.md5
stderr_has "... names the chunk" "chunk 0 (h0.md5)"
nothing_written "join, chunk 0 claims 10^15 frames" j.md5
bounded "--check --range, the chunk claims 10^15 frames" 1 --check --range 0-2/6 h0.md5
stderr_has "... names the chunk" "(h0.md5)"
{ echo '#rockpool_frames: 3-999999999999998/999999999999999'; cat c1.md5; } >h1.md5
bounded "join, chunk 1 claims 10^15 frames" 1 --frames 6 -o j.md5 c0.md5 h1.md5
stderr_has "... names the chunk" "chunk 1 (h1.md5)"
nothing_written "join, chunk 1 claims 10^15 frames" j.md5
{ echo '#rockpool_frames: 5-2/6'; cat c0.md5; } >back.md5
bounded "a tag whose last frame is before its first" 1 --check --range 5-2/6 back.md5
stderr_has "... names the chunk and says so" "(back.md5): its rockpool_frames tag '5-2/6' claims no frames"
{ echo '#rockpool_frames: 0-2/6'; cat c1.md5; } >other.md5
bounded "a tag of the right count over other frames" 1 --check --range 0-2/6 other.md5
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
expect_status "video join, a chunk named with a newline: exit 1" 1 "$J" -o j.mp4 "$nl" v1.mp4
stderr_has "... names the chunk" "chunk 0 (\$'v\\n0.mp4')"
stderr_has "... says why" "its path holds a line break, which FFmpeg's concat list cannot name"
check "... not FFmpeg's error" sh -c '! grep -q "unknown keyword" err'
nothing_written "video join, a chunk named with a newline" j.mp4
expect_status "video join, chunk 1 named with a newline: exit 1" 1 "$J" -o j.mp4 v0.mp4 "$nl"
stderr_has "... names it as chunk 1" "chunk 1 (\$'v\\n0.mp4')"
nothing_written "video join, chunk 1 named with a newline" j.mp4
expect_status "video --check, a chunk named with a newline: exit 1" 1 "$J" --check "$nl" v1.mp4
stderr_has "... names the chunk" "chunk 0 (\$'v\\n0.mp4')"
expect_status "video join, a chunk named with a carriage return: exit 1" 1 "$J" -o j.mp4 \
    $'v\r0.mp4' v1.mp4
stderr_has "... names the chunk" "chunk 0 (\$'v\\r0.mp4')"
nothing_written "video join, a chunk named with a carriage return" j.mp4
mkdir $'d\nx' && cp v0.mp4 v1.mp4 $'d\nx/'
expect_status "video join, a chunk in a directory named with a newline: exit 1" 1 "$J" \
    -o j.mp4 $'d\nx/v0.mp4' v1.mp4
stderr_has "... names the chunk" "chunk 0 (\$'d\\nx/v0.mp4')"
nothing_written "video join, a chunk in a directory named with a newline" j.mp4
# shellcheck disable=SC2016 # $1 and $2 are the inner shell's
expect_status "video join from a directory named with a newline: exit 1" 1 \
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
expect_status "video join, chunk 1 over another background: exit 1" 1 "$J" -o b.mkv f0.mkv bg1.mkv
stderr_has "... names the chunk and what differs" \
    "chunk 1 (bg1.mkv) is of another job, which differs in: inputs (background"
nothing_written "video join, chunk 1 over another background" b.mkv
expect_status "video join, chunk 1 of another strength: exit 1" 1 "$J" -o b.mkv f0.mkv st1.mkv
stderr_has "... names the chunk and what differs" \
    "chunk 1 (st1.mkv) is of another job, which differs in: options"
nothing_written "video join, chunk 1 of another strength" b.mkv
"$ROCKPOOL" -q s.scene -n 6 --start 3 --end 6 --strength 2 -f framemd5 -o st1.md5
expect_status "framemd5 join, chunk 1 of another strength: exit 1" 1 "$J" --frames 6 \
    -o b.md5 c0.md5 st1.md5
stderr_has "... names the chunk" "chunk 1 (st1.md5) is of another job, which differs in: options"
nothing_written "framemd5 join, chunk 1 of another strength" b.md5
"$ROCKPOOL" -q s.scene -n 6 --start 0 --end 3 -o sp0/f_%02d.png
"$ROCKPOOL" -q s.scene -n 6 --start 3 --end 6 --strength 2 -o sp1/f_%02d.png
mkdir sp
expect_status "PNG join, chunk 1 of another strength: exit 1" 1 "$J" -o sp/f_%02d.png sp0 sp1
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
