"""A synthetic first call of any length, of mixed Python and C work, part of it on threads it
waits on: what a compiled model's first step is made of (Python compiling, C libraries, worker
threads), without PyTorch. Run with CPU sampling on; prints one JSON line: how much of the first
call's excess the report named, what it named of the time the call waited in the threads it waited
on, and what the run's memory grew by over the call (peak resident set, KiB).

tests/python/test_python_names.py runs it for a second; BENCHMARKS.md ("A first call of any
length") has the minute and ten-minute runs.
usage: WARMUP_CPU_SAMPLING=on python long_first_call.py SECONDS
"""
import hashlib
import json
import resource
import sys
import threading
import time
import zlib

import warmup

BLOCK = bytes((i * 7919) % 251 for i in range(1 << 18))  # compresses, but not to nothing


def python_work(ms):
    """Pure Python for about `ms` of CPU: the interpreter's time, named by this function."""
    end = time.thread_time() + ms / 1000
    table = {}
    while time.thread_time() < end:
        for i in range(2000):
            table[i % 97] = table.get(i % 97, 0) + i
    return len(table)


def pool_python(ms):
    """The Python work of a thread made before the call (a program's own pool)."""
    end = time.thread_time() + ms / 1000
    items = {}
    while time.thread_time() < end:
        for i in range(2000):
            items[i % 89] = i * 3 % 11
    return len(items)


def engine_python(ms):
    """The Python work of a thread made inside the call (as PyTorch's autograd engine thread)."""
    end = time.thread_time() + ms / 1000
    total = 0
    while time.thread_time() < end:
        for i in range(2000):
            total += i * i % 7
    return total


def c_work(ms):
    """C libraries called from Python for about `ms` of CPU: zlib's and the hash's objects."""
    end = time.thread_time() + ms / 1000
    while time.thread_time() < end:
        zlib.compress(BLOCK, 6)
        hashlib.sha256(BLOCK).digest()


class Worker:
    """A thread the call waits on: it runs Python and C work when asked, and says when done."""

    def __init__(self, python):
        self.go, self.done = threading.Event(), threading.Event()
        self.ms = 0
        self.python = python
        threading.Thread(target=self.run, daemon=True).start()

    def run(self):
        while True:
            self.go.wait()
            self.go.clear()
            self.python(self.ms / 2)
            c_work(self.ms / 2)
            self.done.set()

    def wait_for(self, ms):
        self.ms = ms
        self.done.clear()
        self.go.set()
        self.done.wait()


def main():
    seconds = float(sys.argv[1])
    before = Worker(pool_python)  # made before the call: a program's own pool
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with warmup.region("long first call"):
        end = time.monotonic() + seconds
        made_inside = None
        while time.monotonic() < end:
            python_work(20)
            c_work(20)
            before.wait_for(20)
            if made_inside is None:
                made_inside = Worker(engine_python)  # made inside the call, as PyTorch's autograd engine thread is
            made_inside.wait_for(20)
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for _ in range(8):
        with warmup.region("long first call"):
            python_work(0.05)
    doc = json.loads(warmup.snapshot().to_json())
    site = next(s for s in doc["sites"] if s["name"] == "long first call")
    why = site["host"]["first_call_causes"]
    waiting = sum(c["time"] for c in why["causes"] if c["what"] == "waiting")
    print(json.dumps({
        "first_s": site["host"]["first"] / 1e9,
        "named": why["named"] / why["excess"],
        "waiting_s": waiting / 1e9,
        "others_named": sum(c["time"] for c in why["other_threads"]) / waiting if waiting else 0.0,
        "others_python": sorted({c["where"] for c in why["other_threads"] if c["what"] == "python_code"}),
        "others_functions": sorted({f["function"] for c in why["other_threads"] if c["what"] == "python_code"
                                    for f in c["functions"]}),
        "causes": sorted({c["where"] or c["what"] for c in why["causes"]}),
        "rss_growth_kib": rss1 - rss0,
        "sampling": doc.get("cpu_sampling", ""),
    }))


if __name__ == "__main__":
    main()
