#!/usr/bin/env python3
"""Renders the SVG report in headless Chromium and checks that the picture is not blank: the
page is mostly background, but the panels, the warm-up points (red and orange) and the steady
points (blue) are there. Exits 77 (skipped) where Chromium is not installed.

usage: render_svg.py PROGRAM SITES [KEEP_PNG]    PROGRAM prints the SVG of SITES sites
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib


def read_png(path):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB or RGBA, non-interlaced PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and color in (2, 6) and interlace == 0, (depth, color, interlace)
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def near(p, q, tol=40):
    return all(abs(a - b) <= tol for a, b in zip(p, q))


def main():
    program, sites = sys.argv[1], int(sys.argv[2])
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("chromium is not installed: render test skipped")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        svg = os.path.join(tmp, "report.svg")
        png = os.path.join(tmp, "report.png")
        with open(svg, "wb") as f:
            f.write(subprocess.run([program, str(sites), "svg"], check=True, capture_output=True).stdout)
        cols = min(3, max(1, sites))
        rows_of_panels = (sites + cols - 1) // cols
        size = f"{max(620, cols * 392 + 12)},{58 + rows_of_panels * 212 + 12}"
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        f"--user-data-dir={tmp}/profile", f"--screenshot={png}", f"--window-size={size}",
                        "file://" + svg], check=True, capture_output=True, timeout=120)
        width, height, pixels = read_png(png)
        if len(sys.argv) > 3:
            shutil.copy(png, sys.argv[3])
    count = lambda colour: sum(near(p, colour) for row in pixels for p in row)
    total = width * height
    background = sum(p == pixels[0][0] for row in pixels for p in row)
    red, orange, blue = count((0xd6, 0x27, 0x28)), count((0xff, 0x7f, 0x0e)), count((0x4c, 0x72, 0xb0))
    print(f"{width}x{height}: {100 * (total - background) / total:.1f}% not background; "
          f"red {red}, orange {orange}, blue {blue} pixels")
    assert total - background > total // 20, "the picture is (nearly) blank"
    assert red >= 20 * sites, "first calls are missing"
    assert orange >= 10, "warm-up calls are missing"
    assert blue >= 100 * sites, "steady calls are missing"


if __name__ == "__main__":
    main()
