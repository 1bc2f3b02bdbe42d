# layers.sh - compositing outputs (rockpool(1) ALPHA AND AOVS): --alpha as PNG RGBA, WebM
# VP9 yuva420p and MOV, checked by FFmpeg's decoders; the layer premultiplied (no colour
# above its alpha; FFmpeg's straight overlay of it is off); the overlay equation (FFmpeg's
# `overlay=alpha=premultiplied` of the layer onto the background is rockpool's `refraction
# off` render); the
# --aov sequences: 16-bit, all at the output size, the height AOV the grid's heights
# (--dump-heights) interpolated, under h + 32768, the displacement (ST) map reproducing the
# refraction render, normals that agree with it;
# the same bytes at -j 1 and -j 3; bad requests refused naming what works, nothing written.
source "$(dirname "$0")/lib.sh"

# A scene of exactly the output size, with drops from the first frame and rain after. The
# overlay equation below is the layer model's (look layer): the water model's bed also
# carries caustics, which no layer can paint (its own check is with caustics 0, below).
pool_scene pool.scene 160x96 "look layer"
{ cat pool.scene; echo "refraction off"; } >off.scene
ffmpeg -v error -f lavfi -i testsrc2=s=160x96 -frames:v 1 -pix_fmt rgb24 bg.png

# rgba_stats FILE [DECODER]: "frames min max distinct" of the alpha samples FFmpeg decodes.
rgba_stats() {
    ffmpeg -v error ${2:+-c:v "$2"} -i "$1" -f rawvideo -pix_fmt rgba - | python3 -c '
import sys
d = sys.stdin.buffer.read()
a = d[3::4]
print(len(d) // (160 * 96 * 4), min(a), max(a), len(set(a)))'
}
# alpha_varies NAME FILE [DECODER]: 8 frames whose alpha takes many values, not all 255.
alpha_varies() {
    local s
    s=$(rgba_stats "$2" "${3:-}")
    if python3 -c 'import sys; f, lo, hi, n = map(int, sys.argv[1:]); sys.exit(not (f == 8 and lo == 0 and hi < 255 and hi > 50 and n > 20))' $s; then
        ok "$1 ($s)"
    else
        bad "$1 (frames min max distinct: $s)"
    fi
}

# ---- --alpha outputs --------------------------------------------------------------------
expect_status "--alpha PNG" 0 "$ROCKPOOL" -q pool.scene --alpha -o lay/f_%03d.png
check "PNG is 8-bit RGBA (colour type 6)" test "$(probe lay/f_003.png pix_fmt)" = rgba
check "PNG IHDR says depth 8, colour type 6" python3 -c '
import struct, sys
d = open("lay/f_003.png", "rb").read()
sys.exit(not (d[12:16] == b"IHDR" and struct.unpack(">IIBB", d[16:26]) == (160, 96, 8, 6)))'
alpha_varies "PNG alpha varies over the frame" lay/f_%03d.png

expect_status "--alpha WebM" 0 "$ROCKPOOL" -q pool.scene --alpha -o lay.webm
check "WebM is VP9 with an alpha stream (alpha_mode 1)" test \
    "$(probe lay.webm codec_name) $(ffprobe -v error -show_entries stream_tags=alpha_mode -of csv=p=0 lay.webm)" \
    = "vp9 1"
# ffprobe reads VP9 with FFmpeg's own decoder, which drops the alpha: ask libvpx's.
check "libvpx-vp9 decodes yuva420p" grep -q "Video: vp9.*yuva420p" \
    <(ffmpeg -hide_banner -c:v libvpx-vp9 -i lay.webm -frames:v 1 -f null - 2>&1)
alpha_varies "WebM alpha varies over the frame (libvpx decoder)" lay.webm libvpx-vp9

# An odd size: the way out offered keeps the alpha plane (yuv444p, which has none, was offered
# to VP9's yuva420p, and then refused for that).
expect_status "--alpha WebM at an odd size" 2 "$ROCKPOOL" -q pool.scene --alpha -s 65x37 -o odd.webm
stderr_has "... names the even size" "yuva420p needs an even width and height (got 65x37): use -s 64x36"
check "... and offers no pixel format without alpha" bash -c "! grep -q 'yuv444p' '$WORK/err'"
expect_status "--alpha MOV" 0 "$ROCKPOOL" -q pool.scene --alpha -o lay.mov
check "MOV default is ProRes 4444 with alpha" test \
    "$(probe lay.mov codec_name) $(probe lay.mov profile) $(probe lay.mov pix_fmt)" \
    = "prores 4444 yuva444p12le"
alpha_varies "ProRes alpha varies over the frame" lay.mov
expect_status "--alpha MOV -c qtrle" 0 "$ROCKPOOL" -q pool.scene --alpha -c qtrle -o anim.mov
check "qtrle is argb" test "$(probe anim.mov codec_name) $(probe anim.mov pix_fmt)" = "qtrle argb"
alpha_varies "QuickTime Animation alpha varies over the frame" anim.mov
# qtrle is lossless: its frames are the PNG layer's bytes.
check "qtrle frames equal the PNG layer" cmp -s \
    <(ffmpeg -v error -i anim.mov -f rawvideo -pix_fmt rgba -) \
    <(ffmpeg -v error -i lay/f_%03d.png -f rawvideo -pix_fmt rgba -)

# framemd5 and --hash hash the RGBA bytes, as ffmpeg does over the PNG layer.
expect_status "--alpha framemd5" 0 "$ROCKPOOL" -q pool.scene --alpha -f framemd5 -o lay.md5
ffmpeg -v error -framerate 30 -i lay/f_%03d.png -pix_fmt rgba -fflags +bitexact -f framemd5 - \
    >theirs.md5
check "framemd5 equals ffmpeg's -pix_fmt rgba on the PNGs" cmp -s lay.md5 theirs.md5
"$ROCKPOOL" -q pool.scene --alpha --hash -f framemd5 -o /dev/null >hash.txt
check "--hash lines are the RGBA frames' MD5" test \
    "$(awk '{print $2}' hash.txt | tr '\n' ' ')" = \
    "$(grep -v '^#' lay.md5 | awk -F', *' '{print $6}' | tr '\n' ' ')"

# ---- the overlay equation ---------------------------------------------------------------
expect_status "refraction off render over bg.png" 0 "$ROCKPOOL" -q off.scene -i bg.png \
    -o rgb/f_%03d.png
ffmpeg -v error -i rgb/f_%03d.png -f rawvideo -pix_fmt rgb24 ours.rgb
ffmpeg -v error -i bg.png -i lay/f_%03d.png \
    -filter_complex "[0][1]overlay=format=rgb:alpha=premultiplied" -f rawvideo -pix_fmt rgb24 \
    comp.rgb
ffmpeg -v error -i bg.png -i lay/f_%03d.png -filter_complex "[0][1]overlay=format=rgb" \
    -f rawvideo -pix_fmt rgb24 straight.rgb
ffmpeg -v error -i lay/f_%03d.png -f rawvideo -pix_fmt rgba lay.rgba
# Premultiplied, C' = round(C A / 255) <= A: a straight layer has colours above their alpha
# wherever the light is bright and faint (the sky's reflection on gentle slopes).
check "premultiplied: no colour sample above its alpha, many pixels partly covered" \
    python3 - <<'EOF'
import sys
d = open("lay.rgba", "rb").read()
px = [d[i:i + 4] for i in range(0, len(d), 4)]
partial = sum(1 for p in px if 0 < p[3] < 255 and max(p[:3]) > 0)
over = sum(1 for p in px if max(p[:3]) > p[3])
print("    partly covered and lit %d, colour above alpha %d" % (partial, over))
sys.exit(over != 0 or partial < 1000)
EOF
check "overlay of the PNG layer as straight alpha is off by more than 2 levels" python3 - <<'EOF'
import sys
a, b = open("straight.rgb", "rb").read(), open("ours.rgb", "rb").read()
worst = max(abs(x - y) for x, y in zip(a, b))
print("    max difference", worst)
sys.exit(worst <= 2)
EOF
check "overlay=alpha=premultiplied of the PNG layer = refraction off render, within 2 levels" \
    python3 - <<'EOF'
import sys
a, b = open("comp.rgb", "rb").read(), open("ours.rgb", "rb").read()
bg = open("bg.png", "rb").read()
assert len(a) == len(b) == 8 * 160 * 96 * 3, (len(a), len(b))
worst = max(abs(x - y) for x, y in zip(a, b))
print("    max difference", worst)
sys.exit(worst > 2)
EOF
check "the render differs from the background (the layer is not empty)" python3 - <<'EOF'
import subprocess, sys
bg = subprocess.run(["ffmpeg", "-v", "error", "-loop", "1", "-i", "bg.png", "-frames:v", "8",
                     "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], capture_output=True).stdout
b = open("ours.rgb", "rb").read()
n = sum(1 for x, y in zip(bg, b) if abs(x - y) > 8)
print("    samples changed by the light:", n)
sys.exit(n < 1000)
EOF
ffmpeg -v error -i bg.png -c:v libvpx-vp9 -i lay.webm \
    -filter_complex "[0][1]overlay=format=rgb:alpha=premultiplied" -f rawvideo -pix_fmt rgb24 \
    compw.rgb
check "overlay of the WebM layer: PSNR >= 38 dB against the render" python3 - <<'EOF'
import math, sys
a, b = open("compw.rgb", "rb").read(), open("ours.rgb", "rb").read()
assert len(a) == len(b), (len(a), len(b))
mse = sum((x - y) ** 2 for x, y in zip(a, b)) / len(a)
psnr = 99 if mse == 0 else 10 * math.log10(255 * 255 / mse)
print("    PSNR %.1f dB" % psnr)
sys.exit(psnr < 38)
EOF

# ---- AOVs -------------------------------------------------------------------------------
# Output 320x192 over a 160x96 grid: normals and displacement interpolate the grid.
pool_scene aov.scene 320x192 "grid 160x96" "refraction 3" "look layer"
# The water model without caustics and tint: its bed is the background where the ST map
# points, so the same reconstruction holds (light.h WATER).
pool_scene aovw.scene 320x192 "grid 160x96" "look water" "caustics 0" "depth 64" \
    "light 315 50" "specular 3 1" "sky 0xc8dcff 16"
ffmpeg -v error -f lavfi -i testsrc2=s=320x192 -frames:v 1 -pix_fmt rgb24 bg2.png
aovs=(--aov height a1/h_%03d.png --aov normal a1/n_%03d.png --aov displacement a1/d_%03d.png)
expect_status "--aov height normal displacement" 0 "$ROCKPOOL" -q aov.scene -j 1 -i bg2.png \
    -o a1/o_%03d.png "${aovs[@]}" --dump-heights heights.bin
expect_status "--alpha layer of the same scene" 0 "$ROCKPOOL" -q aov.scene -j 1 --alpha \
    -o a1/l_%03d.png
check "height AOV is gray16be at the output size" test \
    "$(probe a1/h_005.png pix_fmt) $(probe a1/h_005.png width)x$(probe a1/h_005.png height)" \
    = "gray16be 320x192"
check "normal AOV is rgb48be at the output size" test \
    "$(probe a1/n_005.png pix_fmt) $(probe a1/n_005.png width)x$(probe a1/n_005.png height)" \
    = "rgb48be 320x192"
check "displacement AOV is rgb48be at the output size" test \
    "$(probe a1/d_005.png pix_fmt) $(probe a1/d_005.png width)x$(probe a1/d_005.png height)" \
    = "rgb48be 320x192"
ffmpeg -v error -i a1/h_%03d.png -f rawvideo -pix_fmt gray16le h.raw
# The grid's heights (--dump-heights, 160x96) interpolated to 320x192 by a float
# Catmull-Rom (pixel centres at (i + 0.5) * g / o - 0.5, edges clamped) are the AOV less
# 32768, within rounding (away from the frame's edges).
check "height AOV = --dump-heights interpolated, + 32768, within 1 level" python3 - <<'EOF'
import struct, sys
W, H, GW, GH = 320, 192, 160, 96
d = open("heights.bin", "rb").read()
h = open("h.raw", "rb").read()
assert len(d) == 8 * GW * GH * 2 and len(h) == 8 * W * H * 2, (len(d), len(h))
def cr(t):
    t = abs(t)
    return 1.5 * t**3 - 2.5 * t**2 + 1 if t < 1 else (-0.5 * t**3 + 2.5 * t**2 - 4 * t + 2 if t < 2 else 0)
def taps(o, g):
    out = []
    for i in range(o):
        src = (i + 0.5) * g / o - 0.5
        f = int(src // 1)
        out.append([(min(max(k, 0), g - 1), cr(src - k)) for k in range(f - 1, f + 3)])
    return out
tx, ty = taps(W, GW), taps(H, GH)
worst, moving = 0, 0
for fr in range(0, 8, 3):
    g = struct.unpack_from("<%dh" % (GW * GH), d, fr * GW * GH * 2)
    a = struct.unpack_from("<%dH" % (W * H), h, fr * W * H * 2)
    rows = [[sum(w * g[cy * GW + cx] for cx, w in tx[x]) for x in range(W)] for cy in range(GH)]
    for y in range(4, H - 4, 3):
        for x in range(4, W - 4, 3):
            ref = sum(w * rows[cy][x] for cy, w in ty[y])
            worst = max(worst, abs(ref - (a[y * W + x] - 32768)))
            moving += abs(ref) > 50
print("    max difference %.2f over %d moving samples" % (worst, moving))
sys.exit(worst > 1 or moving < 100)
EOF
# With the grid at the output size the AOV is the grid's heights exactly.
expect_status "--aov height, grid = output" 0 "$ROCKPOOL" -q aov.scene -s 160x96 -j 1 \
    --aov height ag/g_%03d.png --dump-heights heights_g.bin -f framemd5 -o /dev/null
ffmpeg -v error -i ag/g_%03d.png -f rawvideo -pix_fmt gray16le hg.raw
check "height AOV = --dump-heights + 32768 when the grid is the output (8 frames)" python3 - <<'EOF'
import struct, sys
d = open("heights_g.bin", "rb").read()
h = open("hg.raw", "rb").read()
n = len(d) // 2
assert len(h) == len(d), (len(d), len(h))
dumped = struct.unpack("<%dh" % n, d)
aov = struct.unpack("<%dH" % n, h)
bad = sum(1 for a, b in zip(dumped, aov) if a + 32768 != b)
print("    cells %d, mismatches %d, heights %d..%d" % (n, bad, min(dumped), max(dumped)))
sys.exit(bad != 0 or min(dumped) == max(dumped))
EOF
ffmpeg -v error -i a1/d_%03d.png -f rawvideo -pix_fmt rgb48le d.raw
ffmpeg -v error -i a1/n_%03d.png -f rawvideo -pix_fmt rgb48le n.raw
ffmpeg -v error -i a1/o_%03d.png -f rawvideo -pix_fmt rgb24 o.raw
ffmpeg -v error -i a1/l_%03d.png -f rawvideo -pix_fmt rgba l.raw
ffmpeg -v error -i bg2.png -f rawvideo -pix_fmt rgb24 bg2.raw
expect_status "water: --aov displacement and the render" 0 "$ROCKPOOL" -q aovw.scene -j 1 \
    -i bg2.png -o aw/o_%03d.png --aov displacement aw/d_%03d.png
expect_status "water: --alpha" 0 "$ROCKPOOL" -q aovw.scene -j 1 --alpha -o aw/l_%03d.png
mkdir -p rawl raww
mv d.raw o.raw l.raw rawl/
ffmpeg -v error -i aw/d_%03d.png -f rawvideo -pix_fmt rgb48le raww/d.raw
ffmpeg -v error -i aw/o_%03d.png -f rawvideo -pix_fmt rgb24 raww/o.raw
ffmpeg -v error -i aw/l_%03d.png -f rawvideo -pix_fmt rgba raww/l.raw
cp bg2.raw rawl/ && cp bg2.raw raww/
# Independent of rockpool's code: sample the background where the ST map points (bilinear in
# 1/256 pixel, as rockpool(1) defines refraction; t counts from the bottom), lay the --alpha
# layer over it (premultiplied: round(v (255 - A) / 255) + C', as FFmpeg's overlay does), and
# compare with the render. The 16-bit map holds a position to about
# 1/200 pixel at this width, so a sample on a sharp edge may be off by a level or two.
for look in l w; do
cd raw$look
check "ST map + layer reproduce the refraction render (look $look)" python3 - <<'EOF'
import struct, sys
W, H, F = 320, 192, 8
st = open("d.raw", "rb").read(); lay = open("l.raw", "rb").read()
out = open("o.raw", "rb").read(); bg = open("bg2.raw", "rb").read()
st = struct.unpack("<%dH" % (len(st) // 2), st)
assert len(st) == F * W * H * 3 and len(out) == F * W * H * 3 and len(bg) == W * H * 3
worst = exact = moved = blue = 0
for i in range(F * W * H):
    y, x = divmod(i % (W * H), W)
    s, t = st[3 * i], st[3 * i + 1]
    blue |= st[3 * i + 2]
    px = round(s / 65535 * W * 256 - 128)
    py = round((1 - t / 65535) * H * 256 - 128)
    px = min(max(px, 0), (W - 1) * 256)
    py = min(max(py, 0), (H - 1) * 256)
    moved += (px, py) != (x * 256, y * 256)
    ix, iy, fx, fy = px >> 8, py >> 8, px & 255, py & 255
    ix1, iy1 = min(ix + 1, W - 1), min(iy + 1, H - 1)
    a = lay[4 * i + 3]
    for k in range(3):
        top = bg[(iy * W + ix) * 3 + k] * (256 - fx) + bg[(iy * W + ix1) * 3 + k] * fx
        bot = bg[(iy1 * W + ix) * 3 + k] * (256 - fx) + bg[(iy1 * W + ix1) * 3 + k] * fx
        v = (top * (256 - fy) + bot * fy + 32768) >> 16
        v = min(255, (v * (255 - a) + 127) // 255 + lay[4 * i + k])
        d = abs(v - out[3 * i + k])
        worst = max(worst, d)
        exact += d == 0
n = F * W * H * 3
print("    displaced pixels %d, exact samples %.2f%%, max difference %d"
      % (moved, 100 * exact / n, worst))
sys.exit(worst > 3 or exact < 0.99 * n or moved < 1000 or blue != 0)
EOF
cd ..
done
mv rawl/d.raw rawl/o.raw rawl/l.raw .
check "normals: unit, flat water (0.5, 0.5, 1), slopes agree with the ST map" python3 - <<'EOF'
import struct, sys
W, H, F = 320, 192, 8
st = struct.unpack("<%dH" % (F * W * H * 3), open("d.raw", "rb").read())
nm = struct.unpack("<%dH" % (F * W * H * 3), open("n.raw", "rb").read())
worst_len = worst_d = 0.0
flat = tilted = 0
for i in range(F * W * H):
    y, x = divmod(i % (W * H), W)
    nx, ny, nz = (2 * v / 65535 - 1 for v in nm[3 * i:3 * i + 3])
    worst_len = max(worst_len, abs(nx * nx + ny * ny + nz * nz - 1))
    if nm[3 * i:3 * i + 3] == (32768, 32768, 65535):
        flat += 1
        continue
    tilted += 1
    # displacement = refraction (3 cells per unit slope) * 2 px per cell * slope; the slope
    # along x is -n_x/n_z, and n_y/n_z up the frame (so the sample moves down by -6 n_y/n_z)
    dx = st[3 * i] / 65535 * W - 0.5 - x
    dy = (1 - st[3 * i + 1] / 65535) * H - 0.5 - y
    ex, ey = 6 * nx / nz, -6 * ny / nz
    if 1 <= x + ex <= W - 2 and 1 <= y + ey <= H - 2:  # not clamped at the edges
        worst_d = max(worst_d, abs(dx - ex), abs(dy - ey))
print("    flat %d, tilted %d, |n|^2 - 1 <= %.5f, displacement - 6 n/n_z <= %.4f px"
      % (flat, tilted, worst_len, worst_d))
sys.exit(worst_len > 2e-4 or worst_d > 0.02 or flat < 1000 or tilted < 1000)
EOF

# Every AOV, the layer and the render are the same bytes at -j 3.
expect_status "--aov and --alpha at -j 3" 0 "$ROCKPOOL" -q aov.scene -j 3 -i bg2.png \
    -o a3/o_%03d.png --aov height a3/h_%03d.png --aov normal a3/n_%03d.png \
    --aov displacement a3/d_%03d.png
"$ROCKPOOL" -q aov.scene -j 3 --alpha -o a3/l_%03d.png
same=1
for f in a1/[hndol]_*.png; do cmp -s "$f" "a3/${f#a1/}" || { same=0; echo "    differs: $f"; }; done
check "AOVs, layer and render: same bytes at -j 1 and -j 3 (40 files)" test "$same$(ls a1 | wc -l)" = 140

# ---- bad requests: exit 2, a message naming what works, nothing written ------------------
mkdir bad && cd bad || exit 1
refuse() { # refuse NAME FRAGMENT ARGS...
    local name=$1 frag=$2
    shift 2
    expect_status "$name: exit 2" 2 "$ROCKPOOL" -q ../pool.scene "$@"
    stderr_has "$name: says '$frag'" "$frag"
    check "$name: nothing written" test -z "$(ls -A)"
}
refuse "--alpha to MP4" ".webm (VP9 yuva420p)" --alpha -o x.mp4
refuse "--alpha to MKV with H.264" "cannot carry alpha" --alpha -o x.mkv
refuse "--alpha to Y4M" "Y4M cannot carry alpha" --alpha -o x.y4m
refuse "--alpha on stdout" "Y4M cannot carry alpha" --alpha -o -
refuse "--alpha with a seed preset" "needs render light" --alpha --preset elias -o x.webm
refuse "--alpha with --pix-fmt yuv420p" "try yuva420p" --alpha --pix-fmt yuv420p -o x.webm
refuse "--alpha with -c libx264 in MOV" "cannot carry alpha" --alpha -c libx264 -o x.mov
refuse "yuva420p without --alpha" "add --alpha" --pix-fmt yuva420p -o x.webm
refuse "--aov without a frame number" "one integer conversion" --aov height h.png -o o.webm
refuse "--aov unknown kind" "expected height, normal, displacement" --aov depth d_%03d.png
refuse "--aov kind twice" "given twice" --aov height a_%03d.png --aov height b_%03d.png
refuse "--aov without a path" "needs a PATH" --aov height
refuse "--aov on the -o pattern" "name the same files" -o f_%03d.png --aov normal f_%03d.png
refuse "--aov two kinds, one pattern" "name the same files" --aov height f_%03d.png \
    --aov normal f_%03d.png
refuse "--aov normal with a seed preset" "needs render light" --preset elias \
    --aov normal n_%03d.png -o x.mp4
# When a scene statement chose the render, the refusal points at it.
{ cat ../pool.scene; echo "render offset"; } >../offset.scene
line=$(grep -c '' ../offset.scene)
for req in "--alpha -o x.webm" "--aov displacement d_%03d.png -o x.mp4"; do
    # shellcheck disable=SC2086 # the request's words
    expect_status "$req, scene says render offset: exit 2" 2 "$ROCKPOOL" -q ../offset.scene $req
    stderr_has "... at the render statement" "offset.scene:$line:1: error: ${req%% *} "
    check "... nothing written" test -z "$(ls -A)"
done
# A scene's render statement wins over the command line's --preset, so it is still named;
# a scene's preset statement is named unless --preset replaces it.
expect_status "render offset in the scene, --preset rockpool: exit 2" 2 "$ROCKPOOL" -q \
    ../offset.scene --preset rockpool --alpha -o x.webm
stderr_has "... at the render statement" "offset.scene:$line:1: error: --alpha "
{ cat ../pool.scene; echo "preset elias"; } >../elias.scene
expect_status "preset elias in the scene: exit 2" 2 "$ROCKPOOL" -q ../elias.scene --alpha \
    -o x.webm
stderr_has "... at the preset statement" "elias.scene:$line:1: error: --alpha "
expect_status "preset elias in the scene and on the command line: exit 2" 2 "$ROCKPOOL" -q \
    ../elias.scene --preset elias --alpha -o x.webm
stderr_has "... still refused" "--alpha needs render light"
check "... names no statement" bash -c '! grep -q "elias.scene:" "$0"' "$WORK/err"
check "... nothing written" test -z "$(ls -A)"
touch h_003.png
expect_status "--aov over an existing frame" 2 "$ROCKPOOL" -q ../pool.scene --aov height \
    h_%03d.png -f framemd5 -o x.md5
stderr_has "--aov over an existing frame: names it" "h_003.png' already exists"
check "--aov over an existing frame: nothing else written" test "$(ls -A)" = h_003.png
rm -f h_003.png
# The scene file may come before --aov's two words.
expect_status "SCENE --aov KIND PATH" 0 "$ROCKPOOL" ../pool.scene -q --aov height h_%03d.png \
    -f framemd5 -o x.md5
check "SCENE --aov KIND PATH: 8 height frames" test "$(ls h_*.png | wc -l)" = 8

# Walls (still, and moving along a path) are in the layer: the overlay equation holds for
# them too (the layer had no walls: 138 levels off where they stand).
cd "$WORK" || exit 1
mkdir -p wl/lay wl/rgb
cat >wl/w.scene <<'SCENE'
size 160x96
fps 30
duration 8f
seed 7
walls visible
look layer
path p 10%,80% 90%,20%
at 0s wall rect 40% 0 8% 45%
at 0s wall circle 75% 70% 9
at 0s..1s wall circle along p 6
at 0s drop 50% 50% radius 12 height 1200
SCENE
{ cat wl/w.scene; echo "refraction off"; } >wl/off.scene
"$ROCKPOOL" -q wl/w.scene --alpha -o wl/lay/f_%03d.png
"$ROCKPOOL" -q wl/off.scene -i bg.png -o wl/rgb/f_%03d.png
ffmpeg -v error -i wl/rgb/f_%03d.png -f rawvideo -pix_fmt rgb24 wl/ours.rgb
ffmpeg -v error -i bg.png -i wl/lay/f_%03d.png \
    -filter_complex "[0][1]overlay=format=rgb:alpha=premultiplied" -f rawvideo -pix_fmt rgb24 \
    wl/comp.rgb
check "walls in the layer: overlay = refraction off render, within 2 levels" python3 - <<'EOF2'
import sys
a, b = open("wl/comp.rgb", "rb").read(), open("wl/ours.rgb", "rb").read()
assert len(a) == len(b) == 8 * 160 * 96 * 3, (len(a), len(b))
worst = max(abs(x - y) for x, y in zip(a, b))
print("    max difference", worst)
sys.exit(worst > 2)
EOF2

# --aov caustics: the gain look water's bed applies to the refracted background. The
# compositing recipe of rockpool(1), done outside rockpool: the background sampled through
# the ST map (numpy, bilinear), multiplied by the caustics pass with FFmpeg's blend
# (A * B / 4096 in 16 bits), the --alpha layer laid over it with FFmpeg's overlay
# (alpha=premultiplied), gives the
# render within 2 levels (3 where the caustics' gain is 6 or more: a sample of frame 8
# whose bed point lies on one of the picture's edges, 3 off since the refraction's slope is
# the footprint's). Strong caustics (0.5: gains up to 8) and a tint, over a picture
# (examples/island.png fitted to the frame: a still frame of it is the picture exactly).
# Over testsrc2's hard synthetic edges a 16-bit ST map's position (1/205 pixel here) times
# such gains leaves up to 9 levels; over pictures it does not (at caustics 1, gains up to
# 16, a few samples are 3 off).
cd "$WORK" || exit 1
mkdir -p cz
printf 'size 320x192\nduration 1f\n' >cz/still.scene
"$ROCKPOOL" -q cz/still.scene -i "$TOP/examples/island.png" -o cz/plate.png
cat >cz/c.scene <<'SCENE'
size 320x192
fps 30
duration 10f
seed 3
grid 160x96
look water
caustics 0.5
tint 0xe0f0ff
at 0s drop 50% 50% radius 10 height 2500
at 2f drop 25% 40% radius 6 height 2000
at 4f drop 75% 60% radius 8 height 2500
SCENE
expect_status "--aov caustics with the render and its displacement" 0 "$ROCKPOOL" -q cz/c.scene \
    -i cz/plate.png -o cz/o_%03d.png --aov displacement cz/d_%03d.png --aov caustics cz/c_%03d.png
expect_status "... and the --alpha layer" 0 "$ROCKPOOL" -q cz/c.scene --alpha -o cz/l_%03d.png
check "caustics AOV is rgb48be at the output size" test \
    "$(probe cz/c_005.png pix_fmt) $(probe cz/c_005.png width)x$(probe cz/c_005.png height)" \
    = "rgb48be 320x192"
ffmpeg -v error -i cz/d_%03d.png -f rawvideo -pix_fmt rgb48le cz/d.raw
check "the plate through the ST map (numpy, bilinear)" /usr/bin/python3 - <<'EOF'
import subprocess, numpy as np
W, H, F = 320, 192, 10
d = np.fromfile("cz/d.raw", "<u2").reshape(F, H, W, 3).astype(float)
bg = np.frombuffer(subprocess.run(["ffmpeg", "-v", "error", "-i", "cz/plate.png", "-f", "rawvideo",
                                   "-pix_fmt", "rgb24", "-"], capture_output=True).stdout,
                   np.uint8).reshape(H, W, 3).astype(float)
x = np.clip(d[..., 0] / 65535 * W - 0.5, 0, W - 1)
y = np.clip((1 - d[..., 1] / 65535) * H - 0.5, 0, H - 1)
x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
x1, y1 = np.minimum(x0 + 1, W - 1), np.minimum(y0 + 1, H - 1)
fx, fy = (x - x0)[..., None], (y - y0)[..., None]
p = (bg[y0, x0] * (1 - fx) + bg[y0, x1] * fx) * (1 - fy) + (bg[y1, x0] * (1 - fx) + bg[y1, x1] * fx) * fy
np.round(p * 257).astype("<u2").tofile("cz/plate.raw")
EOF
ffmpeg -v error -f rawvideo -pix_fmt rgb48le -s 320x192 -r 30 -i cz/plate.raw -framerate 30 \
    -i cz/c_%03d.png -framerate 30 -i cz/l_%03d.png -frames:v 10 -filter_complex "[0]format=gbrp16le[a];[1]format=gbrp16le[b];[a][b]blend=all_expr='min(65535,A*B/4096)',format=gbrp[bed];[bed][2]overlay=format=rgb:alpha=premultiplied" \
    -f rawvideo -pix_fmt rgb24 cz/rebuilt.raw
ffmpeg -v error -i cz/o_%03d.png -f rawvideo -pix_fmt rgb24 cz/o.raw
ffmpeg -v error -i cz/c_%03d.png -f rawvideo -pix_fmt rgb48le cz/c.raw
check "plate x caustics, the layer over it (FFmpeg) = the render within 2 levels (3 at gains >= 6)" /usr/bin/python3 - <<'EOF'
import sys, numpy as np
a = np.fromfile("cz/rebuilt.raw", np.uint8).astype(int)
b = np.fromfile("cz/o.raw", np.uint8).astype(int)
c = np.fromfile("cz/c.raw", "<u2").astype(int)
assert a.size == b.size == c.size == 10 * 320 * 192 * 3, (a.size, b.size, c.size)
e = np.abs(a - b)
lit, dark = np.count_nonzero(c > 4300), np.count_nonzero(c < 3500)
# 2 levels, 3 where the gain is 6 or more: there the ST map's half quantum (1/410 pixel)
# on an edge of the picture (0 to 125 in a pixel) is 0.3 levels, times 8 2.4
bound = np.where(c >= 6 * 4096, 3, 2)
print("    max difference %d (%d samples over 2), mean %.3f; samples brightened %d, darkened %d"
      % (e.max(), np.count_nonzero(e > 2), e.mean(), lit, dark))
sys.exit(0 if (e <= bound).all() and lit > 2000 and dark > 2000 else 1)
EOF
rm -f "$WORK/bad_c.mp4"
expect_status "--aov caustics with another look: exit 2" 2 "$ROCKPOOL" aov.scene -o bad_c.mp4 \
    --aov caustics cz/x_%03d.png
stderr_has "... saying why" "--aov caustics needs look water"
stderr_has "... at the look statement" "aov.scene:$(grep -n '^look layer' aov.scene | cut -d: -f1):1: error:"
check "... and writes nothing" test ! -e bad_c.mp4 -a ! -e cz/x_000.png
