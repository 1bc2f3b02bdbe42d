#!/usr/bin/env python3
"""make-images.py - (re)generate the small image files used by the image fuzz corpus
(tests/fuzz/corpus/image/) and the hostile CLI cases (tests/hostile/img/).

Ordinary images come from ffmpeg's testsrc; the hostile ones (truncated, lying
headers, decompression bombs) are written byte by byte with zlib/struct, since the
point is that no real encoder would make them. The files are committed; run this
only to change them:  python3 tests/hostile/make-images.py
"""
import os
import struct
import subprocess
import sys
import zlib

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(TOP, "tests/fuzz/corpus/image")
HOSTILE = os.path.join(TOP, "tests/hostile/img")


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def png(width, height, depth=8, color=2, idat=None, interlace=0, extra=b""):
    """A PNG whose IHDR says width x height. idat: the compressed data (default: a
    zlib stream of a single zero row, far too short for the claimed size)."""
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color]
    if idat is None:
        row = b"\0" * (1 + (width * channels * depth + 7) // 8 if width < 100000 else 1)
        idat = zlib.compress(row, 9)
    ihdr = struct.pack(">IIBBBBB", width, height, depth, color, 0, 0, interlace)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra + chunk(b"IDAT", idat) +
            chunk(b"IEND", b""))


def png_bomb(width, height, rows):
    """A real decompression bomb: 1-bit gray, `rows` full rows of zeros compressed at
    level 9 (a few hundred bytes that inflate to megabytes), IHDR claiming width x height."""
    row = b"\0" * (1 + (width + 7) // 8)
    comp = zlib.compressobj(9)
    data = b"".join(comp.compress(row) for _ in range(rows)) + comp.flush()
    return png(width, height, depth=1, color=0, idat=data)


def jpeg_sof(width, height):
    """A baseline JPEG header (SOI, DQT, SOF0, DHT, SOS) claiming width x height, then a
    few bytes of scan data and EOI."""
    dqt = b"\xff\xdb" + struct.pack(">H", 67) + b"\x00" + bytes([1] * 64)
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    # DC table 0: one code of length 1 for category 0.
    dht_dc = b"\xff\xc4" + struct.pack(">H", 20) + b"\x00" + bytes([1] + [0] * 15) + b"\x00"
    # AC table 0: one code of length 1 for EOB (0x00).
    dht_ac = b"\xff\xc4" + struct.pack(">H", 20) + b"\x10" + bytes([1] + [0] * 15) + b"\x00"
    sos = b"\xff\xda" + struct.pack(">HB", 8, 1) + b"\x01\x00" + b"\x00\x3f\x00"
    return b"\xff\xd8" + dqt + sof + dht_dc + dht_ac + sos + b"\x00" * 16 + b"\xff\xd9"


def gif_screen(width, height):
    """A GIF89a whose logical screen and only image claim width x height (1 color bit)."""
    head = b"GIF89a" + struct.pack("<HHBBB", width, height, 0x80, 0, 0) + b"\0\0\0\xff\xff\xff"
    img = b"\x2c" + struct.pack("<HHHHB", 0, 0, width, height, 0)
    data = b"\x02\x02\x44\x01\x00"  # LZW min code 2, one sub-block, terminator
    return head + img + data + b"\x3b"


def bmp_header(width, height, bpp=24, data=b""):
    """A BITMAPINFOHEADER BMP claiming width x height (height negative: top-down)."""
    off = 14 + 40
    dib = struct.pack("<IiiHHIIiiII", 40, width, height, 1, bpp, 0, len(data), 2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", off + len(data), 0, 0, off) + dib + data


def webp_vp8x(width, height):
    """A WebP VP8X header claiming a width x height canvas, followed by a tiny VP8L."""
    vp8x = b"VP8X" + struct.pack("<I", 10) + b"\x00\x00\x00\x00" + \
        struct.pack("<I", width - 1)[:3] + struct.pack("<I", height - 1)[:3]
    bits = (width - 1) & 0x3FFF | ((height - 1) & 0x3FFF) << 14
    vp8l_body = b"\x2f" + struct.pack("<I", bits) + b"\0\0\0"
    vp8l = b"VP8L" + struct.pack("<I", len(vp8l_body)) + vp8l_body
    body = b"WEBP" + vp8x + vp8l
    return b"RIFF" + struct.pack("<I", len(body)) + body


def ffmpeg(out, *args, src="testsrc=size=17x11", frames=1):
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", src, "-frames:v",
                    str(frames), *args, out], check=True)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def main():
    os.makedirs(CORPUS, exist_ok=True)
    os.makedirs(HOSTILE, exist_ok=True)
    c = lambda name: os.path.join(CORPUS, name)
    h = lambda name: os.path.join(HOSTILE, name)

    # Ordinary small images, one per decoder rockpool is likely to meet.
    ffmpeg(c("tiny.png"))
    ffmpeg(c("alpha.png"), "-vf", "format=rgba,geq=r='X*15':g='Y*20':b=128:a='X*15'")
    ffmpeg(c("gray16.png"), "-pix_fmt", "gray16be")
    ffmpeg(c("pal8.png"), "-pix_fmt", "pal8")
    ffmpeg(c("tiny.jpg"))
    ffmpeg(c("yuv444.jpg"), "-pix_fmt", "yuvj444p")
    ffmpeg(c("tiny.bmp"))
    ffmpeg(c("tiny.gif"))
    ffmpeg(c("anim.gif"), frames=3)
    ffmpeg(c("tiny.webp"), "-c:v", "libwebp")
    ffmpeg(c("lossless.webp"), "-c:v", "libwebp", "-lossless", "1")
    ffmpeg(c("tiny.tiff"))
    ffmpeg(c("tiny.ppm"), "-f", "image2", "-c:v", "ppm")
    ffmpeg(c("tiny.qoi"), "-f", "image2", "-c:v", "qoi")
    with open(c("tiny.png"), "rb") as f:
        good = f.read()
    write(c("truncated.png"), good[: len(good) // 2])
    write(c("header-only.png"), good[:33])
    write(c("bomb-60000.png"), png(60000, 60000))
    write(c("bomb-20000.png"), png(20000, 20000))
    write(c("bomb-16384x16000.png"), png_bomb(16384, 16000, 64))
    write(c("bomb-65000.jpg"), jpeg_sof(65000, 65000))
    write(c("bomb-60000.gif"), gif_screen(60000, 60000))
    write(c("bomb-60000.bmp"), bmp_header(60000, -60000, data=b"\0" * 16))
    write(c("bomb-16383.webp"), webp_vp8x(16383, 16383))
    write(c("zero-width.png"), png(0, 10))
    write(c("empty"), b"")
    write(c("text.txt"), b"size 64x48\nat 0s drop 10 10 radius 3 height 300\n")

    # The hostile CLI cases use some of the same files under stable names.
    for name in ["tiny.png", "alpha.png", "truncated.png", "bomb-60000.png", "bomb-20000.png",
                 "bomb-16384x16000.png", "bomb-65000.jpg", "bomb-60000.gif", "bomb-60000.bmp",
                 "zero-width.png", "header-only.png", "tiny.gif"]:
        with open(c(name), "rb") as f:
            write(h(name), f.read())
    write(h("empty.png"), b"")
    write(h("text.png"), b"this is not a png, only text\n")


if __name__ == "__main__":
    sys.exit(main())
