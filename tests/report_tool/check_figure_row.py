"""A figure of merge and compare is one row of the figure table (detail/io/figure_table.hpp):
with one row added to a copy of the headers, and nothing else changed, the new figure is in the
merged JSON (its spread and each rank's value), the merged CSV, the comparison's JSON and table,
and it survives the MPI wire format (encoded and decoded, in a record grown to whole units under
a magic of its own). One compile of figure_row.cpp, at -O0.

usage: check_figure_row.py CXX INCLUDE_DIR [SYSTEM_INCLUDE_DIR...]
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check  # noqa: E402

cxx, include, system_includes = sys.argv[1], sys.argv[2], sys.argv[3:]
here = os.path.dirname(os.path.abspath(__file__))
check = warmup_check.Checks()


work = tempfile.mkdtemp(prefix="warmup-figure-row-")
copy = os.path.join(work, "include")
shutil.copytree(include, copy)
table = os.path.join(copy, "warmup", "detail", "io", "figure_table.hpp")
text = open(table, encoding="utf-8").read()
# The new row, after warmup_excess's: a host figure judged as one sample, optional (a site
# without a steady state has no first-call excess).
row = '  X(first_excess, opt_ns, host, cold, "first excess", s.host.first_call_excess) \\\n'
anchor = re.search(r"^  X\(warmup_excess,[^\n]*\\\n", text, re.M)
if anchor is None:
    sys.exit("check_figure_row.py: no warmup_excess row in detail/io/figure_table.hpp to add a row after")
open(table, "w", encoding="utf-8").write(text[:anchor.end()] + row + text[anchor.end():])

program = os.path.join(work, "figure_row")
command = [cxx, "-std=c++17", "-O0", "-DWARMUP_DISABLE", "-I", copy]
for d in system_includes:
    command += ["-isystem", d]
command += [os.path.join(here, "figure_row.cpp"), "-o", program, "-pthread", "-ldl"]
built = subprocess.run(command, capture_output=True, text=True)
if built.returncode != 0:
    sys.exit("check_figure_row.py: the program does not compile with the row added:\n" + built.stderr[-4000:])
out = subprocess.run([program], capture_output=True, text=True, timeout=60)
print(out.stdout)
lines = {}
for line in out.stdout.splitlines():
    key, _, value = line.partition(": ")
    lines.setdefault(key, value)

check(out.returncode == 0, "the program runs")
wire = lines.get("wire", "")
check(wire.startswith("8000000 in 192 bytes a site"), "the wire carries it: read back, the record grown to 192 bytes")
check("magic 31525557" not in wire, "  under a magic of its own: a build with six figures refuses these bytes")
merged = lines.get("merged json", "")
check('"first_excess":{"min":4000000,"median":4000000,"max":8000000,"slowest_rank":1,"ranks":2}' in merged,
      "the merged JSON: its spread over the ranks")
check('"warmup_excess":0,"first_excess":8000000,' in merged, "  each rank's value, after the row it follows")
csv = lines.get("merged csv", "")
check("warmup_excess.ranks,first_excess.min,first_excess.median,first_excess.max" in csv, "the merged CSV: its columns")
compare = lines.get("compare json", "")
check('"first_excess":{"base":4000000,"now":8000000,"ratio":2,"change":"slower","basis":"threshold"}' in compare,
      "the comparison's JSON: its verdict")
check(re.search(r"\n +first excess +4\.00 ms +8\.00 ms +2\.000 +SLOWER \(threshold\)\n", out.stdout) is not None,
      "the comparison's table: its row, under its words")

shutil.rmtree(work, ignore_errors=True)
sys.exit(f"{len(check.failures)} of the figure's places missed it" if check.failures else 0)
