#!/usr/bin/env python3
"""rain_ref.py - independent reference for the `rain` contract of rockpool-scene(5).

Written from the man page (section RAIN), not from src/scene/events.c, with Python's exact
integers and fractions: it prints the first drops of one rain statement as
"frame x y radius height" lines. tests/unit/test_scene.c keeps its output as golden
values, so a change to the C expansion that breaks the file format fails the tests.

Usage:
  rain_ref.py --seed 42 --index 0 --span 2s..8s --fps 30 --size 640x480 \
              --rate 6/s --radius 3..9 --height 150..500 [--count 8]
"""
import argparse
from fractions import Fraction

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


class SplitMix64:
    """SplitMix64 (Steele, Lea, Flood 2014)."""

    def __init__(self, seed):
        self.state = seed & MASK64

    def next(self):
        self.state = (self.state + GOLDEN) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def uniform(self, lo, hi):
        return lo + (((self.next() >> 32) * (hi - lo + 1)) >> 32)


def seconds(text, fps):
    """A time of the scene language as an exact Fraction of a second."""
    if text.endswith("ms"):
        return Fraction(text[:-2]) / 1000
    if text.endswith("s"):
        return Fraction(text[:-1])
    if text.endswith("f"):
        return Fraction(int(text[:-1]), fps)
    raise ValueError("time needs a unit: " + text)


def int_range(text):
    if ".." in text:
        lo, hi = text.split("..")
        return int(lo), int(hi)
    return int(text), int(text)


def rain(seed, index, start, end, fps, width, height, rate, radius, heights, count):
    """The first `count` drops (frame, x, y, radius, height) of rain statement `index`."""
    rng = SplitMix64(seed ^ ((GOLDEN * (index + 1)) & MASK64))
    n = int((end - start) * rate)  # floor: both are non-negative
    out = []
    for j in range(min(n, count)):
        u = rng.next() >> 32
        x = rng.uniform(0, width - 1)
        y = rng.uniform(0, height - 1)
        r = rng.uniform(*radius)
        h = rng.uniform(*heights)
        t = start + Fraction(j * 2**32 + u, 1) / (rate * 2**32)
        frame = (t * fps).numerator // (t * fps).denominator
        out.append((frame, x, y, r, h))
    return n, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=lambda s: int(s, 0), default=0)
    ap.add_argument("--index", type=int, default=0)
    ap.add_argument("--span", required=True)
    ap.add_argument("--fps", type=int, default=30)
    ap.add_argument("--size", default="640x480")
    ap.add_argument("--rate", required=True, help="drops per second, e.g. 6/s or 2.5/s")
    ap.add_argument("--radius", required=True)
    ap.add_argument("--height", required=True)
    ap.add_argument("--count", type=int, default=8)
    a = ap.parse_args()
    start, end = (seconds(t, a.fps) for t in a.span.split(".."))
    width, height = (int(v) for v in a.size.split("x"))
    rate = Fraction(a.rate[:-2] if a.rate.endswith("/s") else a.rate)
    n, drops = rain(a.seed, a.index, start, end, a.fps, width, height, rate,
                    int_range(a.radius), int_range(a.height), a.count)
    print("# %d drops in the span; first %d: frame x y radius height" % (n, len(drops)))
    for d in drops:
        print("%d %d %d %d %d" % d)


if __name__ == "__main__":
    main()
