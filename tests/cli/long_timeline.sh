#!/usr/bin/env bash
# long_timeline.sh - a long timeline on the command line: -t (--duration) is held to the
# scene's `duration` range as a time and to -n's as frames (exit 2, nothing created), and
# what a run does before its first frame costs the timeline's items, not its frames: a
# --check of 10^8 frames with walls ends at once, and a render with walls over a long
# timeline stops on SIGINT within a second (a fuzzing pass found -t 4294967296 accepted,
# and the wall masks' check walking every frame for minutes with SIGINT ignored).
source "$(dirname "$0")/lib.sh"
R=$ROCKPOOL
printf 'size 64x36\nat 0s wall rect 1 1 2 2\n' >f1-wall.scene
# the same with a step rate of its own: 10^9 steps over -t 1000000s
printf 'size 64x36\nrate 1000\nat 0s wall rect 1 1 2 2\n' >f1-wall-rate.scene

## -t over the scene's `duration` range, or over -n's frames, is refused before anything
## is created, naming the option and the range (run in ./r, which must stay empty).
mkdir r && cd r || exit 1
for t in 4294967296 1000001s 1000000.000001s 277:46:41; do
    refused_unchanged "-t $t" "-t: $t is out of range (1us..1000000s)" ../f1-wall.scene -t "$t" \
        -o out.mp4
done
refused_unchanged "--duration 1000001s" "-t: 1000001s is out of range (1us..1000000s)" \
    ../f1-wall.scene --duration 1000001s -o out.mp4
for t in 1000000001f 100000001f; do
    refused_unchanged "-t $t" "-t: $t is out of range (1f..100000000f)" ../f1-wall.scene -t "$t" \
        -o out.mp4
done
refused_unchanged "-t 4294967296 --check" "-t: 4294967296 is out of range (1us..1000000s)" \
    ../f1-wall.scene -t 4294967296 --check
# -ss S -t T: T is a length from S, held to the same range
refused_unchanged "-ss 1 -t 1000001" "-t: 1000001 is out of range (1us..1000000s)" \
    ../f1-wall.scene -ss 1 -t 1000001 -o out.mp4
# the scene refuses the same time, and -n the same frames
printf 'size 64x36\nduration 1000001s\n' >../long.scene
refused_unchanged "duration 1000001s in the scene" "out of range (0.000001s..1000000s)" ../long.scene \
    --check
refused_unchanged "-n 100000001" "--frames: 100000001 is out of range (1..100000000)" \
    ../f1-wall.scene -n 100000001 --check
printf 'size 64x36\nduration 100000001f\n' >../long.scene
refused_unchanged "duration 100000001f in the scene: -n's frames" \
    "duration 100000001f is out of range (1f..100000000f, as -n)" ../long.scene --check
# the ranges said start where the values taken start: 0 is no timeline (refused as -n's
# range says; -t 0 and duration 0s have their own messages), the smallest step is taken
refused_unchanged "-n 0: -n's range" "--frames: 0 is out of range (1..100000000)" \
    ../f1-wall.scene -n 0 --check
printf 'size 64x36\nduration 2000000000f\n' >../long.scene
refused_unchanged "duration 2000000000f in the scene: -n's frames" \
    "time 2000000000f is out of range (1f..100000000f, as -n)" ../long.scene --check
printf 'size 64x36\nduration 0s\n' >../long.scene
refused_unchanged "duration 0s in the scene" "duration 0s is empty (it must be above 0)" \
    ../long.scene --check
refused_unchanged "-t 0" "the timeline has no frames" ../f1-wall.scene -t 0 -o out.mp4
cd "$WORK" || exit 1
check "-t refused: nothing created" test -z "$(ls -A r)"
expect_status "-n 1: taken" 0 "$R" f1-wall.scene -n 1 --check
check "-n 1: 1 frame" grep -q '^frames: *1 ' out
expect_status "-t 1us: taken" 0 "$R" f1-wall.scene -t 1us --check
check "-t 1us: 1 frame" grep -q '^frames: *1 ' out
printf 'size 64x36\nduration 0.000001s\n' >short.scene
expect_status "duration 0.000001s: taken" 0 "$R" short.scene --check
check "duration 0.000001s: 1 frame" grep -q '^frames: *1 ' out
# the limits themselves are taken
expect_status "-t 1000000s: taken" 0 timeout 60 "$R" f1-wall.scene -t 1000000s --check
check "-t 1000000s: 30000000 frames" grep -q '^frames: *30000000 ' out
expect_status "-t 100000000f: taken" 0 timeout 60 "$R" f1-wall.scene -t 100000000f --check
check "-t 100000000f: 100000000 frames" grep -q '^frames: *100000000 ' out
expect_status "-t 277:46:40 (1000000 s): taken" 0 timeout 60 "$R" f1-wall.scene -t 277:46:40 \
    --check

## The wall masks' check costs the walls, not the frames (it walked each frame, or each
## step, of the timeline: 43 s for walls.scene's 10^8 frames, minutes for 3*10^9 steps).
expect_status "walls.scene -n 100000000 --check: ends" 0 timeout 60 "$R" \
    "$TOP/examples/walls.scene" -n 100000000 --check
check "walls.scene -n 100000000 --check: the frames" grep -q '^frames: *100000000 ' out
{ grep -v '^#' "$TOP/examples/walls.scene"; echo 'rate 1000'; } >walls-rate.scene
expect_status "walls.scene, rate 1000, -n 100000000 --check: ends" 0 timeout 60 "$R" \
    walls-rate.scene -n 100000000 --check
check "walls.scene, rate 1000: the steps" grep -q '3333333301 steps in all' out
expect_status "f1-wall.scene, rate 1000, -t 1000000s --check: ends" 0 timeout 60 "$R" \
    f1-wall-rate.scene -t 1000000s --check
check "f1-wall.scene, rate 1000: the frames" grep -q '^frames: *30000000 ' out

## SIGINT stops a render over a long timeline with walls within a second, exit 130, and
## leaves no temporary file: before the first frame nothing is created (--hash: no file
## at all), after it the video is kept cut short as rockpool(1) says.
# stopped NAME ARGS...: SIGINT half a second into `rockpool ARGS` (run in ./sig); it ends
# within LIMIT ms of the signal with 130 and no temporary file in ./sig.
stopped() {
    local name=$1 pid limit=1000 i
    shift
    case $R in */build-san/*) limit=3000 ;; esac
    rm -rf sig && mkdir sig
    (cd sig && exec "$R" "$@" >../sig.out 2>../sig.err) &
    pid=$!
    for i in $(seq 1000); do
        catches $pid 2 && break
        sleep 0.01
    done
    sleep 0.5
    interrupt "$name" $pid "$limit" || sed 's/^/    /' sig.err | head -5
    if [ -z "$(find sig -name '*.tmp*')" ]; then ok "$name: no temporary file"; else
        bad "$name: a temporary file is left: $(ls -A sig)"
    fi
}
scene_abs=$WORK/f1-wall.scene
stopped "SIGINT: f1-wall.scene -t 1000000s --hash" "$WORK/f1-wall-rate.scene" -t 1000000s --hash
check "SIGINT: --hash: no file" test -z "$(ls -A sig)"
stopped "SIGINT: f1-wall.scene, rate 1000, -t 1000000s -o f1.mp4" "$WORK/f1-wall-rate.scene" \
    -t 1000000s -o f1.mp4
check "SIGINT: -o f1.mp4: says it was interrupted" grep -q 'interrupted' sig.err
stopped "SIGINT: f1-wall.scene -t 1000000s -o f1.mp4" "$scene_abs" -t 1000000s -o f1.mp4
stopped "SIGINT: walls.scene -n 100000000 -o w.mp4" "$TOP/examples/walls.scene" -n 100000000 \
    -o w.mp4
# a --start late in the timeline: the frames before it are simulated, and SIGINT stops that
# too; no frame was written, so no video is left (one of no frame would not play)
stopped "SIGINT: f1-wall.scene -t 1000000s --start 29999000" "$scene_abs" -t 1000000s \
    --start 29999000 -o late.mp4
check "SIGINT before the first frame: says nothing was written" \
    grep -q 'interrupted before the first frame: nothing written' sig.err
check "SIGINT before the first frame: no video" test ! -e sig/late.mp4
