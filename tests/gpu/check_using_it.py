#!/usr/bin/env python3
"""Runs the README's "Using it" program and checks that each site times its own work: the
upload is a 1 MiB copy (tens of microseconds), the forward a 1 ms kernel. In 0.1's snippet the
upload scope lived to the end of the loop body and read the forward's time too; and that every
bandwidth figure is the site's bytes over its time. Exits 77 on a host without a GPU; where the
host has one (nvidia-smi -L, /dev/nvidiaN), a report without a device is a failure.

usage: check_using_it.py PROGRAM
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check

run = warmup_check.run_ok([sys.argv[1]], timeout=120)
doc = warmup_check.last_line_report(run.stdout)
if doc["device"] is None:
    warmup_check.no_gpu(f"the report has no device: {doc['device_status']}")
sites = warmup_check.sites_by_key(doc)
for s in doc["sites"]:
    warmup_check.check_bandwidth(s)  # bytes / time, exactly as defined: not a factor of two, nor GiB
up, fwd = sites[("h2d", "upload")], sites[("region", "forward")]
assert up["calls"] == 100 and fwd["calls"] == 100, (up["calls"], fwd["calls"])
up_p50 = up["device"]["steady"]["p50"]
fwd_p50 = fwd["device"]["steady"]["p50"]
assert fwd_p50 > 600_000, fwd_p50
assert up_p50 < fwd_p50 / 3, (up_p50, fwd_p50)
gbps = up["bytes"]["steady_gbps"]
assert up["bytes"]["first"] == 1 << 20 and up["bytes"]["gbps_clock"] == "device", up["bytes"]
assert gbps is not None and abs(gbps - (1 << 20) / up_p50) <= warmup_check.JSON_DOUBLE * gbps, (gbps, up_p50)
print(f"upload p50 {up_p50 / 1e3:.1f} us ({gbps:.1f} GB/s), forward p50 {fwd_p50 / 1e3:.1f} us")
