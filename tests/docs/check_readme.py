#!/usr/bin/env python3
"""The README tells the truth: its snippets are the programs a test builds, its ncu line answers
in seconds, and its build line without CMake builds and runs a program.

usage: check_readme.py snippets|ncu|headers      (reads README.md beside tests/)
       check_readme.py ncu_run PROGRAM [LIMIT_S]  (GPU machine: runs the README's ncu line on
                                                  PROGRAM, the demo; fails past LIMIT_S, 60)
       check_readme.py build_line CXX            (compiles examples/steps.cpp with the README's line)
       check_readme.py schema PROGRAM            (PROGRAM N json|csv prints a report with every field)
"""
import csv
import io
import json
import os
import re
import shlex
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
README = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()


def block_after(marker):
    """The fenced block that follows each line starting with `marker`, with the marker line."""
    for m in re.finditer(r"^" + re.escape(marker) + r"[^\n]*\n```[a-z]*\n(.*?)```", README, re.S | re.M):
        yield m.group(0).split("\n", 1)[0], m.group(1)


def snippets():
    found = 0
    for line, body in block_after("<!-- snippet: "):
        path = line.split("<!-- snippet: ", 1)[1].split()[0]
        src = open(os.path.join(ROOT, path), encoding="utf-8").read()
        begin = re.search(r"^( *)// \[readme:[a-z-]+\]\n", src, re.M)
        assert begin, f"{path}: no // [readme:...] marker"
        indent = len(begin.group(1))
        region = src[begin.end():src.index("// [readme:end]", begin.end())]
        lines = [l[indent:] if l.startswith(" " * indent) else l for l in region.rstrip().split("\n")]
        # The README's copy may open with the program's includes.
        want = "\n".join(lines).strip()
        got = "\n".join(l for l in body.rstrip().split("\n") if not l.startswith("#include")).strip()
        assert got == want, f"README's snippet from {path} differs from the program:\n--- README\n{got}\n--- {path}\n{want}"
        found += 1
    assert found >= 1, "no snippet marker in README.md"
    return f"{found} README snippet(s) equal to their programs"


def ncu():
    lines = [l for l in README.split("\n") if l.lstrip().startswith("ncu ")]
    assert lines, "README.md shows no ncu line"
    for l in lines:
        assert "--metrics" in l or "--section" in l or "--launch-count" in l or " -c " in l, (
            f"this ncu line runs every default section (about 10 replays a kernel): {l}")
    return f"{len(lines)} ncu line(s), each limited to what it needs"


def ncu_commands():
    """The README's ncu commands, whole: continuation lines joined, comments left out."""
    text = re.sub(r"\\\n\s*", " ", README)
    return [l.split("#")[0].strip() for l in text.split("\n") if l.lstrip().startswith("ncu ")]


def ncu_run(program, limit_s="60"):
    """The README's ncu line, as it stands, run on the demo (`program` stands for its path): it
    must answer in seconds (within `limit_s`, killed with everything it started past that), exit
    0, and have profiled kernels (a filter that matched none would answer at once)."""
    limit = float(limit_s)
    (command,) = ncu_commands()
    words = shlex.split(command)
    demo = [i for i, w in enumerate(words) if w.endswith("examples/first_inference")]
    assert len(demo) == 1, f"the README's ncu line names no examples/first_inference to run: {command}"
    words[demo[0]] = program
    # timeout(1) signals its whole process group: ncu and the program it launched.
    start = time.monotonic()
    proc = warmup_check.run(["timeout", "-k", "10", f"{limit:g}", *words], timeout=limit + 60)
    took = time.monotonic() - start
    tail = "\n".join((proc.stdout + proc.stderr).rstrip().split("\n")[-6:])
    if proc.returncode in (124, 137) or took > limit:
        warmup_check.fail(f"the README's ncu line took {took:.1f} s, more than {limit:g} s (\"in seconds\"): "
                          f"{' '.join(words)}\n{tail}")
    warmup_check.expect_exit(proc)
    metric = [w for w in words if w.startswith("gpu__")] or ["gpu__time_duration.sum"]
    rows = [l for l in proc.stdout.split("\n") if metric[0] in l]
    assert rows, f"the README's ncu line profiled no kernel (no {metric[0]} in its output):\n{tail}"
    print(tail)
    return f"the README's ncu line answered in {took:.1f} s (limit {limit:g} s), {len(rows)} kernels measured"


def build_line(cxx):
    (_, body), = list(block_after("<!-- build-line"))
    command = body.replace("\\\n", " ").split("\n")[0].split("#")[0]
    words = shlex.split(command)
    assert words[0] == "g++", words
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "app")
        subst = {"warmup/include": os.path.join(ROOT, "include"), "app.cpp": os.path.join(ROOT, "examples", "steps.cpp"),
                 "app": exe}
        words = [cxx] + [subst.get(w, w) for w in words[1:]]
        warmup_check.run_ok(words)
        r = warmup_check.run_ok([exe], timeout=120)
        assert '"schema":"warmup.report/3"' in r.stdout, r.stdout
    return f"the README's g++ line built and ran examples/steps.cpp: {' '.join(words[:3])} ..."


def key_paths(value, prefix=""):
    """Every key of a JSON value, as dotted paths, lists looked into."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield prefix + k
            yield from key_paths(v, prefix + k + ".")
    elif isinstance(value, list):
        for v in value:
            yield from key_paths(v, prefix)


def schema(program):
    """Every key the library writes is in the README's schema, and the CSV's columns are the JSON
    site fields' dotted paths (lists left out), in order."""
    doc = json.loads(warmup_check.run_ok([program, "4", "json"]).stdout)
    block = README[README.index("## JSON schema"):README.index("## Layout")]
    documented = set(re.findall(r'"([a-z0-9_]+)"', block))
    missing = sorted({p.rsplit(".", 1)[-1] for p in key_paths(doc)} - documented)
    assert not missing, f"README's JSON schema omits {missing}"
    assert doc["schema"] in block, doc["schema"]

    def leaves(value, prefix=""):
        for k, v in value.items():
            if isinstance(v, dict):
                yield from leaves(v, prefix + k + ".")
            elif not isinstance(v, list):
                yield prefix + k
    site = next(s for s in doc["sites"] if s["device"] and s["bytes"] and s["host"]["steady"])
    header = next(csv.reader(io.StringIO(warmup_check.run_ok([program, "4", "csv"]).stdout)))
    assert header == list(leaves(site)), f"CSV header {header}\nJSON site fields {list(leaves(site))}"
    return f"{len(documented)} keys in the README's schema cover the report's; {len(header)} CSV columns are its site fields"


def headers():
    """Every public header is named in profile.hpp's list and in the README's layout."""
    include = os.path.join(ROOT, "include", "warmup")
    names = sorted(n for n in os.listdir(include) if n.endswith(".hpp") and n != "profile.hpp")
    umbrella = open(os.path.join(include, "profile.hpp"), encoding="utf-8").read()
    layout = README[README.index("## Layout"):]
    for where, text in (("profile.hpp", umbrella.split("#pragma once")[0]), ("README's Layout", layout)):
        missing = [n for n in names if n not in text]
        assert not missing, f"{where} does not name {missing}"
    # Headers of an optional target (cublas.hpp: warmup::cublas, mpi.hpp: warmup::mpi) are named,
    # never included: the umbrella must compile with warmup::warmup alone. Nor are the headers
    # that read reports instead of measuring: every instrumented file would compile them.
    # runtime.hpp includes the umbrella: it compiles the runtime for files built light.
    optional = {"cublas.hpp", "mpi.hpp", "read.hpp", "merge.hpp", "merge_formats.hpp", "compare.hpp", "runtime.hpp"}
    missing = [n for n in names if f'#include "warmup/{n}"' not in umbrella and n not in optional]
    assert not missing, f"profile.hpp does not include {missing}"
    included = [n for n in optional if f'#include "warmup/{n}"' in umbrella]
    assert not included, f"profile.hpp includes the optional {included}"
    return f"{len(names)} public headers, each named in profile.hpp and the README"


if __name__ == "__main__":
    what = sys.argv[1]
    print(globals()[what](*sys.argv[2:]))
