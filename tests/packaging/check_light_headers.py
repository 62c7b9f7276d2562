#!/usr/bin/env python3
"""A file that measures, built light (WARMUP_LIGHT), never compiles the runtime: each header such
a file uses is compiled against a copy of the headers in which every runtime header is an
#error naming itself. A control compiles one of them whole (no WARMUP_LIGHT), which must reach
the runtime and fail: the check can fail.

Then the layers of detail/ (docs/design.md): the ground (detail/ itself), record, analysis, io
and runtime, in that order. No detail header includes one of a higher layer; the ground and the
record include no public header but the vocabulary (config.hpp, op.hpp); a planted upward
include is caught (control).

Then the compiled-once code: WARMUP_DETAIL_RUNTIME defines only in -inl.hpp files (macros.hpp and
macros_end.hpp define and undefine it); an -inl.hpp file is included only by the file that
gathers what a program compiles once (GATHERER; tests may include them); no two headers share a
file name. A planted one of each is caught (control).

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
# (until_steady.hpp's template calls it; its judgement is the runtime's, steady_rule-inl.hpp); and
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


GATHERER = "detail/runtime/compiled_once.hpp"
MACROS = ("detail/macros.hpp", "detail/macros_end.hpp")


def headers_under(include):
    root = os.path.join(include, "warmup")
    for dirpath, _, files in os.walk(root):
        for f in sorted(files):
            if f.endswith(".hpp"):
                path = os.path.join(dirpath, f)
                yield os.path.relpath(path, root).replace(os.sep, "/"), path


def compiled_once_misplaced(include):
    """WARMUP_DETAIL_RUNTIME outside an -inl.hpp file (comments aside), an -inl.hpp file included
    by another than the gatherer, and file names two headers share."""
    bad = []
    names = {}
    for header, path in headers_under(include):
        names.setdefault(os.path.basename(header), []).append(header)
        is_inl = header.endswith("-inl.hpp")
        for n, line in enumerate(open(path), 1):
            code = line.split("//", 1)[0]
            if re.search(r"\bWARMUP_DETAIL_RUNTIME\b", code) and not is_inl and header not in MACROS:
                bad.append(f"{header}:{n} defines compiled-once code outside an -inl.hpp file")
            m = re.match(r'\s*#\s*include\s+[<"]warmup/([^">]+-inl\.hpp)[">]', line)
            if m and header != GATHERER:
                bad.append(f"{header}:{n} includes {m.group(1)}: only {GATHERER} includes -inl.hpp files")
    for name, where in sorted(names.items()):
        if len(where) > 1:
            bad.append(f"{name} names {len(where)} headers: {', '.join(where)}")
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
        misplaced = compiled_once_misplaced(include)
        if misplaced:
            warmup_check.fail("compiled-once code out of its files:\n" + "\n".join(misplaced))
        # Control: an upward include planted in a copy is found, and so is each misplacement.
        planted = os.path.join(tmp, "planted")
        shutil.copytree(include, planted)
        with open(os.path.join(planted, "warmup", "detail", "record", "series.hpp"), "a") as f:
            f.write('#include "warmup/detail/runtime/notices.hpp"\n')
        assert any("record/series.hpp" in b for b in upward_includes(planted)), "control: a planted climb was not found"
        with open(os.path.join(planted, "warmup", "detail", "io", "table_writer.hpp"), "a") as f:
            f.write("WARMUP_DETAIL_RUNTIME void planted() {}\n")
        with open(os.path.join(planted, "warmup", "detail", "io", "json_writer.hpp"), "a") as f:
            f.write('#include "warmup/detail/io/json-inl.hpp"\n')
        shutil.copy(os.path.join(planted, "warmup", "detail", "clock.hpp"),
                    os.path.join(planted, "warmup", "detail", "runtime", "clock.hpp"))
        found = compiled_once_misplaced(planted)
        for what, seen in (("a weak definition outside an -inl file", "io/table_writer.hpp:"),
                           ("an -inl file included outside the gatherer", "io/json_writer.hpp:"),
                           ("two headers of one name", "clock.hpp names 2 headers")):
            assert any(seen in b for b in found), f"control: {what} was not found: {found}"
    layers = ", ".join(f"{l} ({len(os.listdir(os.path.join(include, 'warmup', 'detail', l)))})" for l in LAYERS)
    print(f"{len(MEASURING)} measuring headers built light reach none of {len(RUNTIME)} runtime headers; "
          f"built whole, scope.hpp does (control). Layers {layers}: no include climbs; compiled-once code only "
          f"in -inl files, which only {GATHERER} includes; no two headers share a name (a planted one of each is found)")


if __name__ == "__main__":
    main()
