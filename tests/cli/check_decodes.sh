#!/usr/bin/env bash
# check_decodes.sh - --check decodes the images a render decodes (rockpool(1) --check,
# rockpool-scene(5) sky): an image whose headers read but whose pixels do not decode (a
# truncated PNG) as the background (scene or -i), the sky or a wall mask (still, moving,
# its picture with `walls visible image`) is refused by --check with exit 2, at the
# scene's FILE:LINE:COL and with the render's own message, leaving nothing behind; what a
# render does not decode, --check does not refuse.
source "$(dirname "$0")/lib.sh"
R=$ROCKPOOL
mkdir d && cd d || exit 1 # refused_unchanged compares this directory, apart from out and err

# half of a PNG: its header and size read, its pixels do not decode
head -c $(($(stat -c%s "$TOP/examples/island.png") / 2)) "$TOP/examples/island.png" >trunc.png
cp "$TOP/examples/island.png" good.png

# check_like_render NAME WHERE LINE...: a 64x36, 2-frame scene of these lines; --check and
# --hash both exit 2 with WHERE (the scene's FILE:LINE:COL) and the same message, and
# --check -o writes nothing.
check_like_render() {
    local name=$1 where=$2
    shift 2
    printf '%s\n' "size 64x36" "duration 2f" "$@" >t.scene
    expect_status "$name: the render refuses it" 2 "$R" -q t.scene --hash
    stderr_has "$name: the render says where" "$where"
    cp "$WORK/err" "$WORK/render.err"
    refused_unchanged "$name: --check" "$where" t.scene --check -o t.mp4
    check "$name: --check's message is the render's" cmp -s "$WORK/err" "$WORK/render.err"
}
check_like_render "truncated sky" "t.scene:3:5: error: sky image: cannot decode image 'trunc.png'" \
    "sky trunc.png"
check_like_render "truncated background" "t.scene:3:12: error: cannot decode image 'trunc.png'" \
    "background trunc.png"
check_like_render "truncated wall mask" "t.scene:3:17: error: cannot decode image 'trunc.png'" \
    "at 0s wall mask trunc.png"
check_like_render "truncated moving wall mask" \
    "t.scene:4:35: error: cannot decode image 'trunc.png'" \
    "path p 0,0 30,20" "at 0s..1s wall mask along p 10 10 trunc.png"
check_like_render "truncated mask picture (walls visible image)" \
    "t.scene:4:17: error: cannot decode image 'trunc.png'" \
    "walls visible image" "at 0s wall mask trunc.png"

refused_unchanged "truncated -i: --check" "error: cannot decode image 'trunc.png'" \
    -i trunc.png -s 64x36 -n 2 --check
# A JPEG cut short: FFmpeg's decoder conceals the missing rows (grey) unless told to
# report damage; it was rendered with exit 0.
ffmpeg -v error -f lavfi -i testsrc2=size=320x180 -frames:v 1 good.jpg
head -c $(($(stat -c%s good.jpg) * 9 / 10)) good.jpg >trunc.jpg
check_like_render "truncated JPEG background" \
    "t.scene:3:12: error: cannot decode image 'trunc.jpg' (mjpeg)" "background trunc.jpg"
refused_unchanged "truncated JPEG -i: --check" "error: cannot decode image 'trunc.jpg'" \
    -i trunc.jpg -s 64x36 -n 2 --check
expect_status "... a whole JPEG renders" 0 "$R" -q -i good.jpg -s 64x36 -n 2 --hash
rm -f good.jpg
# what the render does not decode, --check does not refuse: a mask after the last frame, a
# sky under a seed preset (no light to reflect it)
printf '%s\n' "size 64x36" "duration 2f" "at 5s wall mask trunc.png" >late.scene
expect_status "a mask the timeline never uses passes --check" 0 "$R" late.scene --check
printf '%s\n' "size 64x36" "duration 2f" "preset elias" "sky trunc.png" >elias.scene
expect_status "a sky the seed preset does not reflect passes --check" 0 "$R" elias.scene --check
expect_status "... and renders" 0 "$R" -q elias.scene --hash
# the whole images pass
printf '%s\n' "size 64x36" "duration 2f" "background good.png" "sky good.png" \
    "walls visible image" "at 0s wall mask good.png" >good.scene
expect_status "whole images pass --check" 0 "$R" good.scene --check
expect_status "... and render" 0 "$R" -q good.scene --hash
