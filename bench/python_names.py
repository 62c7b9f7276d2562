"""What naming a first call's Python code costs (BENCHMARKS.md, "Python names"): the same first
call (a fresh site each time, so each is a first call, CPU-sampled) with the names on and off,
interleaved, each the median of its repetitions. Target: at most 1.1x.

The call runs pure Python (a loop of dictionary and arithmetic work, as tracing code does), the
case where the code sampler takes the interpreter's lock most often; `--torch-compile` measures a
torch.compile first call instead (a fresh model each time, Inductor's caches warm after the first).
usage: WARMUP_CPU_SAMPLING=on python bench/python_names.py [--repetitions R] [--work N] [--torch-compile]
"""
import argparse
import os
import statistics
import sys
import time

import warmup


def python_work(n):
    table = {}
    for i in range(n):
        table[i % 1024] = table.get(i % 1024, 0) + i * 3 // 7
    return len(table)


def compiled_first_call():
    import torch
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64)).cuda()
    fn = torch.compile(model)
    x = torch.randn(32, 64, device="cuda")
    torch._dynamo.reset()
    return lambda: (fn(x), torch.cuda.synchronize())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repetitions", type=int, default=9)
    p.add_argument("--work", type=int, default=400_000)
    p.add_argument("--torch-compile", action="store_true")
    a = p.parse_args()
    if os.environ.get("WARMUP_CPU_SAMPLING", "off") in ("", "off"):
        sys.exit("bench/python_names.py: set WARMUP_CPU_SAMPLING=on: the names are those of CPU samples")
    runs = {"names off": [], "names on": []}
    if a.torch_compile:
        compiled_first_call()()  # Inductor's caches warm, the CUDA context made: those are not the names' cost
    for r in range(2 * a.repetitions):
        on = r % 2 == 1
        warmup.set_python_names(on)
        call = compiled_first_call() if a.torch_compile else (lambda: python_work(a.work))
        t0 = time.perf_counter_ns()
        with warmup.region(f"first call {r}"):
            call()
        runs["names on" if on else "names off"].append(time.perf_counter_ns() - t0)
    off, on = statistics.median(runs["names off"]), statistics.median(runs["names on"])
    what = "torch.compile first call" if a.torch_compile else f"pure-Python first call ({a.work} steps)"
    print(f"{what}: names off {off / 1e6:.1f} ms, names on {on / 1e6:.1f} ms (medians of {a.repetitions})")
    report = warmup.snapshot()
    named = sum(c.time for s in report.sites if s.host.first_call_causes
                for c in s.host.first_call_causes.causes if c.what == "python_code")
    print(f"ratio names on / off: {on / off:.2f}x (target <= 1.10x); Python code named: {named / 1e6:.1f} ms in all")


if __name__ == "__main__":
    main()
