#!/usr/bin/env python3
"""Runs examples/first_inference and checks that its report shows the cold costs where they are.

Exits 77 (skipped) on a host without a GPU; where the host has one (nvidia-smi -L, /dev/nvidiaN),
an example that says it found no usable GPU has failed.
usage: check_first_inference.py PROGRAM
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check

program = sys.argv[1]
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "report.json")
    run = warmup_check.run([program, "--json", path], echo=True)
    warmup_check.skip_without_gpu(run)
    warmup_check.expect_exit(run)
    doc = warmup_check.load_report(path)
    raw_lines = open(path + ".raw", encoding="utf-8").read().split()

assert doc["device"] is not None and doc["device_status"] == "ok", doc["device_status"]
sites = warmup_check.sites_by_key(doc)
for s in doc["sites"]:
    warmup_check.check_bandwidth(s)  # bytes / time, exactly as defined: not a factor of two, nor GiB


def site(op, name):
    assert (op, name) in sites, (op, name, sorted(sites))
    return sites[(op, name)]


init = site("context", "cudaSetDevice + cudaFree(0)")
assert init["calls"] == 1 and init["host"]["steady"] is None
assert init["host"]["first"] > 10_000_000, init  # context creation: tens of ms or more

forward = site("region", "forward")
assert forward["calls"] == 100
for clock in ("host", "device"):
    t = forward[clock]
    assert t is not None and t["calls"] == 100, (clock, t)
host = forward["host"]
assert host["warmup_calls"] >= 1, host
assert host["first"] > 3 * host["steady"]["p50"], host  # the first forward is cold
assert host["first_call_excess"] == host["first"] - host["steady"]["p50"]

gemm = site("launch", "sgemm 2048x1024")
assert gemm["device"] is not None and gemm["device"]["calls"] == 100
assert gemm["host"]["first"] > 3 * gemm["host"]["steady"]["p50"], gemm["host"]

relu = site("region", "bias_relu")
# Once steady, a site is device-timed on a sample of its calls: every one of its first 64.
assert relu["calls"] == 300 and 64 <= relu["device"]["calls"] <= 300, relu["device"]["calls"]
assert relu["device"]["calls"] + relu["device_untimed"]["sampled_out"] == 300
assert relu["host"]["first"] > 3 * relu["host"]["steady"]["p50"], relu["host"]

up = site("h2d", "upload input")
assert up["bytes"]["first"] == 1024 * 64 * 4 and up["bytes"]["gbps_clock"] == "device", up["bytes"]
assert up["bytes"]["steady_gbps"] is not None and up["bytes"]["first_gbps"] is not None, up["bytes"]

print(f"context {init['host']['first'] / 1e6:.1f} ms; forward first {host['first'] / 1e6:.2f} ms, "
      f"steady p50 {host['steady']['p50'] / 1e6:.3f} ms ({host['first'] / host['steady']['p50']:.0f}x); "
      f"first sgemm host {gemm['host']['first'] / 1e6:.2f} ms vs {gemm['host']['steady']['p50'] / 1e3:.1f} us")

# The library's warm-up and first-call excess against the same rule applied to a plain clock's
# timing of the same 100 forward calls (docs/reading-the-report.md: the band, then Conway's rule).
def warmup_of(calls):
    rest = sorted(calls[1:])
    median = rest[(len(rest) + 1) // 2 - 1]
    exact = calls[1:64]
    dev = sorted(abs(v - median) for v in exact)
    sigma = 1.4826 * dev[len(dev) // 2]
    top = median + max(4 * sigma, 0.25 * median)
    run = 0
    while run < len(calls) and calls[run] > top:
        run += 1
    window = calls[:64]
    w = 0
    for r in range(1, run + 1):
        if min(window[:r]) > max(window[r:], default=0):
            w = r
    return w


raw = [int(x) for x in raw_lines]
assert len(raw) == 100
raw_w = warmup_of(raw)
raw_steady = sorted(raw[raw_w:])
raw_p50 = raw_steady[(len(raw_steady) + 1) // 2 - 1]
raw_excess = raw[0] - raw_p50
lib_excess = host["first_call_excess"]
print(f"warm-up: library {host['warmup_calls']}, raw clock {raw_w}; first-call excess: library "
      f"{lib_excess / 1e6:.3f} ms, raw clock {raw_excess / 1e6:.3f} ms")
assert host["warmup_calls"] == raw_w, (host["warmup_calls"], raw_w)
assert abs(lib_excess - raw_excess) <= 0.01 * raw_excess, (lib_excess, raw_excess)

# The same program without the explicit initialisation: its first CUDA call (cudaStreamCreate)
# creates the context and pays for it; the explicit run paid it up front instead.
explicit_stream = site("region", "cudaStreamCreate")["host"]["first"]
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "lazy.json")
    warmup_check.run_ok([program, "--lazy-context", "--json", path])
    lazy_doc = warmup_check.load_report(path)
    lazy = warmup_check.sites_by_key(lazy_doc)
for s in lazy_doc["sites"]:
    warmup_check.check_bandwidth(s)
assert ("context", "cudaSetDevice + cudaFree(0)") not in lazy
lazy_stream = lazy[("region", "cudaStreamCreate")]["host"]["first"]
lazy_forward = lazy[("region", "forward")]["host"]
print(f"context: explicit init {init['host']['first'] / 1e6:.1f} ms, then cudaStreamCreate "
      f"{explicit_stream / 1e3:.1f} us; lazily, cudaStreamCreate {lazy_stream / 1e6:.1f} ms; first forward "
      f"{host['first'] / 1e6:.1f} ms (explicit) vs {lazy_forward['first'] / 1e6:.1f} ms (lazy), steady p50 "
      f"{host['steady']['p50'] / 1e3:.1f} vs {lazy_forward['steady']['p50'] / 1e3:.1f} us")
assert lazy_stream > 10_000_000 and lazy_stream > 10 * explicit_stream, (lazy_stream, explicit_stream)

# --prewarm (issue 15): the three SGEMM variants and bias_relu prewarmed on the program's own
# handle; the first forward's excess is then at most 5% of the cold run's or 2x the steady p50,
# whichever is larger, and the prewarm steps are sites of their own in the same report.
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "prewarm.json")
    warmup_check.run_ok([program, "--prewarm", "--json", path])
    warm_doc = warmup_check.load_report(path)
    warm = warmup_check.sites_by_key(warm_doc)
for s in warm_doc["sites"]:
    warmup_check.check_bandwidth(s)
for op, name in (("region", "warmup::cublas::prewarm"), ("region", "warmup::prewarm_kernels")):
    assert (op, name) in warm and warm[(op, name)]["calls"] == 1, (op, name, sorted(warm))
warm_forward = warm[("region", "forward")]["host"]
cold_excess = host["first_call_excess"]
warm_excess = warm_forward["first_call_excess"]
bound = max(0.05 * cold_excess, 2 * warm_forward["steady"]["p50"])
blas = warm[("region", "warmup::cublas::prewarm")]["host"]["first"]
print(f"after prewarm: first forward {host['first'] / 1e6:.2f} ms cold -> {warm_forward['first'] / 1e6:.3f} ms "
      f"prewarmed (excess {cold_excess / 1e6:.2f} -> {warm_excess / 1e6:.3f} ms, bound {bound / 1e6:.3f} ms; "
      f"steady p50 {warm_forward['steady']['p50'] / 1e3:.1f} us); the prewarm itself: cuBLAS variants "
      f"{blas / 1e6:.1f} ms, kernels {warm[('region', 'warmup::prewarm_kernels')]['host']['first'] / 1e3:.1f} us")
assert warm_excess <= bound, (warm_excess, bound)
