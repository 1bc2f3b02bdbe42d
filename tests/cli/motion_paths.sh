#!/bin/bash
# motion_paths.sh - paths and moving walls (rockpool-scene(5) PATHS, MOVING WALLS) on the
# simulation's steps: a wall moving along a path gives the same heights at 24 and 60 fps
# at the instants they share and at two output sizes; it appears and leaves at its span's
# ends; a rectangle moving down a column leaves a wake mirror-symmetric about its track;
# more bad paths and walls are refused at file:line:col with exit 2 and nothing written.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3

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

# Bad input: file:line:col, exit 2, nothing written.
refuse() { refuse_scene "$@"; } # lib.sh
refuse "a path of one point in percent" "bad.scene:3:" "path p 10%,10%"
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
