#!/usr/bin/env bash
# motion.sh - paths, moving walls, emitters and keys (rockpool-scene(5) PATHS, MOVING WALLS,
# EMITTERS, KEYS): bad paths, walls, masks, keys and emitters are refused at file:line:col
# with exit 2 and nothing written; an emitter oscillates at its frequency; a circle moving
# along a row and a rectangle moving down a column through still water leave wakes
# mirror-symmetric about their tracks, raised ahead and lowered behind; a wall moving along
# a path gives the same heights at 24 and 60 fps at the instants they share and at two
# output sizes, appears and leaves at its span's ends, and is drawn where it is at each
# frame's instant, between steps too; keyed frames agree at 24 and 60 fps; a wall mask moves
# as a circle or a rect does; chunks, checkpoints and threads carry it all.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3

# Bad input: file:line:col, exit 2, nothing written.
refuse() { refuse_scene "$@"; } # lib.sh
refuse "a path of one point" "bad.scene:3:" "path p 10,10"
refuse "path times going back" "must increase" "path p 10,10 20,20 times 1s 0.5s"
refuse "path point off the grid" "off the grid" "path p 10,10 500,20" \
    "at 0s..1s stroke along p radius 3 height 500"
refuse "an unknown path" "unknown path 'q'" "path p 10,10 20,20" \
    "at 0s..1s stroke along q radius 3 height 500"
refuse "a moving wall without a span" "needs a span" "path p 10,10 20,20" \
    "at 0s wall circle along p 4"
refuse "keys out of order" "keys must be in order" "key caustics 1s 0.5 0.5s 1"
refuse "a key out of range" "out of range" "key elevation 0s 95"
refuse "an emitter above half the rate" "the highest it can be is" \
    "at 0s..1s emit point 80 48 freq 500hz amplitude 300 radius 3"
refuse "a light key without render light" "need render light" "preset elias" "key azimuth 0s 0 1s 90"
refuse "a rain-rate key over 100%" "out of range" "key rain-rate 0s 150%"
refuse "a wall mask along a path without its size" "bad.scene:4:28: error: expected" \
    "path p 10,10 20,20" "at 0s..1s wall mask along p"
refuse "a negative path point" "bad.scene:3:8: error: x coordinate -5" "path p -5,10 20,20"
refuse "more times than points" "bad.scene:3:32" "path p 10,10 20,20 times 0s 1s 2s"
refuse "fewer times than points" "bad.scene:3:28" "path p 10,10 20,20 times 0s"
refuse "a path defined twice" "already defined" "path p 10,10 20,20" "path p 30,30 40,40"
refuse "a moving circle of radius 0" "bad.scene:4:31" "path p 10,10 20,20" \
    "at 0s..1s wall circle along p 0"
refuse "a moving rect of width 0" "bad.scene:4:29" "path p 10,10 20,20" \
    "at 0s..1s wall rect along p 0 5"
refuse "a moving wall along an unknown path" "unknown path 'q'" "path p 10,10 20,20" \
    "at 0s..1s wall circle along q 4"

# An emitter's frequency from the heights at one point: 2.0 Hz asked, within 0.1 Hz.
cat >emit.scene <<'SCENE'
size 160x96
fps 30
duration 6s
at 0s..6s emit point 80 48 freq 2hz amplitude 400 radius 3
SCENE
expect_status "emitter renders" 0 "$ROCKPOOL" emit.scene -f framemd5 -o e.md5 --dump-heights e.bin
check "emitter: 2 Hz measured within 0.1 Hz" "$PY" - e.bin <<'PYEOF'
import sys, numpy as np
h = np.fromfile(sys.argv[1], dtype='<i2').reshape(-1, 96, 160)[:, 48, 100].astype(float)
h = h[60:] - h[60:].mean()        # after 2 s, the source's ring is past the point
s = np.sign(h); ups = np.where((s[:-1] <= 0) & (s[1:] > 0))[0]
f = (len(ups) - 1) / ((ups[-1] - ups[0]) / 30.0)
print("measured %.3f Hz" % f)
sys.exit(0 if abs(f - 2.0) <= 0.1 else 1)
PYEOF

# A wall moving at constant speed along the middle row of a symmetric grid (201 x 101:
# the track is row 50): the heights mirror about the track, rise ahead and fall behind.
cat >wake.scene <<'SCENE'
size 201x101
fps 30
duration 1s
path track 20,50 180,50
at 0s..3s wall circle along track 6 push 100
SCENE
expect_status "wake renders" 0 "$ROCKPOOL" wake.scene -f framemd5 -o w.md5 --dump-heights w.bin
check "wake: mirror-symmetric about its track, up ahead, down behind" "$PY" - w.bin <<'PYEOF'
import sys, numpy as np
h = np.fromfile(sys.argv[1], dtype='<i2').reshape(-1, 101, 201).astype(np.int64)
last = h[-1]
sym = np.array_equal(last, last[::-1, :])
# the wall is at x = 20 + 160 * (t / 3 s); at 1 s (frame 29 shows 1 s less a frame)
cx = 20 + 160 * (29 / 30.0) / 3
ahead = last[44:57, int(cx) + 8:int(cx) + 14].sum()
behind = last[44:57, int(cx) - 14:int(cx) - 8].sum()
print("symmetric", sym, "ahead", ahead, "behind", behind)
sys.exit(0 if sym and ahead > 0 and behind < 0 else 1)
PYEOF

# A rectangle longer than wide (a hull) moving down the middle column of a symmetric grid
# (101 x 201: the track is column 50): the heights mirror about the track, raised ahead of
# the rows it holds, lowered behind them.
cat >col.scene <<'SCENE'
size 101x201
fps 30
duration 1s
path down 50,20 50,180
at 0s..3s wall rect along down 5 9 push 100
SCENE
expect_status "rect wake renders" 0 "$ROCKPOOL" -q col.scene -f framemd5 -o c.md5 --dump-heights c.bin
check "rect wake: mirror-symmetric about its column, up ahead, down behind" "$PY" - <<'PYEOF'
import sys, numpy as np
h = np.fromfile('c.bin', '<i2').reshape(-1, 201, 101).astype(np.int64)
last = h[-1]
sym = np.array_equal(last, last[:, ::-1])
# the wall's place from the cells it holds at 0 on its track
held = [y for y in range(201) if last[y, 50] == 0 and last[y, 49] == 0 and last[y, 43] != 0]
front, rear = max(held), min(held)
ahead = last[front + 1:front + 7, 48:53].sum()   # the columns the rect covers
behind = last[rear - 7:rear - 1, 48:53].sum()
print("held rows", rear, "..", front)
print("symmetric", sym, "ahead", ahead, "behind", behind)
sys.exit(0 if sym and len(held) == 9 and ahead > 0 and behind < 0 else 1)
PYEOF

# A circle moving along a path for part of the timeline: the same heights at 24 and 60 fps
# at the instants they share and at two output sizes; it appears and leaves at its span's ends.
cat >m.scene <<'SCENE'
size 160x96
duration 2s
path p 10,40 80,30 150,60
at 0.5s..1.5s wall circle along p 5 push 120
SCENE
for r in 24 60; do
    expect_status "moving wall renders at $r fps" 0 \
        "$ROCKPOOL" -q m.scene -r $r -f framemd5 -o f$r.md5 --dump-heights h$r.bin
done
expect_status "moving wall renders at 480x288" 0 \
    "$ROCKPOOL" -q m.scene -r 24 -s 480x288 -f framemd5 -o big.md5 --dump-heights big.bin
check "moving wall: the same heights at 160x96 and 480x288" cmp -s h24.bin big.bin
differ "moving wall: the two sizes' frames differ (the check compares something)" f24.md5 big.md5
# 24 and 60 fps share every twelfth of a second: frame 2k at 24 fps, 5k at 60 fps.
check "moving wall: 24 and 60 fps heights equal at the 24 shared instants" "$PY" - <<'PYEOF'
import sys, numpy as np
a = np.fromfile('h24.bin', '<i2').reshape(-1, 96, 160)
b = np.fromfile('h60.bin', '<i2').reshape(-1, 96, 160)
n = 0
for k in range(24):
    if not np.array_equal(a[2 * k], b[5 * k]):
        print("differ at", k / 12.0, "s"); sys.exit(1)
    n += 1
moving = sum(1 for k in range(24) if np.abs(a[2 * k]).sum() > 0)
print("shared", n, "with water moving", moving)
sys.exit(0 if n == 24 and moving >= 10 else 1)
PYEOF
# The span 0.5s..1.5s: still water up to 0.5 s (frame 12 at 24 fps), water moving after;
# after 1.5 s the cells at the path's end (150,60) are water again and move.
check "moving wall: nothing before its span, water after it leaves" "$PY" - <<'PYEOF'
import sys, numpy as np
a = np.fromfile('h24.bin', '<i2').reshape(-1, 96, 160)
before = all(not a[f].any() for f in range(13))
during = a[14].any()
left = np.count_nonzero(a[47, 58:63, 148:153])
print("still before", before, "moving during", during, "cells moving at the end", left)
sys.exit(0 if before and during and left >= 20 else 1)
PYEOF

# The picture draws a moving wall where it is at each frame's instant, between steps too: a
# circle on still water (push 0, so the water stays flat) at 3.6 scene pixels a frame at
# 2x size, where the 320-wide grid runs about 1.6 steps a frame: its drawn edge advances
# 7 or 8 pixels every frame (7.23 on average), not one or two steps' worth (5 or 9).
cat >draw.scene <<'SCENE'
size 320x64
fps 30
duration 1s
walls visible
path p 40,32 257,32
at 0s..2s wall circle along p 6 push 0
SCENE
printf 'size 320x64\nfps 30\nduration 1s\n' >flat.scene
"$ROCKPOOL" -q draw.scene -s 640x128 -o draw.y4m && "$ROCKPOOL" -q flat.scene -s 640x128 -o flat.y4m
check "moving wall: drawn without stair-steps between steps" "$PY" - <<'PYEOF'
import sys, numpy as np
def lumas(p, w=640, h=128):
    d = open(p, 'rb').read()
    i, out = d.index(b'\n') + 1, []
    while i < len(d):
        i = d.index(b'\n', i) + 1
        out.append(np.frombuffer(d[i:i + w * h], np.uint8).reshape(h, w).astype(np.int64))
        i += w * h * 3 // 2
    return out
a, b = lumas('draw.y4m'), lumas('flat.y4m')
left = [int(np.nonzero(np.abs(a[f] - b[f]).sum(axis=0))[0][0]) for f in range(1, len(a))]
steps = np.diff(left)
print("drawn edge advances", sorted(set(steps.tolist())), "mean", steps.mean())
sys.exit(0 if len(a) == 30 and set(steps.tolist()) <= {7, 8} else 1)
PYEOF
# ...and at the same place at 24 and 60 fps at the instants they share.
for r in 24 60; do
    "$ROCKPOOL" -q draw.scene -r $r --hash -f framemd5 -o /dev/null >draw$r.hash
done
awk '$1 % 2 == 0 { print $1 / 2, $2 }' draw24.hash >d24
awk '$1 % 5 == 0 { print $1 / 5, $2 }' draw60.hash >d60
check "moving wall: drawn frames equal at 24 and 60 fps at shared instants" cmp -s d24 d60
check "moving wall: 12 shared instants compared" test "$(wc -l <d24)" -eq 12
# Chunks and checkpoints draw it where the full run does.
"$ROCKPOOL" -q draw.scene --hash -f framemd5 -o /dev/null >dfull.hash
"$ROCKPOOL" -q draw.scene --start 17 --hash -f framemd5 -o /dev/null >dchunk.hash
tail -n 13 dfull.hash >dwant.hash
check "moving wall: a chunk from frame 17 draws as the full run" cmp -s dchunk.hash dwant.hash
"$ROCKPOOL" -q draw.scene --end 17 --save-state d.state -f framemd5 -o /dev/null
"$ROCKPOOL" -q draw.scene --start 17 --load-state d.state --hash -f framemd5 -o /dev/null >dload.hash
check "moving wall: a loaded checkpoint draws as the full run" cmp -s dload.hash dwant.hash

# Keys of the light, and a stroke along a curve: the same frames at 24 and 60 fps at the
# instants they share (every half second).
cat >keys.scene <<'SCENE'
size 160x96
duration 2s
seed 3
path s smooth 10%,80% 40%,20% 70%,70% 90%,30%
key azimuth smooth 0s 0 2s 180
key caustics 0s 0.125 1s 1
key sun 0s 3 2s 12
key fade 0s 1.5 2s 0.3
key rain-rate 0s 100% 2s 30%
key rain 0s 100% 2s 200%
at 0s..2s stroke along s radius 2% height 600
at 0s..2s rain rate 6/s radius 1%..2% height 2000..3000
SCENE
"$ROCKPOOL" -q keys.scene -r 24 --hash -f framemd5 -o /dev/null | awk '$1 % 12 == 0 {print $1 / 12, $2}' >k24
"$ROCKPOOL" -q keys.scene -r 60 --hash -f framemd5 -o /dev/null | awk '$1 % 30 == 0 {print $1 / 30, $2}' >k60
check "keys and paths: 24 and 60 fps agree at shared instants" cmp -s k24 k60
check "keys and paths: four shared instants compared" test "$(wc -l <k24)" -eq 4
check "keys: the frames change as the keys move" test "$(cut -d' ' -f2 k24 | sort -u | wc -l)" -eq 4

# key rain-rate lets a share of the drops fall (the same drops the full rate draws), key
# fade shortens the waves' life: less water moving at the end.
drops() { "$ROCKPOOL" "$1" --check | sed -n 's/^drops: *\([0-9]*\) in all.*/\1/p'; }
grep -v -e '^key rain-rate' keys.scene >full.scene
check "key rain-rate: fewer drops than the full rate" test "$(drops keys.scene)" -lt "$(drops full.scene)"
grep -v -e '^key fade' keys.scene >nofade.scene
"$ROCKPOOL" -q keys.scene -f framemd5 -o /dev/null --dump-heights kf.bin
"$ROCKPOOL" -q nofade.scene -f framemd5 -o /dev/null --dump-heights nf.bin
check "key fade: the waves die sooner" "$PY" -c '
import sys, numpy as np
a = np.abs(np.fromfile("kf.bin", dtype="<i2").reshape(-1, 96, 160)[-1].astype(int)).sum()
b = np.abs(np.fromfile("nf.bin", dtype="<i2").reshape(-1, 96, 160)[-1].astype(int)).sum()
print("keyed", a, "fixed", b); sys.exit(0 if a < 0.7 * b else 1)'

# Chunks and checkpoints carry paths, moving walls and emitters.
cat >all.scene <<'SCENE'
size 160x96
fps 30
duration 40f
walls visible
path boat smooth 5%,50% 50%,30% 95%,60%
at 0s..1.3s wall circle along boat 5
at 0s..1.3s emit line 0,0 -> 0,95 freq 1.5hz amplitude 300 radius 3 fade 0.3s
key elevation 0s 30 1s 70
SCENE
"$ROCKPOOL" -q all.scene --hash -f framemd5 -o /dev/null >full.hash
"$ROCKPOOL" -q all.scene --start 20 --hash -f framemd5 -o /dev/null >chunk.hash
tail -n 20 full.hash >want.hash
check "motion: a chunk from frame 20 equals the full run" cmp -s chunk.hash want.hash
"$ROCKPOOL" -q all.scene --end 20 -f framemd5 -o d.md5 --save-state s.state
"$ROCKPOOL" -q all.scene --start 20 --load-state s.state --hash -f framemd5 -o /dev/null >loaded.hash
check "motion: a loaded checkpoint continues as the full run" cmp -s loaded.hash want.hash
for j in 1 3; do
    "$ROCKPOOL" -q all.scene -j $j --hash -f framemd5 -o /dev/null >j$j.hash
done
check "motion: the same frames on 1 and 3 threads" cmp -s j1.hash j3.hash
check "motion: the same frames as the full run's" cmp -s j1.hash full.hash

# A wall mask moving along a path: the image (white a wall) sampled over W x H, centred on
# the path, drawn and pushing as a circle or a rect does. The hull here is an ellipse 60 x
# 20 pixels in a 64 x 32 image (a 2-pixel margin left and right, 6 above and below).
"$PY" - <<'PYEOF'
import struct, zlib
W, H = 64, 32
rows = b''
for y in range(H):
    rows += b'\0' + b''.join(bytes([255] * 3 if ((x + 0.5 - 32) / 30) ** 2 + ((y + 0.5 - 16) / 10) ** 2 <= 1 else [0] * 3) for x in range(W))
def chunk(t, d):
    return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
open('hull.png', 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', W, H, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b''))
PYEOF
cat >hull.scene <<'SCENE'
size 320x160
fps 30
duration 1s
walls visible 0xff00ff
path lane 40,80 280,80
at 0s..1s wall mask along lane 64 32 hull.png push 200
SCENE
printf 'size 320x160\nfps 30\nduration 1s\n' >still.scene
expect_status "moving mask renders" 0 "$ROCKPOOL" -q hull.scene -o hull.y4m --dump-heights hull.bin
"$ROCKPOOL" -q still.scene -o still.y4m
# Frame 15 is at 0.5 s: the hull's centre at (160, 80). Its wall colour (magenta: high Cr
# and Cb in the chroma planes) fills the ellipse 60 x 20 about it and nothing outside.
check "moving mask: drawn as the ellipse of its image, where the path is at that instant" "$PY" - <<'PYEOF'
import sys, numpy as np
w, h = 320, 160
d = open('hull.y4m', 'rb').read()
i, frames = d.index(b'\n') + 1, []
while i < len(d):
    i = d.index(b'\n', i) + 1
    f = np.frombuffer(d[i:i + w * h * 3 // 2], np.uint8)
    frames.append(f[w * h + (w // 2) * (h // 2):].reshape(h // 2, w // 2).astype(int))  # Cr
    i += w * h * 3 // 2
cr = frames[15]
wall = cr > 200
ys, xs = np.nonzero(wall)
cx, cy = (xs.mean() + 0.5) * 2, (ys.mean() + 0.5) * 2
wx, wy = (xs.max() - xs.min() + 1) * 2, (ys.max() - ys.min() + 1) * 2
print("centre", cx, cy, "extent", wx, wy, "count", wall.sum())
sys.exit(0 if abs(cx - 160) <= 3 and abs(cy - 80) <= 2 and 52 <= wx <= 64 and 14 <= wy <= 22 else 1)
PYEOF
# On a grid of 161 rows the track (row 80) is the middle one: the heights mirror about it.
sed 's/^size 320x160$/size 320x161/' hull.scene >hsym.scene
"$ROCKPOOL" -q hsym.scene -f framemd5 -o /dev/null --dump-heights hsym.bin
check "moving mask: a wake, mirror-symmetric about its track" "$PY" - <<'PYEOF'
import sys, numpy as np
a = np.fromfile('hsym.bin', '<i2').reshape(-1, 161, 320).astype(int)
ok = len(a) == 30
for f in (5, 20, 29):
    x = a[f]
    moving, asym = np.count_nonzero(x), np.abs(x[80::-1] - x[80:]).max()
    print("frame", f, "moving cells", moving, "largest asymmetry", asym)
    ok = ok and moving > 1000 and asym == 0
sys.exit(0 if ok else 1)
PYEOF
for j in 1 3; do "$ROCKPOOL" -q hull.scene -j $j --hash -f framemd5 -o /dev/null >hull_j$j.hash; done
check "moving mask: the same bytes on 1 and 3 threads (30 frames)" \
    test "$(wc -l <hull_j1.hash)" = 30 -a "$(cmp hull_j1.hash hull_j3.hash && echo same)" = same
"$ROCKPOOL" -q hull.scene --start 12 --hash -f framemd5 -o /dev/null >hchunk.hash
tail -n 18 hull_j1.hash >hwant.hash
check "moving mask: a chunk from frame 12 equals the full run" \
    test -s hwant.hash -a "$(cmp hchunk.hash hwant.hash && echo same)" = same
"$ROCKPOOL" -q hull.scene --end 12 --save-state h.state -f framemd5 -o /dev/null
"$ROCKPOOL" -q hull.scene --start 12 --load-state h.state --hash -f framemd5 -o /dev/null >hload.hash
check "moving mask: a loaded checkpoint equals the full run" \
    test -s hwant.hash -a "$(cmp hload.hash hwant.hash && echo same)" = same
cp hull.png hull2.png
refuse "a moving mask without its height" \
    "bad.scene:4:32: error: expected a number or a percentage for wall height" \
    "path p 10,10 90,50" "at 0s..1s wall mask along p 40 $WORK/hull2.png"
refuse "a moving mask that does not exist" \
    "bad.scene:4:35: error: cannot read wall mask 'nowhere.png'" \
    "path p 10,10 90,50" "at 0s..1s wall mask along p 40 20 nowhere.png"
printf '%s\n' "size 160x96" "duration 1s" "path p 10,10 90,50" \
    "at 0s..1s wall mask along p 16000 16000 hull.png" >bigmask.scene
rm -f big.mp4
expect_status "refused: a moving mask whose shape is over --max-memory" 2 \
    "$ROCKPOOL" bigmask.scene --max-memory 1G -o big.mp4
stderr_has "... at its width W, saying why" "bigmask.scene:4:29: error: this moving wall mask's shape needs"
check "... and writes nothing" test ! -e big.mp4
