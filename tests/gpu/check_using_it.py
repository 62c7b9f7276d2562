#!/usr/bin/env python3
"""Runs the README's "Using it" program and checks that each site times its own work: the
upload is a 1 MiB copy (tens of microseconds), the forward a 1 ms kernel. In 0.1's snippet the
upload scope lived to the end of the loop body and read the forward's time too. Exits 77 without a
GPU.

usage: check_using_it.py PROGRAM
"""
import json
import subprocess
import sys

run = subprocess.run([sys.argv[1]], capture_output=True, text=True, timeout=120)
assert run.returncode == 0, (run.returncode, run.stderr)
doc = json.loads(run.stdout.rstrip("\n").split("\n")[-1])
if doc["device"] is None:
    print(f"no GPU: {doc['device_status']}")
    sys.exit(77)
sites = {(s["op"], s["name"]): s for s in doc["sites"]}
up, fwd = sites[("h2d", "upload")], sites[("region", "forward")]
assert up["calls"] == 100 and fwd["calls"] == 100, (up["calls"], fwd["calls"])
up_p50 = up["device_ns"]["steady"]["p50"]
fwd_p50 = fwd["device_ns"]["steady"]["p50"]
assert fwd_p50 > 600_000, fwd_p50
assert up_p50 < fwd_p50 / 3, (up_p50, fwd_p50)
gbps = up["bytes"]["steady_gbps"]
assert up["bytes"]["gbps_clock"] == "device" and gbps > 1, up["bytes"]
print(f"upload p50 {up_p50 / 1e3:.1f} us ({gbps:.1f} GB/s), forward p50 {fwd_p50 / 1e3:.1f} us")
