"""A stand-in for a CUDA program, for check_try.py: writes to $WARMUP_REPORT a copy of a real
report (try_program's, named by the first argument) in which the site "first call" is slow (its
first call 150 ms) unless CUDA_MODULE_LOADING=EAGER (then 10 ms), and, with WARMUP_ATTRIBUTION=1,
its first call's causes are lazy kernel loads, with the remedies they support, as a report of a
program on a GPU has them. So `try`'s diagnosis run, its choice of remedies and its code remedies
are checked on a machine without a GPU.

usage: diagnosed_program.py TEMPLATE.json
"""
import json
import os
import sys

doc = json.load(open(sys.argv[1]))
first = 10_000_000 if os.environ.get("CUDA_MODULE_LOADING") == "EAGER" else 150_000_000
for site in doc["sites"]:
    if site["name"] != "first call":
        continue
    site["host"]["first"] = first
    site["timeline"][0]["host"] = first
    if os.environ.get("WARMUP_ATTRIBUTION") == "1":
        causes = [{"what": "lazy_kernel_load", "time": first - 1_000_000, "count": 4, "where": ""}]
        site["host"]["first_call_causes"] = {
            "call": first, "excess": first - 200_000, "causes": causes, "named": first - 1_000_000,
            "unattributed": 800_000, "calls": 1, "spans": [], "spans_left_out": 0, "other_threads": [],
            "remedies": [{"remedy": "module_loading_eager", "could_save": first - 1_000_000},
                         {"remedy": "prewarm_kernels", "could_save": first - 1_000_000}]}
with open(os.environ["WARMUP_REPORT"], "w") as f:
    json.dump(doc, f)
