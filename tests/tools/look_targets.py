#!/usr/bin/env python3
"""look_targets.py - how a rockpool render over a photograph reads as water, in numbers.

Renders, with the rockpool binary given, frame 90 of a rain scene (3 s at 30 fps) over each
photo and the same scene without events (still water), and measures against the still
frame (BT.601 luma, Y = 0.299 R + 0.587 G + 0.114 B):

  block_med, block_p95  |change| of the mean luma of blocks of B x B pixels, B = 32 at
                        1080 rows, scaled with the frame height (the "veil")
  mean                  |change| of the frame's mean luma
  white                 fraction of pixels with min(R, G, B) >= 250 that were not in the
                        still frame (new near-white: glints)
  white_far             of those, the ones with no such pixel of the still frame within
                        R = 2 pixels at 1080 rows (scaled with the frame height; a square
                        of side 2R + 1): near-white that refraction did not bring from the
                        photo's own (reported; not a target)
  changed8              fraction of pixels whose luma changes by 8 levels or more
  still_exact           the still frame equals the photo as fitted to the frame (rendered
                        by the elias preset with `fit cover` over still water, whose
                        offset render copies the picture unchanged)

and on flat grey 0x808080:

  grain                 one drop at the centre, frame 45 (1.5 s): the std of luma minus its
                        5x5 box blur over the rippled pixels (luma != 128, 3 pixels in from
                        the frame's edges)
  grey_p99              the rain frame's 99th percentile of |luma - 128|

Usage: look_targets.py [--rockpool build/rockpool] [--size 1920x1080]... [--check]
                       [--crop WxH] PHOTO...
--check exits 1 when a target is missed (grain is judged at 1080 rows and more). The last
line sums up: how many of the photo frames (a photo at a size) meet every target, and every
target missed (the photo's name up to "_by_" or "flat grey", the size, the target).
Needs python3-numpy and ffmpeg (to decode the PNGs).
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

RAIN = """size {w}x{h}
fps 30
duration 91f
seed 11
{events}
"""
RAIN_EVENTS = """at 0s drop 40% 45% radius 2% height 3000
at 0s..3s rain rate 5/s radius 0.8%..1.6% height 1200..2800
"""
DROP_EVENTS = "at 0s drop 50% 50% radius 2% height 3000\n"
EXTRA = ""  # --scene lines, for the rockpool renders (not the elias copy of the photo)

TARGETS = {
    "block_med": ("<=", 2.0),
    "block_p95": ("<=", 8.0),
    "mean": ("<=", 2.0),
    "white": ("<=", 0.001),
    "changed8": (">=", 0.03),
    "still_exact": ("==", 1),
    "grain": ("<=", 0.6),
    "grey_p99": (">=", 8.0),
}


def luma(rgb):
    return rgb[..., 0] * 0.299 + rgb[..., 1] * 0.587 + rgb[..., 2] * 0.114


def render(rp, tmp, scene_text, w, h, frame, bg, extra=()):
    scene = os.path.join(tmp, "s.scene")
    with open(scene, "w") as f:
        f.write(scene_text)
    png = os.path.join(tmp, "f.png")
    cmd = [rp, "-q", "-y", scene, "-i", bg, "--start", str(frame), "--end", str(frame + 1),
           "-f", "png", "-o", os.path.join(tmp, "f_%d.png"), *extra]
    subprocess.run(cmd, check=True)
    os.replace(os.path.join(tmp, "f_%d.png" % frame), png)
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", png, "-f", "rawvideo", "-pix_fmt",
                          "rgb24", "-"], check=True, stdout=subprocess.PIPE).stdout
    return np.frombuffer(raw, np.uint8).reshape(h, w, 3).astype(np.float64)


def box5(a):
    """5x5 box mean, edges replicated."""
    p = np.pad(a, 2, mode="edge")
    c = np.cumsum(np.cumsum(p, 0), 1)
    c = np.pad(c, ((1, 0), (1, 0)))
    s = c[5:, 5:] - c[:-5, 5:] - c[5:, :-5] + c[:-5, :-5]
    return s / 25.0


def block_means(y, b):
    h, w = y.shape
    hb, wb = h // b, w // b
    return y[:hb * b, :wb * b].reshape(hb, b, wb, b).mean(axis=(1, 3))


def white_fractions(moved, still, h):
    """white and white_far (see above) of RGB frames moved and still, h the frame's height."""
    still_white = still.min(axis=2) >= 250
    new = (moved.min(axis=2) >= 250) & ~still_white
    r = max(1, round(2 * h / 1080))
    p = np.pad(still_white, r)
    near = np.zeros_like(still_white)
    for dy in range(2 * r + 1):
        for dx in range(2 * r + 1):
            near |= p[dy:dy + still_white.shape[0], dx:dx + still_white.shape[1]]
    return float(new.mean()), float((new & ~near).mean())


def photo_metrics(rp, tmp, photo, w, h, crop):
    rain = RAIN.format(w=w, h=h, events=RAIN_EVENTS) + EXTRA
    still_text = RAIN.format(w=w, h=h, events="")
    moved = render(rp, tmp, rain, w, h, 90, photo)
    still = render(rp, tmp, still_text + EXTRA, w, h, 90, photo)
    fitted = render(rp, tmp, still_text + "preset elias\nfit cover\nrender offset\n", w, h, 90, photo)
    if crop:
        cw, ch = crop
        x0, y0 = (w - cw) // 2, (h - ch) // 2
        moved, still, fitted = (a[y0:y0 + ch, x0:x0 + cw] for a in (moved, still, fitted))
    ym, ys = luma(moved), luma(still)
    b = max(1, round(32 * h / 1080))
    d = np.abs(block_means(ym, b) - block_means(ys, b))
    white, white_far = white_fractions(moved, still, h)
    return {
        "block_med": float(np.median(d)),
        "block_p95": float(np.percentile(d, 95)),
        "mean": float(abs(ym.mean() - ys.mean())),
        "white": white,
        "white_far": white_far,
        "changed8": float((np.abs(ym - ys) >= 8).mean()),
        "still_exact": int(np.array_equal(still, fitted)),
    }


def grey_metrics(rp, tmp, grey, w, h):
    drop = render(rp, tmp, RAIN.format(w=w, h=h, events=DROP_EVENTS) + EXTRA, w, h, 45, grey)
    y = luma(drop)
    r = y - box5(y)
    m = np.abs(y - 128) > 0.01
    m[:3, :] = m[-3:, :] = False
    m[:, :3] = m[:, -3:] = False
    grain = float(r[m].std()) if m.any() else 0.0
    rain = render(rp, tmp, RAIN.format(w=w, h=h, events=RAIN_EVENTS) + EXTRA, w, h, 90, grey)
    return {"grain": grain, "grey_p99": float(np.percentile(np.abs(luma(rain) - 128), 99))}


def missed(name, v, h):
    if name not in TARGETS:
        return False
    op, t = TARGETS[name]
    if name == "grain" and h < 1080:
        return False
    return not (v <= t if op == "<=" else v >= t if op == ">=" else v == t)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rockpool", default="build/rockpool")
    ap.add_argument("--size", action="append")
    ap.add_argument("--crop", help="measure a centred WxH crop of the photo frames")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--scene", action="append", default=[],
                    help="a line added to every scene (e.g. 'depth 8')")
    ap.add_argument("photos", nargs="+")
    a = ap.parse_args()
    sizes = list(dict.fromkeys(a.size or ["1920x1080"]))  # each size once
    global EXTRA
    EXTRA = "".join(line + "\n" for line in a.scene)
    crop = tuple(int(v) for v in a.crop.split("x")) if a.crop else None
    bad = 0
    frames, misses, bad_frames = 0, [], set()
    with tempfile.TemporaryDirectory() as tmp:
        grey = os.path.join(tmp, "grey.png")
        subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "color=c=0x808080:s=64x36",
                        "-frames:v", "1", "-pix_fmt", "rgb24", grey], check=True)
        for size in sizes:
            w, h = (int(v) for v in size.split("x"))
            g = grey_metrics(a.rockpool, tmp, grey, w, h)
            print("%s flat grey: grain %.2f%s grey_p99 %.1f%s" % (
                size, g["grain"], " MISSED" if missed("grain", g["grain"], h) else "",
                g["grey_p99"], " MISSED" if missed("grey_p99", g["grey_p99"], h) else ""))
            bad += missed("grain", g["grain"], h) + missed("grey_p99", g["grey_p99"], h)
            misses += ["flat grey %s %s" % (size, k) for k in ("grain", "grey_p99")
                       if missed(k, g[k], h)]
            for photo in a.photos:
                m = photo_metrics(a.rockpool, tmp, photo, w, h, crop)
                fields = []
                frames += 1
                for k, v in m.items():
                    miss = missed(k, v, h)
                    bad += miss
                    if miss:
                        name = os.path.splitext(os.path.basename(photo))[0].split("_by_")[0]
                        misses.append("%s %s %s" % (name, size, k))
                        bad_frames.add((photo, size))
                    fmt = "%s %.4f" if k in ("white", "white_far") else "%s %.3f" if k == "changed8" else \
                        "%s %d" if k == "still_exact" else "%s %.2f"
                    fields.append(fmt % (k, v) + (" MISSED" if miss else ""))
                print("%s %s: %s" % (size, os.path.basename(photo), ", ".join(fields)))
                sys.stdout.flush()
    print("summary: %d of %d photo frames meet every target%s" % (
        frames - len(bad_frames), frames,
        "; missed: " + ", ".join(misses) if misses else ""))
    if a.check and bad:
        print("look_targets: %d target(s) missed" % bad)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
