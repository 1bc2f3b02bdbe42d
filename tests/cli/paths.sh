#!/usr/bin/env bash
# paths.sh - outputs that collide with each other or with the run's inputs are refused
# before anything is rendered: exit 2, a message naming both, and the directory exactly
# as it was (no file appeared, changed or vanished).
source "$(dirname "$0")/lib.sh"
R=$ROCKPOOL
mkdir d && cd d || exit 1
printf 'size 48x32\nduration 3f\nat 0f drop 24 16 radius 4 height 900\n' >s.scene
"$R" -q s.scene -o st.bin.mp4 --save-state st.bin >/dev/null 2>&1 || bad "state for the tests"
rm -f st.bin.mp4
printf "x" >keep.txt
cp "$TOP/examples/gallery/elias.png" keep.png
ln -s keep.png link-to-keep.png
ln -s nowhere.bin dangling.bin
ln -s keep.txt link-to-keep.txt
ln -s nowhere2.bin dangling2.bin
mkdir -p sub

snapshot() { find . -printf '%p %s %T@ %l\n' | sort; }

# refused NAME FRAGMENT ARGS...: exit 2, FRAGMENT in stderr, nothing changed.
refused() {
    local name=$1 fragment=$2 before
    shift 2
    before=$(snapshot)
    expect_status "$name: exit 2" 2 "$R" -q "$@"
    stderr_has "$name: message" "$fragment"
    if [ "$(snapshot)" = "$before" ]; then ok "$name: nothing changed"; else
        bad "$name: the directory changed"
        diff <(echo "$before") <(snapshot) | head -5 | sed 's/^/    /'
    fi
}

refused "-o and --dump-heights same name" "name the same file" s.scene -o a.mkv --dump-heights a.mkv
refused "same file through ./ and sub/.." "name the same file" s.scene -o h.bin.mp4 \
    --dump-heights h.bin --save-state sub/../h.bin
refused "--dump-heights and --save-state same name" "name the same file" s.scene -o o.mp4 \
    --dump-heights x.bin --save-state x.bin
refused "dangling link and its target" "name the same file" s.scene -o o.mp4 -y \
    --dump-heights nowhere.bin --save-state dangling.bin
refused "dangling link without -y" "dangling symbolic link" s.scene -o o.mp4 \
    --dump-heights dangling2.bin
refused "-o over the scene" "would overwrite the scene" s.scene -f y4m -o s.scene -y
refused "--dump-heights over the scene" "would overwrite the scene" s.scene -o o.mp4 \
    --dump-heights s.scene -y
refused "--save-state over --load-state" "would overwrite --load-state" s.scene -o o.mp4 -y \
    --load-state st.bin --save-state st.bin
refused "--dump-heights over --load-state" "would overwrite --load-state" s.scene -o o.mp4 -y \
    --load-state st.bin --dump-heights ./st.bin
refused "output over the background through a link" "would overwrite the background" \
    s.scene -i keep.png -f y4m -o link-to-keep.png -y
refused "-o over the background image" "would overwrite the background" s.scene -i keep.png \
    -o keep.png -f y4m -y

# Devices are written in place and may be named twice.
expect_status "/dev/null twice is fine" 0 "$R" -q s.scene -f y4m -o /dev/null \
    --dump-heights /dev/null
