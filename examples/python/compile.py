"""`torch.compile`'s first call, taken apart: a two-layer MLP compiled with Inductor, its first
call (tracing, lowering, Triton compilation), its steady calls, a new input shape (compiled
again), and with --mode reduce-overhead its CUDA graphs' own first calls. Each is a site of its
own, so the report keeps each first call apart from the steady state; with WARMUP_ATTRIBUTION=1
and WARMUP_CPU_SAMPLING=on it says why each first call was slow, the Python code by module
(torch._dynamo, torch._inductor, triton, ...).

--prewarm calls `warmup.until_steady` on each shape first (its own site), so that the timed
sites' first calls are warm. Run it twice to see Inductor's caches warm in the second process
(docs/folklore.md has the figures).
usage: python compile.py [--mode default|reduce-overhead|max-autotune] [--prewarm] [--calls N] [--json FILE]
"""
import argparse

import torch

import warmup


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", default="default", choices=["default", "reduce-overhead", "max-autotune"])
    p.add_argument("--calls", type=int, default=30)
    p.add_argument("--prewarm", action="store_true")
    p.add_argument("--json")
    a = p.parse_args()

    with warmup.context("CUDA context"):
        torch.zeros(1, device="cuda")
    model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256)).cuda()
    compiled = torch.compile(model, mode=a.mode)
    stream = torch.cuda.current_stream()
    for batch in (64, 96):  # the second shape compiles again
        x = torch.randn(batch, 256, device="cuda")
        if a.prewarm:
            with torch.no_grad():
                steady = warmup.until_steady(lambda: compiled(x), f"prewarm, batch {batch}", stream=stream)
            print(f"prewarm, batch {batch}: {steady.why} after {steady.calls} calls, {steady.took_ns / 1e6:.0f} ms")
        for _ in range(a.calls):
            with torch.no_grad(), warmup.region(f"compiled forward, batch {batch}", stream=stream):
                compiled(x)
    warmup.snapshot(wait=True).write("stdout" + (f",{a.json}" if a.json else ""))  # the table, and the JSON


if __name__ == "__main__":
    main()
