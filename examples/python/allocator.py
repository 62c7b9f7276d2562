"""Seed 002's claims about PyTorch's allocator ("Does PyTorch CUDA memory allocation require a
'warm-up' period?"), its examples as written, with warmup's scopes around each allocation and
copy, and PyTorch's own memory figures (torch.cuda.memory_reserved) beside the library's
first-call memory signal (device_memory_taken: the device's free memory before less after).

  first        Example 1: randn(1024, 1024) twice on the GPU, then empty_cache and once more
  pinned       Example 2: a copy from pinned memory, one from pageable memory, randn on the GPU
  preallocate  Example 3: a 2**28-float tensor (1 GiB) kept alive, then randn; and the same
               tensor freed into PyTorch's cache first (randn's kernel loaded before either)
  prewarm      Example 1 after warmup.until_steady on the same allocation (a site of its own)

Each prints the seed's own lines ("Initial allocation time: ..."), then warmup's table, then one
line `facts: {...}` (JSON: PyTorch's reserved memory around each step, in bytes); --json FILE
writes the report. Each variant runs in a process of its own: what is first depends on it.
usage: python allocator.py VARIANT [--calls N] [--json FILE]
"""
import argparse
import json
import time

import torch

import warmup

SIZE = 1024 * 1024 * 4  # bytes of a 1024 x 1024 float32 tensor


def main():
    p = argparse.ArgumentParser()
    p.add_argument("variant", choices=["first", "pinned", "preallocate", "prewarm"])
    p.add_argument("--calls", type=int, default=30, help="calls after the seed's, for the steady state")
    p.add_argument("--json")
    a = p.parse_args()
    # PyTorch's default stream is CUDA's legacy default stream, handle 0: named so, since asking
    # torch.cuda.current_stream() would initialise CUDA before the seed's first line does.
    stream = 0
    facts = {}

    def randn(site, key=None):
        """The seed's allocation, in a scope given PyTorch's stream; its reserved memory noted."""
        before = torch.cuda.memory_reserved()
        with warmup.alloc(site, SIZE, stream=stream):
            t = torch.randn(1024, 1024, device="cuda")
        if key:
            facts[key] = torch.cuda.memory_reserved() - before
        return t

    if a.variant in ("first", "prewarm"):
        if a.variant == "prewarm":
            # Context, kernels and the allocator's first block, paid before the seed's program.
            r = warmup.until_steady(lambda: torch.randn(1024, 1024, device="cuda"), "randn (prewarm)", stream=stream)
            print(f"prewarm: {r.why} after {r.calls} calls, {r.took_ns / 1e6:.1f} ms")
        start_time = time.time()
        x = randn("randn 1024x1024", "reserved_first")
        end_time = time.time()
        print(f"Initial allocation time: {end_time - start_time:.4f} seconds")
        start_time = time.time()
        y = randn("randn 1024x1024", "reserved_second")
        end_time = time.time()
        print(f"Subsequent allocation time: {end_time - start_time:.4f} seconds")
        for _ in range(a.calls):
            randn("randn 1024x1024")
        del x
        del y
        torch.cuda.empty_cache()
        facts["reserved_after_empty_cache"] = torch.cuda.memory_reserved()
        # "so that subsequent runs are not influenced": the next allocation asks the driver again.
        for _ in range(a.calls):
            randn("randn after empty_cache", "reserved_after_empty_cache_call" if _ == 0 else None)
            torch.cuda.empty_cache()

    elif a.variant == "pinned":
        torch.zeros(1, device="cuda")  # the context, outside the figures compared here
        pinned_memory = torch.zeros(1024, 1024, dtype=torch.float32, pin_memory=True)
        pageable_memory = torch.zeros(1024, 1024, dtype=torch.float32)
        for _ in range(a.calls):
            start_time = time.time()
            with warmup.h2d("copy from pinned memory", SIZE, stream=stream):
                x = pinned_memory.cuda()
            end_time = time.time()
            if _ == 0:
                print(f"Transfer time from pinned memory: {end_time - start_time:.4f} seconds")
            with warmup.h2d("copy from pageable memory", SIZE, stream=stream):
                z = pageable_memory.cuda()
            start_time = time.time()
            y = randn("randn 1024x1024")
            end_time = time.time()
            if _ == 0:
                print(f"Allocation time on GPU: {end_time - start_time:.4f} seconds")
            del x, y, z

    elif a.variant == "preallocate":
        total_memory_needed = 2**28  # the seed's "256 MB": 2**28 floats, 1 GiB
        torch.cuda.empty_cache()
        initial_allocation = torch.zeros(total_memory_needed, device="cuda")
        # Added to the seed's program: randn's kernel loaded, on a tensor from PyTorch's small
        # pool, so that the figure below is the allocation's and not the kernel's first launch.
        torch.randn(1, device="cuda")
        torch.cuda.synchronize()
        start_time = time.time()
        x = randn("randn beside a kept 1 GiB tensor", "reserved_beside_kept")
        end_time = time.time()
        print(f"Allocation time after pre-allocation: {end_time - start_time:.4f} seconds")
        del x
        del initial_allocation  # freed into PyTorch's cache, not given back
        # The same pre-allocation freed into the cache first: randn is cut from the cached block.
        facts["reserved_before_cut"] = torch.cuda.memory_reserved()
        x = randn("randn from a freed 1 GiB block", "reserved_from_freed")
        del x
        torch.cuda.empty_cache()

    report = warmup.snapshot(wait=True)
    report.print()
    print("facts: " + json.dumps(facts))
    if a.json:
        report.write(a.json)


if __name__ == "__main__":
    main()
