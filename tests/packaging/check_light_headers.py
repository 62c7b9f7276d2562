#!/usr/bin/env python3
"""A file that measures, built light (WARMUP_LIGHT), never compiles the runtime: each header such
a file uses is compiled against a copy of the headers in which every runtime header is an
#error naming itself. A control compiles one of them whole (no WARMUP_LIGHT), which must reach
the runtime and fail: the check can fail.

usage: check_light_headers.py CXX INCLUDE_DIR [-isystem DIR...]
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check

# What a measuring file includes.
MEASURING = ["scope.hpp", "cold.hpp", "settings.hpp", "op.hpp", "config.hpp", "prewarm.hpp"]
# The runtime: start-up and exit hooks, the snapshot and its statistics, the writers, reading
# reports back, CUPTI and the environment. (Attribution's cause store and the CPU sampler are
# still reached through the record layer, detail/record/site.hpp: issue 26 moves them out next.)
RUNTIME = ["detail/runtime/runtime.hpp", "snapshot.hpp", "report_file.hpp", "print.hpp", "json.hpp", "csv.hpp",
           "trace.hpp", "svg.hpp", "detail/analysis/statistics.hpp", "detail/analysis/cupti.hpp", "detail/runtime/environment.hpp",
           "detail/runtime/identity.hpp", "detail/io/json_parse.hpp", "detail/io/json_read.hpp", "read.hpp", "merge.hpp",
           "compare.hpp", "until_steady.hpp", "detail/analysis/steady_rule.hpp"]


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
    print(f"{len(MEASURING)} measuring headers built light reach none of {len(RUNTIME)} runtime headers; "
          "built whole, scope.hpp does (control)")


if __name__ == "__main__":
    main()
