# batch.sh - chunked and distributed rendering (rockpool(1) BATCH RENDERING): chunks equal the
# same frames of a full run; checkpoints; render-parallel; machine-readable progress.
source "$(dirname "$0")/lib.sh"

scene=$TOP/examples/rain.scene
opts=(-q -s 128x80 -n 40)

# --hash of a full run, and of three chunks, which must add up to the same lines.
"$ROCKPOOL" "$scene" "${opts[@]}" -f framemd5 -o full.md5 --hash >full.hash
: >chunks.hash
for range in "0 13" "13 27" "27 40"; do
    set -- $range
    "$ROCKPOOL" "$scene" "${opts[@]}" --start "$1" --end "$2" -f framemd5 -o "c$1.md5" \
        --hash >>chunks.hash
done
check "full run hashes 40 frames" test "$(wc -l <full.hash)" = 40
check "chunks hash equal to the full run" cmp -s full.hash chunks.hash
check "chunk framemd5 lines number frames by timeline index" \
    grep -q '^0, *13, *13, ' c13.md5

# Checkpoints: save at frame 20, load it, render 20..40: equal to the full run.
expect_status "save state" 0 "$ROCKPOOL" "$scene" "${opts[@]}" --end 20 -f framemd5 \
    -o discard.md5 -y --save-state s20.state
check "state file written" test -s s20.state
expect_status "load state" 0 "$ROCKPOOL" "$scene" "${opts[@]}" --start 20 \
    --load-state s20.state -f framemd5 -o l20.md5 --hash
tail -n 20 full.hash >want.hash
check "frames after a loaded state equal the full run" cmp -s "$WORK/out" want.hash

# A damaged state, one from another scene, one past --start: exit 2 with a reason.
cp s20.state bad.state
printf '\x01' | dd of=bad.state bs=1 seek=100 conv=notrunc 2>/dev/null
expect_status "damaged state is exit 2" 2 "$ROCKPOOL" "$scene" "${opts[@]}" --start 20 \
    --load-state bad.state -f framemd5 -o x.md5
stderr_has "damaged state message" "damaged"
check "no output after a refused state" test ! -e x.md5
expect_status "state of another scene is exit 2" 2 "$ROCKPOOL" "$scene" "${opts[@]}" --seed 99 \
    --start 20 --load-state s20.state -f framemd5 -o x.md5
stderr_has "other-scene state message" "another scene"
expect_status "state past --start is exit 2" 2 "$ROCKPOOL" "$scene" "${opts[@]}" --start 10 \
    --load-state s20.state -f framemd5 -o x.md5
stderr_has "state past --start message" "after --start 10"
# ... and it names the first --start the state can be loaded at (steps are not frames): that
# start loads, its frames are the full run's, and the frame before it is refused.
first=$(sed -n 's/.*give --start \([0-9]*\) or later.*/\1/p' "$WORK/err")
check "state past --start: the message names a first frame ($first)" \
    test -n "$first" -a "${first:-99}" -le 20
expect_status "state past --start: the --start it names loads" 0 "$ROCKPOOL" "$scene" \
    "${opts[@]}" --start "${first:-0}" --load-state s20.state -f framemd5 -o /dev/null --hash
check "state past --start: frames from the --start it names equal the full run's" \
    cmp -s "$WORK/out" <(tail -n "$((40 - ${first:-0}))" full.hash)
expect_status "state past --start: the frame before the one it names is refused" 2 \
    "$ROCKPOOL" "$scene" "${opts[@]}" --start "$((${first:-0} - 1))" --load-state s20.state \
    -f framemd5 -o /dev/null
head -c 20 s20.state >short.state
expect_status "truncated state is exit 2" 2 "$ROCKPOOL" "$scene" "${opts[@]}" --start 20 \
    --load-state short.state -f framemd5 -o x.md5
stderr_has "truncated state message" "short.state: state file is truncated (20 bytes; its header alone is 48)"
expect_status "state of another size is exit 2" 2 "$ROCKPOOL" "$scene" -q -s 64x80 -n 40 \
    --start 20 --load-state s20.state -f framemd5 -o x.md5 --preset elias
stderr_has "other-size state message" "state is for 640x360, this run is 64x80"

# render-parallel: 3 local chunks to lossless FFV1 MKV equal a single run, frame for frame.
if command -v parallel >/dev/null; then
    "$ROCKPOOL" "$scene" "${opts[@]}" -c ffv1 -o single.mkv
    expect_status "render-parallel 3 chunks" 0 "$TOP/scripts/render-parallel" -k 3 -j 2 \
        -o joined.mkv -- "$scene" "${opts[@]}" -c ffv1
    check "joined file has exactly 40 frames" test "$(probe joined.mkv nb_read_frames)" = 40
    ffmpeg -v error -i single.mkv -f framemd5 - >single.fmd5
    ffmpeg -v error -i joined.mkv -f framemd5 - >joined.fmd5
    check "joined frames decode equal to the single run" cmp -s single.fmd5 joined.fmd5
    expect_status "render-parallel PNG chunks" 0 "$TOP/scripts/render-parallel" -k 4 -j 2 \
        -o png/f_%03d.png -- "$scene" "${opts[@]}"
    check "PNG chunks fill one pattern (40 files)" test "$(ls png | wc -l)" = 40
    # (found by the run's one-frame reference before any chunk starts: exit 2)
    expect_status "an unknown encoder fails the run" 2 "$TOP/scripts/render-parallel" -k 2 -j 2 \
        -o failed.mkv -- "$scene" "${opts[@]}" -c no-such-encoder
    check "no joined file after a failure" test ! -e failed.mkv
else
    bad "GNU parallel is not installed (scripts/install-deps installs it)"
fi

# --progress-fd: FFmpeg -progress style blocks, ending with progress=end.
expect_status "progress-fd" 0 "$ROCKPOOL" "$scene" "${opts[@]}" -f framemd5 -o discard.md5 -y \
    --progress-fd 3 3>progress.txt
check "progress ends with frame=40 and progress=end" \
    test "$(grep -E '^(frame|progress)=' progress.txt | tail -n 2 | tr '\n' ' ')" = \
    "frame=40 progress=end "
check "progress has out_time_us" grep -q '^out_time_us=1333333$' progress.txt
expect_status "progress-fd on a closed descriptor is exit 2" 2 "$ROCKPOOL" "$scene" \
    "${opts[@]}" -f framemd5 -o discard.md5 -y --progress-fd 9

# A chunk's progress says where it is in the whole clip: the last frame written
# (absolute), its range and the timeline's length.
expect_status "progress-fd of a chunk" 0 "$ROCKPOOL" "$scene" "${opts[@]}" --start 13 --end 27 \
    -f framemd5 -o discard.md5 -y --progress-fd 3 3>progress.txt
check "chunk progress ends with frame=14 current_frame=26 of frames 13-26 of 40" \
    test "$(sed -n '/^progress=end/q;/^\(frame\|current_frame\|first_frame\|last_frame\|total_frames\)=/p' \
        progress.txt | tail -n 5 | tr '\n' ' ')" = \
    "frame=14 current_frame=26 first_frame=13 last_frame=26 total_frames=40 "

# An empty range is a usage error with nothing written; --frame-range A-B is --start A
# --end B+1 (a farm's inclusive first-last), one number is one frame.
expect_status "--start 5 --end 5 is exit 2" 2 "$ROCKPOOL" "$scene" "${opts[@]}" --start 5 --end 5 \
    -o empty.mkv
stderr_has "empty range message" "the range has no frames"
check "empty range: nothing written" test -z "$(ls -A | grep empty)"
expect_status "--end 40 --start 40 is exit 2" 2 "$ROCKPOOL" "$scene" "${opts[@]}" --start 40 \
    -f framemd5 -o empty.md5
check "empty range at the end: nothing written" test ! -e empty.md5
# Without --end, a --start at or past the timeline's end is said against the timeline (40
# frames, 0 to 39), not as an --end the command line never gave.
for a in 40 50; do
    expect_status "--start $a of 40 frames is exit 2" 2 "$ROCKPOOL" "$scene" "${opts[@]}" \
        --start $a -f framemd5 -o past.md5
    stderr_has "--start $a: past the last frame of 40" \
        "--start $a is past the last frame (the timeline has 40 frames, 0 to 39)"
    check "--start $a: nothing written" test ! -e past.md5
done
expect_status "--frame-range 13-26" 0 "$ROCKPOOL" "$scene" "${opts[@]}" --frame-range 13-26 \
    -f framemd5 -o range.md5
check "--frame-range 13-26 equals --start 13 --end 27" \
    cmp -s <(grep -v '^#' range.md5) <(grep -v '^#' c13.md5)
expect_status "--frame-range 39" 0 "$ROCKPOOL" "$scene" "${opts[@]}" --frame-range 39 --hash
check "--frame-range 39 is the last frame alone" cmp -s "$WORK/out" <(tail -n 1 full.hash)
for bad_range in 5-4 -3 3- a-b 1-2-3 "1 - 2" 0x1-2; do
    expect_status "--frame-range '$bad_range' is exit 2" 2 "$ROCKPOOL" "$scene" "${opts[@]}" \
        --frame-range "$bad_range" -f framemd5 -o bad.md5
done
stderr_has "bad range message" "is not a range of frame numbers FIRST-LAST"
expect_status "--frame-range past the end is exit 2" 2 "$ROCKPOOL" "$scene" "${opts[@]}" \
    --frame-range 30-40 -f framemd5 -o bad.md5
stderr_has "past the end message" "past the last frame"
check "bad ranges: nothing written" test ! -e bad.md5
