#!/usr/bin/env bash
# everyday.sh - what a new user meets first: the bars of --fit contain stay black (and
# transparent with --alpha) over a still and a video.
# Pixels are read back with ffmpeg and counted by Python; expected rectangles are worked
# out by hand from the sizes.
source "$(dirname "$0")/lib.sh"

# rgb FILE [PIX_FMT]: the frame's raw bytes on stdout (rgb24 unless PIX_FMT)
rgb() { ffmpeg -v error -i "$1" -frames:v 1 -f rawvideo -pix_fmt "${2:-rgb24}" -; }

# ---- --fit contain: the bars are not water ------------------------------------------------
# A square picture in a 320x180 frame is drawn 180x180 at x = 70: bars 0..69 and 250..319.
# Drops on both bars and inside would light the bars where they are taken for water.
printf 'size 320x180\nfps 30\nduration 20f\nseed 5\nat 0s drop 5%% 50%% radius 20 height 3000
at 0s drop 95%% 20%% radius 20 height 3000\nat 0s drop 50%% 50%% radius 20 height 3000\n' >c.scene
ffmpeg -v error -f lavfi -i testsrc2=size=320x320 -frames:v 1 sq.png
ffmpeg -v error -f lavfi -i testsrc2=size=320x320:rate=30 -frames:v 20 -pix_fmt yuv420p sq.mp4
bars() { # NAME RAW BPP: every byte of the bars is 0, the picture has lit pixels
    check "$1" python3 - "$2" "$3" <<'PY'
import sys
d, bpp, W, H = open(sys.argv[1], "rb").read(), int(sys.argv[2]), 320, 180
assert len(d) == W * H * bpp, len(d)
px = lambda x, y: d[(y * W + x) * bpp:(y * W + x + 1) * bpp]
bars = [x for x in range(W) if x < 70 or x >= 250]
lit = sum(1 for y in range(H) for x in bars if any(px(x, y)))
assert lit == 0, "%d bar pixels are not black" % lit
assert sum(1 for y in range(H) for x in range(70, 250) if any(px(x, y))) > 0
PY
}
for bg in sq.png sq.mp4; do
    "$ROCKPOOL" -q c.scene -i "$bg" --fit contain --start 12 --end 13 -o "c-${bg/./-}-%02d.png"
    rgb "c-${bg/./-}-12.png" >c.rgb
    bars "--fit contain over $bg: the bars stay black" c.rgb 3
    "$ROCKPOOL" -q c.scene -i "$bg" --fit contain --alpha --start 12 --end 13 \
        -o "a-${bg/./-}-%02d.png"
    rgb "a-${bg/./-}-12.png" rgba >a.rgb
    bars "--fit contain --alpha over $bg: the bars stay transparent" a.rgb 4
done
