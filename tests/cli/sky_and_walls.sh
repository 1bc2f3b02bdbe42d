# sky_and_walls.sh - the sky as an image and walls drawn from their masks (rockpool-scene(5) sky,
# walls): a sky image of one colour renders as that colour, byte for byte; still water
# reflects the image unshifted (the --alpha layer is the image's pixels, premultiplied by
# their alpha); on ripples the
# reflection moves the sample 8 cells per unit slope the other way from the refraction
# (checked against the displacement AOV); the overlay equation still holds; the same bytes
# at every thread count and vector level; bad sky images refused before anything is
# written, with the scene's line and column; checkpoints bind the sky image. `walls
# visible image`: mask walls in the mask image's own pixels, rectangles in the colour, the
# same after a checkpoint; the memory estimate counts both.
source "$(dirname "$0")/lib.sh"
R=$ROCKPOOL

# mkpng PATH W H EXPR: an 8-bit RGB PNG whose pixel (x, y) is the Python tuple EXPR.
mkpng() {
    python3 - "$@" <<'EOF'
import struct, sys, zlib
path, w, h, expr = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
f = eval("lambda x, y: " + expr)
raw = b"".join(b"\0" + bytes(c for x in range(w) for c in f(x, y)) for y in range(h))
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
open(path, "wb").write(b"\x89PNG\r\n\x1a\n" +
                       chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                       chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
EOF
}
# raw FILE... FMT OUT: decode to raw samples (rgb24, rgba, rgb48le) for python.
raw() { ffmpeg -v error -y -i "$1" -f rawvideo -pix_fmt "$2" "$3"; }

# The sky contracts below are the layer model's (look layer: Schlick's weight with F0 = 0.02
# on still water too), with version 2's light from 40 degrees (its glint table rounds to a
# faint glint on flat water at some other elevations, 60 among them); the water model's
# still water is checked after them.
pool_scene pool.scene 160x96 "look layer" "light 315 40"
# one colour, another aspect than the frame (cover scales it); a gradient with a cloud
mkpng flat.png 200 90 '(51, 102, 153)'
mkpng grad.png 240 100 '(40 + x // 2, 80 + y, 200 if (x - 150) ** 2 + (y - 40) ** 2 > 300 else 250)'
ffmpeg -v error -f lavfi -i testsrc2=s=160x96 -frames:v 1 -pix_fmt rgb24 bg.png

# ---- a sky image of one colour is that colour -------------------------------------------
{ cat pool.scene; echo "sky flat.png 3"; } >skyflat.scene
{ cat pool.scene; echo "sky 0x336699 3"; } >skycol.scene
for size in 160x96 320x192; do
    "$R" -q skyflat.scene -s $size -i bg.png -f framemd5 -o flat$size.md5
    "$R" -q skycol.scene -s $size -i bg.png -f framemd5 -o col$size.md5
    check "sky image of one colour ($size): 8 frames" test "$(grep -vc '^#' flat$size.md5)" = 8
    check "sky image of one colour = sky 0x336699, byte for byte ($size)" \
        cmp -s flat$size.md5 col$size.md5
done
"$R" -q skyflat.scene --alpha -f framemd5 -o aflat.md5
"$R" -q skycol.scene --alpha -f framemd5 -o acol.md5
check "... and so is the --alpha layer" cmp -s aflat.md5 acol.md5
{ cat pool.scene; echo "sky grad.png 3"; } >skygrad.scene
check "--check names the sky image" grep -q '^sky: *grad.png$' <("$R" --check skygrad.scene)
"$R" -q skygrad.scene -i bg.png -f framemd5 -o grad.md5
differ "a gradient sky image changes the frames" grad.md5 flat160x96.md5

# ---- still water reflects the image unshifted -------------------------------------------
mkpng still.png 160 96 '(x + 40, 2 * y + 20, (7 * x + 5 * y) % 256)'
printf 'size 160x96\nduration 3f\nsky still.png 10\nlook layer\nlight 315 40\n' >still.scene
expect_status "still water with a sky image, --alpha" 0 "$R" -q still.scene --alpha \
    -o st/l_%d.png
expect_status "still water with a sky image over bg.png" 0 "$R" -q still.scene -i bg.png \
    -o st/o_%d.png
raw still.png rgb24 sky.rgb
raw st/l_2.png rgba lay.rgba
raw st/o_2.png rgb24 out.rgb
raw bg.png rgb24 bg.rgb
# --alpha is premultiplied: each colour sample is round(sky * 51 / 255), worked out here from
# the image itself (a straight layer would hold the sky's own pixels).
check "still water: the layer is the sky image premultiplied by alpha 51 (Fresnel 0.02 x 10)" \
    python3 - <<'EOF'
import sys
sky, lay = open("sky.rgb", "rb").read(), open("lay.rgba", "rb").read()
n = 160 * 96
pm = bytes((2 * c * 51 + 255) // 510 for c in sky)
bad = [i for i in range(n) if lay[4 * i + 3] != 51 or lay[4 * i:4 * i + 3] != pm[3 * i:3 * i + 3]]
print("    pixels off:", len(bad))
sys.exit(len(bad) != 0)
EOF
check "still water: the render is round((bg * 204 + sky * 51) / 255)" python3 - <<'EOF'
import sys
sky, bg, out = (open(f, "rb").read() for f in ("sky.rgb", "bg.rgb", "out.rgb"))
want = bytes((b * 204 + s * 51 + 127) // 255 for b, s in zip(bg, sky))
print("    samples off:", sum(1 for a, b in zip(want, out) if a != b))
sys.exit(want != out)
EOF
# look water: still water reflects nothing (the render is the background, the layer empty);
# with `flat` it reflects flat water's Fresnel reflectance ((1 - 4/3) / (1 + 4/3))^2 = 1/49
# times 10: alpha round(255 * 10 / 49) = 52.
printf 'size 160x96\nduration 3f\nsky still.png 10\nlook water\n' >stillw.scene
printf 'size 160x96\nduration 3f\nsky still.png 10 flat\nlook water\n' >stillf.scene
"$R" -q stillw.scene -i bg.png -o st/w_%d.png
"$R" -q stillw.scene --alpha -o st/wl_%d.png
"$R" -q stillf.scene -i bg.png -o st/f_%d.png
"$R" -q stillf.scene --alpha -o st/fl_%d.png
raw st/w_2.png rgb24 outw.rgb
raw st/wl_2.png rgba layw.rgba
raw st/f_2.png rgb24 outf.rgb
raw st/fl_2.png rgba layf.rgba
check "look water, still: the render is the background, the layer has alpha 0" \
    python3 -c 'import sys; a = open("layw.rgba", "rb").read()
sys.exit(open("outw.rgb", "rb").read() != open("bg.rgb", "rb").read() or max(a[3::4]) != 0)'
check "look water, sky flat: the layer is the sky at alpha 52, the render their blend" \
    python3 - <<'EOF'
import sys
sky, bg, out = (open(f, "rb").read() for f in ("sky.rgb", "bg.rgb", "outf.rgb"))
lay = open("layf.rgba", "rb").read()
want = bytes((b * 203 + s * 52 + 127) // 255 for b, s in zip(bg, sky))
alpha_ok = set(lay[3::4]) == {52}
pm = bytes((2 * c * 52 + 255) // 510 for c in sky)
colour_ok = bytes(c for i, c in enumerate(lay) if i % 4 != 3) == pm
print("    samples off:", sum(1 for a, b in zip(want, out) if a != b), "alpha", set(lay[3::4]),
      "premultiplied colour", colour_ok)
sys.exit(want != out or not alpha_ok or not colour_ok)
EOF

# ---- the reflection's displacement on ripples -------------------------------------------
# Light from straight above, no glint, no caustics: the layer's colour is the reflected sky
# times a common factor (and premultiplied by its alpha), so with a sky image R = x, G = 255
# its red over its green is the sampled R: x + 8 * slope * scale (where green is 160 or more,
# so the 8-bit premultiplied samples keep the ratio to a level or two). With refraction 1
# the displacement AOV holds -1 * slope * scale, so the sample is x - 8 * dx.
mkpng ramp.png 256 128 '(x, 255, 0)'
cat >ramp.scene <<'EOF'
size 256x128
look layer
fps 30
duration 6f
seed 3
refraction 1
light 0 90
specular 0 1
caustics 0
sky ramp.png 16
at 0s drop 40% 50% radius 14 height 2500
at 0s drop 75% 40% radius 10 height -2000
EOF
expect_status "ramp sky: --alpha layer and displacement AOV" 0 "$R" -q ramp.scene --alpha \
    -o rl/l_%d.png --aov displacement rl/d_%d.png
raw rl/l_5.png rgba rl.rgba
raw rl/d_5.png rgb48le rd.raw
check "reflected red = the ramp at x - 8 * refraction dx, within 3 levels" python3 - <<'EOF'
import struct, sys
W, H = 256, 128
lay = open("rl.rgba", "rb").read()
st = struct.unpack("<%dH" % (W * H * 3), open("rd.raw", "rb").read())
errs = {8: [], 0: [], -8: []}
moved = 0
for y in range(12, H - 12):
    for x in range(12, W - 12):
        i = y * W + x
        r, g, a = lay[4 * i], lay[4 * i + 1], lay[4 * i + 3]
        if a == 0 or g < 160:
            continue
        dx = st[3 * i] / 65535 * W - 0.5 - x
        got = 255 * r / g
        moved += abs(8 * dx) >= 2
        for k in errs:
            want = min(255, max(0, x - k * dx))
            errs[k].append(abs(got - want))
worst = {k: max(v) for k, v in errs.items()}
print("    pixels", len(errs[8]), "moved >= 2 px", moved, "worst error by k:", worst)
sys.exit(not (moved > 300 and worst[8] <= 3 and worst[0] > 10 and worst[-8] > 10))
EOF

# ---- the layer model still holds --------------------------------------------------------
{ cat skygrad.scene; echo "refraction off"; } >gradoff.scene
expect_status "--alpha layer with a sky image" 0 "$R" -q skygrad.scene --alpha -o gl/l_%03d.png
expect_status "refraction off render with the sky image" 0 "$R" -q gradoff.scene -i bg.png \
    -o gl/o_%03d.png
raw gl/o_%03d.png rgb24 ours.rgb
ffmpeg -v error -i bg.png -i gl/l_%03d.png \
    -filter_complex "[0][1]overlay=format=rgb:alpha=premultiplied" -f rawvideo -pix_fmt rgb24 \
    comp.rgb
check "overlay of the sky-image layer = refraction off render, within 2 levels" python3 - <<'EOF'
import sys
a, b = open("comp.rgb", "rb").read(), open("ours.rgb", "rb").read()
assert len(a) == len(b) == 8 * 160 * 96 * 3, (len(a), len(b))
worst = max(abs(x - y) for x, y in zip(a, b))
print("    max difference", worst)
sys.exit(worst > 2)
EOF

# ---- walls visible image ----------------------------------------------------------------
# The mask at half the output size: an orange disc and a green block (walls: luma >= 128),
# a dark red block (luma < 128: water), black elsewhere.
mkpng mask.png 160 96 '(250, 140, 60) if (x - 110) ** 2 + (y - 48) ** 2 < 400 else (120, 230, 120) if 20 <= x < 50 and 10 <= y < 30 else (90, 20, 20) if 10 <= x < 40 and 60 <= y < 85 else (0, 0, 0)'
cat >walls.scene <<'EOF'
size 320x192
fps 30
duration 12f
seed 5
light 0 90
walls visible image
at 0s wall mask mask.png
at 0s wall rect 250 150 40 30
at 1f wall rect 214 90 14 10
at 1f wall circle 70 40 8
at 0s drop 30% 60% radius 12 height 3000
at 0.1s..0.4s rain rate 40/s radius 3..6 height 900..1500
EOF
# check_walls NAME PNG SCALE: wall pixels of a frame at SCALE x 320x192
check_walls() {
    raw "$2" rgb24 w.rgb
    check "$1" python3 - "$3" <<'EOF'
import sys
s = int(sys.argv[1])
W = 320 * s
d = open("w.rgb", "rb").read()
px = lambda x, y: tuple(d[(y * s * W + x * s) * 3:(y * s * W + x * s) * 3 + 3])
over = [(x, y) for x in range(216, 227, 2) for y in range(92, 99, 2)]
disc = [(x, y) for x in range(200, 241, 4) for y in range(76, 117, 4)
        if (x - 220) ** 2 + (y - 96) ** 2 < 30 ** 2 and not (212 <= x < 230 and 88 <= y < 102)]
block = [(x, y) for x in range(44, 97, 4) for y in range(24, 57, 4)
         if (x - 70) ** 2 + (y - 40) ** 2 > 10 ** 2]
over += [(x, y) for x in range(64, 77, 2) for y in range(34, 47, 2)
         if (x - 70) ** 2 + (y - 40) ** 2 <= 5 ** 2]
rect = [(x, y) for x in range(254, 287, 4) for y in range(154, 177, 4)]
dark = [(x, y) for x in range(24, 77, 4) for y in range(124, 167, 4)]
fails = [("disc", p, px(*p)) for p in disc if px(*p) != (250, 140, 60)]
fails += [("block", p, px(*p)) for p in block if px(*p) != (120, 230, 120)]
fails += [("rect", p, px(*p)) for p in rect + over if px(*p) != (138, 133, 120)]
fails += [("dark", p, px(*p)) for p in dark if px(*p) in ((90, 20, 20), (138, 133, 120))]
print("    points", len(disc) + len(block) + len(rect) + len(over) + len(dark), "wrong:", fails[:5])
sys.exit(bool(fails) or len(disc) < 30)
EOF
}
expect_status "walls visible image" 0 "$R" -q walls.scene --start 11 -o wi/f_%d.png
check_walls "mask walls in the mask's pixels, rects in 0x8a8578 (over the mask too), dark mask parts water" \
    wi/f_11.png 1
expect_status "walls visible image at twice the size (grid < output)" 0 "$R" -q walls.scene \
    -s 640x384 --start 11 -o wi/g_%d.png
check_walls "... the same at 640x384" wi/g_11.png 2
sed 's/^walls visible image/walls visible 0x102030/' walls.scene >wcol.scene
"$R" -q wcol.scene --start 11 -o wi/c_%d.png
raw wi/c_11.png rgb24 c.rgb
check "walls visible 0x102030 draws the mask's walls in the colour" python3 - <<'EOF'
import sys
d = open("c.rgb", "rb").read()
px = lambda x, y: tuple(d[(y * 320 + x) * 3:(y * 320 + x) * 3 + 3])
sys.exit(not (px(220, 96) == px(60, 40) == px(270, 165) == (16, 32, 48)))
EOF
# Without masks, the image mode is the colour mode.
grep -v 'wall mask' walls.scene >wrect.scene
sed 's/^walls visible image/walls visible/' wrect.scene >wrect2.scene
"$R" -q wrect.scene -f framemd5 -o r1.md5
"$R" -q wrect2.scene -f framemd5 -o r2.md5
check "walls visible image without masks = walls visible, byte for byte" cmp -s r1.md5 r2.md5
"$R" -q walls.scene -f framemd5 -o wi.md5
"$R" -q wcol.scene -f framemd5 -o wc.md5
differ "walls visible image differs from walls visible 0x102030" wi.md5 wc.md5

# A checkpoint replays the walls, and with them the painting.
"$R" -q walls.scene --hash -f framemd5 -o /dev/null >wfull.hash
expect_status "walls image: save state at frame 6" 0 "$R" -q walls.scene --end 6 -f framemd5 \
    -o /dev/null --save-state w6.state
expect_status "walls image: load it" 0 "$R" -q walls.scene --start 6 --load-state w6.state \
    --hash -f framemd5 -o /dev/null
tail -n 6 wfull.hash >want.hash
check "walls image: frames after a loaded state equal the full run" cmp -s "$WORK/out" want.hash

# ---- the same bytes everywhere ----------------------------------------------------------
{ grep -v "^light" walls.scene; echo "sky grad.png 4"; echo "light 200 35"; } >all.scene
same_everywhere "sky and walls image" all.scene 480x288 1 3
"$R" -q all.scene -s 480x288 -j 3 --alpha --hash -f framemd5 -o /dev/null >a3.hash
"$R" -q all.scene -s 480x288 -j 1 --simd c --alpha --hash -f framemd5 -o /dev/null >a1.hash
check "sky image --alpha: -j 3 equals -j 1 --simd c" cmp -s a3.hash a1.hash

# ---- bad sky images: exit 2 at the scene's line and column, nothing written --------------
{ cat pool.scene; echo "sky  nosuch.png 2"; } >missing.scene
expect_status "missing sky image is exit 2" 2 "$R" -q missing.scene -o miss.mp4
stderr_has "missing sky image: file:line:col" "missing.scene:10:6: error: sky image"
stderr_has "missing sky image: names the path" "nosuch.png"
check "missing sky image: nothing written" test ! -e miss.mp4
expect_status "missing sky image: --check is exit 2" 2 "$R" --check missing.scene
stderr_has "--check: file:line:col" "missing.scene:10:6"
head -c 300 /dev/urandom >junk.png
printf '\x89PNG\r\n\x1a\n' | cat - junk.png >corrupt.png
{ cat pool.scene; echo "sky corrupt.png"; } >corrupt.scene
expect_status "corrupt sky image is exit 2" 2 "$R" -q corrupt.scene -o cor/f_%d.png
stderr_has "corrupt sky image: file:line:col" "corrupt.scene:10:5"
check "corrupt sky image: nothing written" test ! -e cor
ffmpeg -v error -f lavfi -i testsrc2=s=64x48:d=0.2 -pix_fmt yuv420p clip.mp4
{ cat pool.scene; echo "sky clip.mp4"; } >video.scene
expect_status "a video as the sky is exit 2" 2 "$R" -q video.scene -o vid.mp4
stderr_has "a video as the sky: says a still is needed" "is a video: the sky is a still image"
check "a video as the sky: nothing written" test ! -e vid.mp4
mkdir -p sub
{ cat pool.scene; echo "sky ../flat.png"; } >sub/out.scene
expect_status "a sky path outside the scene's directory is exit 2" 2 "$R" -q sub/out.scene \
    -o out.mp4
stderr_has "outside path message" "sky path '"
{ cat pool.scene; echo "sky 0x33669"; } >typo.scene
expect_status "a mistyped sky colour is exit 2" 2 "$R" -q typo.scene -o typo.mp4
stderr_has "mistyped colour: file:line:col" "typo.scene:10:5"
# (pool.scene's light 315 40 is render light's: the seed presets' light is -16..16)
grep -v '^light' pool.scene >pool_seed.scene
{ cat pool_seed.scene; echo "preset elias"; echo "sky nosuch.png"; } >elias.scene
expect_status "seed preset: a missing sky image is still exit 2" 2 "$R" -q elias.scene \
    -o e.mp4
{ cat pool_seed.scene; echo "preset elias"; } >elias0.scene
{ cat elias0.scene; echo "sky grad.png 4"; } >elias1.scene
"$R" -q elias0.scene -f framemd5 -o e0.md5
"$R" -q elias1.scene -f framemd5 -o e1.md5
check "seed preset: a sky image changes nothing" cmp -s e0.md5 e1.md5

# ---- checkpoints bind the sky image -----------------------------------------------------
cp grad.png sky2.png
{ cat pool.scene; echo "sky sky2.png 4"; } >ck.scene
"$R" -q ck.scene --hash -f framemd5 -o /dev/null >ckfull.hash
expect_status "sky image: save state at frame 4" 0 "$R" -q ck.scene --end 4 -f framemd5 \
    -o /dev/null --save-state s4.state
expect_status "sky image: load it" 0 "$R" -q ck.scene --start 4 --load-state s4.state --hash \
    -f framemd5 -o /dev/null
tail -n 4 ckfull.hash >want.hash
check "sky image: frames after a loaded state equal the full run" cmp -s "$WORK/out" want.hash
cp flat.png sky2.png
expect_status "another sky image with the state is exit 2" 2 "$R" -q ck.scene --start 4 \
    --load-state s4.state -f framemd5 -o ck.md5
stderr_has "another sky image: message" "the sky image differs"
check "another sky image: nothing written" test ! -e ck.md5

# ---- the memory estimate counts the sky image and the wall images -----------------------
# (y4m: framemd5's hasher would add frame copies that depend on the thread count)
printf 'size 160x96\nduration 2f\n' >m.scene
{ cat m.scene; echo "sky grad.png"; } >msky.scene
{ cat m.scene; echo "at 0s wall mask mask.png"; } >mmask.scene
{ cat mmask.scene; echo "walls visible image"; } >mimg.scene
for s in m msky mmask mimg; do
    "$R" -q $s.scene -s 4000x4000 --check --max-memory 400M -f y4m -o /dev/null \
        >/dev/null 2>$s.err
    echo $? >$s.status
done
check "4000x4000 under 400 MiB: fits without a sky image or wall images (--check)" \
    test "$(cat m.status) $(cat mmask.status)" = "0 0"
check "... a sky image does not fit" grep -q "needs about" msky.err
check "... walls visible image does not fit" grep -q "needs about" mimg.err

# ---- the memory estimate counts the hashers' frame copies (hash.h rp_hasher_copies) -------
# The least --max-memory, in MiB, under which a 1920x1080 run's estimate fits (--check:
# the estimate is checked, nothing is rendered).
fit_mib() {
    local lo=1 hi=1024 mid
    while [ $((hi - lo)) -gt 1 ]; do
        mid=$(((lo + hi) / 2))
        if "$R" -q m.scene -s 1920x1080 --check --max-memory ${mid}M "$@" 2>&1 >/dev/null |
            grep -q "needs about"; then lo=$mid; else hi=$mid; fi
    done
    echo $hi
}
# between A B LO HI: LO <= B - A <= HI (MiB). A 1920x1080 RGB24 frame is 5.93 MiB: MD5's
# hasher holds 8 copies with -j 1 (47.5 MiB) and 16 with -j 2, any other algorithm's none
# and 4 (2 a worker); the same on every CPU and --simd, batches or not.
between() { [ $(($2 - $1)) -ge $3 ] && [ $(($2 - $1)) -le $4 ]; }
printf '0 00000000000000000000000000000000\n' >one.hash
md5j1=$(fit_mib --hash -j 1)
check "--hash -j 1: MD5's 8 frame copies counted" between "$(fit_mib --hash --hash-algo crc32 -j 1)" "$md5j1" 46 49
check "--hash -j 1 --simd c: the same estimate" test "$(fit_mib --hash -j 1 --simd c)" = "$md5j1"
check "--hash -j 2: MD5's 16 frame copies against 4" between \
    "$(fit_mib --hash --hash-algo crc32 -j 2)" "$(fit_mib --hash -j 2)" 70 73
check "--verify -j 1: 8 more frame copies" between "$md5j1" "$(fit_mib --hash --verify one.hash -j 1)" 46 49
check "-f framemd5 -j 2: 16 frame copies against framehash crc32's 4" between \
    "$(fit_mib -f framehash --hash-algo crc32 -o /dev/null -j 2)" \
    "$(fit_mib -f framemd5 -o /dev/null -j 2)" 70 73

# Round walls at every size: a circle of 20 cells on a 320x180 grid, drawn over black in red
# at 640x360, 1920x1080 and 3840x2160. Along 720 rays from its centre the drawn edge (where
# the red is half) lies at (R + 1/2 cell) scaled to the output, within a third of an
# output pixel everywhere: no stair-steps and no one-cell nubs at N, S, E and W.
# (the sun overhead, `light 0 90`, lights the rim evenly: its shading is tested below)
printf 'size 640x360\ngrid 320x180\nduration 2f\nlight 0 90\nwalls visible 0xff0000\nat 0f wall circle 50%% 50%% 40\n' >round.scene
ffmpeg -v error -y -f lavfi -i color=black:s=640x360 -frames:v 1 black.png
for size in 640x360 1920x1080 3840x2160; do
    "$R" -q -y round.scene -i black.png -s $size --frame-range 1 -o round_$size.png
    ffmpeg -v error -y -i round_$size.png -f rawvideo -pix_fmt rgb24 round_$size.rgb
    check "a circle wall is round at $size" /usr/bin/python3 - $size <<'EOF'
import sys, numpy as np
w, h = map(int, sys.argv[1].split("x"))
a = np.fromfile("round_%s.rgb" % sys.argv[1], np.uint8).reshape(h, w, 3)[..., 0] / 255.0
s = w / 320.0                                        # output pixels per cell
cx, cy = (160 + 0.5) * s - 0.5, (90 + 0.5) * s - 0.5  # the centre cell's centre, pixel coords
want = (20 + 0.5) * s
def cov(x, y):
    x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
    fx, fy = x - x0, y - y0
    return ((a[y0, x0] * (1 - fx) + a[y0, x0 + 1] * fx) * (1 - fy) +
            (a[y0 + 1, x0] * (1 - fx) + a[y0 + 1, x0 + 1] * fx) * fy)
t = np.arange(720) * np.pi / 360
r = np.linspace(want - 3 * s, want + 3 * s, 4000)
c = cov(cx + np.outer(np.cos(t), r), cy + np.outer(np.sin(t), r))
edge = r[np.argmax(c < 0.5, axis=1)]
err = np.abs(edge - want)
print("    %s: edge radius %.2f..%.2f px, want %.2f, worst %.3f px"
      % (sys.argv[1], edge.min(), edge.max(), want, err.max()))
sys.exit(0 if err.max() <= 1 / 3 else 1)
EOF
done

# Walls are lit by the same sun on a rounded rim 3 pixels wide, over a contact line: a rect
# 60 x 40 cells (grid = output) in 0x808080 over white, the sun low in the west (light 270
# 0: along the water, from the left). Checked against the documented rule in floating
# point: colour x (1 + 1/2 w (g . s)), w from 1 at the edge to 0 three pixels in, g the
# edge's outward direction; the water darkened by 40% at the edge, fading to nothing 1.5
# pixels out. Left rim lighter, right rim darker, top and bottom as the middle, within 1.
printf 'size 160x96\nduration 2f\nlight 270 0\nwalls visible 0x808080\nat 0f wall rect 50 28 60 40\n' >lit.scene
ffmpeg -v error -y -f lavfi -i color=white:s=160x96 -frames:v 1 white.png
"$R" -q -y lit.scene -i white.png --frame-range 1 -o lit.png
ffmpeg -v error -y -i lit.png -f rawvideo -pix_fmt rgb24 lit.rgb
check "walls lit by the sun on their rim, over a contact line" /usr/bin/python3 - <<'EOF'
import sys, numpy as np
a = np.fromfile("lit.rgb", np.uint8).reshape(96, 160, 3)[..., 0].astype(float)
want = np.full((96, 160), 255.0)
for y in range(96):
    for x in range(160):
        px, py = x + 0.5, y + 0.5
        dx, dy = px - 80, py - 48
        ax, ay = abs(dx) - 30, abs(dy) - 20
        out = max(ax, ay)                       # pixels (= cells) outside the edge
        v = 255.0
        if out > -0.5:
            v *= 1 - 0.4 * min(max(1 - out / 1.5, 0), 1)
        cov = min(max(0.5 - out, 0), 1)
        if cov:
            g = (np.sign(dx), 0) if ax > ay else (0, np.sign(dy))
            w = 1 if out >= 0 else max(1 + out / 3, 0)
            c = 128 * (1 - 0.5 * w * g[0])      # the sun along -x: g . s = -g_x
            v = v * (1 - cov) + c * cov
        want[y, x] = v
e = np.abs(a - want)
print("    left rim %d, middle %d, right rim %d, top rim %d; contact %d; max difference %.2f"
      % (a[48, 50], a[48, 80], a[48, 109], a[28, 80], a[48, 49], e.max()))
sys.exit(0 if e.max() <= 1.01 and a[48, 50] > 170 and a[48, 109] < 90 and a[48, 49] < 200 else 1)
EOF

## A mask libswscale cannot scale to the grid (1x4096 to 64x36) is refused with what it is,
## not as an unsupported pixel layout; 4x4096 scales.
python3 - <<'PY'
import struct, zlib
def png(path, w, h):
    raw = b"".join(b"\x00" + b"\xff\xff\xff" * w for _ in range(h))
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                           + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
png("thin1.png", 1, 4096)
png("thin4.png", 4, 4096)
PY
for w in 1 4; do printf 'size 64x36\nduration 2f\nat 0s wall mask thin%s.png\n' $w >thin$w.scene; done
expect_status "a 1x4096 mask: exit 2" 2 "$ROCKPOOL" thin1.scene --check
stderr_has "a 1x4096 mask: the scale is named" \
    "thin1.scene:3:17: error: cannot scale image 'thin1.png' from 1x4096 to 64x36"
expect_status "a 4x4096 mask scales" 0 "$ROCKPOOL" thin4.scene --check

## A whole video given as a wall mask is called a video, not a truncated or damaged one.
ffmpeg -nostdin -v error -y -f lavfi -i testsrc=s=64x36:d=0.04 -frames:v 1 -c:v mpeg4 one.mp4
printf 'size 64x36\nduration 2f\nat 0s wall mask one.mp4\n' >video-mask.scene
expect_status "a video as a wall mask: exit 2" 2 "$ROCKPOOL" video-mask.scene --check
stderr_has "a video as a wall mask: called a video" \
    "video-mask.scene:3:17: error: 'one.mp4' is a video (QuickTime / MOV): a still image is needed here"

## A static wall that appears where a moving wall is (found by a red team): it skipped the
## cells the moving wall held, which became water again once it passed on, so the bar had a
## hole; a checkpoint's replay (--load-state, the plugin's seek back, rp_core) adds the walls
## on still water, whole, and every frame after it differed (39 of 39 here). The oracle for
## the wall: its cells are held at 0 (--dump-heights); for the replay: the run without it.
cat >mw.scene <<'SCENE'
size 160x90
fps 30
duration 4s
seed 9
path p linear 10%,50% 90%,50%
at 0s..4s wall circle along p 8%
at 0s..4s rain rate 20/s radius 2%..3% height 400..1900
at 2s wall rect 45% 0 10% 100%
SCENE
expect_status "a bar appearing under a moving circle: the whole run" 0 "$ROCKPOOL" -q mw.scene \
    -f framemd5 -o mw_full.md5 --dump-heights mw.heights
check "... every cell of the bar (x 72..87) is 0 in frames 61..119" python3 -c '
import struct, sys
d = open("mw.heights", "rb").read(); W, H = 160, 90; n = len(d) // (W * H * 2)
bad = [k for k in range(61, n) for h in [struct.unpack_from("<%dh" % (W * H), d, k * W * H * 2)]
       if any(h[y * W + x] for y in range(H) for x in range(72, 88))]
sys.exit(n != 120 or bad != [])'
expect_status "... to frame 80, saving the state" 0 "$ROCKPOOL" -q mw.scene --end 80 \
    -f framemd5 -o /dev/null --save-state mw.state
expect_status "... from the state" 0 "$ROCKPOOL" -q mw.scene --load-state mw.state --start 81 \
    -f framemd5 -o mw_part.md5
check "... frames 81..119 equal the whole run's" cmp -s \
    <(grep -v '^#' mw_full.md5 | awk -F, '$2 >= 81 { print $NF }') \
    <(grep -v '^#' mw_part.md5 | awk -F, '{ print $NF }')
