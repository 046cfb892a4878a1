#!/usr/bin/env python3
"""Prints what a PNG screenshot shows, for test_report_html:

    WIDTH HEIGHT DISTINCT PERMILLE

DISTINCT is the number of distinct pixel values, PERMILLE the share of pixels
(in 1/1000) that differ from the most common one (the page background). A
blank page gives 1 and 0. Only the standard library: the image data is
zlib-compressed scanlines, each behind a filter byte (PNG spec, section 9).
Handles 8-bit greyscale, RGB and RGBA, not interlaced; exits 1 otherwise."""
import struct
import sys
import zlib
from collections import Counter


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, [], None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if hdr is None:
        raise ValueError("no IHDR")
    width, height, depth, ctype, _, _, interlace = hdr
    bpp = {0: 1, 2: 3, 4: 2, 6: 4}.get(ctype)
    if depth != 8 or bpp is None or interlace:
        raise ValueError("unsupported PNG: depth %d, colour type %d" % (depth, ctype))
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(height):
        i = y * (stride + 1)
        kind, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        if kind == 1:  # Sub
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif kind == 2:  # Up
            for x in range(stride):
                line[x] = (line[x] + prev[x]) & 255
        elif kind == 3:  # Average
            for x in range(stride):
                left = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + (left + prev[x]) // 2) & 255
        elif kind == 4:  # Paeth
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b = prev[x]
                c = prev[x - bpp] if x >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        elif kind != 0:
            raise ValueError("bad filter %d in row %d" % (kind, y))
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    try:
        width, height, bpp, rows = decode(sys.argv[1])
    except (OSError, ValueError, zlib.error, struct.error, IndexError) as e:
        print("png_stats: %s: %s" % (sys.argv[1], e), file=sys.stderr)
        return 1
    pixels = Counter(r[i:i + bpp] for r in rows for i in range(0, width * bpp, bpp))
    total = width * height
    background = pixels.most_common(1)[0][1] if pixels else 0
    print(width, height, len(pixels), (total - background) * 1000 // total if total else 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
