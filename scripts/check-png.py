#!/usr/bin/env python3
"""Checks that a screenshot of the lifecycle timeline is not blank.

Usage: scripts/check-png.py FILE.png

Decodes the PNG (8-bit RGB or RGBA, every filter type) with the standard library alone, counts
the pixels that are not near white and the blue ones of the connection bars, and exits 1 when
there are too few of either (a blank page, or a page without the timeline).
"""
import struct
import sys
import zlib

data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, width = 8, b"", 0
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b"IHDR":
        width, height, depth, colour = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and colour in (2, 6), "unexpected PNG colour type"
        channels = 4 if colour == 6 else 3
    elif kind == b"IDAT":
        idat += body
    pos += 12 + length
raw, stride, prev = zlib.decompress(idat), width * channels, bytearray(width * channels)
inked = blue = 0
for row in range(height):
    kind, line = raw[row * (stride + 1)], bytearray(raw[row * (stride + 1) + 1:(row + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - channels] if i >= channels else 0
        b, c = prev[i], prev[i - channels] if i >= channels else 0
        if kind == 1:
            line[i] = (line[i] + a) & 255
        elif kind == 2:
            line[i] = (line[i] + b) & 255
        elif kind == 3:
            line[i] = (line[i] + (a + b) // 2) & 255
        elif kind == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for i in range(0, stride, channels):
        r, g, bl = line[i], line[i + 1], line[i + 2]
        if min(r, g, bl) < 235:
            inked += 1
        if bl > 150 and bl > r + 60:
            blue += 1
    prev = line
print(f"{sys.argv[1]}: {width}x{height}, {len(data)} bytes, {inked} non-white pixels, {blue} connection-bar pixels")
if inked < 5000 or blue < 500:
    sys.exit("the screenshot does not show the timeline (blank page?)")
