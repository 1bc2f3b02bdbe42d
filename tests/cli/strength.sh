#!/usr/bin/env bash
# strength.sh - `strength X` / --strength X (rockpool-scene(5), rockpool(1)): every drop's
# height times X. Strength 1 is the run without it to the byte; strength 2 and 0.5 give the
# heights a hand computation of the elias preset's first step gives; still water at
# strength 3 is the picture itself (compared with ffmpeg's own framemd5 of it); above 1 the
# caustics are divided by the strength's square (the same frames as the equivalent scene
# written by hand); a strength out of 0 to 4 is refused with file:line:col (the scene) or
# the option's name (exit 2).
source "$(dirname "$0")/lib.sh"

# ---- strength 1 is the default, byte for byte ---------------------------------------------
cat >r.scene <<'SCENE'
size 96x64
duration 12f
seed 5
at 0f drop 40% 45% radius 4% height 3000
at 1f..12f rain rate 30/s radius 2%..3% height 1200..2800
SCENE
"$ROCKPOOL" -q r.scene -f framemd5 -o plain.md5
"$ROCKPOOL" -q r.scene --strength 1 -f framemd5 -o opt1.md5
(cat r.scene; echo "strength 1.000") >r1.scene
"$ROCKPOOL" -q r1.scene -f framemd5 -o scene1.md5
check "--strength 1 gives the default's frames" cmp -s plain.md5 opt1.md5
check "strength 1.000 in the scene gives the default's frames" cmp -s plain.md5 scene1.md5
"$ROCKPOOL" -q r.scene --strength 2 -f framemd5 -o opt2.md5
check "--strength 2 changes the frames" test -s opt2.md5 -a "$(grep -vc '^#' opt2.md5)" = 12
check "--strength 2 changes the frames (hashes differ)" bash -c '! cmp -s plain.md5 opt2.md5'
# the option overrides the scene's statement, as every option does
(cat r.scene; echo "strength 3") >r3.scene
"$ROCKPOOL" -q r3.scene --strength 2 -f framemd5 -o over.md5
check "--strength overrides the scene's strength" cmp -s opt2.md5 over.md5

# ---- the caustics over the strength's square above 1 -------------------------------------
# strength 2 with caustics 0.5 is a drop twice as high under caustics 0.5 / 2^2 = 0.125
printf 'size 96x64\nduration 8f\ncaustics 0.5\nstrength 2\nat 0f drop 50%% 50%% radius 6%% height 1000\n' >c2.scene
printf 'size 96x64\nduration 8f\ncaustics 0.125\nat 0f drop 50%% 50%% radius 6%% height 2000\n' >c1.scene
"$ROCKPOOL" -q c2.scene -f framemd5 -o c2.md5
"$ROCKPOOL" -q c1.scene -f framemd5 -o c1.md5
check "strength 2, caustics 0.5 = heights twice, caustics 0.125 (by hand)" cmp -s c1.md5 c2.md5
# below 1 the caustics stay: strength 0.5 is a drop half as high under the same caustics
printf 'size 96x64\nduration 8f\nstrength 0.5\nat 0f drop 50%% 50%% radius 6%% height 2000\n' >h2.scene
printf 'size 96x64\nduration 8f\nat 0f drop 50%% 50%% radius 6%% height 1000\n' >h1.scene
"$ROCKPOOL" -q h2.scene -f framemd5 -o h2.md5
"$ROCKPOOL" -q h1.scene -f framemd5 -o h1.md5
check "strength 0.5 = heights halved, caustics as given" cmp -s h1.md5 h2.md5

# ---- heights against a hand computation ---------------------------------------------------
# elias: a disc of height H on every cell within radius 3, then one step: a cell whose four
# neighbours hold H becomes (4H >> 1) - 0, less its >> 5: H = 1000 -> 2000 - 62 = 1938;
# H = 2000 (strength 2) -> 4000 - 125 = 3875; H = 500 (strength 0.5) -> 1000 - 31 = 969.
cat >e.scene <<'SCENE'
preset elias
size 32x24
duration 1f
at 0f drop 16 12 radius 3 height 1000
SCENE
for s in 1 2 0.5; do
    "$ROCKPOOL" -q e.scene --strength "$s" --dump-heights "h$s.raw" -f framemd5 -o "e$s.md5"
done
centre() { /usr/bin/python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(); print(struct.unpack_from("<h", d, 2*(12*32+16))[0])' "$1"; }
check "strength 1: the centre after one step is 1938 (by hand)" test "$(centre h1.raw)" = 1938
check "strength 2: the centre after one step is 3875 (by hand)" test "$(centre h2.raw)" = 3875
check "strength 0.5: the centre after one step is 969 (by hand)" test "$(centre h0.5.raw)" = 969
check "strength 2: every height is twice strength 1's within 1 (rounding)" /usr/bin/python3 -c '
import struct, sys
a = struct.unpack("<768h", open("h1.raw", "rb").read())
b = struct.unpack("<768h", open("h2.raw", "rb").read())
sys.exit(0 if max(abs(y - 2 * x) for x, y in zip(a, b)) <= 1 and max(a) > 1000 else 1)'

# ---- still water stays the picture ---------------------------------------------------------
ffmpeg -v error -f lavfi -i testsrc2=size=160x90:rate=30 -frames:v 1 -y bg.png
cat >still.scene <<'SCENE'
duration 3f
strength 3
SCENE
"$ROCKPOOL" -q still.scene -i bg.png -f framemd5 -o still.md5
ffmpeg -v error -i bg.png -f framemd5 -pix_fmt rgb24 -y bg.md5
bg_hash=$(grep -v '^#' bg.md5 | awk -F', *' '{print $NF}')
check "still water at strength 3 is the picture (ffmpeg's framemd5)" \
    test "$(grep -v '^#' still.md5 | awk -F', *' '{print $NF}' | sort -u)" = "$bg_hash"

# ---- heights past int16: saturated cell by cell, as a keyed height ------------------------
# Strength 4 over rain of height 20000 is rain of height 80000, the heights `key rain 400%`
# gives at strength 1: the same water (cut to 32767 before the drop's shape, it was other
# water, and strength 1.001 gave weaker water than 1 when a key took heights past it).
printf 'size 96x64\nduration 6f\nseed 3\nkey rain 0s 400%% 1s 400%%\nat 0f..6f rain rate 60/s radius 6%%..6%% height 20000..20000\n' >k4.scene
printf 'size 96x64\nduration 6f\nseed 3\nstrength 4\nat 0f..6f rain rate 60/s radius 6%%..6%% height 20000..20000\n' >s4.scene
for f in k4 s4; do "$ROCKPOOL" -q $f.scene --dump-heights $f.raw -f framemd5 -o k_$f.md5; done
check "strength 4 past int16: the heights of key rain 400% at strength 1" cmp -s k4.raw s4.raw
check "... where cells saturate (some at 32767)" test "$(/usr/bin/python3 -c 'import struct,sys
d = open(sys.argv[1], "rb").read()
print(sum(1 for v in struct.unpack("<%dh" % (len(d) // 2), d) if v == 32767) > 0)' s4.raw)" = True

# ---- out of range ---------------------------------------------------------------------------
printf 'size 64x48\nduration 2f\nstrength 4.5\n' >bad.scene
expect_status "strength 4.5 in a scene: exit 2" 2 "$ROCKPOOL" bad.scene -o bad.png
stderr_has "strength 4.5: file:line:col and the range" "bad.scene:3:10: error: strength 4.5 is out of range (0 to 4)"
check "strength 4.5: no output" test ! -e bad.png
printf 'size 64x48\nduration 2f\nstrength -1\n' >neg.scene
expect_status "strength -1 in a scene: exit 2" 2 "$ROCKPOOL" neg.scene -o bad.png
stderr_has "strength -1: file:line:col" "neg.scene:3:10: error: strength -1 is out of range (0 to 4)"
printf 'size 64x48\nduration 2f\nstrength 1.0005\n' >prec.scene
expect_status "strength with 4 decimals: exit 2" 2 "$ROCKPOOL" prec.scene -o bad.png
stderr_has "strength with 4 decimals: file:line:col" "prec.scene:3:10: error: strength 1.0005 has more than 3 decimals"
for v in 4.001 -1 1. .5 1e0 abc ""; do
    expect_status "--strength '$v': exit 2" 2 "$ROCKPOOL" e.scene --strength "$v" -o bad.png
    stderr_has "--strength '$v': named" "--strength: '$v' is not a strength 0 to 4"
done
check "refused --strength: no output" test ! -e bad.png
expect_status "--strength 4 is accepted" 0 "$ROCKPOOL" -q e.scene --strength 4 -f framemd5 -o s4.md5
expect_status "--strength 0 is accepted" 0 "$ROCKPOOL" -q e.scene --strength 0 -f framemd5 -o s0.md5
# Trailing zeros past the third decimal, as a scene takes them (`strength 2.5000`): the
# option took 2.5 and refused 2.5000 (red team)
"$ROCKPOOL" -q e.scene --strength 2.5 -f framemd5 -o s25.md5
expect_status "--strength 2.5000 is accepted" 0 "$ROCKPOOL" -q e.scene --strength 2.5000 \
    -f framemd5 -o s25b.md5
check "--strength 2.5000 gives 2.5's frames" cmp -s s25.md5 s25b.md5
