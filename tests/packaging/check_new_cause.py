#!/usr/bin/env python3
"""A cause added to warmup::cause is a compile error until it is listed and has its row: one
enumerator added after the last cause, in a copy of the headers, first without its case in
detail::known_cause (the compiler names it), then with it and no row in cause_table (the
table's check says so).

usage: check_new_cause.py COMPILER INCLUDE_DIR [-isystem CUDA_INCLUDE]
"""
import os
import shutil
import subprocess
import sys
import tempfile

compiler, include, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
failures = []


def compile_with(header_text, tmp):
    with open(os.path.join(tmp, "warmup", "cause.hpp"), "w", encoding="utf-8") as f:
        f.write(header_text)
    source = os.path.join(tmp, "use.cpp")
    with open(source, "w", encoding="utf-8") as f:
        f.write("#include <warmup/cause.hpp>\nint main() { return int(warmup::cause_count); }\n")
    p = subprocess.run([compiler, "-std=c++17", "-fsyntax-only", "-I", tmp, *extra, source], capture_output=True,
                       text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


with tempfile.TemporaryDirectory() as tmp:
    shutil.copytree(os.path.join(include, "warmup"), os.path.join(tmp, "warmup"))
    original = open(os.path.join(include, "warmup", "cause.hpp"), encoding="utf-8").read()
    last = "  child_process,"
    case = "    case cause::waiting: return true;"
    if original.count(last) != 1 or original.count(case) != 1:
        sys.exit(f"check_new_cause.py: cause.hpp no longer has one '{last}' and one '{case}': update this test")
    rc, out = compile_with(original, tmp)
    if rc != 0:
        failures.append(f"the headers as they are do not compile:\n{out}")
    added = original.replace(last, last + " newest_cause,")
    rc, out = compile_with(added, tmp)
    if rc == 0 or "newest_cause" not in out:
        failures.append(f"a cause without its case compiled, or the error did not name it (rc {rc}):\n{out[-2000:]}")
    rc, out = compile_with(added.replace(case, "    case cause::waiting: case cause::newest_cause: return true;"), tmp)
    if rc == 0 or "cause_table must list every cause" not in out:
        failures.append(f"a cause with its case but no row compiled, or the error did not say so (rc {rc}):\n"
                        f"{out[-2000:]}")

for f in failures:
    print("FAIL " + f)
if failures:
    sys.exit(1)
print("a new cause is refused until it is listed and given its row")
