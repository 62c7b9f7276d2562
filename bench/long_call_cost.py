"""What naming a long first call costs (BENCHMARKS.md, "A first call of any length"): a compiled
model's first training step (examples/python/compile_train.py) run cold, in a fresh process with
fresh Inductor and Triton caches each time, with attribution and CPU sampling on
(`WARMUP_ATTRIBUTION=1 WARMUP_CPU_SAMPLING=on`) and off, interleaved; the first step's time is
the program's own (a region timed either way). Target: the medians' ratio at most 1.05x.

It also prints what the runs with names said of the first step: the share of its excess named,
and what it waited on (other threads and processes).
usage: python bench/long_call_cost.py [--runs 3] [--program examples/python/compile_train.py] [--out DIR]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SITE = "compiled training step"


def run(program, named, out):
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=os.path.join(cache, "inductor"),
                   TRITON_CACHE_DIR=os.path.join(cache, "triton"), PYTHONUNBUFFERED="1")
        env.pop("WARMUP_ATTRIBUTION", None)
        env["WARMUP_CPU_SAMPLING"] = "off"
        if named:
            env.update(WARMUP_ATTRIBUTION="1", WARMUP_CPU_SAMPLING="on")
        p = subprocess.run([sys.executable, program, "--steps", "10", "--json", out], env=env, capture_output=True,
                           text=True, timeout=900)
        if p.returncode != 0:
            sys.exit(f"bench/long_call_cost.py: {program} failed:\n{p.stderr[-4000:]}")
        with open(out[:-len(".json")] + ".txt", "w") as f:  # the table
            f.write(p.stdout)
    doc = json.load(open(out))
    site = next(s for s in doc["sites"] if s["name"] == SITE)
    return doc, site


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--program", default=os.path.join(ROOT, "examples", "python", "compile_train.py"))
    p.add_argument("--out", default=tempfile.mkdtemp(prefix="long_call_cost."))
    a = p.parse_args()
    first = {False: [], True: []}
    for r in range(a.runs):
        for named in (False, True) if r % 2 == 0 else (True, False):
            out = os.path.join(a.out, f"{'named' if named else 'plain'}_{r}.json")
            doc, site = run(a.program, named, out)
            first[named].append(site["host"]["first"] / 1e9)
            line = f"run {r} {'named' if named else 'plain'}: first step {first[named][-1]:.2f} s"
            why = site["host"].get("first_call_causes")
            if named and why:
                waiting = sum(c["time"] for c in why["causes"] if c["what"] == "waiting")
                top = sorted(why["other_threads"], key=lambda c: -c["time"])[:4]
                line += (f", named {100 * why['named'] / max(why['excess'], 1):.1f}%, waiting {waiting / 1e9:.2f} s; "
                         f"while it waited: " + ", ".join(f"{c['what']} {c['where']} {c['time'] / 1e9:.2f} s" for c in top))
                line += f"; sampling: {doc['cpu_sampling']}"
            print(line, flush=True)
    plain, named = statistics.median(first[False]), statistics.median(first[True])
    print(f"first step, median of {a.runs} cold runs: plain {plain:.2f} s, named {named:.2f} s; "
          f"ratio {named / plain:.3f}x (target <= 1.05x); reports in {a.out}")


if __name__ == "__main__":
    main()
