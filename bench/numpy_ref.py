#!/usr/bin/python3
"""bench/numpy_ref.py - a plain numpy implementation of `rockpool --preset elias`.

The reference that `-f framemd5` is measured against (bench/README.md): Hugo Elias'
simulation step and offset render with shading = dx, written as straightforward
whole-array numpy, one frame = one step + one render.

  step:   n = ((h(x-1,y) + h(x+1,y) + h(x,y-1) + h(x,y+1)) >> 1) - prev(x,y)
          n -= n >> 5; saturated to int16; the edge cells held at 0
  render: dx = h(x-1,y) - h(x+1,y), dy = h(x,y-1) - h(x,y+1) (heights outside the grid 0)
          pixel = texture(clamp(x + dx), clamp(y + dy)) + dx on each channel, saturated

Modes:
  numpy_ref.py bench WxH FRAMES [TEXTURE.rgb]
      time FRAMES frames (simulation + render only: no hashing, no I/O) from a state
      with a few drops and print "fps F" and "ms_per_frame M". TEXTURE is raw RGB24 of
      WxH (default: a generated pattern).
  numpy_ref.py check WxH TEXTURE.rgb HEIGHTS.bin HASHES
      HEIGHTS is rockpool's --dump-heights file (int16 LE, W*H per frame), HASHES its
      --hash lines (md5 of each frame's RGB24 bytes), from a scene whose events all act
      before frame 1. Frames 0 and 1 are taken from HEIGHTS; from frame 2 on this script
      steps on its own. Every frame's heights and the md5 of its render must equal
      rockpool's; prints "ok N frames" (exit 0) or the first difference (exit 1).
"""
import hashlib
import sys
import time

import numpy as np


def step(cur, prev):
    """One step: returns the new heights (the caller swaps: prev <- cur, cur <- new)."""
    c = cur.astype(np.int32)
    n = np.zeros(cur.shape, np.int32)
    n[1:-1, 1:-1] = ((c[1:-1, :-2] + c[1:-1, 2:] + c[:-2, 1:-1] + c[2:, 1:-1]) >> 1) \
        - prev[1:-1, 1:-1]
    n -= n >> 5
    np.clip(n, -32768, 32767, out=n)
    return n.astype(np.int16)  # the edges stayed 0


def render(h, tex):
    """The offset render with shading dx; tex is (H, W, 3) uint8."""
    ht, w = h.shape
    p = np.pad(h.astype(np.int32), 1)
    dx = p[1:-1, :-2] - p[1:-1, 2:]
    dy = p[:-2, 1:-1] - p[2:, 1:-1]
    tx = np.clip(np.arange(w, dtype=np.int32)[None, :] + dx, 0, w - 1)
    ty = np.clip(np.arange(ht, dtype=np.int32)[:, None] + dy, 0, ht - 1)
    texel = tex.reshape(-1, 3)[ty * w + tx].astype(np.int32)
    return np.clip(texel + dx[:, :, None], 0, 255).astype(np.uint8)


def parse_size(s):
    w, h = s.split("x")
    return int(w), int(h)


def load_texture(path, w, h):
    data = np.fromfile(path, np.uint8)
    if data.size != w * h * 3:
        sys.exit("numpy_ref: %s: %d bytes, not %dx%d RGB24" % (path, data.size, w, h))
    return data.reshape(h, w, 3)


def bench(w, h, frames, tex_path=None):
    if tex_path:
        tex = load_texture(tex_path, w, h)
    else:
        y, x = np.mgrid[0:h, 0:w]
        tex = np.stack([(x * 255 // max(w - 1, 1)), (y * 255 // max(h - 1, 1)),
                        ((x // 32 + y // 32) % 2) * 160 + 40], axis=-1).astype(np.uint8)
    cur = np.zeros((h, w), np.int16)
    prev = np.zeros((h, w), np.int16)
    y, x = np.mgrid[0:h, 0:w]
    for i, (cx, cy, r, a) in enumerate([(0.3, 0.4, 0.02, 3000), (0.7, 0.6, 0.015, -2500),
                                        (0.5, 0.2, 0.01, 2000), (0.2, 0.8, 0.03, 1500)]):
        rr = r * w
        cur[(x - cx * w) ** 2 + (y - cy * h) ** 2 <= rr * rr] += a
    cur[0, :] = cur[-1, :] = cur[:, 0] = cur[:, -1] = 0
    out = None
    t0 = time.perf_counter()
    for _ in range(frames):
        cur, prev = step(cur, prev), cur
        out = render(cur, tex)
    t = time.perf_counter() - t0
    assert out is not None and out.shape == (h, w, 3)
    print("fps %.3f" % (frames / t))
    print("ms_per_frame %.2f" % (1000 * t / frames))


def check(w, h, tex_path, heights_path, hashes_path):
    tex = load_texture(tex_path, w, h)
    dump = np.fromfile(heights_path, "<i2")
    if dump.size % (w * h) or dump.size // (w * h) < 3:
        sys.exit("numpy_ref: %s: not at least 3 frames of %dx%d heights" % (heights_path, w, h))
    dump = dump.reshape(-1, h, w).astype(np.int16)
    hashes = {}
    with open(hashes_path) as f:
        for line in f:
            k, v = line.split()
            hashes[int(k)] = v
    prev, cur = dump[0], dump[1]
    n = len(dump)
    for k in range(n):
        if k >= 2:
            cur, prev = step(cur, prev), cur
            if not np.array_equal(cur, dump[k]):
                bad = np.argwhere(cur != dump[k])[0]
                print("numpy_ref: frame %d: heights differ first at (x %d, y %d): %d, rockpool %d"
                      % (k, bad[1], bad[0], cur[bad[0], bad[1]], dump[k][bad[0], bad[1]]))
                return 1
        h_k = dump[k] if k < 2 else cur
        md5 = hashlib.md5(render(h_k, tex).tobytes()).hexdigest()
        if hashes.get(k) != md5:
            print("numpy_ref: frame %d: render md5 %s, rockpool %s" % (k, md5, hashes.get(k)))
            return 1
    print("ok %d frames" % n)
    return 0


def main(argv):
    if len(argv) >= 3 and argv[0] == "bench":
        w, h = parse_size(argv[1])
        bench(w, h, int(argv[2]), argv[3] if len(argv) > 3 else None)
        return 0
    if len(argv) == 5 and argv[0] == "check":
        w, h = parse_size(argv[1])
        return check(w, h, argv[2], argv[3], argv[4])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
