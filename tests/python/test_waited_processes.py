"""The processes a first call waits on (docs/why-slow.md, "Processes it waited on"): a Python
first call that runs a subprocess has that process's CPU time in its `other_threads`, as
`child_process` named by its command, not among its causes; the Python module's sampler thread
reads the children while the call runs, so that one reaped before the call ends is named."""
import json
import os
import subprocess
import sys
import textwrap

PROGRAM = textwrap.dedent("""
    import json, resource, subprocess, sys, warmup
    busy = "t = 0\\nfor i in range(6_000_000): t += i % 7"
    with warmup.region("waits.subprocess"):
        subprocess.run([sys.executable, "-c", busy], check=True)
    with warmup.region("waits.nothing"):
        sum(range(1_000_000))
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({"cpu": children.ru_utime + children.ru_stime, "report": json.loads(warmup.snapshot().to_json())}))
    """)


def run(env):
    full = dict(os.environ)
    full.update(env)
    r = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, env=full, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def site(doc, name):
    return next(s for s in doc["sites"] if s["name"] == name)


def test_a_subprocess_is_named_by_its_command_with_its_cpu_time():
    out = run({"WARMUP_CPU_SAMPLING": "on"})
    why = site(out["report"], "waits.subprocess")["host"]["first_call_causes"]
    assert why is not None
    assert not [c for c in why["causes"] if c["what"] == "child_process"], why["causes"]
    processes = [c for c in why["other_threads"] if c["what"] == "child_process"]
    python = [c for c in processes if "python" in c["where"]]
    assert python, why["other_threads"]
    assert python[0]["count"] == 1
    assert python[0]["where"].endswith("-c t = 0 for i in range(6_000_000): t += i % 7"), python[0]["where"]
    # All of the child's CPU time is the call's: named by its command but for what it spent after
    # the sampler's last reading, never more than wait4 counted (a clock tick of rounding aside).
    cpu = out["cpu"] * 1e9
    assert sum(c["time"] for c in processes) <= cpu + 10e6, (processes, cpu)
    assert sum(c["time"] for c in processes) >= cpu - 20e6, (processes, cpu)
    assert python[0]["time"] >= 0.5 * cpu, (processes, cpu)
    nothing = site(out["report"], "waits.nothing")["host"]["first_call_causes"]
    assert nothing is None or not [c for c in nothing["other_threads"] if c["what"] == "child_process"]


def test_no_child_is_read_where_causes_are_not_asked_for():
    out = run({"WARMUP_CPU_SAMPLING": "off"})
    why = site(out["report"], "waits.subprocess")["host"]["first_call_causes"]
    assert why is None or not [c for c in why["other_threads"] if c["what"] == "child_process"]
