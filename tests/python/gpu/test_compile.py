"""`torch.compile`'s first call taken apart (examples/python/compile.py), checked on the GPU: the
verdicts of docs/folklore.md's rows, each against the run's own figures, never a figure copied
from there. Attribution and CPU sampling on, Inductor's caches in a folder of the test's own
(cold in the first process, warm in the second)."""
import json
import os
import subprocess
import sys

import pytest

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "examples", "python",
                       "compile.py")


def run(tmp_path, name, cache, *args):
    path = tmp_path / f"{name}.json"
    env = dict(os.environ, WARMUP_ATTRIBUTION="1", WARMUP_CPU_SAMPLING="on", TORCHINDUCTOR_CACHE_DIR=str(cache))
    r = subprocess.run([sys.executable, EXAMPLE, "--calls", "25", "--json", str(path), *args], capture_output=True,
                       text=True, timeout=400, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    return {s["name"]: s for s in json.loads(path.read_text())["sites"]}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("compile")
    cache = tmp / "inductor"
    return {"cold": run(tmp, "cold", cache), "warm": run(tmp, "warm", cache), "prewarm": run(tmp, "prewarm", cache,
                                                                                             "--prewarm")}


def causes(site):
    why = site["host"]["first_call_causes"]
    assert why is not None, site["name"]
    return why


def every_function(why):
    return [f["function"] for c in why["causes"] for f in c["functions"]]


def test_the_first_compiled_call_is_named_by_its_python_code(runs):
    s = runs["cold"]["compiled forward, batch 64"]
    h = s["host"]
    assert h["first"] > 100 * h["steady"]["p50"], (h["first"], h["steady"]["p50"])
    why = causes(s)
    assert why["named"] >= 0.9 * why["excess"], (why["named"], why["excess"])
    modules = {c["where"] for c in why["causes"] if c["what"] == "python_code"}
    assert any(m.startswith("torch._inductor") for m in modules), modules
    assert any(m.startswith("torch._dynamo") for m in modules), modules
    assert any(f.startswith("triton.") for f in every_function(why))  # Triton's code, or what it called
    python = sum(c["time"] for c in why["causes"] if c["what"] == "python_code")
    assert python >= 0.2 * why["excess"], (python, why["excess"])  # a compiler written in Python
    waiting = [c for c in why["causes"] if c["what"] == "waiting"]
    assert waiting and waiting[0]["functions"], waiting  # where the Python code waited


def test_a_new_shape_compiles_again(runs):
    h = runs["cold"]["compiled forward, batch 96"]["host"]
    assert h["first"] > 100 * h["steady"]["p50"], (h["first"], h["steady"]["p50"])
    assert h["first"] < runs["cold"]["compiled forward, batch 64"]["host"]["first"]  # the imports are done


def test_warm_caches_shorten_the_first_call_but_leave_it_slow(runs):
    cold = runs["cold"]["compiled forward, batch 64"]["host"]["first"]
    warm = runs["warm"]["compiled forward, batch 64"]["host"]
    assert warm["first"] < cold, (warm["first"], cold)
    assert warm["first"] > 100 * warm["steady"]["p50"]
    assert causes(runs["warm"]["compiled forward, batch 64"])["named"] >= 0.9 * warm["first_call_excess"]


def test_until_steady_leaves_a_warm_first_call(runs):
    for batch in (64, 96):
        timed = runs["prewarm"][f"compiled forward, batch {batch}"]["host"]
        prewarm = runs["prewarm"][f"prewarm, batch {batch}"]["host"]
        assert prewarm["first"] > 100 * prewarm["steady"]["p50"]  # the compile moved into the prewarm
        assert timed["first"] < 0.01 * prewarm["first"], (timed["first"], prewarm["first"])
        assert timed["first"] < 20 * timed["steady"]["p50"], (timed["first"], timed["steady"]["p50"])
