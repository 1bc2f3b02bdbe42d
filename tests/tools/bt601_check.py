#!/usr/bin/env python3
"""bt601_check.py RGB24_FILE YUV_FILE WIDTH HEIGHT [420|444]

Check decoded planar YUV frames (yuv420p, the default, or yuv444p) against RGB24 frames by
the BT.601 limited-range definition (Kr = 0.299, Kb = 0.114; Y' on 16..235, Cb and Cr on
16..240; 4:2:0 chroma the mean of each 2x2 block), computed here in floating point
independently of rockpool's integer converter.
Every sample must be the definition's value rounded to nearest, allowing 1/64 for the
converter's fixed-point coefficients. Prints the number of samples checked; exits 1 on the
first mismatch."""
import sys


def bt601(r, g, b):
    kr, kb = 0.299, 0.114
    y = (kr * r + (1 - kr - kb) * g + kb * b) / 255
    return (16 + 219 * y, 128 + 224 * (b / 255 - y) / (2 * (1 - kb)),
            128 + 224 * (r / 255 - y) / (2 * (1 - kr)))


def main():
    rgb = open(sys.argv[1], "rb").read()
    yuv = open(sys.argv[2], "rb").read()
    w, h = int(sys.argv[3]), int(sys.argv[4])
    sub = 2 if len(sys.argv) < 6 or sys.argv[5] == "420" else 1
    cw, ch = w // sub, h // sub
    fsize, csize = w * h * 3, cw * ch
    ysize = w * h + 2 * csize
    frames = len(rgb) // fsize
    if frames == 0 or len(rgb) != frames * fsize or len(yuv) != frames * ysize:
        sys.exit("sizes do not match: %d RGB bytes, %d YUV bytes" % (len(rgb), len(yuv)))
    checked = 0
    for f in range(frames):
        src = rgb[f * fsize:(f + 1) * fsize]
        dst = yuv[f * ysize:(f + 1) * ysize]
        conv = [bt601(*src[3 * i:3 * i + 3]) for i in range(w * h)]
        for i in range(w * h):
            want = conv[i][0]
            if abs(dst[i] - want) > 0.5 + 1 / 64:
                sys.exit("frame %d pixel %d: Y %d, BT.601 gives %.3f" % (f, i, dst[i], want))
        for cy in range(ch):
            for cx in range(cw):
                block = [conv[(sub * cy + k // sub) * w + sub * cx + k % sub]
                         for k in range(sub * sub)]
                for p in (1, 2):
                    want = sum(c[p] for c in block) / len(block)
                    got = dst[w * h + (p - 1) * csize + cy * cw + cx]
                    if abs(got - want) > 0.5 + 1 / 64:
                        sys.exit("frame %d chroma %d,%d plane %d: %d, BT.601 gives %.3f"
                                 % (f, cx, cy, p, got, want))
        checked += ysize
    print(checked)


main()
