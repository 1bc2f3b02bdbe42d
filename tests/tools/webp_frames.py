#!/usr/bin/python3
# webp_frames.py - decodes a WebP, still or animated, into the frames a viewer shows, with
# libwebp's own tools and not FFmpeg's (FFmpeg 5.1 reads no animated WebP): webpmux lists
# the frames and extracts each, dwebp decodes it to RGBA, and each is composited onto the
# canvas as the WebP container specification says (its offset, alpha-blended or replacing,
# disposed to transparent or not).
# Usage: webp_frames.py FILE.webp OUT.rgba [FPS]; writes the canvas-sized RGBA frames to
# OUT and prints "WIDTH HEIGHT FRAMES" on stdout. With FPS, a frame is written as many
# times as its delay lasts at that rate (libwebp merges identical frames into one longer
# one). Exit 1 when a tool fails.
import os
import re
import subprocess
import sys
import tempfile

import numpy as np


def run(*args):
    return subprocess.run(args, capture_output=True, check=True, text=True).stdout


def pam(path):
    with open(path, "rb") as f:
        data = f.read()
    end = data.index(b"ENDHDR\n") + 7
    head = dict(line.split(b" ", 1) for line in data[:end].split(b"\n")[1:-2])
    w, h, depth = int(head[b"WIDTH"]), int(head[b"HEIGHT"]), int(head[b"DEPTH"])
    px = np.frombuffer(data[end:], np.uint8).reshape(h, w, depth).astype(np.float64)
    if depth == 3:
        px = np.concatenate([px, np.full((h, w, 1), 255.0)], axis=2)
    return px


def blend(src, dst):
    """src over dst, straight alpha (the container specification's formula)."""
    sa, da = src[..., 3:] / 255.0, dst[..., 3:] / 255.0
    a = sa + da * (1 - sa)
    rgb = np.where(a > 0, (src[..., :3] * sa + dst[..., :3] * da * (1 - sa)) / np.maximum(a, 1e-9), 0)
    return np.concatenate([rgb, a * 255.0], axis=2)


def main(path, out, fps):
    info = run("webpmux", "-info", path)
    with tempfile.TemporaryDirectory() as tmp:
        m = re.search(r"Canvas size: (\d+) x (\d+)", info)
        rows = re.findall(r"^\s*(\d+):\s+(\d+)\s+(\d+)\s+\S+\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)",
                          info, re.M)
        if not m or not rows:  # a still image: one frame
            run("dwebp", "-quiet", "-pam", path, "-o", os.path.join(tmp, "f.pam"))
            frame = pam(os.path.join(tmp, "f.pam"))
            frames = [frame]
        else:
            cw, ch = int(m.group(1)), int(m.group(2))
            canvas = np.zeros((ch, cw, 4))
            frames = []
            ms = 0  # where the frame ends, in milliseconds
            for n, w, h, x, y, delay, dispose, how in rows:
                w, h, x, y = int(w), int(h), int(x), int(y)
                f = os.path.join(tmp, "f%s" % n)
                run("webpmux", "-get", "frame", n, path, "-o", f + ".webp")
                run("dwebp", "-quiet", "-pam", f + ".webp", "-o", f + ".pam")
                px = pam(f + ".pam")
                region = canvas[y:y + h, x:x + w]
                canvas[y:y + h, x:x + w] = blend(px, region) if how == "yes" else px
                shown = 1
                if fps:  # the frames of the clip that end within this one's delay
                    start, ms = ms, ms + int(delay)
                    shown = round(ms * fps / 1000) - round(start * fps / 1000)
                frames += [canvas.copy()] * shown
                if dispose == "background":
                    canvas[y:y + h, x:x + w] = 0
    with open(out, "wb") as f:
        for frame in frames:
            f.write(np.clip(np.rint(frame), 0, 255).astype(np.uint8).tobytes())
    print(frames[0].shape[1], frames[0].shape[0], len(frames))


if __name__ == "__main__":
    try:
        main(sys.argv[1], sys.argv[2], float(sys.argv[3]) if len(sys.argv) > 3 else 0)
    except (subprocess.CalledProcessError, ValueError, IndexError) as e:
        print("webp_frames.py: %s" % e, file=sys.stderr)
        sys.exit(1)
