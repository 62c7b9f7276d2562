#!/usr/bin/env python3
"""A file that measures, built light (WARMUP_LIGHT), never compiles the runtime: each header such
a file uses is compiled against a copy of the headers in which every runtime header is an
#error naming itself. A control compiles one of them whole (no WARMUP_LIGHT), which must reach
the runtime and fail: the check can fail.

Then the layers of detail/ (docs/design.md): the ground (detail/ itself), record, analysis, io
and runtime, in that order. No detail header includes one of a higher layer; the ground and the
record include no public header but the vocabulary (config.hpp, op.hpp); a planted upward
include is caught (control).

usage: check_light_headers.py CXX INCLUDE_DIR [-isystem DIR...]
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check

# What a measuring file includes: <warmup/profile.hpp> and each header under it.
MEASURING = ["profile.hpp", "scope.hpp", "cold.hpp", "settings.hpp", "op.hpp", "cause.hpp", "config.hpp", "prewarm.hpp",
             "until_steady.hpp", "steady_limits.hpp", "report.hpp", "snapshot.hpp", "report_file.hpp", "print.hpp",
             "json.hpp", "csv.hpp", "trace.hpp", "svg.hpp"]
# Every header of the runtime, the io and the analysis layers, but the warm-up loop's rule
# (until_steady.hpp's template calls it; its judgement is the runtime's, steady_judge.hpp); and
# the headers for programs that read reports.
LAYERS = ["record", "analysis", "io", "runtime"]
ALLOWED_IN_LIGHT = {"detail/analysis/steady_rule.hpp"}
READING = ["read.hpp", "merge.hpp", "merge_formats.hpp", "compare.hpp", "compare_formats.hpp", "mpi.hpp", "cublas.hpp",
           "runtime.hpp"]


def runtime_headers(include):
    found = []
    for layer in ("analysis", "io", "runtime"):
        for f in sorted(os.listdir(os.path.join(include, "warmup", "detail", layer))):
            h = f"detail/{layer}/{f}"
            if f.endswith(".hpp") and h not in ALLOWED_IN_LIGHT:
                found.append(h)
    return found + READING


def layer_of(header):
    parts = header.split("/")
    if parts[0] != "detail":
        return None  # a public header
    return 0 if len(parts) == 2 else 1 + LAYERS.index(parts[1])


def upward_includes(include):
    """Every include of a detail header that climbs: to a higher layer, or from the ground or the
    record to a public header other than the vocabulary."""
    bad = []
    detail = os.path.join(include, "warmup", "detail")
    for dirpath, _, files in os.walk(detail):
        for f in files:
            path = os.path.join(dirpath, f)
            header = os.path.relpath(path, os.path.join(include, "warmup")).replace(os.sep, "/")
            if header in ("detail/header_begin.hpp", "detail/header_end.hpp"):
                continue  # the switch that puts the runtime at the end of a whole file, above every layer
            mine = layer_of(header)
            for n, line in enumerate(open(path), 1):
                m = re.match(r'\s*#\s*include\s+"warmup/([^"]+)"', line)
                if not m:
                    continue
                target = m.group(1)
                theirs = layer_of(target)
                if theirs is None:
                    if mine <= 1 and target not in ("config.hpp", "op.hpp", "cause.hpp"):
                        bad.append(f"{header}:{n} includes the public {target}")
                elif theirs > mine:
                    bad.append(f"{header}:{n} includes {target}, a higher layer")
    return bad


def compile_alone(cxx, include, extra, header, flags):
    with tempfile.NamedTemporaryFile("w", suffix=".cpp", delete=False) as f:
        f.write(f"#include <warmup/{header}>\n")
        src = f.name
    try:
        return warmup_check.run([cxx, "-std=c++17", "-fsyntax-only", "-I" + include, *extra, *flags, src])
    finally:
        os.unlink(src)


def main():
    cxx, include, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
    with tempfile.TemporaryDirectory() as tmp:
        fenced = os.path.join(tmp, "include")
        shutil.copytree(include, fenced)
        RUNTIME = runtime_headers(include)
        for h in RUNTIME:
            path = os.path.join(fenced, "warmup", h)
            assert os.path.exists(path), f"no header {h}: update the list"
            with open(path, "w") as f:
                f.write(f'#error "a light measuring file reached the runtime header warmup/{h}"\n')
        for h in MEASURING:
            r = compile_alone(cxx, fenced, extra, h, ["-DWARMUP_LIGHT"])
            if r.returncode != 0:
                warmup_check.fail(f"warmup/{h}, built light, reaches the runtime:\n{r.stderr[-3000:]}")
        control = compile_alone(cxx, fenced, extra, "scope.hpp", [])
        assert control.returncode != 0 and "reached the runtime header" in control.stderr, (
            "control: scope.hpp built whole should reach the runtime", control.stderr[-2000:])
        bad = upward_includes(include)
        if bad:
            warmup_check.fail("includes that climb a layer:\n" + "\n".join(bad))
        # Control: an upward include planted in a copy is found.
        planted = os.path.join(tmp, "planted")
        shutil.copytree(include, planted)
        with open(os.path.join(planted, "warmup", "detail", "record", "series.hpp"), "a") as f:
            f.write('#include "warmup/detail/runtime/notices.hpp"\n')
        assert any("record/series.hpp" in b for b in upward_includes(planted)), "control: a planted climb was not found"
    layers = ", ".join(f"{l} ({len(os.listdir(os.path.join(include, 'warmup', 'detail', l)))})" for l in LAYERS)
    print(f"{len(MEASURING)} measuring headers built light reach none of {len(RUNTIME)} runtime headers; "
          f"built whole, scope.hpp does (control). Layers {layers}: no include climbs (a planted one is found)")


if __name__ == "__main__":
    main()
