"""A first call's CPU time in the interpreter named by the Python code that spent it
(python/code_sampler.hpp): by module and function, on any thread, off when asked; and the
sampler's own promises: no signal of the program's taken, nothing between first calls, a clean
exit and fork."""
import json
import os
import subprocess
import sys
import textwrap

SAMPLED = {"WARMUP_CPU_SAMPLING": "on"}

# A package of the test's: pkg.sub.slow holds the work, so that its module is reported as
# "pkg.sub" and its functions as "slow.<name>".
PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/sub/__init__.py": "",
    "pkg/sub/slow.py": textwrap.dedent("""
        def spin(n):
            t = 0
            for i in range(n):
                t += i * i % 7
            return t

        class Tracer:
            def step(self, n):
                table = {}
                for i in range(n):
                    table[i % 512] = table.get(i % 512, 0) + 1
                return len(table)
        """),
}


def run_python(code, tmp_path, env=None, timeout=120):
    for name, text in PACKAGE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    full = dict(os.environ)
    full.update(SAMPLED)
    full.update(env or {})
    full["PYTHONPATH"] = os.pathsep.join([str(tmp_path)] + [p for p in sys.path if p])
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=full, timeout=timeout, cwd=tmp_path)


def causes_of(doc, name):
    site = next(s for s in doc["sites"] if s["name"] == name)
    why = site["host"]["first_call_causes"]
    assert why is not None, site
    return why


def on_cpu(why):
    """The CPU time the call's samples stand for."""
    return sum(c["time"] for c in why["causes"] if c["what"] in ("host_code", "python_code"))


def python_causes(why):
    return {c["where"]: c for c in why["causes"] if c["what"] == "python_code"}


def test_python_code_is_named_by_module_and_function(tmp_path):
    r = run_python("""
        import json, warmup
        from pkg.sub import slow

        def mine(n):
            x = 0
            for i in range(n):
                x ^= i
            return x

        with warmup.region("names.first"):
            slow.spin(1_500_000)
            slow.Tracer().step(800_000)
            mine(1_500_000)
        print(warmup.snapshot().to_json())
        """, tmp_path)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    why = causes_of(doc, "names.first")
    py = python_causes(why)
    assert set(py) >= {"pkg.sub", "__main__"}, why["causes"]
    functions = {f["function"]: f for f in py["pkg.sub"]["functions"]}
    assert set(functions) >= {"slow.spin", "slow.Tracer.step"}, functions
    assert [f["time"] for f in py["pkg.sub"]["functions"]] == sorted((f["time"] for f in py["pkg.sub"]["functions"]),
                                                                      reverse=True)
    assert sum(f["count"] for f in py["pkg.sub"]["functions"]) <= py["pkg.sub"]["count"]
    assert any(f["function"] == "mine" for f in py["__main__"]["functions"])
    # The work is all Python: its names hold most of the call's CPU time, the interpreter's object
    # little (of CPU time, not of the call: a loaded machine preempts it, which is time waiting).
    cpu = on_cpu(why)
    assert sum(c["time"] for c in py.values()) >= 0.8 * cpu, why["causes"]
    interpreter = [c for c in why["causes"] if c["what"] == "host_code" and "python" in c["where"].lower()]
    assert sum(c["time"] for c in interpreter) <= 0.1 * cpu, interpreter


def test_the_table_and_a_report_read_back_keep_the_names(tmp_path):
    path = tmp_path / "names.json"
    r = run_python("""
        import warmup
        from pkg.sub import slow
        with warmup.region("names.table"):
            slow.spin(1_000_000)
        """, tmp_path, env={"WARMUP_REPORT": f"stdout,{path}"})
    assert r.returncode == 0, r.stderr
    assert "Python code pkg.sub" in r.stdout, r.stdout
    import warmup
    back = warmup.read(str(path))
    why = back.find("names.table").host.first_call_causes
    spin = [c for c in why.causes if c.what == "python_code" and c.where == "pkg.sub"]
    assert spin and spin[0].functions[0].function == "slow.spin"


def test_a_first_call_on_another_thread_is_named(tmp_path):
    r = run_python("""
        import threading, warmup
        from pkg.sub import slow

        def worker():
            with warmup.region("names.thread"):
                slow.spin(1_500_000)
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        print(warmup.snapshot().to_json())
        """, tmp_path)
    assert r.returncode == 0, r.stderr
    why = causes_of(json.loads(r.stdout), "names.thread")
    py = python_causes(why)
    assert "pkg.sub" in py and py["pkg.sub"]["time"] >= 0.8 * on_cpu(why), why["causes"]


def test_a_thread_the_call_waits_on_is_named_by_its_python_code(tmp_path):
    # The caller waits (off the CPU) while a worker runs Python code: the worker's CPU is named
    # in other_threads by its module and function, as the caller's own would be, not as the
    # interpreter's object. Judged against the worker's own CPU time (300 ms of it), not the
    # caller's wait, which on a loaded machine holds the worker's time off the CPU too.
    r = run_python("""
        import json, threading, time, warmup
        from pkg.sub import slow

        go, done = threading.Event(), threading.Event()
        cpu = []
        def worker():
            go.wait()
            t0 = time.thread_time_ns()
            while time.thread_time_ns() - t0 < 300_000_000:
                slow.spin(100_000)
            cpu.append(time.thread_time_ns() - t0)
            done.set()
        t = threading.Thread(target=worker)
        t.start()
        with warmup.region("names.waits"):
            go.set()
            done.wait()
        t.join()
        print(json.dumps({"report": json.loads(warmup.snapshot().to_json()), "worker_cpu": cpu[0]}))
        """, tmp_path)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    why = causes_of(out["report"], "names.waits")
    theirs = {c["where"]: c for c in why["other_threads"] if c["what"] == "python_code"}
    assert "pkg.sub" in theirs, why["other_threads"]
    assert theirs["pkg.sub"]["time"] >= 0.7 * out["worker_cpu"], (out["worker_cpu"], why)
    assert theirs["pkg.sub"]["functions"][0]["function"] == "slow.spin", theirs["pkg.sub"]
    assert not any(c["what"] == "python_code" and c["where"] == "pkg.sub" for c in why["causes"]), why["causes"]


def test_names_off_leaves_the_interpreter_by_its_object(tmp_path):
    r = run_python("""
        import warmup
        from pkg.sub import slow
        assert warmup.set_python_names(False) is False
        with warmup.region("names.off"):
            slow.spin(1_500_000)
        print(warmup.snapshot().to_json())
        """, tmp_path)
    assert r.returncode == 0, r.stderr
    why = causes_of(json.loads(r.stdout), "names.off")
    assert not python_causes(why), why["causes"]
    assert max((c["time"] for c in why["causes"] if c["what"] == "host_code"), default=0) >= 0.8 * on_cpu(why)


def test_the_sampler_thread_blocks_every_signal_and_idles_between_first_calls(tmp_path):
    r = run_python("""
        import os, time, warmup
        from pkg.sub import slow

        def sampler():
            for tid in os.listdir("/proc/self/task"):
                with open(f"/proc/self/task/{tid}/comm") as f:
                    if f.read().strip() == "warmup-names":
                        return tid
            return None

        def wakeups(tid):  # each time the thread ran again after waiting, or was preempted
            with open(f"/proc/self/task/{tid}/status") as f:
                return sum(int(l.split()[1]) for l in f if "ctxt_switches:" in l)

        assert sampler() is None  # no thread before a first call is sampled
        with warmup.region("names.idle"):
            slow.spin(500_000)
        tid = sampler()
        assert tid is not None
        with open(f"/proc/self/task/{tid}/status") as f:
            blocked = next(l.split()[1] for l in f if l.startswith("SigBlk:"))
        for _ in range(20):  # the sampler's last round, begun before the first call ended, ends
            with warmup.region("names.idle"):
                time.sleep(0.001)
        before = wakeups(tid)
        for _ in range(200):  # steady calls: none is sampled, so the sampler waits
            with warmup.region("names.idle"):
                time.sleep(0.001)
        print(blocked, wakeups(tid) - before)
        """, tmp_path)
    assert r.returncode == 0, r.stderr
    blocked, woken = r.stdout.split()
    standard = 0x7FFFFFFF & ~(1 << 8) & ~(1 << 18)  # signals 1-31 but SIGKILL and SIGSTOP, which none blocks
    assert int(blocked, 16) & standard == standard, blocked
    assert int(woken) == 0  # it waits for the next sampled first call, never woken meanwhile


def test_exit_and_fork_inside_a_sampled_first_call(tmp_path):
    path = tmp_path / "exit.json"
    r = run_python("""
        import json, os, warmup
        from pkg.sub import slow
        with warmup.region("names.parent"):
            slow.spin(300_000)
            pid = os.fork()
            if pid == 0:  # the child's own first call, named by its own sampler thread
                with warmup.region("names.child"):
                    slow.spin(1_000_000)
                why = warmup.snapshot().find("names.child").host.first_call_causes
                os._exit(0 if any(c.what == "python_code" and c.where == "pkg.sub" for c in why.causes) else 3)
            _, status = os.waitpid(pid, 0)
            print("child", os.waitstatus_to_exitcode(status))
        # the program ends inside a sampled first call: the sampler stops, the report is written
        with warmup.region("names.open_at_exit"):
            slow.spin(200_000)
            raise SystemExit(0)
        """, tmp_path, env={"WARMUP_REPORT": str(path)}, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "child 0" in r.stdout
    names = {s["name"] for s in json.loads(path.read_text())["sites"]}
    assert {"names.parent", "names.open_at_exit"} <= names


def test_no_blocking_call_of_a_sampled_first_call_is_cut_short(tmp_path):
    # The EINTR promise of the CPU sampler (docs/why-slow.md) with the code sampler running too:
    # libc's own calls (through ctypes, so Python's retry on EINTR hides nothing) wait their
    # whole time inside a sampled first call of a thread that also runs Python code.
    r = run_python("""
        import ctypes, ctypes.util, os, time, warmup
        from pkg.sub import slow
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)

        class pollfd(ctypes.Structure):
            _fields_ = [("fd", ctypes.c_int), ("events", ctypes.c_short), ("revents", ctypes.c_short)]

        class timespec(ctypes.Structure):
            _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]

        read_end, _ = os.pipe()
        with warmup.region("names.blocking"):
            slow.spin(300_000)  # the code sampler is running
            p = pollfd(read_end, 1, 0)
            t0 = time.monotonic()
            polled = libc.poll(ctypes.byref(p), 1, 200)
            polled_errno, waited = ctypes.get_errno(), time.monotonic() - t0
            slept = libc.nanosleep(ctypes.byref(timespec(0, 100_000_000)), None)
            slow.spin(300_000)
        why = warmup.snapshot().find("names.blocking").host.first_call_causes
        print(polled, polled_errno, slept, ctypes.get_errno(), waited >= 0.2,
              any(c.what == "python_code" for c in why.causes))
        """, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["0", "0", "0", "0", "True", "True"], r.stdout


def test_odd_module_names_are_named_never_raised(tmp_path):
    # Code whose globals' __name__ is no str names its file; one whose name has no UTF-8 (a lone
    # surrogate) is "?": the program's own thread never sees an error of the sampler's. Each runs
    # for 300 ms of this thread's CPU, however long the code sampler's thread waits for a core.
    r = run_python(r'''
        import json, time, warmup
        spin = "t = 0\nfor i in range(100_000):\n    t += i % 7\n"
        def run(code, globals):
            t0 = time.thread_time()
            while time.thread_time() - t0 < 0.3:
                exec(code, globals)
        with warmup.region("names.odd"):
            run(compile(spin, "generated_by_test.py", "exec"), {"__name__": 5})
            run(compile(spin, "surrogate.py", "exec"), {"__name__": "bad\ud800name"})
        print(warmup.snapshot().to_json())
        ''', tmp_path)
    assert r.returncode == 0, r.stderr
    py = python_causes(causes_of(json.loads(r.stdout), "names.odd"))
    assert {"generated_by_test.py", "?"} <= set(py), py.keys()


def test_a_long_first_call_of_mixed_work_is_named_in_full(tmp_path):
    # tests/python/long_first_call.py for a second (its minute and ten-minute runs:
    # BENCHMARKS.md): Python and C work on the caller and on two threads it waits on, one made
    # inside the call. The call is named to its end, and what it waited on by those threads' work.
    program = os.path.join(os.path.dirname(os.path.abspath(__file__)), "long_first_call.py")
    full = dict(os.environ, **SAMPLED)
    full["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    r = subprocess.run([sys.executable, program, "1"], capture_output=True, text=True, env=full, timeout=120)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["first_s"] >= 1.0, got
    assert got["named"] >= 0.95, got
    assert {"__main__", "libz.so.1", "waiting"} <= set(got["causes"]), got
    # Each thread's own work, by its Python function: the one made inside the call was sampled too.
    assert {"pool_python", "engine_python"} <= set(got["others_functions"]), got
    assert "samples lost" not in got["sampling"], got
    assert got["rss_growth_kib"] < 16 * 1024, got  # the stores' bound (docs/why-slow.md), and Python's own
