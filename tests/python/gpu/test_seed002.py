"""Seed 002's claims about PyTorch's allocator, checked on the GPU by examples/python/allocator.py's
reports and PyTorch's own memory figures: the directions that hold on any modern GPU, never a
ratio beyond them; the figures are docs/folklore.md's (one run, quoted there)."""
import json
import os
import subprocess
import sys

import pytest

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "examples", "python",
                       "allocator.py")
MiB = 1 << 20


def run(variant, tmp_path):
    path = tmp_path / f"{variant}.json"
    r = subprocess.run([sys.executable, EXAMPLE, variant, "--json", str(path)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    facts = json.loads(next(line for line in r.stdout.splitlines() if line.startswith("facts: "))[len("facts: "):])
    doc = json.loads(path.read_text())
    return {(s["op"], s["name"]): s for s in doc["sites"]}, facts, r.stdout


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("seed002")
    return {v: run(v, tmp) for v in ("first", "pinned", "preallocate", "prewarm")}


def site(runs, variant, name, op="alloc"):
    return runs[variant][0][(op, name)]


def test_the_first_allocation_is_slow_and_reserves_memory(runs):
    sites, facts, out = runs["first"]
    assert "Initial allocation time: " in out and "Subsequent allocation time: " in out  # the seed's lines
    h = site(runs, "first", "randn 1024x1024")["host"]
    assert h["first"] > 10 * h["steady"]["p50"], (h["first"], h["steady"]["p50"])
    # PyTorch's allocator reserved a block for the first call; the second was served from it.
    assert facts["reserved_first"] >= 4 * MiB
    assert facts["reserved_second"] == 0 or facts["reserved_second"] <= facts["reserved_first"]


def test_empty_cache_makes_the_next_allocation_cold_again(runs):
    _, facts, _ = runs["first"]
    assert facts["reserved_after_empty_cache"] == 0
    assert facts["reserved_after_empty_cache_call"] >= 4 * MiB  # asked of the driver again
    warm = site(runs, "first", "randn 1024x1024")["device"]["steady"]["p50"]
    cold_again = site(runs, "first", "randn after empty_cache")["device"]["steady"]["p50"]
    assert cold_again > warm, (cold_again, warm)


def test_pinned_copies_are_faster_than_pageable_ones(runs):
    pinned = site(runs, "pinned", "copy from pinned memory", op="h2d")["device"]["steady"]["p50"]
    pageable = site(runs, "pinned", "copy from pageable memory", op="h2d")["device"]["steady"]["p50"]
    assert pinned < pageable, (pinned, pageable)


def test_a_kept_preallocation_does_not_serve_later_allocations(runs):
    # Example 3 keeps its 1 GiB tensor alive: randn needs a block of its own from the driver, which
    # both PyTorch's figure and the library's first-call signal see; freed into the cache first,
    # the same tensor serves it and neither sees memory taken.
    _, facts, _ = runs["preallocate"]
    assert facts["reserved_beside_kept"] >= 4 * MiB
    assert facts["reserved_from_freed"] == 0
    kept = site(runs, "preallocate", "randn beside a kept 1 GiB tensor")
    freed = site(runs, "preallocate", "randn from a freed 1 GiB block")
    assert kept["first_call_host"]["device_memory_taken"] >= 4 * MiB
    assert freed["first_call_host"]["device_memory_taken"] < 4 * MiB
    assert kept["host"]["first"] > freed["host"]["first"], (kept["host"]["first"], freed["host"]["first"])


def test_prewarm_leaves_a_warm_first_allocation(runs):
    # What prewarm removes is the first call's excess: left, it is a few steady calls' worth
    # (tens of microseconds, the allocator's own first-use work), against the cold program's
    # hundreds of milliseconds; a ratio to a 10 us steady call would judge the host's noise.
    h = site(runs, "prewarm", "randn 1024x1024")["host"]
    cold = site(runs, "first", "randn 1024x1024")["host"]
    left, removed = h["first"] - h["steady"]["p50"], cold["first"] - cold["steady"]["p50"]
    assert left < 0.01 * removed, (h["first"], h["steady"]["p50"], cold["first"], cold["steady"]["p50"])
    assert site(runs, "prewarm", "randn (prewarm)", op="region")["calls"] >= 20
