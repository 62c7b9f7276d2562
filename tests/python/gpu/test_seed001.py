"""Seed 001's claims, checked on the GPU by examples/python/first_iteration.py's reports: the
directions that hold on any modern GPU, never a ratio beyond them; the figures are
docs/folklore.md's (one run, quoted there)."""
import json
import os
import subprocess
import sys

import pytest

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "examples", "python",
                       "first_iteration.py")


def run(variant, tmp_path, attribution=False):
    path = tmp_path / f"{variant}{'_attributed' if attribution else ''}.json"
    env = dict(os.environ)
    if attribution:
        env.update(WARMUP_ATTRIBUTION="1", WARMUP_CPU_SAMPLING="on")
    r = subprocess.run([sys.executable, EXAMPLE, variant, "--json", str(path)], capture_output=True, text=True,
                       env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "Iteration 1 time: " in r.stdout  # the seed's own lines, as it printed them
    doc = json.loads(path.read_text())
    return {(s["op"], s["name"]): s for s in doc["sites"]}


def host(sites, name, op="region"):
    return sites[(op, name)]["host"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("seed001")
    return {v: run(v, tmp) for v in ("sgd", "cuda_first", "no_optimizer", "prewarm")} | \
           {"sgd_attributed": run("sgd", tmp, attribution=True)}


def test_the_first_iteration_is_slower_than_the_rest(runs):
    for v in ("sgd", "cuda_first", "no_optimizer"):
        h = host(runs[v], "iteration")
        assert h["first"] > 10 * h["steady"]["p50"], (v, h["first"], h["steady"]["p50"])


def test_cuda_first_moves_the_context_out_of_the_first_iteration(runs):
    # The seed's second program: its first iteration is still slow (kernels and libraries load at
    # their first use), but CUDA's initialisation happened before it, in a site of its own.
    init = host(runs["cuda_first"], "CUDA first (the seed's randn(1).to(device))", op="context")
    assert init["first"] > host(runs["cuda_first"], "iteration")["steady"]["p50"] * 10
    first = host(runs["cuda_first"], "iteration")["first"]
    assert first > 10 * host(runs["cuda_first"], "iteration")["steady"]["p50"]


def test_the_first_iteration_is_explained(runs):
    causes = host(runs["sgd_attributed"], "iteration")["first_call_causes"]
    assert causes is not None
    named = {c["what"] for c in causes["causes"]}
    assert "module_load" in named  # kernels and libraries loaded at their first use
    assert causes["named"] >= causes["excess"] // 2


def test_prewarm_leaves_a_warm_first_iteration(runs):
    h = host(runs["prewarm"], "iteration")
    assert h["first"] < 5 * h["steady"]["p50"], (h["first"], h["steady"]["p50"])
    assert host(runs["prewarm"], "iteration (prewarm)")["calls"] >= 20


def test_the_first_backward_names_what_the_engine_thread_did(runs):
    # backward runs on autograd's engine thread: its caller waits, and the engine's loads are
    # named apart, as what the waiting waited for (docs/why-slow.md, "Work on other threads").
    why = host(runs["sgd_attributed"], "backward")["first_call_causes"]
    waiting = sum(c["time"] for c in why["causes"] if c["what"] == "waiting")
    assert waiting >= 0.5 * why["excess"], why["causes"]
    others = {c["what"]: c for c in why["other_threads"]}
    assert "module_load" in others or "lazy_kernel_load" in others, why["other_threads"]
    assert sum(c["time"] for c in why["other_threads"] if c["what"] != "child_process") <= waiting  # processes: CPU time
    assert not {"module_load", "lazy_kernel_load"} & {c["what"] for c in why["causes"]}  # none the caller's own
