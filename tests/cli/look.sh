# look.sh - the look over photographs (rockpool(1) LIGHT): frame 90 of a rain over four of
# Debian's lomiri-wallpapers photos (the README gallery's three and "Kleiber") against
# still water, at 640x360 and 1920x1080 (and the three at 3840x2160 in make check-all),
# must meet the targets tests/tools/look_targets.py states (no veil: 32x32-block luma
# change at most 2 levels median and 8 at the 95th percentile, the block scaled with the
# frame; mean luma within 2; new near-white pixels at most 0.1%; at least 3% of pixels
# changed by 8 levels; still water is the fitted photo exactly; on flat grey a smooth ring,
# grain at most 0.6 levels at 1080 rows, and rings seen through light alone, p99
# |luma - 128| >= 8); the measure that tells near-white moved from the photo's own from
# near-white made; at the frame's edges, bed points mirrored back into the picture, never
# clamped.
source "$(dirname "$0")/lib.sh"
B=/usr/share/backgrounds
photos=("$B/Bridge_by_Sander_Klootwijk.jpg" "$B/sunset_by_Aitzol_Berasategi.jpg"
    "$B/seeding_by_Clements_Engelhardt.jpg" "$B/Kleiber_by_Lukas_Baubkus.jpg")
check "the photographs are installed (scripts/install-deps: lomiri-wallpapers)" \
    test -r "${photos[0]}" -a -r "${photos[1]}" -a -r "${photos[2]}" -a -r "${photos[3]}"
check "numpy on /usr/bin/python3 (scripts/install-deps: python3-numpy)" \
    /usr/bin/python3 -c 'import numpy'
for size in 640x360 1920x1080; do
    check "look targets at $size" /usr/bin/python3 "$TOP/tests/tools/look_targets.py" \
        --rockpool "$ROCKPOOL" --size $size --check "${photos[@]}"
done
# At 3840x2160 the gallery's three (over Kleiber the photo's own highlights, moved by
# refraction, take new near-white to 0.14%: README, make bench). A minute on two cores, and
# what it finds the 1080p check finds first: make check-all (ALL=1) runs it.
if [ "${ALL:-0}" = 1 ]; then
    check "look targets at 3840x2160" /usr/bin/python3 "$TOP/tests/tools/look_targets.py" \
        --rockpool "$ROCKPOOL" --size 3840x2160 --check "${photos[@]:0:3}"
else
    echo "[ SKIPPED  ] look targets at 3840x2160: make check-all runs them (ALL=1)"
fi
# white_far counts new near-white pixels with none of the still frame's within 2 pixels
# (1080 rows): a white pixel moved 2 pixels is not one of them, one moved 3 is.
check "white_far tells white moved from the photo's from white made" /usr/bin/python3 -c '
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from look_targets import white_fractions
still = np.zeros((40, 40, 3)); still[10, 10] = 255
near = still.copy(); near[10, 12] = 255
far = still.copy(); far[10, 13] = 255
w0, f0 = white_fractions(near, still, 1080)
w1, f1 = white_fractions(far, still, 1080)
diag = still.copy(); diag[12, 12] = 255  # within the square of side 5 at 1080 rows
w2, f2 = white_fractions(diag, still, 1080)
k4 = still.copy(); k4[14, 14] = 255  # 4 pixels both ways: near at 2160 rows, far at 1080
w3, f3 = white_fractions(k4, still, 2160)
w4, f4 = white_fractions(k4, still, 1080)
sys.exit(0 if w0 == w1 == w2 == w3 == 1 / 1600 and f0 == f2 == f3 == 0 and
         f1 == f4 == 1 / 1600 else 1)' "$TOP/tests/tools"
# The same measurement fails on version 2's look (the layer model), so it can fail, and
# the summary line names the frame and the targets missed.
expect_status "the layer model misses them (the measurement can fail)" 1 /usr/bin/python3 \
    "$TOP/tests/tools/look_targets.py" --rockpool "$ROCKPOOL" --size 640x360 --check \
    --scene "look layer" --scene "light 315 40" "${photos[0]}" "${photos[1]}"
check "the summary names what the layer model misses" grep -q \
    '^summary: 0 of 2 photo frames meet every target; missed: Bridge 640x360 block_med, ' \
    "$WORK/out"

# At the frame's edges look water reads a bed point past the edge mirrored back into the
# picture, not clamped: no pixel of the ST map (--aov displacement) but the edge's own
# samples the first or last column's centre exactly, where clamping put dozens of them
# (the edge pixels streaked sideways).
printf 'size 320x180\nfps 30\nduration 1s\nseed 3\nat 0s drop 1%% 50%% radius 5%% height 3000\nat 0s drop 99%% 30%% radius 5%% height -3000\nat 0s drop 50%% 1%% radius 5%% height 3000\n' >edge.scene
expect_status "look water at the edges: render with the ST map" 0 "$ROCKPOOL" -q edge.scene \
    --start 12 --end 13 -f framemd5 -o edge.md5 --aov displacement edge_%d.png
check "look water at the edges: no bed point clamped to an edge column or row" \
    /usr/bin/python3 -c '
import subprocess, sys
import numpy as np
W, H = 320, 180
raw = subprocess.run(["ffmpeg", "-v", "error", "-i", "edge_12.png", "-f", "rawvideo",
                      "-pix_fmt", "rgb48le", "-"], capture_output=True, check=True).stdout
st = np.frombuffer(raw, "<u2").reshape(H, W, 3).astype(np.int64)
s, t = st[:, :, 0], st[:, :, 1]
moved = (s != np.round(65535 * (np.arange(W) + 0.5) / W)[None, :]).sum()
left, right = round(65535 * 0.5 / W), round(65535 * (W - 0.5) / W)
top, bottom = round(65535 * (1 - 0.5 / H)), round(65535 * (1 - (H - 0.5) / H))
clamped = (s[:, 1:-1] == left).sum() + (s[:, 1:-1] == right).sum() + \
          (t[1:-1, :] == top).sum() + (t[1:-1, :] == bottom).sum()
print("    moved", moved, "clamped to an edge", clamped)
sys.exit(0 if moved > 1000 and clamped <= 2 else 1)'

# The refraction never folds the picture (issue 45 item 3): the map from each pixel to the
# bed point it sees (--aov displacement) keeps its Jacobian's determinant and trace positive,
# so no part of the bed is mirrored or stretched without bound into streaks. Frame 80 of
# the photo example over picosdeeuropa, rain with a fresh drop at (90%, 43%) over snow and
# rock; the frame's outer 20 pixels at 360 rows (60 at 1080) left out, where bed points
# past the edge are mirrored back by design. With the pixel's own slopes moving the bed
# (before the footprint), 1553 pixels folded and 100 inverted (both eigenvalues negative)
# at 640x360, 16780 and 917 at 1920x1080 (det min -1.7); now none (det min 0.38 and 0.30:
# the bed magnified 3.4 times at most).
picos=$B/picosdeeuropa_by_Aitzol_Berasategi.jpg
for size in 640x360 1920x1080; do
    expect_status "look water over a fresh drop at $size: render with the ST map" 0 \
        "$ROCKPOOL" -q "$TOP/examples/photo-rain.scene" -i "$picos" -s $size --start 80 \
        --end 81 -f framemd5 -o fold.md5 --aov displacement "fold_${size}_%d.png" -y
    check "look water over a fresh drop at $size: the refraction folds no pixel" \
        /usr/bin/python3 -c '
import subprocess, sys
import numpy as np
W, H = map(int, sys.argv[1].split("x"))
raw = subprocess.run(["ffmpeg", "-v", "error", "-i", "fold_%s_80.png" % sys.argv[1], "-f",
                      "rawvideo", "-pix_fmt", "rgb48le", "-"], capture_output=True,
                     check=True).stdout
st = np.frombuffer(raw, "<u2").reshape(H, W, 3).astype(np.float64)
qx, qy = st[:, :, 0] / 65535 * W, (1 - st[:, :, 1] / 65535) * H
xx, xy = np.gradient(qx, axis=1), np.gradient(qx, axis=0)
yx, yy = np.gradient(qy, axis=1), np.gradient(qy, axis=0)
b = 20 * H // 360
det, tr = (xx * yy - xy * yx)[b:-b, b:-b], (xx + yy)[b:-b, b:-b]
moved = (np.abs(qx - np.arange(W)[None, :] - 0.5) > 1).sum()
folded, inverted = (det < 0).sum(), ((det > 0) & (tr < 0)).sum()
print("    moved %d, folded %d, inverted %d, det min %.3f" % (moved, folded, inverted, det.min()))
sys.exit(0 if moved > W * H // 50 and folded == 0 and inverted == 0 else 1)' $size
done

# Nor a lit line along the edges: the heights continue past an edge as their point
# reflection (light_simd.h struct rp_light_wrows), so rings that reach it over flat grey
# (seen through light alone) are no brighter on the frame's outermost pixels than 3 to 5
# pixels in. Mirrored evenly, the slope fell to 0 on the edge and its curvature doubled:
# 2.46 levels there against 1.1 inside.
ffmpeg -v error -f lavfi -i color=c=0x808080:s=64x36 -frames:v 1 -pix_fmt rgb24 grey.png
printf 'size 640x360\nfps 30\nduration 21f\nseed 11\nat 0s drop 1%% 50%% radius 3%% height 3000\nat 0s drop 99%% 30%% radius 3%% height -3000\nat 0s drop 50%% 1%% radius 3%% height 3000\nat 0s drop 40%% 99%% radius 3%% height 3000\nat 0s..1s rain rate 5/s radius 0.8%%..1.6%% height 1200..2800\n' >edges.scene
expect_status "look water over grey with rings at every edge" 0 "$ROCKPOOL" -q edges.scene \
    -i grey.png --start 20 --end 21 -f png -o edges_%d.png
check "look water: no lit line along the frame's edges" /usr/bin/python3 -c '
import subprocess, sys
import numpy as np
raw = subprocess.run(["ffmpeg", "-v", "error", "-i", "edges_20.png", "-f", "rawvideo",
                      "-pix_fmt", "rgb24", "-"], capture_output=True, check=True).stdout
a = np.frombuffer(raw, np.uint8).reshape(360, 640, 3).astype(float)
y = np.abs(a[..., 0] * 0.299 + a[..., 1] * 0.587 + a[..., 2] * 0.114 - 128)
def ring(k):
    e = None if k == 0 else -k
    return np.concatenate([y[k, k:e], y[-1 - k, k:e], y[k:e, k], y[k:e, -1 - k]])
edge, band = ring(0).mean(), np.concatenate([ring(k) for k in (3, 4, 5)]).mean()
print("    |luma - 128| on the edge %.2f, 3-5 px in %.2f" % (edge, band))
sys.exit(0 if band > 0.5 and edge <= band else 1)'
