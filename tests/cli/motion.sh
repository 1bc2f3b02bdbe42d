#!/usr/bin/env bash
# motion.sh - paths, moving walls, emitters and keys (rockpool-scene(5) PATHS, MOVING WALLS,
# EMITTERS, KEYS): refused cleanly when wrong; an emitter oscillates at its frequency; a wall
# moving through still water leaves a wake symmetric about its track, raised ahead and
# lowered behind; keyed frames agree at 24 and 60 fps; chunks and checkpoints carry it all.
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
