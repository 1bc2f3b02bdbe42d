#!/usr/bin/env bash
# web_formats.sh - animated GIF and WebP outputs (rockpool(1) OUTPUT FILES): ffprobe reads
# the GIF's frames, size, rate and endless loop; ffmpeg decodes it to within the documented
# error of the PNG frames; its bytes do not depend on threads; libwebp's webpinfo reads the
# WebP's frames and loop; --alpha, --crf and sound are handled as documented.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
cat >s.scene <<'SCENE'
size 192x108
fps 12
duration 2s
seed 5
walls visible
at 0s wall rect 45% 0 4% 40%
at 0s drop 30% 50% radius 6% height 4000
at 0.2s..2s rain rate 6/s radius 2%..3% height 1500..3000
SCENE
expect_status "gif renders" 0 "$ROCKPOOL" s.scene -o a.gif
check "gif: ffprobe reads gif 192x108 at 12 fps" test \
    "$(ffprobe -v error -select_streams v:0 -show_entries stream=codec_name,width,height,r_frame_rate -of csv=p=0 a.gif)" = "gif,192,108,12/1"
check "gif: 24 frames" test "$(probe a.gif nb_read_frames)" = 24
check "gif: loops forever (NETSCAPE2.0 loop count 0)" grep -q 'NETSCAPE2.0' a.gif
"$ROCKPOOL" -q s.scene -o f_%02d.png
check "gif: decoded frames within 3 levels on average and 16 at the 99th percentile of the PNGs" \
    "$PY" - <<'PYEOF'
import subprocess, sys, numpy as np
def frames(args):
    raw = subprocess.run(["ffmpeg", "-v", "error"] + args + ["-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                         capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(-1, 108, 192, 3).astype(int)
g = frames(["-i", "a.gif"])
p = frames(["-framerate", "12", "-i", "f_%02d.png"])
d = np.abs(g - p)
print("frames", len(g), len(p), "mean", d.mean(), "p99", np.percentile(d, 99))
sys.exit(0 if len(g) == len(p) == 24 and d.mean() <= 3 and np.percentile(d, 99) <= 16 else 1)
PYEOF
"$ROCKPOOL" -q s.scene -j 3 -o b.gif
"$ROCKPOOL" -q s.scene -j 1 -o c.gif
check "gif: the same bytes on 1 and 3 threads" cmp -s b.gif c.gif
check "gif: the same bytes as the default run" cmp -s a.gif c.gif
expect_status "gif: --alpha refused" 2 "$ROCKPOOL" s.scene --alpha -o x.gif
stderr_has "gif: --alpha refused says so" "GIF cannot carry alpha"
check "gif: --alpha refused writes nothing" test ! -e x.gif
expect_status "gif: --crf refused" 2 "$ROCKPOOL" s.scene --crf 20 -o x.gif
check "gif: --crf refused writes nothing" test ! -e x.gif
expect_status "-f gif with another extension" 0 "$ROCKPOOL" s.scene -f gif -o anim.bin
check "-f gif writes a GIF" test "$(head -c 6 anim.bin)" = GIF89a

if ! command -v webpinfo >/dev/null; then
    bad "webpinfo is installed (scripts/install-deps installs Debian's webp)"
    exit 0
fi
expect_status "webp renders" 0 "$ROCKPOOL" s.scene -o a.webp
webpinfo a.webp >info.txt 2>&1
check "webp: webpinfo finds no error" grep -q 'No error detected' info.txt
check "webp: an animation, 192x108, looping forever" \
    grep -q -e 'Animation: 1' info.txt && grep -q 'Canvas size 192 x 108' info.txt && grep -q 'Loop count *: 0' info.txt
check "webp: a frame for each frame (identical ones merged)" test "$(grep -c '^Chunk ANMF' info.txt)" -ge 20
# libwebp's alpha chunks (and so the alpha flag) are only for the unchanged blocks of a
# frame, blended over the one before: every frame shown is opaque.
check "webp: every frame shown is opaque (a full first frame, alpha only where blended)" \
    test "$(awk -f "$TOP/tests/tools/webp_opaque.awk" info.txt)" = opaque
expect_status "webp with --alpha renders" 0 "$ROCKPOOL" s.scene --alpha -o l.webp
check "webp --alpha: alpha chunks" test "$(webpinfo l.webp | grep -c '^Chunk ALPH')" -ge 20
check "webp --alpha: its frames are not all opaque" \
    test "$(webpinfo l.webp | awk -f "$TOP/tests/tools/webp_opaque.awk")" != opaque
expect_status "webp: --crf refused" 2 "$ROCKPOOL" s.scene --crf 20 -o x.webp
check "webp: --crf refused writes nothing" test ! -e x.webp
