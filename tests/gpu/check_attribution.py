#!/usr/bin/env python3
"""Attribution proves itself on a GPU (issue 14): with WARMUP_ATTRIBUTION=1 each folklore case's
first call is split among the causes CUPTI names, and the expected cause dominates.

usage: check_attribution.py BUNDLE_OR_BUILD_DIR     (examples/first_inference, examples/folklore/*)
Exits 77 on a host without a GPU; where the host has one, an example that cannot use it fails.
Every split of a first call among causes is checked to be a partition of it (check_causes).
Prints one line per case: the figures for the README's "cause found".
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check

ROOT = sys.argv[1]
ON = {"WARMUP_ATTRIBUTION": "1"}


def report(program, args=(), env=None):
    """The report's sites by (op, name); every first call and cold call that attribution split
    among causes is checked to be a partition of it (warmup_check.check_causes: the causes sum to
    named, named within the call, the excess the call's over the steady p50, an over-count said in
    the table the program printed)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "r.json")
        proc = warmup_check.run([os.path.join(ROOT, program), *args, "--json", path], env={**ON, **(env or {})})
        warmup_check.skip_without_gpu(proc)
        warmup_check.expect_exit(proc)
        doc = warmup_check.load_report(path)
    assert doc["attribution_source"] == "cupti", doc["attribution_source"]
    for s in doc["sites"]:
        warmup_check.check_site_causes(s, doc, proc.stdout, f"{program}: {s['op']} {s['name']!r}")
    return warmup_check.sites_by_key(doc)


def causes(site):
    why = site["host"]["first_call_causes"]
    assert why is not None, site["name"]  # checked a partition by report()
    return why, {c["what"]: c for c in why["causes"]}


def share(why, named, of="excess"):
    return sum(named[c]["time"] for c in named) / max(1, why[of])


def line(case, why, named, note=""):
    parts = ", ".join(f"{c['what']} {c['time'] / 1e6:.2f} ms ({c['count']})" for c in why["causes"]) or "no cause"
    print(f"{case}: {why['call'] / 1e6:.2f} ms, excess {why['excess'] / 1e6:.2f} ms = {parts}; "
          f"unattributed {why['unattributed'] / 1e6:.2f} ms{note}")


# Prewarm (issue 15): after --prewarm, no module load, lazy kernel load, JIT or pool growth
# falls inside the first forward; the module loads are in the prewarm's own site instead.
warm = report("examples/first_inference", ["--prewarm"])
why, named = causes(warm[("region", "forward")])
line("first forward after --prewarm", why, named)
assert not set(named) & {"module_load", "lazy_kernel_load", "jit_compile", "jit_cache_load", "pool_growth"}, named
pre_why, pre_named = causes(warm[("region", "warmup::cublas::prewarm")])
line("warmup::cublas::prewarm (the prewarm's own first call)", pre_why, pre_named)
assert "module_load" in pre_named, pre_named

# The context, paid by the first CUDA call when nothing created it first.
lazy = report("examples/first_inference", ["--lazy-context"])
why, named = causes(lazy[("region", "cudaStreamCreate")])
ctx = named.get("context_init", {"time": 0})["time"] / why["call"]
line("first CUDA call (--lazy-context)", why, named, f"; context init {ctx:.0%} of the call")
assert ctx >= 0.90, ctx

# PTX only, JIT cache off: the first launch compiles.
jit = report("examples/folklore/module_loading_ptx", env={"CUDA_CACHE_DISABLE": "1"})
why, named = causes(jit[("launch", "launch fill")])
top = why["causes"][0]["what"]
line("first launch, PTX only, cache off", why, named, f"; JIT {named['jit_compile']['time'] / why['excess']:.0%} of the excess")
assert top == "jit_compile" and named["jit_compile"]["time"] >= 0.8 * why["excess"], why

# Lazy loading: every kernel's first launch loads it; EAGER loads them all at the context.
for mode, expect in (("LAZY", True), ("EAGER", False)):
    sites = report("examples/folklore/module_loading", env={"CUDA_MODULE_LOADING": mode})
    for k in ("launch fill", "launch scale", "launch saxpy", "launch relu"):
        why, named = causes(sites[("launch", k)])
        assert ("lazy_kernel_load" in named) == expect, (mode, k, why)
    print(f"CUDA_MODULE_LOADING={mode}: lazy kernel loads in the first launches: {'all four' if expect else 'none'}")
# ... and warmup::prewarm_kernels (LAZY) moves every one of those loads into its own site.
sites = report("examples/folklore/module_loading", ["--prewarm"], env={"CUDA_MODULE_LOADING": "LAZY"})
for k in ("launch fill", "launch scale", "launch saxpy", "launch relu"):
    why, named = causes(sites[("launch", k)])
    assert "lazy_kernel_load" not in named, (k, why)
why, named = causes(sites[("region", "warmup::prewarm_kernels")])
line("warmup::prewarm_kernels (LAZY)", why, named)
assert set(named) & {"lazy_kernel_load", "module_load"}, why
print("CUDA_MODULE_LOADING=LAZY, --prewarm: lazy kernel loads in the first launches: none (all in prewarm_kernels)")

# Pinned memory: the allocation and the registration are the pinning.
mem = report("examples/folklore/host_memory")
for name in ("cudaMallocHost 256 MiB", "cudaHostRegister 256 MiB"):
    why, named = causes(mem[("alloc", name)])
    pinned = named.get("pinned_alloc", {"time": 0})["time"] / why["call"]
    line(name, why, named, f"; pinned alloc {pinned:.0%} of the call")
    assert pinned >= 0.90, (name, pinned)

# A pool that gives its memory back at every synchronisation grows at its first allocation.
alloc = report("examples/folklore/alloc")
why, named = causes(alloc[("alloc", "cudaMallocAsync 64 MiB, release threshold 0")])
line("cudaMallocAsync, release threshold 0", why, named)
assert "pool_growth" in named, why

# cuBLAS loads its kernels at each variant's first GEMM.
blas = report("examples/folklore/cublas_variants")
for name in ("SGEMM fp32 4096^3", "GemmEx tf32 4096^3", "GemmEx fp16 4096^3"):
    why, named = causes(blas[("launch", name)])
    line(f"first {name}", why, named)
    assert "module_load" in named or "lazy_kernel_load" in named, (name, why)

# What attribution costs the calls it explains: the demo's first calls with it off and on,
# alternated, best of three each (the figures BENCHMARKS.md quotes).
def first_calls(env):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "r.json")
        warmup_check.run_ok([os.path.join(ROOT, "examples/first_inference"), "--json", path], env=env)
        sites = warmup_check.sites_by_key(warmup_check.load_report(path))
    return (sites[("context", "cudaSetDevice + cudaFree(0)")]["host"]["first"],
            sites[("region", "forward")]["host"]["first"], sites[("region", "forward")]["host"]["steady"]["p50"])


SAMPLED = {**ON, "WARMUP_CPU_SAMPLING": "on"}
runs = {"off": [], "on": [], "sampled": []}
for _ in range(3):
    runs["off"].append(first_calls({"WARMUP_ATTRIBUTION": "0"}))
    runs["on"].append(first_calls(ON))
    runs["sampled"].append(first_calls(SAMPLED))
for what, i in (("context", 0), ("first forward", 1), ("steady forward p50", 2)):
    off, on, sampled = (min(r[i] for r in runs[k]) for k in ("off", "on", "sampled"))
    print(f"cost: {what} {off / 1e6:.3f} ms off, {on / 1e6:.3f} ms on ({on / off:.2f}x), "
          f"{sampled / 1e6:.3f} ms on with CPU sampling ({sampled / off:.2f}x)")
