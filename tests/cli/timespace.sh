#!/usr/bin/env bash
# timespace.sh - the same water at every frame rate and every output size (rockpool(1)
# TIME AND SPACE): heights dumped at several frame rates equal, frame by frame, the 120 fps
# run's frame floor(k*120/fps); output sizes share one grid's heights byte for byte and
# look alike once scaled down; `speed` is the speed the rings are measured to have; the
# viscosity damps a given wave as much a second at every rate and grid; bad
# rates, speeds, grids and fades are refused at their line and column.
source "$(dirname "$0")/lib.sh"
R=$ROCKPOOL

cat >t.scene <<'SCENE'
size 160x96
duration 2s
seed 5
rate 120
at 0s drop 40% 50% radius 6 height 6000
at 0.3s..2s rain rate 5/s radius 3..6 height 2000..5000
at 0.5s..1.5s stroke 10%,80% -> 90%,20% radius 3 height 1500
SCENE
"$R" -q t.scene -r 120 -f framemd5 -o /dev/null --dump-heights h120.bin ||
    bad "120 fps reference render"
for fps in 24 25 30 50 60 30000/1001; do
    name=${fps%%/*}
    "$R" -q t.scene -r "$fps" -f framemd5 -o /dev/null --dump-heights "h$name.bin" ||
        bad "render at $fps fps"
    if python3 - "$fps" "h$name.bin" h120.bin 160 96 <<'PY'; then
import sys
from fractions import Fraction
fps, path, ref, w, h = Fraction(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
a, b, n = open(path, 'rb').read(), open(ref, 'rb').read(), 2 * w * h
frames = len(a) // n
assert frames == -(-2 * fps // 1), (frames, fps)        # ceil(2 s * fps)
for k in range(frames):
    j = (k * 120 / fps).__floor__()                       # the 120 fps frame at the same instant
    assert a[k * n:(k + 1) * n] == b[j * n:(j + 1) * n], (k, j)
PY
        ok "heights at $fps fps equal the 120 fps run's at the same instants"
    else
        bad "heights at $fps fps equal the 120 fps run's at the same instants"
    fi
done
check "the frames differ over time (the test can fail)" \
    test "$(head -c 30720 h120.bin | md5sum)" != "$(tail -c 30720 h120.bin | md5sum)"

# One 640x360 scene at three output sizes: the same grid heights, the same picture. The
# background is a smooth photo-like picture (the built-in texture has one-pixel grain and
# grout that no scale keeps): the water is what is compared.
ffmpeg -v error -f lavfi -i "gradients=s=2560x1440:c0=0x305070:c1=0xa0c0d0:c2=0x604030:n=3:seed=1" \
    -frames:v 1 -vf "boxblur=8" bg.png || bad "background picture"
cat >s.scene <<'SCENE'
background bg.png
size 640x360
duration 1s
seed 2
at 0s drop 30% 40% radius 12 height 4000
at 0.1s drop 70% 60% radius 18 height 5000
at 0s..1s rain rate 8/s radius 5..10 height 1500..3000
SCENE
for size in 640x360 1280x720 1920x1080; do
    "$R" -q s.scene -s "$size" --start 24 --end 25 -o "p$size/f_%02d.png" \
        --dump-heights "d$size.bin" || bad "render at $size"
done
check "1280x720 heights equal 640x360's" cmp -s d640x360.bin d1280x720.bin
check "1920x1080 heights equal 640x360's" cmp -s d640x360.bin d1920x1080.bin
for size in 1280x720 1920x1080; do
    ffmpeg -v error -i "p$size/f_24.png" -vf scale=640:360:flags=area -f rawvideo \
        -pix_fmt rgb24 - >"small$size.rgb"
    ffmpeg -v error -i p640x360/f_24.png -f rawvideo -pix_fmt rgb24 - >ref.rgb
    psnr=$(python3 -c '
import sys, math
a, b = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
mse = sum((x - y) ** 2 for x, y in zip(a, b)) / len(a)
print("%.1f" % (99 if mse == 0 else 10 * math.log10(255 * 255 / mse)))' "small$size.rgb" ref.rgb)
    check "$size scaled down is within 35 dB of 640x360 (PSNR $psnr)" \
        python3 -c "import sys; sys.exit(0 if $psnr >= 35 else 1)"
done

# speed 20%/s: the leading edge of a drop's rings, measured from the heights at 1 s and
# 2 s (where |h| passes 5% of the peak), at two output sizes and two frame rates.
cat >v.scene <<'SCENE'
size 640x360
duration 2.5s
speed 20%/s
at 0s drop 50% 50% radius 8 height 8000
SCENE
for fps in 24 60; do
    for size in 640x360 1280x720; do
        "$R" -q v.scene -r $fps -s $size -f framemd5 -o /dev/null \
            --dump-heights "v$fps$size.bin" || bad "speed render"
        got=$(python3 - "v$fps$size.bin" $fps 640 360 <<'PY'
import sys, math
path, fps, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
data, n = open(path, 'rb').read(), w * h
def radius(k):
    f = memoryview(data)[2 * n * k:2 * n * (k + 1)].cast('h')
    peak = max(abs(v) for v in f)
    return max(math.hypot(i % w - w / 2 + 0.5, i // w - h / 2 + 0.5)
               for i, v in enumerate(f) if abs(v) > peak * 0.05)
print("%.4f" % ((radius(2 * fps) - radius(fps)) / w))
PY
)
        check "speed 20%/s measured at $fps fps, $size: $got widths/s (within 5%)" \
            python3 -c "import sys; sys.exit(0 if abs($got - 0.20) <= 0.01 else 1)"
    done
done

# Bad time and space settings: exit 2 at the line and column, nothing written.
bad_scene() { # NAME TEXT WHERE
    printf '%b' "$2" >b.scene
    expect_status "$1: exit 2" 2 "$R" -q b.scene -o b.mp4
    stderr_has "$1: position" "b.scene:$3"
    check "$1: nothing written" test ! -e b.mp4
}
bad_scene "rate 0" 'rate 0\n' "1:6"
bad_scene "rate -5" 'rate -5\n' "1:6"
bad_scene "rate not whole" 'rate 120.5\n' "1:6"
bad_scene "rate over the limit" 'rate 99999\n' "1:6"
bad_scene "grid under 16 cells" 'grid 8x8\n' "1:6"
bad_scene "grid over the limit" 'grid 20000x100\n' "1:6"
bad_scene "fade 0" 'fade 0s\n' "1:6"
bad_scene "fade in frames" 'fade 30f\n' "1:6"
bad_scene "speed 0" 'speed 0\n' "1:7"
bad_scene "fps 0" 'fps 0\n' "1:5"
printf 'rate 100\nspeed 10%%/s\n' >b.scene
expect_status "speed with rate: exit 2" 2 "$R" -q b.scene -o b.mp4
stderr_has "speed with rate: at the later, naming the other's line" \
    "b.scene:2:1: error: speed and rate (on line 1) are both given"
printf 'rate 4000\nfps 1\n' >b.scene
expect_status "too many steps a frame: exit 2" 2 "$R" -q b.scene -o b.mp4
stderr_has "too many steps a frame: message" "steps a frame, over the limit"
# A preroll is bounded like the drops' work: 10^12 cell steps before frame 0 (2 minutes at
# the SIMD step, half an hour at the plain loop's); past it the scene is refused at once
# (before, `preroll 1000000s` simulated for hours before its first frame).
printf 'size 640x360\npreroll 1000000s\n' >b.scene
expect_status "a preroll of 10^13 cell steps: exit 2" 2 timeout 20 "$R" -q b.scene -n 1 -f framemd5 -o b.md5
stderr_has "a preroll of 10^13 cell steps: names the limit" "cell steps before frame 0, over the limit of 1e+12"
check "a preroll over the limit: nothing written" test ! -e b.md5
printf 'size 640x360\npreroll 60s\n' >b.scene
expect_status "a preroll of 60 s: exit 0" 0 "$R" b.scene --check
printf 'rate frame\nfps 29.97\npreset elias\n' >b.scene
expect_status "fractional fps with a step a frame: exit 2" 2 "$R" -q b.scene -o b.mp4
stderr_has "fractional fps with a step a frame: message" "needs a whole frame rate"
expect_status "-r ntsc is a frame rate" 0 "$R" t.scene -r ntsc --check
grep -q '^fps: *30000/1001' "$WORK/out" && ok "--check shows 30000/1001" || bad "--check shows 30000/1001"
expect_status "-r 23.976" 0 "$R" t.scene -r 23.976 --check
grep -q '^fps: *24000/1001' "$WORK/out" && ok "23.976 is 24000/1001" || bad "23.976 is 24000/1001"
expect_status "-r 0.5x is refused" 2 "$R" t.scene -r 0.5x --check
# a decimal is an NTSC ratio only where it is that ratio rounded to its digits
for r in 29.970:30000/1001 59.94:60000/1001 1.001:1001/1000 29.96:749/25; do
    expect_status "-r ${r%%:*}" 0 "$R" t.scene -r "${r%%:*}" --check
    grep -q "^fps: *${r#*:} " "$WORK/out" && ok "${r%%:*} is ${r#*:}" || bad "${r%%:*} is ${r#*:}"
done
expect_status "-r 1000.009 is above 1000, not 1000" 2 "$R" t.scene -r 1000.009 --check
printf 'fps 1000.000001\n' >f.scene
expect_status "fps 1000.000001 in a scene is above 1000" 2 "$R" f.scene --check
"$R" -q t.scene -r 30000/1001 -n 3 -o ntsc.mp4 || bad "ntsc render"
check "the container's frame rate is exactly 30000/1001" \
    test "$(probe ntsc.mp4 r_frame_rate)" = "30000/1001"

# walls visible: wall cells drawn in their colour (exactly, where the grid is the output).
printf 'size 64x48\nduration 4f\npreset elias\nwalls visible 0x102030\nat 0f wall rect 8 8 10 6\n' \
    >wv.scene
"$R" -q wv.scene -f framemd5 -o /dev/null --hash >wv1.hash || bad "walls visible render"
"$R" -q wv.scene -o "wv/f_%d.png" || bad "walls visible PNG"
ffmpeg -v error -i wv/f_3.png -f rawvideo -pix_fmt rgb24 wv.rgb
check "wall cells are 0x102030, the others are not" python3 -c '
import sys
d = open("wv.rgb", "rb").read()
px = lambda x, y: tuple(d[(y * 64 + x) * 3:(y * 64 + x) * 3 + 3])
inside = all(px(x, y) == (16, 32, 48) for x in range(8, 18) for y in range(8, 14))
outside = px(7, 8) != (16, 32, 48) and px(18, 13) != (16, 32, 48)
sys.exit(0 if inside and outside else 1)'
# At another output size rectangles and circles are drawn as shapes (rockpool-scene(5)
# walls): every pixel of the visible render is the hidden render blended, shape after shape,
# with black by the contact line and then with the colour by a coverage computed here from
# the documented rule (the pixel's centre in 1/256 cell; coverage 1 half an output pixel
# inside the edge, 0 half a pixel outside, linear between; the contact line 40% at the
# edge, none 1.5 pixels outside; a circle of radius R + 1/2 cell about its centre cell's
# centre, a rectangle over its cells). The sun overhead (`light 0 90`) lights the rim evenly.
for size in 150x101 41x29 64x48; do
    # rows 8..13 hold three runs of wall cells, two of them two cells apart
    printf 'size 64x48\ngrid 64x48\nduration 3f\nlight 0 90\nwalls %s\nat 0f wall rect 8 8 10 6\nat 0f wall rect 20 8 2 6\nat 0f wall rect 40 10 3 3\nat 0f wall circle 50 30 5\nat 1f wall rect 0 40 3 8\nat 0f drop 30 20 radius 4 height 3000\n' \
        "visible 0xc08040" >wvs.scene
    sed 's/^walls .*/walls hidden/' wvs.scene >wvh.scene
    "$R" -q -y wvs.scene -s $size -o "wvs/f_%d.png" && "$R" -q -y wvh.scene -s $size -o "wvh/f_%d.png" ||
        bad "walls visible at $size"
    ffmpeg -v error -i wvs/f_2.png -f rawvideo -pix_fmt rgb24 -y wvs.rgb
    ffmpeg -v error -i wvh/f_2.png -f rawvideo -pix_fmt rgb24 -y wvh.rgb
    check "walls visible at $size: shapes' coverage over the hidden render" python3 -c '
import sys
from math import isqrt
ow, oh = map(int, sys.argv[1].split("x"))
gw, gh = 64, 48
# (circle, centre x, centre y, radius or half sizes) in 1/256 cell
shapes = [("rect", 8, 8, 10, 6), ("rect", 20, 8, 2, 6), ("rect", 40, 10, 3, 3),
          ("circle", 50, 30, 5), ("rect", 0, 40, 3, 8)]
edge = max((gw << 8) // ow, (gh << 8) // oh, 1)
cdiv = lambda a, b: -((-a) // b) if a < 0 else a // b  # C division, toward zero
def outside(sh, px, py):
    if sh[0] == "circle":
        dx, dy = px - (sh[1] * 256 + 128), py - (sh[2] * 256 + 128)
        return isqrt(dx * dx + dy * dy) - (sh[3] * 256 + 128)
    w, h = sh[3] * 256, sh[4] * 256
    dx, dy = px - (sh[1] * 256 + w // 2), py - (sh[2] * 256 + h // 2)
    return max(abs(dx) - w // 2, abs(dy) - h // 2)
vis, hid = open("wvs.rgb", "rb").read(), bytearray(open("wvh.rgb", "rb").read())
bad = walls = full = 0
for y in range(oh):
    cy = ((2 * y + 1) * gh << 7) // oh
    for x in range(ow):
        cx = ((2 * x + 1) * gw << 7) // ow
        i = (y * ow + x) * 3
        for sh in shapes:
            out = outside(sh, cx, cy)
            if out >= edge + edge // 2:
                continue
            a = min(max(cdiv((edge // 2 - out) * 256, edge), 0), 256)
            contact = min(max(256 - cdiv(out * 256, edge + edge // 2), 0), 256) if out > -(edge // 2) else 0
            if contact:
                A = contact * 26214 >> 8
                for c in range(3):
                    hid[i + c] = (hid[i + c] * (65536 - A) + 32768) >> 16
            if not a:
                continue
            walls += 1
            full += a == 256
            A = a << 8
            for c, col in enumerate((0xc0, 0x80, 0x40)):
                hid[i + c] = (hid[i + c] * (65536 - A) + col * A + 32768) >> 16
        bad += vis[i:i + 3] != hid[i:i + 3]
print("    pixels %d wrong of %d; %d shape samples, %d covered fully" % (bad, ow * oh, walls, full))
sys.exit(0 if bad == 0 and full > 0 and walls > full else 1)' $size
done
# Before the first wall comes, the visible render is the hidden one; once the step its item
# is on has run, not.
printf 'size 64x48\ngrid 64x48\nduration 8f\nwalls visible 0xc08040\nat 2f wall rect 8 8 10 6\nat 0f drop 30 20 radius 4 height 3000\n' >wlate.scene
sed 's/^walls .*/walls hidden/' wlate.scene >wlateh.scene
"$R" -q wlate.scene -s 150x101 --hash -f framemd5 -o /dev/null >wlate.hash
"$R" -q wlateh.scene -s 150x101 --hash -f framemd5 -o /dev/null >wlateh.hash
check "walls visible: frames before the first wall equal walls hidden, later ones differ" \
    test "$(head -n 2 wlate.hash)" = "$(head -n 2 wlateh.hash)" -a \
    "$(tail -n 1 wlate.hash)" != "$(tail -n 1 wlateh.hash)"
printf 'walls visible 0x12345\n' >b.scene
expect_status "walls: bad colour" 2 "$R" -q b.scene -o b.mp4
stderr_has "walls: bad colour position" "b.scene:1:15"

# The light's options, at several thread counts and every vector level: the same bytes.
cat >l.scene <<'SCENE'
size 200x120
duration 10f
seed 9
light 200 35
specular 5 80
sky 0xb0c8e8 2
caustics 3
walls visible
at 0f wall circle 70% 40% 6%
at 0f drop 30% 50% radius 5% height 5000
at 0f..10f rain rate 20/s radius 2%..4% height 2000..4000
SCENE
same_everywhere "light options" l.scene 320x192 1 2 3
cp ref.hash lref.hash
printf 'refraction off\n' | cat l.scene - >loff.scene
"$R" -q loff.scene -s 320x192 --hash -f framemd5 -o /dev/null >loff.hash
check "refraction off changes the frames" test "$(sed -n 5p loff.hash)" != "$(sed -n 5p lref.hash)"

# Viscosity is the same at every rate and grid: the rockpool preset's 4e-6 width^2 a second
# takes a wave 1/20 of the width long down by exp(-4e-6 (2 pi 20)^2) = 0.9388 in a second
# (e^(-nu k^2 t)). Each step's pass takes it down by 1 - 4 v sin^2(pi 20 / W) (water.h);
# the per-step v that --check prints, at the rate it prints, must give that within 0.5%.
for g in "grid 320x180" "" "grid 1280x720" "rate 300" "grid 1280x720\nrate 100" \
    "grid 2000x1125\nfps 60"; do
    printf "size 1280x720\nduration 1s\n$g\n" >visc.scene
    got=$("$R" visc.scene --check | awk '
        /^grid:/ { split($2, s, "x"); w = s[1] }
        /^rate:/ { r = $2 }
        /^viscosity:/ { sub(/^\(/, "", $5); split($5, q, "/"); v = q[1] / 65536 }
        END { pi = atan2(0, -1); f = (1 - 4 * v * sin(pi * 20 / w) ^ 2) ^ r
              printf "%.4f %s", f, (f > 0.9388 * 0.995 && f < 0.9388 * 1.005) ? "ok" : "off" }')
    check "viscosity per second at '${g//\\n/, }': $got (exp(-nu k^2) = 0.9388)" \
        test "${got#* }" = ok
done
