#!/usr/bin/env python3
"""Judges mutants on the GPU machine: the steps of a bundle that tools/mutate gpu-bundle made
(the CTest tests labelled gpu of a mutation build, as .ci/gpu_manifest.py writes them), each
mutant against the steps whose clean run went through its region.

Run from the repository root of the GPU machine, standard library only:

    python3 tools/mutation/judge_steps.py mutate-bundle RESULTS [--budget SECONDS] [--work DIR]

First every step runs once with no mutant active, recording what it reaches (WARMUPTEST_REACH,
as on the CI machine; kept in --work, so a second call on the same machine starts judging at
once); a step that fails or skips there is left out, and named. Then each mutant of
mutate-bundle/mutants.json runs the steps that reached it, fastest first, until one fails
(killed) or runs over twice its clean time plus 10 s (timeout); none: survived. Results are
appended to RESULTS in tools/mutate's format (`tools/mutate score` reads them after the CI
machine's), mutants RESULTS already holds are left out, and no mutant starts after --budget
seconds: call again to go on.
"""
import argparse
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schema  # noqa: E402
from run import timeout_for  # noqa: E402  (the CI machine's rule for a hung test)


def read_steps(bundle):
    """[(name, may_skip, command words)] from the bundle's steps.sh."""
    steps = []
    with open(os.path.join(bundle, "steps.sh"), encoding="utf-8") as f:
        for line in f:
            if not line.startswith("step "):
                continue
            words = shlex.split(line)[1:]
            may_skip = words[0] == "--may-skip"
            if may_skip:
                words = words[1:]
            steps.append((words[0], may_skip, words[1:]))
    return steps


def run_step(words, timeout, mutant, reach):
    env = dict(os.environ, WARMUPTEST_MUTANT=str(mutant))
    env.pop("WARMUPTEST_REACH", None)
    if reach is not None:
        shutil.rmtree(reach, ignore_errors=True)
        os.makedirs(reach)
        env["WARMUPTEST_REACH"] = reach
    t0 = time.monotonic()
    try:
        p = subprocess.run(words, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=timeout, start_new_session=True)
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - t0
    dt = time.monotonic() - t0
    if p.returncode == 77:
        return "skipped", dt
    return ("passed" if p.returncode == 0 else "failed"), dt


def baseline(steps, work, fingerprint):
    """{step: (seconds, [mutant ids reached])} of the clean run, from `work` where it was made
    for this bundle already."""
    path = os.path.join(work, "baseline.json")
    if os.path.exists(path):
        kept = json.load(open(path))
        if kept.get("bundle") == fingerprint:
            return {k: (v[0], set(v[1])) for k, v in kept["steps"].items()}
    out, left = {}, []
    for name, _, words in steps:
        folder = os.path.join(work, "reach", name)
        outcome, dt = run_step(words, 900, -1, folder)
        if outcome == "failed":  # once more: a step that failed under a cold machine
            outcome, dt = run_step(words, 900, -1, folder)
        print(f"judge_steps: clean {name}: {outcome} ({dt:.1f} s)", flush=True)
        if outcome == "passed":
            out[name] = (dt, schema.read_reach(folder)[0])
        else:
            left.append(f"{name} ({outcome})")
    if left:
        print("judge_steps: steps left out (failed or skipped with no mutant): " + ", ".join(left), flush=True)
    with open(path, "w") as f:
        json.dump({"bundle": fingerprint, "steps": {k: [v[0], sorted(v[1])] for k, v in out.items()}}, f)
    return out


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    a.add_argument("bundle")
    a.add_argument("results")
    a.add_argument("--budget", type=float, default=480.0, help="no mutant starts after this many seconds")
    a.add_argument("--work", default="/tmp/warmup-judge-steps")
    args = a.parse_args()
    started = time.monotonic()
    mutants_file = os.path.join(args.bundle, "mutants.json")
    mutants = json.load(open(mutants_file))
    fingerprint = hashlib.sha256(open(mutants_file, "rb").read()
                                 + open(os.path.join(args.bundle, "steps.sh"), "rb").read()).hexdigest()
    os.makedirs(args.work, exist_ok=True)
    steps = read_steps(args.bundle)
    clean = baseline(steps, args.work, fingerprint)
    done = set()
    if os.path.exists(args.results):
        done = {json.loads(l)["key"] for l in open(args.results) if l.strip()}
    left = [m for m in mutants if m["key"] not in done]
    by_name = {name: words for name, _, words in steps}
    with open(args.results, "a") as out:
        for i, m in enumerate(left):
            if time.monotonic() - started > args.budget:
                print(f"judge_steps: budget spent; {len(left) - i} mutants left: call again", flush=True)
                return 3
            t0 = time.monotonic()
            reaching = sorted((n for n in clean if m["id"] in clean[n][1]), key=lambda n: clean[n][0])
            status, by = "survived", None
            for n in reaching:
                outcome, _ = run_step(by_name[n], timeout_for(clean[n][0]), m["id"], None)
                if outcome in ("failed", "timeout"):
                    status, by = ("killed" if outcome == "failed" else "timeout"), f"gpu: {n}"
                    break
            rec = {k: m[k] for k in ("key", "header", "operator", "line", "occurrence", "line_text", "mutated")}
            rec.update(status=status, by=by, tests_covering=len(reaching), seconds=round(time.monotonic() - t0, 1),
                       machine="gpu")
            if not reaching:
                rec["reached"] = False
            out.write(json.dumps(rec) + "\n")
            out.flush()
            print(f"{status:<9} {m['header']}:{m['line']} {m['operator']}" + (f"  [{by}]" if by else ""), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
