"""Python's multiprocessing with WARMUP_REPORT: with each start method (fork, forkserver, spawn),
a Pool left by its `with` block (which terminates its workers), a Pool closed and joined, and
Processes, one of them terminated, every child's calls reach a report of its own beside the
parent's (its pid before the extension), none is written over another, and `warmup-report
merge` joins them all."""
import glob
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

PROGRAM = textwrap.dedent("""
    import json, multiprocessing as mp, os, sys, threading, time, warmup

    def work(i):
        with warmup.region("child.call"):
            pass
        with warmup.region(f"child.{os.getpid()}"):  # each child's own site
            pass
        return os.getpid()

    def late():  # made as the process ends, once its main thread is done
        threading.main_thread().join()
        with warmup.region("thread.late"):
            pass

    def queued(q):
        threading.Thread(target=late).start()
        q.put(work(0))

    def waits(q):
        q.put(work(0))
        time.sleep(60)  # ended by terminate(): SIGTERM

    if __name__ == "__main__":
        ctx = mp.get_context(sys.argv[1])
        with warmup.region("parent.call"):
            pass
        pids = {}
        with ctx.Pool(2) as pool:  # its end terminates the workers
            pids["pool_with"] = sorted(set(pool.map(work, range(6))))
        pool = ctx.Pool(2)
        pids["pool_closed"] = sorted(set(pool.map(work, range(6))))
        pool.close()
        pool.join()
        q = ctx.Queue()
        procs = [ctx.Process(target=queued, args=(q,)) for _ in range(2)] + [ctx.Process(target=waits, args=(q,))]
        for p in procs:
            p.start()
        pids["process"] = sorted(q.get(timeout=60) for _ in procs)
        pids["threaded"] = [p.pid for p in procs[:2]]
        for p in procs[:2]:
            p.join()
        procs[2].terminate()
        procs[2].join()
        pids["terminated_exit"] = procs[2].exitcode
        if sys.argv[1] == "forkserver":  # the fork server ends now, not after this test looked
            from multiprocessing import forkserver
            getattr(forkserver._forkserver, "_stop", lambda: None)()
        print(json.dumps(pids))
    """)


def sites_of(path):
    doc = json.loads(open(path).read())
    return doc["identity"]["pid"], {s["name"]: s["calls"] for s in doc["sites"]}


def report_tool():
    return os.environ.get("WARMUPTEST_REPORT_TOOL") or shutil.which("warmup-report")


@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_every_child_writes_beside_its_parent(tmp_path, method):
    script = tmp_path / "program.py"
    script.write_text(PROGRAM)
    out = tmp_path / "out"
    out.mkdir()
    r = subprocess.run([sys.executable, str(script), method], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, WARMUP_REPORT=str(out / "r.json")))
    assert r.returncode == 0, r.stderr
    pids = json.loads(r.stdout)
    assert pids["terminated_exit"] == -15  # SIGTERM ends the child as it would have
    parent_pid, parent = sites_of(out / "r.json")
    assert parent_pid != 0 and parent == {"parent.call": 1}  # the parent's alone, none written over it
    children = {}
    for path in glob.glob(str(out / "r.*.json")):
        pid, sites = sites_of(path)
        assert path == str(out / f"r.{pid}.json")  # each child's file named by its own pid
        children[pid] = sites
    worked = {pid for group in ("pool_with", "pool_closed", "process") for pid in pids[group]}
    for pid in worked:  # every child that made calls, the terminated ones too
        assert pid in children, f"no report of child {pid} ({method}): {sorted(os.listdir(out))}\n{r.stderr}"
        assert children[pid].get(f"child.{pid}", 0) >= 1 and children[pid].get("child.call", 0) >= 1
        assert children[pid].get("parent.call", 0) == 0  # a forked child keeps the site, not its calls
    if method == "spawn":  # a spawned child's report waits for its threads, as Python's exit does
        for pid in pids["threaded"]:
            assert children[pid].get("thread.late") == 1, children[pid]
    # Other reports beside it (a worker ended before it made a call, the fork server) hold no
    # other child's calls.
    for pid, sites in children.items():
        assert not any(calls and n.startswith("child.") and n not in ("child.call", f"child.{pid}")
                       for n, calls in sites.items())
    assert sorted(os.listdir(out)) == sorted(["r.json"] + [f"r.{pid}.json" for pid in children])  # no temporary file

    tool = report_tool()
    if tool is None:
        pytest.skip("no warmup-report to merge with (the CTest test names it in WARMUPTEST_REPORT_TOOL)")
    merged = tmp_path / "merged.json"
    m = subprocess.run([tool, "merge", "-o", str(merged), str(out)], capture_output=True, text=True, timeout=60)
    assert m.returncode == 0, m.stderr
    calls = {s["name"]: s["calls"] for s in json.loads(merged.read_text())["sites"]}
    assert calls["parent.call"] == 1
    assert calls["child.call"] == sum(s.get("child.call", 0) for s in children.values())
    assert all(f"child.{pid}" in calls for pid in worked)


def test_a_child_of_no_multiprocessing_is_left_alone(tmp_path):
    # Importing warmup imports no multiprocessing, and a program's own SIGTERM handler stays its.
    r = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import signal, sys, warmup
        assert "multiprocessing" not in sys.modules, sorted(m for m in sys.modules if "multiprocessing" in m)
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
        """)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_the_report_on_sigterm_says_whether_it_is_armed(tmp_path):
    # What a multiprocessing child arms (_report_on_sigterm) returns whether SIGTERM now writes
    # the report: not over a program's own handler nor over SIGTERM ignored (either stays as it
    # is); armed once the action is the default, and
    # then the report is written before SIGTERM ends the process.
    report = tmp_path / "r.json"
    r = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import os, signal, threading, warmup
        from warmup import _warmup
        signal.signal(signal.SIGTERM, lambda *a: None)
        print(_warmup._report_on_sigterm())
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        print(_warmup._report_on_sigterm())
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        print(_warmup._report_on_sigterm(), _warmup._report_on_sigterm(), flush=True)
        with warmup.region("armed"):
            pass
        os.kill(os.getpid(), signal.SIGTERM)
        threading.Event().wait(60)  # ended by SIGTERM, once the report is written
        """)], capture_output=True, text=True, timeout=60, env=dict(os.environ, WARMUP_REPORT=str(report)))
    assert r.stdout.split() == ["False", "False", "True", "True"] and r.returncode == -15, (r.stdout, r.stderr)
    assert sites_of(report)[1] == {"armed": 1}
