#!/usr/bin/env python3
"""Runs examples/time_to_first_result: 1 GiB of weights written once, then read from disk and
inferred three ways (prewarm overlapped on a thread, after the read, none), each a fresh process.

Checks that the three answers agree, that each report holds what its mode did (the prewarm
steps, or their absence), and that prewarming on a thread while the weights load gives the first
result sooner than no prewarm. Prints the three times side by side (docs/prewarm.md's figures).
Exits 77 on a host without a GPU (asked before any weights are written); where the host has one
(nvidia-smi -L, /dev/nvidiaN), a program that cannot use it has failed.
usage: check_time_to_first_result.py PROGRAM [MIB]
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check

program = sys.argv[1]
mib = sys.argv[2] if len(sys.argv) > 2 else "1024"
probe = warmup_check.run([program, "--has-gpu"])
warmup_check.skip_without_gpu(probe)  # on a host with a GPU, its "no GPU" (77) fails
warmup_check.expect_exit(probe)

PREWARM_SITES = (("context", "warmup::prewarm_context"), ("region", "warmup::cublas::prewarm"),
                 ("region", "warmup::prewarm_kernels"), ("alloc", "warmup::prewarm_pool"))
results = {}
# A scratch folder beside the build rather than /tmp, which may be a RAM disk: the read must
# come from a disk. CHECK_KEEP_DIR (gpu-run's $OUT) is kept small: not there.
with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(program))) as tmp:
    weights = os.path.join(tmp, "weights.bin")
    warmup_check.run_ok([program, "--make-weights", weights, "--mib", mib])
    for mode in ("none", "after", "overlap"):
        path = os.path.join(tmp, f"{mode}.json")
        proc = warmup_check.run([program, "--weights", weights, "--prewarm", mode, "--json", path], timeout=300,
                                echo=True)  # each mode's table, for where its time went
        warmup_check.expect_exit(proc)
        line = proc.stdout.strip().splitlines()[-1]
        assert line.startswith(f"time_to_first_result mode={mode} "), line
        results[mode] = dict(re.findall(r"(\w+)=(\S+)", line))
        sites = warmup_check.sites_by_key(warmup_check.load_report(path))
        for key in PREWARM_SITES:
            assert (key in sites) == (mode != "none"), (mode, key, sorted(sites))
        upload = sites[("h2d", "upload weights")]
        assert upload["bytes"]["first"] == int(mib) << 20, upload["bytes"]

sums = {m: r["checksum"] for m, r in results.items()}
assert len(set(sums.values())) == 1, sums  # the same answer whichever way it was reached
t = {m: float(r["total_ms"]) for m, r in results.items()}
print(f"time to first result, {mib} MiB of weights from disk: no prewarm {t['none']:.0f} ms, prewarm after the load "
      f"{t['after']:.0f} ms, prewarm on a thread during the load {t['overlap']:.0f} ms "
      f"(load {float(results['overlap']['load_ms']):.0f} ms, prewarm {float(results['overlap']['prewarm_ms']):.0f} ms; "
      f"first inference {float(results['none']['infer_ms']):.0f} ms cold vs {float(results['overlap']['infer_ms']):.0f} ms)")
# Prewarmed, the inference itself is faster; overlapped, so is the whole.
assert float(results["overlap"]["infer_ms"]) < float(results["none"]["infer_ms"]), results
assert t["overlap"] < t["none"], t
