#!/usr/bin/env bash
# golden.sh - golden frames: --verify against framemd5/framehash files and --hash lines
# (exit 0 when equal, exit 3 at the first difference with that frame written as PNG,
# exit 2 for a manifest that is not one or is for other settings), --hash-algo against
# xxhsum, --stats against the run's --dump-heights read by Python, and runs that ask only
# for hashes writing no other file. Expected values come from ffmpeg, xxhsum and python3.
source "$(dirname "$0")/lib.sh"

cat >g.scene <<'SCENE'
size 96x64
fps 30
duration 16f
seed 3
at 0f drop 48 32 radius 6 height 2000
at 2f..16f rain rate 40/s radius 2..5 height 300..900
SCENE
R() { "$ROCKPOOL" -q g.scene "$@"; }
files() { ls -A | grep -v -e '^g\.scene$' -e '^out$' -e '^err$' | sort | tr '\n' ' '; }

# ---- a render verified against its own manifest ------------------------------------------
mkdir m
R -f framemd5 -o m/g.framemd5
R -f framehash --hash-algo crc32 -o m/g.crc32
R --hash >m/g.md5.txt
R --hash --hash-algo xxh3 >m/g.xxh3.txt
for man in g.framemd5 g.crc32 g.md5.txt g.xxh3.txt; do
    before=$(files)
    expect_status "verify against its own $man: exit 0" 0 "$ROCKPOOL" g.scene --verify "m/$man"
    stderr_has "verify against its own $man: count" "16 frames match"
    check "verify against its own $man: no file written" test "$(files)" = "$before"
done
expect_status "verify on 3 threads: exit 0" 0 "$ROCKPOOL" -j 3 g.scene --verify m/g.framemd5
expect_status "--hash lines with their ALGO: prefix" 0 grep -qE '^15 crc32:[0-9a-f]{8}$' \
    <(R --hash --hash-algo crc32)
check "md5 --hash lines keep 'FRAME HASH'" grep -qE '^15 [0-9a-f]{32}$' m/g.md5.txt

# ---- another seed: exit 3 at the first differing frame, written as PNG -------------------
R --seed 4 --hash >other.txt
first=$(paste -d' ' m/g.md5.txt other.txt | awk '$2 != $4 { print $1; exit }')
actual=$(awk -v k="$first" '$1 == k { print $2 }' other.txt)
png=$(printf 'g.actual-%05d.png' "$first") # in the current directory, not among the goldens
check "the seeds differ at some frame ($first)" test -n "$first"
expect_status "another seed: exit 3" 3 "$ROCKPOOL" g.scene --seed 4 --verify m/g.framemd5
stderr_has "another seed: names the frame" "frame $first differs"
stderr_has "another seed: the manifest line" "m/g.framemd5:$((first + 10)): "
stderr_has "another seed: the expected hash" \
    "expected MD5 $(awk -v k="$first" '$1 == k { print $2 }' m/g.md5.txt)"
stderr_has "another seed: the actual hash" "got $actual"
stderr_has "another seed: the PNG named" "$png"
check "another seed: the PNG is that frame (ffmpeg's framemd5)" test "$(ffmpeg -v error \
    -i "$png" -pix_fmt rgb24 -f framemd5 - | awk -F', ' '!/^#/ { print $6 }')" = "$actual"
check "another seed: only that PNG is new, none among the goldens" \
    test "$(ls | grep -c png)" = 1 -a "$(ls m | grep -c png)" = 0
mkdir vd
expect_status "--verify-dir: exit 3" 3 "$ROCKPOOL" g.scene --seed 4 --verify m/g.xxh3.txt \
    --verify-dir vd
check "--verify-dir: the PNG is there" test -s "$(printf 'vd/g.xxh3.actual-%05d.png' "$first")"
expect_status "a difference at the last frame, found while finishing: exit 3" 3 \
    "$ROCKPOOL" -j 3 g.scene --verify <(sed '$ s/ .*/ 00000000000000000000000000000000/' \
        m/g.md5.txt) --verify-dir vd -o last.mp4
stderr_has "last frame: named" "frame 15 differs"
check "last frame: the -o video is not kept" test ! -e last.mp4

# ---- an input under the name of a PNG a difference writes: exit 2 before rendering ---------
# STEM.actual-FRAME.png (and with --verify-ref STEM.diff-FRAME.png) overwrote a background
# of that name (the output-over-input rule of rockpool(1)).
mkdir in && cd in || exit 1
V() { "$ROCKPOOL" -q -s 64x48 -n 10 "$@"; }
cp "$TOP/examples/island.png" m.actual-00006.png
cp m.actual-00006.png keep.png
V -i m.actual-00006.png -o m.framemd5
expect_status "an input named as a differing frame's PNG: exit 2" 2 \
    V -i m.actual-00006.png --seed 7 --verify m.framemd5
stderr_has "... names both" "--verify's PNG of a differing frame 'm.actual-%05d.png' would \
overwrite the background of this run ('m.actual-00006.png')"
check "... the background's bytes unchanged" cmp -s m.actual-00006.png keep.png
mkdir vd && cp keep.png vd/m.actual-00006.png
expect_status "... in --verify-dir: exit 2" 2 \
    V -i vd/m.actual-00006.png --seed 7 --verify m.framemd5 --verify-dir vd
check "... in --verify-dir: the background's bytes unchanged" cmp -s vd/m.actual-00006.png \
    keep.png
cp keep.png m.diff-00006.png
V -i keep.png -o ref_%05d.png
expect_status "... the difference image's name (--verify-ref): exit 2" 2 \
    V -i m.diff-00006.png --seed 7 --verify m.framemd5 --verify-ref ref_%05d.png
stderr_has "... the difference image's name: named" "--verify's difference image"
check "... the difference image's name: the background's bytes unchanged" \
    cmp -s m.diff-00006.png keep.png
rm m.actual-00006.png
expect_status "... the same background under another name: exit 3 (it differs)" 3 \
    V -i keep.png --seed 7 --verify m.framemd5
check "... another name: frame 6's PNG written" test -s m.actual-00006.png -a \
    -n "$(grep 'frame 6 differs' "$WORK/err")"
cd .. && rm -rf in

# ---- manifests that are not one, or are for other settings: exit 2 -----------------------
head -c 700 m/g.framemd5 >trunc.framemd5
expect_status "truncated manifest: exit 2" 2 "$ROCKPOOL" g.scene --verify trunc.framemd5
check "truncated manifest: a line number" grep -qE '^rockpool: trunc\.framemd5:[0-9]+:' err
expect_status "not a manifest: exit 2" 2 "$ROCKPOOL" g.scene --verify g.scene
check "not a manifest: a line number" grep -qE '^rockpool: g\.scene:[0-9]+:' err
expect_status "manifest of another size: exit 2" 2 "$ROCKPOOL" g.scene -s 64x64 --verify m/g.framemd5
stderr_has "manifest of another size: says so" "96x64"
expect_status "manifest of fewer frames: exit 2" 2 "$ROCKPOOL" g.scene -n 20 --verify m/g.framemd5
expect_status "manifest of another algorithm than --hash-algo: exit 2" 2 "$ROCKPOOL" g.scene \
    --verify m/g.crc32 --hash-algo md5
expect_status "missing manifest: exit 2" 2 "$ROCKPOOL" g.scene --verify nosuch.txt
expect_status "unknown --hash-algo: exit 2" 2 "$ROCKPOOL" g.scene --hash --hash-algo md6
stderr_has "unknown --hash-algo: lists the names" "xxh3"
check "bad manifests: nothing written" test "$(ls vd | wc -l)" = 2

# ---- --alpha: rockpool's RGBA framemd5, and FFmpeg's framemd5/framehash of the same frames --
R --alpha -f framemd5 -o m/a.framemd5
mkdir apng
R --alpha -o apng/a_%02d.png
ffmpeg -v error -framerate 30 -i apng/a_%02d.png -pix_fmt rgba -f framemd5 m/ff-a.framemd5
ffmpeg -v error -framerate 30 -i apng/a_%02d.png -pix_fmt rgba -f framehash m/ff-a.framehash
check "--alpha framemd5 holds RGBA frames (96*64*4 bytes)" \
    grep -qE '^0, +15, +15, +1, +24576, ' m/a.framemd5
for man in a.framemd5 ff-a.framemd5 ff-a.framehash; do
    expect_status "--alpha --verify its $man: exit 0" 0 "$ROCKPOOL" g.scene --alpha \
        --verify "m/$man"
    stderr_has "--alpha --verify its $man: count" "16 frames match"
done
expect_status "an RGBA manifest without --alpha: exit 2" 2 "$ROCKPOOL" g.scene \
    --verify m/a.framemd5
stderr_has "an RGBA manifest without --alpha: says --alpha" "verify with --alpha"

# ---- --start/--end against a manifest of the whole clip: frames A..B-1 only ----------------
for man in g.framemd5 g.md5.txt; do
    expect_status "--start 5 --end 9 against the whole $man: exit 0" 0 "$ROCKPOOL" g.scene \
        --start 5 --end 9 --verify "m/$man"
    stderr_has "--start 5 --end 9 against the whole $man: 4 frames" "4 frames match"
done
expect_status "--start 12 against the whole clip: exit 0" 0 "$ROCKPOOL" g.scene --start 12 \
    --verify m/g.framemd5
stderr_has "--start 12 against the whole clip: 4 frames" "4 frames match"
expect_status "--start 5 --end 9, another seed: exit 3" 3 "$ROCKPOOL" g.scene --seed 4 \
    --start 5 --end 9 --verify m/g.md5.txt --verify-dir vd
check "--start 5 --end 9, another seed: a frame in 5..8 differs" grep -qE 'frame [5-8] differs' err
head -8 m/g.md5.txt >m/first8.txt
expect_status "--start 5 against a manifest of frames 0..7: exit 2" 2 "$ROCKPOOL" g.scene \
    --start 5 --verify m/first8.txt
stderr_has "--start 5 against frames 0..7: names the missing frame" "lacks frame 8"
rm -f vd/*.png

# ---- --hash-algo xxh3 equals xxhsum -H3 of the frames' RGB24 bytes -----------------------
mkdir png
R -o png/f_%03d.png
for f in png/f_*.png; do
    k=$((10#$(basename "$f" .png | cut -c3-)))
    echo "$k xxh3:$(ffmpeg -v error -i "$f" -f rawvideo -pix_fmt rgb24 - | xxhsum -H3 |
        sed 's/.*= //')"
done >want.xxh3
check "--hash-algo xxh3 equals xxhsum -H3" cmp -s want.xxh3 m/g.xxh3.txt

# ---- --stats against the run's heights, computed by Python -------------------------------
expect_status "--stats with --dump-heights: exit 0" 0 "$ROCKPOOL" g.scene --start 3 \
    --stats s.csv --dump-heights h.bin
check "--stats: no video beside the side files" test ! -e rockpool.mp4
check "--stats columns equal Python's from --dump-heights" python3 - <<'PY'
import struct
W, H, fps, start = 96, 64, 30, 3
d = open("h.bin", "rb").read()
rows = open("s.csv").read().splitlines()
assert rows[0] == "frame,time,energy,peak,drops", rows[0]
n = len(d) // (2 * W * H)
assert n == 13 and len(rows) == n + 1, (n, len(rows))
# drops per frame: the --check summary's count, and the scene's single drop at 0f
drops = 0
for i in range(n):
    h = struct.unpack_from("<%dh" % (W * H), d, 2 * W * H * i)
    f, t, e, p, dr = rows[i + 1].split(",")
    k = start + i
    assert int(f) == k and t == "%.6f" % (k / fps), (f, t)
    assert int(e) == sum(v * v for v in h), (k, e)
    assert int(p) == max(abs(v) for v in h), (k, p)
    drops += int(dr)
assert drops > 0
PY
# The drop column adds up to the timeline's drops of those frames: all of them from 0f on
# (with one step a frame, a seed preset, every item belongs to a frame; with a rate of its
# own a drop is counted in the first frame whose steps include it).
all_drops=$("$ROCKPOOL" g.scene --preset elias --check | awk '/^drops:/ { print $2 }')
R --preset elias --stats all.csv
check "--stats drops add up to --check's drop count" test "$(awk -F, 'NR > 1 { s += $5 }
    END { print s }' all.csv)" = "$all_drops"
check "--stats: drop at frame 0 counted" test "$(sed -n 2p all.csv | cut -d, -f5)" -ge 1
expect_status "--stats on the same path as --dump-heights: exit 2" 2 "$ROCKPOOL" g.scene \
    --stats x.bin --dump-heights x.bin

# ---- only hashes asked for: no other file ------------------------------------------------
mkdir quiet && cd quiet || exit 1
"$ROCKPOOL" -q ../g.scene --hash >../h.txt
check "--hash without -o creates no file" test -z "$(ls -A)"
"$ROCKPOOL" -q ../g.scene -f framemd5 >../f.txt
check "-f framemd5 without -o creates no file" test -z "$(ls -A)"
check "-f framemd5 without -o writes the framemd5 to stdout" cmp -s ../f.txt ../m/g.framemd5
"$ROCKPOOL" -q ../g.scene --verify ../m/g.md5.txt
check "--verify without -o creates no file" test -z "$(ls -A)"
"$ROCKPOOL" -q ../g.scene -n 2 2>/dev/null
check "a scene and no output option still writes rockpool.mp4" test -s rockpool.mp4
cd .. || exit 1

# ---- provenance: version, preset, seed and the scene's SHA-256 in every output; no date -----
cd "$WORK" || exit 1
sha=$(sha256sum g.scene | cut -d' ' -f1)
"$ROCKPOOL" -q g.scene -o prov/f_%d.png -n 2 && "$ROCKPOOL" -q g.scene -o prov1.mp4 -n 2 ||
    bad "provenance renders"
check "PNG tEXt names the scene's SHA-256" python3 -c "
import sys; d = open('prov/f_0.png', 'rb').read()
sys.exit(0 if b'tEXtrockpool_scene_sha256\x00$sha' in d and b'tEXtrockpool_preset\x00' in d else 1)"
check "MP4 tags name the scene's SHA-256" sh -c \
    "ffprobe -v error -show_entries format_tags=rockpool_scene_sha256 -of csv=p=0 prov1.mp4 | grep -qx $sha"
sleep 1
"$ROCKPOOL" -q g.scene -o prov2.mp4 -n 2 && "$ROCKPOOL" -q g.scene -o prov2/f_%d.png -n 2 ||
    bad "second provenance renders"
check "two MP4 renders a second apart are byte-identical" cmp -s prov1.mp4 prov2.mp4
check "two PNG renders a second apart are byte-identical" cmp -s prov/f_1.png prov2/f_1.png
