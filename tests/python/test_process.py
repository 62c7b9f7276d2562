"""The process around the scopes: the report at exit during interpreter shutdown, fork, a C++
extension sharing the report, prewarm, and attribution and CPU sampling in a Python process."""
import contextlib
import inspect
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import warmup


def run_python(code, env=None, timeout=120):
    full = dict(os.environ)
    full.update(env or {})
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=full, timeout=timeout)


def test_report_at_exit(tmp_path):
    path = tmp_path / "exit.json"
    r = run_python("""
        import threading, warmup
        for _ in range(3):
            with warmup.region("exit.site"):
                pass
        # a thread still making calls as the interpreter shuts down, 100 of them made by then
        made = threading.Event()
        def busy():
            n = 0
            while True:
                with warmup.region("exit.thread"):
                    pass
                n += 1
                if n == 100:
                    made.set()
        threading.Thread(target=busy, daemon=True).start()
        made.wait()
        """, env={"WARMUP_REPORT": str(path)})
    assert r.returncode == 0, r.stderr
    doc = json.loads(path.read_text())
    calls = {s["name"]: s["calls"] for s in doc["sites"]}
    assert calls["exit.site"] == 3
    assert calls["exit.thread"] >= 100  # the thread's calls ended before the report are in it


def test_report_at_exit_after_sys_exit_and_an_exception(tmp_path):
    for code, status in (("import sys; sys.exit(3)", 3), ("raise SystemError('x')", 1)):
        path = tmp_path / f"exit{status}.json"
        r = run_python(f"""
            import warmup
            with warmup.region("exit.code"):
                pass
            {code}
            """, env={"WARMUP_REPORT": str(path)})
        assert r.returncode == status, r.stderr
        assert json.loads(path.read_text())["sites"][0]["name"] == "exit.code"


@contextlib.contextmanager
def python_child(code, env):
    """A Python child that prints "ready" once its first scope has run, then keeps making calls;
    killed on the way out if it is still running (a failed test leaves no loop behind)."""
    full = dict(os.environ)
    full.update(env)
    # SIGINT as an interactive shell leaves it: a test run in the background (`cmd &` in a
    # script) inherits it ignored, and a Python started so never raises KeyboardInterrupt.
    p = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=full,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert p.stdout.readline().strip() == "ready"
        yield p
    finally:
        if p.poll() is None:
            p.kill()
        p.wait()


LOOP = """
    import signal, sys, warmup
    {handler}
    with warmup.region("signal.first"):
        pass
    print("ready", flush=True)
    while True:
        with warmup.region("signal.loop"):
            pass
    """


def test_report_at_exit_after_ctrl_c(tmp_path):
    # An uncaught KeyboardInterrupt: Python kills itself with SIGINT after its shutdown, so no
    # exit handler runs; the package writes the report from its atexit hook instead.
    path = tmp_path / "interrupted.json"
    with python_child(LOOP.format(handler=""), {"WARMUP_REPORT": str(path)}) as p:
        os.kill(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=60)
    assert p.returncode in (-signal.SIGINT, 130), (p.returncode, err)
    assert "KeyboardInterrupt" in err
    calls = {s["name"]: s["calls"] for s in json.loads(path.read_text())["sites"]}
    # The signal may come before the loop's first call ends: only the call before it is sure.
    assert calls["signal.first"] == 1


def test_report_at_exit_from_a_signal_handler_calling_sys_exit(tmp_path):
    path = tmp_path / "terminated.json"
    with python_child(LOOP.format(handler="signal.signal(signal.SIGTERM, lambda *a: sys.exit(3))"),
                      {"WARMUP_REPORT": str(path)}) as p:
        os.kill(p.pid, signal.SIGTERM)
        _, err = p.communicate(timeout=60)
    assert p.returncode == 3, err
    calls = {s["name"]: s["calls"] for s in json.loads(path.read_text())["sites"]}
    # The signal may come before the loop's first call ends: only the call before it is sure.
    assert calls["signal.first"] == 1
    assert err.count("warmup report") == 0  # written once, to its file; nothing on stderr


def test_two_processes_on_one_report_file(tmp_path):
    # Both run at once (each waits for its standard input to end after its work) and write the
    # same path: each report is kept whole, the later one beside the first with its pid, said on
    # stderr; no temporary file is left beside them.
    path = tmp_path / "shared.json"
    code = """
        import sys, warmup
        for i in range(2000):
            with warmup.region(f"shared.site.{i}"):
                pass
        print("ready", flush=True)
        sys.stdin.read()
        """
    procs = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=dict(os.environ, WARMUP_REPORT=str(path))) for _ in range(2)]
    assert [p.stdout.readline() for p in procs] == ["ready\n"] * 2
    said = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], said
    files = sorted(os.listdir(tmp_path))
    pids = {json.loads((tmp_path / f).read_text())["identity"]["pid"]: f for f in files}
    assert set(pids) == {p.pid for p in procs}, files
    assert all(f == "shared.json" or f == f"shared.{pid}.json" for pid, f in pids.items()), files
    assert all(len(json.loads((tmp_path / f).read_text())["sites"]) == 2000 for f in files)
    assert sum("another process wrote" in e for e in said) == 1, said


def test_a_hostile_variable_is_refused_with_a_sentence(tmp_path):
    r = run_python("""
        import warmup
        with warmup.region("env.site"):
            pass
        """, env={"WARMUP_REPORT": str(tmp_path / "r.unknownformat"), "WARMUP_IDLE_MS": "-4"})
    assert r.returncode == 0
    assert "warmup" in r.stderr and "env.site" in r.stderr  # said why, and the table went to stderr


def test_settings_lists_every_variable_with_its_value_and_why_it_is_refused():
    r = run_python("""
        import json, warmup
        print(json.dumps(warmup.settings()))
        """, env={"WARMUP_IDLE_MS": "250", "WARMUP_TIMELINE_CALLS": "lots", "WARMUP_NVTX_DEVICE": "sometimes"})
    assert r.returncode == 0, r.stderr
    rows = {s["variable"]: s for s in json.loads(r.stdout)}
    docs = open(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "environment.md"), encoding="utf-8").read()
    documented = set(re.findall(r"^\| `(WARMUP_[A-Z_]+)`", docs.split("## Read by the repository's tools")[0], re.M))
    assert set(rows) == documented  # the library's table and its page name the same variables
    idle = rows["WARMUP_IDLE_MS"]
    assert (idle["value"], idle["refused"], idle["default"], idle["function"], idle["read_by"]) == (
        "250", None, "1000 milliseconds", "set_idle_threshold", "library")
    assert idle["takes"] == "a whole number of milliseconds from 1 to 3600000"
    assert rows["WARMUP_TIMELINE_CALLS"]["refused"] == (
        "WARMUP_TIMELINE_CALLS='lots' is not a whole number of calls from 1 to 100000; each site's timeline stays 16 calls")
    assert "WARMUP_TIMELINE_CALLS='lots'" in r.stderr  # the library said it too, once, as it started
    device = rows["WARMUP_NVTX_DEVICE"]
    assert device["read_by"] == "NVTX tool" and device["function"] is None
    assert device["refused"].startswith("WARMUP_NVTX_DEVICE='sometimes' is not one of 1, on, true, yes")
    assert rows["WARMUP_REPORT"]["default"] is None and rows["WARMUP_ENABLE"]["value"] is None


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_fork_child_starts_clean():
    with warmup.region("fork.parent"):
        pass
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        with warmup.region("fork.child"):
            pass
        r = warmup.snapshot()
        names = {s.name: s.calls for s in r.sites if s.name.startswith("fork.")}
        os.write(write, json.dumps(names).encode())
        os._exit(0)
    os.close(write)
    data = b""
    while chunk := os.read(read, 65536):
        data += chunk
    os.close(read)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    child = json.loads(data)
    assert child.get("fork.child") == 1
    assert warmup.snapshot().find("fork.child") is None  # the parent's report has no child call


def test_a_cpp_extension_shares_the_report():
    import warmup_test_extension as ext
    ext.work(4)
    with warmup.region("python.beside_extension"):
        pass
    ext.named("extension.named")
    r = warmup.snapshot()
    assert r.find("extension.work").calls == 4
    assert r.find("extension.named").calls == 1
    assert r.find("python.beside_extension").calls == 1


def test_until_steady_on_python_code():
    calls = []

    def step():
        calls.append(1)
        sum(range(1000))
    # A machine loaded by other tests' compilers jitters: a budget of calls and a tolerance that
    # settle there too (the loop stops at the first steady window, so a quiet machine makes ~20).
    r = warmup.until_steady(step, "prewarm.python", max_calls=20000, tolerance=0.25)
    assert r.steady and r.why == "steady", r.why
    assert r.calls == len(calls) and r.calls >= 20
    assert 0 < r.p50_low_ns <= r.p50_ns <= r.p50_high_ns
    assert warmup.snapshot().find("prewarm.python").calls == r.calls

    def fails():
        raise RuntimeError("stop")
    with pytest.raises(RuntimeError, match="stop"):
        warmup.until_steady(fails, "prewarm.raises")
    assert warmup.snapshot().find("prewarm.raises").exceptions == 1
    bad = warmup.until_steady(step, "prewarm.bad_limits", steady_calls=2)
    assert not bad and bad.why == "error" and "steady_calls" in bad.status.message
    nan = warmup.until_steady(step, "prewarm.nan_time", max_time=float("nan"))
    assert nan.why == "error"
    with pytest.raises(TypeError, match="name is a str"):
        warmup.until_steady(step, b"prewarm.bytes")


def spread_calls():
    """A function whose calls last 0.5, 1, 2 and 4 ms in turn: never within 5% of its median (the
    median's 95% interval over 20 calls spans 1 to 2 ms), always within 1000%."""
    calls = []

    def step():
        time.sleep((0.5, 1.0, 2.0, 4.0)[len(calls) % 4] / 1000)
        calls.append(1)
    return step, calls


def test_until_steady_judges_by_the_tolerance_given():
    # The same calls, two tolerances, two outcomes: the tolerance reaches the rule.
    step, calls = spread_calls()
    loose = warmup.until_steady(step, "prewarm.tolerance_loose", max_calls=60, tolerance=10.0)
    assert loose.steady and loose.why == "steady" and loose.calls < 60, (loose.why, loose.calls)
    assert loose.p50_high_ns - loose.p50_low_ns > 0.2 * loose.p50_ns, (loose.p50_low_ns, loose.p50_ns, loose.p50_high_ns)
    strict = warmup.until_steady(step, "prewarm.tolerance_default", max_calls=60)
    assert strict.why == "call_budget" and strict.calls == 60, (strict.why, strict.calls)
    bad = warmup.until_steady(step, "prewarm.tolerance_bad", tolerance=-1.0)
    assert bad.why == "error" and "tolerance" in bad.status.message, bad.status.message


def test_until_steady_max_time_is_in_seconds():
    # Calls that never settle within 5%, under a budget of 0.15 s: the loop stops at the first
    # call that ends after 0.15 s from its start, whatever the machine's load.
    step, calls = spread_calls()
    r = warmup.until_steady(step, "prewarm.max_time", max_calls=100000, max_time=0.15)
    assert r.why == "time_budget", (r.why, r.calls)
    assert 0.15e9 <= r.took_ns < 0.15e9 + 2e9, r.took_ns  # not 0.15 ms, not 150 s
    assert r.calls == len(calls), (r.calls, len(calls))


def test_until_steady_takes_the_documented_defaults():
    # docs/python.md's signature is the function's, defaults included (max_time=30.0: seconds).
    doc = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "python.md")).read()
    documented = re.search(r"`warmup\.until_steady(\(.*?\))`", doc, re.S).group(1)
    assert " ".join(documented.split()) == str(inspect.signature(warmup.until_steady))


def test_prewarm_without_a_gpu_says_why():
    s = warmup.prewarm_context()
    p = warmup.prewarm_pool(1 << 20)
    if s:  # a GPU: both steps done
        assert p.ok and p.took_ns > 0
    else:  # none: each step says which call failed, and with what
        assert s.error.startswith("cuda") and s.message.startswith("warmup::prewarm_context(device current): ")
        assert not p.ok and p.error.startswith("cuda")
        assert p.message.startswith("warmup::prewarm_pool(1048576 bytes): ")


def test_attribution_and_cpu_sampling_in_a_python_process(tmp_path):
    path = tmp_path / "attr.json"
    r = run_python("""
        import warmup
        with warmup.region("attr.first"):
            sum(i * i for i in range(2_000_000))
        """, env={"WARMUP_REPORT": str(path), "WARMUP_ATTRIBUTION": "on", "WARMUP_CPU_SAMPLING": "on"})
    assert r.returncode == 0, r.stderr
    doc = json.loads(path.read_text())
    assert doc["cpu_sampling"].startswith("every"), doc["cpu_sampling"]
    site = next(s for s in doc["sites"] if s["name"] == "attr.first")
    causes = site["host"]["first_call_causes"]
    assert causes is not None
    named = {c["what"] for c in causes["causes"]}
    assert "python_code" in named  # the interpreter's work, by the Python code it ran (test_python_names.py)
