# core.sh - the simulation seen from the command line: --dump-heights against a Python
# transcription of Elias' ProcessWater loop, thread invariance, presets, boundaries.
source "$(dirname "$0")/lib.sh"

cat >drops.scene <<'SCENE'
preset elias
size 16x12
fps 10
duration 8f
at 0f drop 5 4 radius 1 height 900
at 3f drop 10 8 radius 1 height -700
at 5f drop 12 3 radius 2 height 20000
SCENE
expect_status "dump heights" 0 "$ROCKPOOL" -q drops.scene -f framemd5 -o x.md5 \
    --dump-heights h.bin
check "dump size is W*H*2*frames" test "$(stat -c %s h.bin)" = $((16 * 12 * 2 * 8))

# The seed's loop in Python, 2-D (no row wrap), int32 arithmetic saturated to int16.
python3 - <<'PY' >want.hex
import struct
W, H = 16, 12
cur = [[0] * W for _ in range(H)]
old = [[0] * W for _ in range(H)]
drops = {0: [(5, 4, 1, 900)], 3: [(10, 8, 1, -700)], 5: [(12, 3, 2, 20000)]}
sat = lambda v: max(-32768, min(32767, v))
out = b""
for k in range(8):
    for (cx, cy, r, h) in drops.get(k, []):
        for y in range(1, H - 1):
            for x in range(1, W - 1):
                if (x - cx) ** 2 + (y - cy) ** 2 <= r * r:
                    cur[y][x] = sat(cur[y][x] + h)
    for y in range(1, H - 1):
        for x in range(1, W - 1):
            n = ((cur[y][x-1] + cur[y][x+1] + cur[y-1][x] + cur[y+1][x]) >> 1) - old[y][x]
            n -= n >> 5
            old[y][x] = sat(n)
    cur, old = old, cur
    out += b"".join(struct.pack("<h", v) for row in cur for v in row)
print(out.hex())
PY
check "dumped heights equal the Python transcription of ProcessWater" \
    test "$(od -An -v -tx1 h.bin | tr -d ' \n')" = "$(cat want.hex)"

# Every stencil and boundary: -j 1, -j 2 and -j 7 give the same frames.
for stencil in 4 8 iso; do
    for boundary in wall open wrap; do
        printf 'stencil %s\nboundary %s\nsize 97x61\nduration 12f\nseed 3\n' "$stencil" \
            "$boundary" >sb.scene
        printf 'at 0f..12f rain rate 90/s radius 2..6 height 500..4000\n' >>sb.scene
        rm -f j1.md5 j2.md5 j7.md5
        for j in 1 2 7; do
            "$ROCKPOOL" -q sb.scene -j $j -f framemd5 -o "j$j.md5"
        done
        check "stencil $stencil boundary $boundary: -j 1 = -j 2 = -j 7" \
            sh -c 'test -s j1.md5 && cmp -s j1.md5 j2.md5 && cmp -s j1.md5 j7.md5'
    done
done

# Presets differ from each other and an explicit setting overrides a preset's default.
for p in rockpool elias applet silverlight codeproject; do
    "$ROCKPOOL" -q "$TOP/examples/rain.scene" -s 64x40 -n 20 --preset $p -f framemd5 \
        -o "p_$p.md5"
done
check "five presets give five different clips" \
    test "$(md5sum p_*.md5 | cut -d' ' -f1 | sort -u | wc -l)" = 5
printf 'preset elias\nstencil 8\nsize 64x40\nduration 20f\nat 0f drop 20 20 radius 4 height 900\n' \
    >ov.scene
printf 'preset elias\nsize 64x40\nduration 20f\nat 0f drop 20 20 radius 4 height 900\n' >el.scene
"$ROCKPOOL" -q ov.scene -f framemd5 -o ov.md5
"$ROCKPOOL" -q el.scene -f framemd5 -o el.md5
differ "stencil 8 overrides elias' stencil 4" ov.md5 el.md5
"$ROCKPOOL" -q el.scene --preset codeproject -f framemd5 -o cp1.md5
sed 's/preset elias/preset codeproject/' el.scene >cp.scene
"$ROCKPOOL" -q cp.scene -f framemd5 -o cp2.md5
check "--preset overrides the scene's preset" sh -c 'test -s cp1.md5 && cmp -s cp1.md5 cp2.md5'

# Walls hold their cells at 0: dumped heights inside a wall rect are all zero.
printf 'size 40x30\nduration 10f\nat 0f wall rect 20 0 4 30\nat 0f drop 10 15 radius 6 height 3000\n' \
    >wall.scene
"$ROCKPOOL" -q wall.scene -f framemd5 -o w.md5 --dump-heights w.bin
check "wall cells stay 0 in every frame" python3 -c "
import struct
d = open('w.bin','rb').read()
W, H = 40, 30
for f in range(10):
    for y in range(H):
        for x in range(20, 24):
            i = f*W*H + y*W + x
            assert struct.unpack_from('<h', d, 2*i)[0] == 0
"

# A wall mask image: white cells (luma >= 128) are walls, held at 0; black cells are water.
ffmpeg -v error -f lavfi -i "color=black:size=40x30,drawbox=x=20:y=0:w=4:h=30:color=white:t=fill" \
    -frames:v 1 mask.png
printf 'size 40x30\nduration 10f\nat 0f wall mask mask.png\nat 0f drop 10 15 radius 6 height 3000\n' \
    >mask.scene
expect_status "wall mask scene renders" 0 "$ROCKPOOL" -q mask.scene -f framemd5 -o m.md5 \
    --dump-heights m.bin
check "mask walls hold their cells at 0 and water moves elsewhere" python3 -c "
import struct
d = open('m.bin','rb').read()
W, H = 40, 30
h = lambda f, x, y: struct.unpack_from('<h', d, 2*(f*W*H + y*W + x))[0]
assert all(h(f, x, y) == 0 for f in range(10) for y in range(H) for x in range(20, 24))
assert any(h(9, x, y) != 0 for y in range(H) for x in range(0, 20))
"
check "mask scene equals the same walls given as a rect" cmp -s m.md5 w.md5
