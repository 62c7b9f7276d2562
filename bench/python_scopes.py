"""What a Python scope costs (BENCHMARKS.md, "Python scopes"): ratios against baselines measured
in the same run, interleaved, each the median of its repetitions.

  host:   `with warmup.region(name):` against a pure-Python context manager that reads
          time.perf_counter_ns() twice (target: at most 1.5x)
  device: `with warmup.region(name, stream=s):` against two torch.cuda.Event.record() calls on
          the same stream (target: at most 1.1x); only where PyTorch and a GPU are
usage: python bench/python_scopes.py [--calls N] [--repetitions R]   (PYTHONPATH: the module's folder)
"""
import argparse
import os
import statistics
import time

import warmup


class PlainClock:
    """The baseline: what a user writes to time a block by hand."""
    __slots__ = ("start", "took")

    def __enter__(self):
        self.start = time.perf_counter_ns()
        return self

    def __exit__(self, *exc):
        self.took = time.perf_counter_ns() - self.start
        return False


def per_call(body, calls):
    t0 = time.perf_counter_ns()
    body(calls)
    return (time.perf_counter_ns() - t0) / calls


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--calls", type=int, default=200_000)
    p.add_argument("--repetitions", type=int, default=7)
    a = p.parse_args()

    def plain(n):
        for _ in range(n):
            with PlainClock():
                pass

    def scope(n):
        for _ in range(n):
            with warmup.region("bench.host"):
                pass

    def bare(n):
        for _ in range(n):
            pass

    runs = {"bare loop": [], "plain clock": [], "warmup.region": []}
    for _ in range(a.repetitions):
        runs["bare loop"].append(per_call(bare, a.calls))
        runs["plain clock"].append(per_call(plain, a.calls))
        runs["warmup.region"].append(per_call(scope, a.calls))
    med = {k: statistics.median(v) for k, v in runs.items()}
    for k, v in med.items():
        print(f"{k:>32}: {v:8.1f} ns a call")
    print(f"host: warmup.region / plain clock = {med['warmup.region'] / med['plain clock']:.2f} (target <= 1.5)")

    try:
        import torch
        if not torch.cuda.is_available():
            raise ImportError
    except ImportError:
        print("device: skipped (no PyTorch or no GPU)")
        return
    s = torch.cuda.current_stream()
    e1, e2 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    calls = a.calls // 10

    def events(n):
        for _ in range(n):
            e1.record(s)
            e2.record(s)

    def device_scope(n):
        for _ in range(n):
            with warmup.region("bench.device", stream=s):
                pass
    dev = {"two Event.record()": [], "warmup.region(stream=s)": []}
    for _ in range(a.repetitions):
        dev["two Event.record()"].append(per_call(events, calls))
        dev["warmup.region(stream=s)"].append(per_call(device_scope, calls))
        torch.cuda.synchronize()
    dmed = {k: statistics.median(v) for k, v in dev.items()}
    for k, v in dmed.items():
        print(f"{k:>32}: {v:8.1f} ns a call")
    print(f"device: warmup.region(stream) / two Event.record() = "
          f"{dmed['warmup.region(stream=s)'] / dmed['two Event.record()']:.2f} (target <= 1.1; "
          f"device sampling: {os.environ.get('WARMUP_DEVICE_SAMPLING', 'adaptive')})")


if __name__ == "__main__":
    main()
