#!/usr/bin/env python3
"""Renders the SVG report in headless Chromium and checks that the picture is not blank: the
page is mostly background, but the panels, the warm-up points (red and orange), the steady
points (blue) and, where sites have causes, their bars (module loads purple, host code gold) are
there. Exits 77 (skipped) where Chromium or Pillow is not installed.

usage: render_svg.py PROGRAM SITES [KEEP_PNG]    PROGRAM prints the SVG of SITES sites
"""
import os
import shutil
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check


def near(p, q, tol=40):
    return all(abs(a - b) <= tol for a, b in zip(p, q))


def main():
    program, sites = sys.argv[1], int(sys.argv[2])
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        warmup_check.skip("chromium is not installed: render test skipped")
    try:
        from PIL import Image
    except ImportError:
        # Debian's python3-pil serves the system's Python; CMake may have found another one first
        # (pyenv, a virtual environment): the test runs again under the system's where it can.
        system = "/usr/bin/python3"
        if os.path.realpath(sys.executable) != os.path.realpath(system) and os.access(system, os.X_OK) and \
                warmup_check.run([system, "-c", "import PIL"]).returncode == 0:
            os.execv(system, [system] + sys.argv)
        warmup_check.skip(f"Pillow (Debian: python3-pil) is not installed for {sys.executable}: "
                          "render test skipped")
    with tempfile.TemporaryDirectory() as tmp:
        svg = os.path.join(tmp, "report.svg")
        png = os.path.join(tmp, "report.png")
        with open(svg, "w", encoding="utf-8", newline="") as f:
            f.write(warmup_check.run_ok([program, str(sites), "svg"]).stdout)
        root = ET.parse(svg).getroot()
        size = f"{root.get('width')},{root.get('height')}"
        warmup_check.run_ok([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                             "--disable-background-networking", "--disable-component-update", "--disable-sync",
                             f"--user-data-dir={tmp}/profile", f"--screenshot={png}", f"--window-size={size}",
                             "file://" + svg], timeout=120)
        with Image.open(png) as image:
            rgb = image.convert("RGB")
            (width, height) = rgb.size
            # Pixels counted by colour, each distinct colour once (a page of 50 sites has
            # millions of pixels and a few thousand colours).
            colours = rgb.getcolors(maxcolors=width * height)
            corner = rgb.getpixel((0, 0))
        if len(sys.argv) > 3:
            shutil.copy(png, sys.argv[3])
    count = lambda colour: sum(n for n, c in colours if near(c, colour))
    total = width * height
    background = sum(n for n, c in colours if c == corner)
    red, orange, blue = count((0xd6, 0x27, 0x28)), count((0xff, 0x7f, 0x0e)), count((0x4c, 0x72, 0xb0))
    print(f"{width}x{height}: {100 * (total - background) / total:.1f}% not background; "
          f"red {red}, orange {orange}, blue {blue} pixels")
    assert total - background > total // 20, "the picture is (nearly) blank"
    assert red >= 20 * sites, "first calls are missing"
    assert orange >= 10, "warm-up calls are missing"
    assert blue >= 100 * sites, "steady calls are missing"
    # The synthetic report gives every other site causes: two bars each, of which half is module
    # loads (about 180 by 12 pixels) and an eighth host code.
    purple, gold = count((0x94, 0x67, 0xbd)), count((0xe7, 0xba, 0x52))
    print(f"cause bars: purple {purple}, gold {gold} pixels")
    with_causes = sites // 2
    assert purple >= 2 * 150 * 10 * with_causes and gold >= 2 * 35 * 10 * with_causes, "cause bars are missing"


if __name__ == "__main__":
    main()
