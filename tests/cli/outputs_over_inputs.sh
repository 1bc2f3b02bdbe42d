#!/usr/bin/env bash
# outputs_over_inputs.sh - no output of any kind (a PNG pattern, --stats, --dump-heights,
# --save-state, --aov) may replace an input of any kind (-i, the scene, a wall mask), two
# patterns may not name the same files, and nothing else may write to stdout while -o -
# does. Each is exit 2 before anything is written, also with -y.
source "$(dirname "$0")/lib.sh"
R=$ROCKPOOL
mkdir d && cd d || exit 1
mkdir seq q
ffmpeg -v error -f lavfi -i testsrc=size=48x32 -frames:v 1 seq/f_1.png
cp seq/f_1.png m.png
ln -s seq/f_1.png link.png
printf 'size 48x32\nduration 3f\nat 0f wall mask m.png\n' >s.scene
printf 'size 48x32\nduration 3f\nat 0f wall mask link.png\n' >l.scene
snapshot() { find . -printf '%p %y\n' | LC_ALL=C sort; find . -type f -exec md5sum {} + | LC_ALL=C sort -k 2; }
# refused NAME FRAGMENT ARGS...: exit 2, FRAGMENT in the message, no file changed.
refused() {
    local name=$1 frag=$2 before
    shift 2
    before=$(snapshot)
    expect_status "$name: exit 2" 2 "$R" -q "$@"
    stderr_has "$name: says why" "$frag"
    check "$name: nothing changed" test "$(snapshot)" = "$before"
}
refused "PNG pattern over -i" "would overwrite the background" s.scene -i seq/f_1.png \
    -o 'seq/f_%d.png' -y
refused "PNG pattern over the scene" "would overwrite the scene" s.scene -f png \
    -o 's%.0d.scene' -y
refused "PNG pattern over a wall mask" "would overwrite a wall mask" s.scene -o 'm%.0d.png' -y
refused "PNG pattern over a wall mask reached by a link" "would overwrite a wall mask" \
    l.scene -o 'seq/f_%d.png' -y
refused "--stats over a wall mask" "would overwrite a wall mask" s.scene -f framemd5 \
    -o /dev/null --stats m.png -y
refused "--dump-heights over a wall mask" "would overwrite a wall mask" s.scene \
    -o 'x_%d.png' --dump-heights m.png -y
refused "--save-state over a wall mask" "would overwrite a wall mask" s.scene -f framemd5 \
    -o /dev/null --save-state m.png -y
refused "--aov over a wall mask" "would overwrite a wall mask" s.scene -f framemd5 \
    -o /dev/null --aov height 'm%.0d.png' -y
refused "--stats over a frame of the PNG pattern" "name the same files" s.scene \
    -o 'q/f_%d.png' --stats q/f_2.png
refused "two patterns, %d and %i" "name the same files" s.scene -o 'q/f_%d.png' \
    --aov height 'q/f_%i.png'
refused "two patterns, %05d and %d" "name the same files" s.scene -o 'q/f_%05d.png' \
    --aov height 'q/f_%d.png'
refused "--dump-heights /dev/stdout while -o - writes" "is stdout" s.scene -o - \
    --dump-heights /dev/stdout -y
check "nothing written into q" test -z "$(ls -A q)"
expect_status "two patterns of different names are fine" 0 "$R" -q s.scene -o 'q/f_%d.png' \
    --aov height 'q/h_%d.png'
check "both patterns written" test -s q/f_2.png -a -s q/h_2.png
