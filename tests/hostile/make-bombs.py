#!/usr/bin/env python3
"""make-bombs.py DIR - write the hostile images of tests/cli/limits_and_escapes.sh into DIR at test
time: PNGs whose metadata chunks (iCCP, zTXt, iTXt, eXIf, many zTXt) inflate far past what
rockpool accepts, and PNGs whose IHDR claims a frame larger than a small --max-memory.
Each file is small on disk (zlib streams of zeros; the eXIf one is sparse)."""
import os
import struct
import sys
import zlib


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def zeros(n):
    c = zlib.compressobj(9)
    block = b"\0" * (1 << 20)
    return b"".join(c.compress(block) for _ in range(n >> 20)) + c.flush()


def png(w, h, extra=b"", idat=None):
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    if idat is None:
        idat = zlib.compress(b"".join(b"\0" + b"\x80" * (w * 3) for _ in range(h)))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra + chunk(b"IDAT", idat) +
            chunk(b"IEND", b""))


out = sys.argv[1]
z = zeros(1 << 30)  # 1 GiB of zeros in about 1 MB
files = {
    "ztxt-bomb.png": png(16, 16, chunk(b"zTXt", b"Comment\0\0" + z)),
    "iccp-bomb.png": png(16, 16, chunk(b"iCCP", b"icc\0\0" + z)),
    "itxt-bomb.png": png(16, 16, chunk(b"iTXt", b"Comment\0\1\0\0\0" + z)),
    "many-ztxt.png": png(16, 16, b"".join(chunk(b"zTXt", b"k%d\0\0" % i + zeros(1 << 20))
                                          for i in range(20))),
    # 8192x8192 RGB claimed, one row of data: the decoder would want 192 MiB for it
    "big-8192.png": png(8192, 8192, idat=zlib.compress(b"\0" * (1 + 8192 * 3))),
    "small.png": png(16, 16),
}
for name, data in files.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
# eXIf of 20 MiB (sparse zeros): stored as is, held whole by the decoder
n = 20 << 20
with open(os.path.join(out, "exif-big.png"), "wb") as f:
    head = png(16, 16)
    ihdr_end = 8 + 25
    f.write(head[:ihdr_end])
    f.write(struct.pack(">I", n) + b"eXIf")
    f.seek(n, 1)
    crc = zlib.crc32(b"\0" * n, zlib.crc32(b"eXIf")) & 0xFFFFFFFF
    f.write(struct.pack(">I", crc))
    f.write(head[ihdr_end:])
