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
check "webp: an animation, 192x108, looping forever" sh -c \
    "grep -q -e 'Animation: 1' info.txt && grep -q 'Canvas size 192 x 108' info.txt && grep -q 'Loop count *: 0' info.txt"
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

# An odd width or height: libwebp is fed RGB (bgra) and converts to its 4:2:0 itself, so
# WebP takes any size (fed yuv420p, 65x49 was refused). libwebp's own tools decode it
# (FFmpeg 5.1 reads no animated WebP; tests/tools/webp_frames.py composites the frames as
# the WebP container says) and each frame is compared with rockpool's PNG of it.
# webp_near NAME WEBP PNGS W H N FMT MEAN P99: WEBP is WxH with N frames at 12 fps, within
# MEAN levels on average and P99 at the 99th percentile of the PNGS in FMT (rgb24: every
# frame shown is opaque too; rgba: the alpha exact to a level, MEAN and P99 for the colour
# where the PNG's alpha is not 0).
webp_near() {
    check "$1" "$PY" - "$TOP/tests/tools/webp_frames.py" "${@:2}" <<'PYEOF'
import subprocess, sys, numpy as np
tool, webp, pngs, w, h, n, fmt, mean_max, p99_max = sys.argv[1:10]
w, h, n = int(w), int(h), int(n)
got = subprocess.run([sys.executable, tool, webp, "dec.rgba", "12"], capture_output=True,
                     text=True, check=True).stdout.split()
dec = np.fromfile("dec.rgba", np.uint8).reshape(-1, h, w, 4).astype(int)
ch = 4 if fmt == "rgba" else 3
raw = subprocess.run(["ffmpeg", "-v", "error", "-i", pngs, "-f", "rawvideo", "-pix_fmt", fmt, "-"],
                     capture_output=True, check=True).stdout
png = np.frombuffer(raw, np.uint8).reshape(-1, h, w, ch).astype(int)
if got != [str(w), str(h), str(n)] or len(png) != n:
    sys.exit("decoded %s, %d PNG frames: wanted %d %d %d" % (" ".join(got), len(png), w, h, n))
d = np.abs(dec[..., :3] - png[..., :3])
if ch == 4:
    d = d[png[..., 3] > 0]
alpha = np.abs(dec[..., 3] - (png[..., 3] if ch == 4 else 255)).max()
print("    %dx%d, %d frames: %.2f levels on average, %g at the 99th percentile, alpha within %d"
      % (w, h, n, d.mean(), np.percentile(d, 99), alpha))
sys.exit(0 if d.mean() <= float(mean_max) and np.percentile(d, 99) <= float(p99_max) and alpha <= 1 else 1)
PYEOF
}
for size in 65x49 641x361; do
    w=${size%x*} h=${size#*x}
    expect_status "webp at an odd size, $size: renders" 0 "$ROCKPOOL" s.scene -s "$size" -n 6 -o "odd$w.webp"
    webpinfo "odd$w.webp" >info.txt 2>&1
    check "... webpinfo finds no error and a $w x $h canvas" \
        sh -c "grep -q 'No error detected' info.txt && grep -q 'Canvas size $w x $h' info.txt"
    "$ROCKPOOL" -q s.scene -s "$size" -n 6 -o "odd${w}_%02d.png"
done
# (at 65x49 a lossy frame is mostly edges: 9.8 levels on average, 46 at the 99th
# percentile; with its red and blue swapped, 75 and 150)
webp_near "... 65x49: 6 frames, near the PNG frames (mean <= 13, p99 <= 60), opaque" \
    odd65.webp odd65_%02d.png 65 49 6 rgb24 13 60
webp_near "... 641x361: 6 frames, near the PNG frames (mean <= 7, p99 <= 40), opaque" \
    odd641.webp odd641_%02d.png 641 361 6 rgb24 7 40
expect_status "webp --alpha at 65x49 renders" 0 "$ROCKPOOL" s.scene -s 65x49 -n 6 --alpha -o odda.webp
"$ROCKPOOL" -q s.scene -s 65x49 -n 6 --alpha -o odda_%02d.png
# (the light is near grey: red and blue swapped moves its colour only to 4.0 levels on
# average, against 2.9; the opaque ones above catch that)
webp_near "... its alpha as the RGBA PNGs' and its colour near theirs (mean <= 4, p99 <= 30)" \
    odda.webp odda_%02d.png 65 49 6 rgba 4 30
# libwebp's still encoder (-c libwebp), one frame: a still WebP, which FFmpeg reads
expect_status "webp -c libwebp, one frame at 65x49: renders" 0 "$ROCKPOOL" s.scene -s 65x49 \
    -n 1 -c libwebp -o still.webp
check "... ffprobe reads webp 65x49, 1 frame" \
    test "$(ffprobe -v error -count_frames -show_entries stream=codec_name,width,height,nb_read_frames \
        -of csv=p=0 still.webp)" = "webp,65,49,1"
# (23.2 dB, as lossy at 65x49 goes; with its red and blue swapped, 8.5)
check "... ffmpeg's psnr against the PNG frame is over 20 dB" "$PY" - <<'PYEOF'
import re, subprocess, sys
log = subprocess.run(["ffmpeg", "-v", "info", "-nostats", "-i", "still.webp", "-i", "odd65_01.png",
                      "-lavfi", "[0]format=rgb24[a];[1]format=rgb24[b];[a][b]psnr", "-f", "null", "-"],
                     capture_output=True, text=True).stderr
m = re.search(r"PSNR r:\S+ g:\S+ b:\S+ average:(\S+)", log)
print("    psnr", m and m.group(1))
sys.exit(0 if m and float(m.group(1)) > 20 else 1)
PYEOF
# An odd background fixes the size without -s: WebP keeps it (H.264's yuv420p does not).
"$ROCKPOOL" -q s.scene -s 65x49 -n 1 -o oddbg.png
printf 'fps 12\nbackground oddbg.png\n' >bg.scene
expect_status "webp over a 65x49 background renders" 0 "$ROCKPOOL" bg.scene -n 2 -o bg.webp
check "... at 65x49, said nothing" \
    test "$(webpinfo bg.webp | awk '/Width:/ {w = $2} /Height:/ {print w "x" $2; exit}')$(cat "$WORK/err")" = 65x49
# --pix-fmt yuv420p asked for is still 4:2:0: refused at an odd size, saying the way out.
expect_status "webp --pix-fmt yuv420p at 65x49: refused" 2 "$ROCKPOOL" s.scene -s 65x49 \
    --pix-fmt yuv420p -o x.webp
stderr_has "... says use an even size or no --pix-fmt" \
    "libwebp_anim with yuv420p needs an even width and height (got 65x49): use -s 64x48 or no --pix-fmt"
check "... writes nothing" test ! -e x.webp
# HD: WebP is BT.601, as its decoders read it: libwebp converts with it, and an asked-for
# yuv420p is converted with it too (fed rockpool's BT.709 yuv420p from 1280x720 up,
# examples/harbour.scene decoded 7.5 levels too red and 6.5 too green)
"$ROCKPOOL" -q "$TOP/examples/harbour.scene" -s 1280x720 -n 1 -o hd.png
for pf in "" yuv420p; do
    rm -f hd.webp
    "$ROCKPOOL" -q "$TOP/examples/harbour.scene" -s 1280x720 -n 1 -c libwebp ${pf:+--pix-fmt $pf} -o hd.webp
    check "webp at 1280x720${pf:+, --pix-fmt $pf}: no colour cast (each channel within 1.5 levels on average)" \
        "$PY" - "$TOP/tests/tools/webp_frames.py" <<'PYEOF'
import subprocess, sys, numpy as np
subprocess.run([sys.executable, sys.argv[1], "hd.webp", "hd.rgba"], check=True, capture_output=True)
dec = np.fromfile("hd.rgba", np.uint8).reshape(720, 1280, 4)[..., :3].astype(int)
raw = subprocess.run(["ffmpeg", "-v", "error", "-i", "hd.png", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                     capture_output=True, check=True).stdout
bias = (dec - np.frombuffer(raw, np.uint8).reshape(720, 1280, 3)).reshape(-1, 3).mean(axis=0)
print("    decoded minus PNG, red green blue:", " ".join("%.2f" % b for b in bias))
sys.exit(0 if np.abs(bias).max() <= 1.5 else 1)
PYEOF
done
