#!/usr/bin/env bash
# settings_places.sh - errors found once a run's settings are resolved, where two statements
# meet or a value is checked against another (speed with rate, fade with damping, a
# fractional frame rate stepping once a frame, an odd size for H.264, the grid against the
# render and the size, steps a frame, the speed's rate, the preroll's work), say
# FILE:LINE:COL of the scene's statement with its line and a caret: the later of two, naming
# the other's line. A value an option gave (-r, -s, --preset) is named, without a place.
# Exit 2 and nothing written, as for any scene error.
source "$(dirname "$0")/lib.sh"
R=$ROCKPOOL
mkdir d && cd d || exit 1

# placed NAME SCENE-TEXT FRAGMENT [ARGS...]: s.scene of SCENE-TEXT (backslash escapes) run
# to s.mp4 exits 2 with FRAGMENT on stderr and leaves the directory as it was: one check,
# so that each fails where the message has no place.
placed() {
    local name=$1 text=$2 fragment=$3 before got
    shift 3
    printf '%b' "$text" >s.scene
    before=$(dir_snapshot)
    "$R" -q s.scene -o s.mp4 "$@" >"$WORK/out" 2>"$WORK/err"
    got=$?
    if [ "$got" -eq 2 ] && grep -qF -- "$fragment" "$WORK/err" &&
        [ "$(dir_snapshot)" = "$before" ]; then
        ok "$name: exit 2, '$fragment', nothing written"
    else
        bad "$name: exit $got (wanted 2), '$fragment' wanted, nothing written wanted"
        sed 's/^/    /' "$WORK/err" | head -3
        diff <(echo "$before") <(dir_snapshot) | head -3 | sed 's/^/    /'
    fi
}

# excerpt TEXT: the last run's stderr holds TEXT (lines and all).
excerpt() { [[ "$(cat "$WORK/err")" == *"$1"* ]]; }

## 1. speed and rate: at the later statement, the other's line in the message.
placed "speed, then rate" 'duration 2s\nspeed 50\nrate 100\n' \
    "rockpool: s.scene:3:1: error: rate and speed (on line 2) are both given: speed sets the rate"
# the line and a caret under the statement
check "... its line and a caret" excerpt $'     3 | rate 100\n       | ^'
# the column counts characters, and so does the caret: two 2-byte characters before it
placed "a path of two-byte characters, then a stray word" 'background "\xc3\xa9\xc3\xa9.png" x\n' \
    "rockpool: s.scene:1:21: error: unexpected 'x' after the path"
check "... the caret under the word" \
    excerpt $'     1 | background "\xc3\xa9\xc3\xa9.png" x\n       |                     ^'
placed "rate, then speed" 'rate 100\nduration 2s\nspeed 50\n' \
    "rockpool: s.scene:3:1: error: speed and rate (on line 1) are both given"

## 2. fade and damping.
placed "fade, then damping" 'duration 2s\nfade 1s\ndamping 0.5\n' \
    "rockpool: s.scene:3:1: error: damping and fade (on line 2) are both given: fade sets the damping"
placed "damping, then fade" 'damping 0.5\nfade 1s\n' \
    "rockpool: s.scene:2:1: error: fade and damping (on line 1) are both given"

## 3. A fractional frame rate where the run steps once a frame: at the scene's fps value,
## naming what steps once a frame; -r's named, without a place.
placed "fps 29.97 with --preset elias" 'duration 2s\nfps 29.97\n' \
    "rockpool: s.scene:2:5: error: the frame rate 30000/1001 is not whole: one step per frame (--preset elias)" \
    --preset elias
check "... its line and a caret under the value" \
    excerpt $'     2 | fps 29.97\n       |     ^'
placed "fps 29.97 after preset elias" 'preset elias\nduration 2s\nfps 29.97\n' \
    "rockpool: s.scene:3:5: error: the frame rate 30000/1001 is not whole: one step per frame (preset elias on line 1)"
placed "fps ntsc with rate frame" 'rate frame\nfps ntsc\n' \
    "rockpool: s.scene:2:5: error: the frame rate 30000/1001 is not whole: one step per frame (rate frame on line 1)"
placed "-r 29.97 with --preset elias" 'duration 2s\n' \
    "rockpool: error: the frame rate 30000/1001 (-r) is not whole" --preset elias -r 29.97
placed "-r 29.97 with the scene's preset elias" 'preset elias\nduration 2s\n' \
    "rockpool: error: the frame rate 30000/1001 (-r) is not whole: one step per frame (preset elias on line 1)" \
    -r 29.97

## 4. An odd size H.264 with yuv420p cannot take: at the scene's size value; -s named.
placed "size 641x361 to H.264" 'size 641x361\nduration 1s\n' \
    "rockpool: s.scene:1:6: error: H.264 with yuv420p needs an even width and height (got 641x361)"
check "... its line and a caret under the value" \
    excerpt $'     1 | size 641x361\n       |      ^'
placed "-s 641x361 to H.264" 'duration 1s\n' \
    "rockpool: error: -s: H.264 with yuv420p needs an even width and height (got 641x361)" \
    -s 641x361

## 5. The grid: a share of the size out of range (at the grid's value, the size's line),
## and a grid that is not the output size under a render drawing a cell a pixel (at the
## later of the render's, or the preset's, and the grid's, or the size's).
placed "grid 5% of size 160x120" 'size 160x120\nduration 1s\ngrid 5%\n' \
    "rockpool: s.scene:3:6: error: the grid 8x6 (5% of 160x120, the size on line 1) is out of range"
placed "grid 5% before size 160x120" 'grid 5%\nsize 160x120\n' \
    "rockpool: s.scene:1:6: error: the grid 8x6 (5% of 160x120, the size on line 2) is out of range"
placed "render offset after size 1280x720" 'size 1280x720\nduration 1s\nrender offset\n' \
    "rockpool: s.scene:3:1: error: a grid of 640x360 cells (from the size on line 1) needs render light (render offset draws"
placed "size 1280x720 after render offset" 'render offset\nsize 1280x720\n' \
    "rockpool: s.scene:2:1: error: a grid of 640x360 cells needs render light (render offset (on line 1) draws"
placed "grid after preset elias" 'preset elias\nsize 200x200\ngrid 100x100\n' \
    "rockpool: s.scene:3:1: error: a grid of 100x100 cells needs render light (render offset (preset elias, on line 1) draws"
placed "preset elias after the grid" 'grid 100x100\nsize 200x200\npreset elias\n' \
    "rockpool: s.scene:3:1: error: a grid of 100x100 cells (on line 1) needs render light (render offset (preset elias) draws"
placed "a grid with --preset elias" 'size 200x200\ngrid 100x100\n' \
    "rockpool: s.scene:2:1: error: a grid of 100x100 cells needs render light (render offset (--preset elias) draws" \
    --preset elias

## 6. The rate against the frame rate, the speed's rate, the preroll's work.
placed "fps 1 after rate 4000" 'rate 4000\nfps 1\n' \
    "rockpool: s.scene:2:1: error: rate 4000 (on line 1) at 1/1 frames per second is 4000 steps a frame"
placed "rate 4000 after fps 1" 'fps 1\nrate 4000\n' \
    "rockpool: s.scene:2:1: error: rate 4000 at 1/1 frames per second (on line 1) is 4000 steps a frame"
placed "rate 4000 with -r 1" 'rate 4000\n' \
    "rockpool: s.scene:1:1: error: rate 4000 at 1/1 frames per second (-r) is 4000 steps a frame" -r 1
placed "a speed asking for too many steps" 'size 4000x100\ngrid 4000x100\nspeed 1000%/s\n' \
    "rockpool: s.scene:3:7: error: the speed asks for 68492 steps per second"
placed "a preroll over the work limit" 'size 640x360\npreroll 1000000s\n' \
    "rockpool: s.scene:2:9: error: the preroll is 164000000 steps"
