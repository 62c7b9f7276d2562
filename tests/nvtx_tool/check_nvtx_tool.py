"""warmup's NVTX tool (nvtx_tool/, docs/nvtx-tool.md) on programs that include NVTX's headers only:
every range's calls counted exactly, every way NVTX opens one, names with varying parts, the
domain setting, warmup's own domain not counted twice, the next tool handed every call with its
own handles, `warmup-report run`, and every misbehaviour said and survived.

usage: check_nvtx_tool.py TOOL THREAD_SLOT C_PROGRAM CPP_PROGRAM NEXT_CAPTURE SCOPES_PROGRAM WARMUP_REPORT [TEST...]
(the tests named, else every one but test_many_names_bounded: its 100,000 sites' report takes
seconds, and a CTest test of its own runs it beside the others)
"""
import json
import re
import resource
import shlex
import signal
import os
import shutil
import subprocess
import sys
import tempfile

from launcher_checks import check_launcher

TOOL, THREAD_SLOT, C_PROGRAM, CPP_PROGRAM, CAPTURE, SCOPES, REPORT_TOOL = sys.argv[1:8]
WORK = tempfile.mkdtemp(prefix="warmup_nvtx_tool_")


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WARMUP_", "NVTX_", "CUDA_WARMUP_"))}
    env.update(extra)
    return env


LAST_STDOUT = []


def run(program, *args, env=None, report=True, expect=0):
    """Runs `program` under the tool; returns (report, stderr); its stdout in LAST_STDOUT."""
    path = os.path.join(WORK, "report.json")
    if os.path.exists(path):
        os.remove(path)
    e = clean_env(NVTX_INJECTION64_PATH=TOOL, WARMUP_REPORT=path)
    e.update(env or {})
    p = subprocess.run([program, *args], env=e, capture_output=True, text=True, errors="replace", timeout=300)
    assert p.returncode == expect, (program, args, p.returncode, p.stderr[-3000:])
    LAST_STDOUT[:] = [p.stdout]
    if not report:
        return None, p.stderr
    assert os.path.exists(path), f"no report: did NVTX load the tool? {p.stderr[-2000:]}"
    with open(path) as f:
        return json.load(f), p.stderr


def calls(report):
    return {s["name"]: s["calls"] for s in report["sites"]}


def notices(report):
    return "\n".join(report["notices"])


def test_c_ranges():
    r, _ = run(C_PROGRAM, "ranges")
    c = calls(r)
    expected = {
        "c.outer": 3, "c.wide\u00e9": 3, "c.ex": 3,            # push A, W, Ex (a category splits nothing)
        "[NCCL] AllReduce": 4,                                   # a registered string in a domain
        "[wide\u00e9] w.range": 1,                              # a wide domain name, a wide message
        "c.interleaved": 2, "[NCCL] Send": 2,                    # two domains' stacks interleaved
        "aten::addmm, sizes = [[32, 64], [64, 64]]": 4,          # seq, op_id, input_op_ids dropped
        "aten::addmm, sizes = [[16, 64], [64, 64]]": 2,          # a new shape is a new site
        "c.async": 5,                                            # start/end, ended on another thread
        "c.depth0": 1, "c.depth1": 1, "[NCCL] Recv": 1,
        "c.buffer.even": 2, "c.buffer.odd": 2,                   # one buffer, two names in turn
        "thread.churn": 40 * 3 + 8 * 100,                       # threads ended, others after them
    }
    assert c == expected, c
    # Depths as NVTX returns them, each in its own domain: push 0 and 0 across two domains,
    # each pop the depth of the range it ended; nested in one domain, 0 then 1, popped 1 then 0
    # under another domain's range (then popped, 0).
    assert LAST_STDOUT[0].splitlines() == ["depths 0 0 0 0", "depths 0 0 0 0", "depths 0 1 1 0 0"], LAST_STDOUT
    for s in r["sites"]:
        assert s["op"] == "region" and s["device"] is None, s  # host-timed: no device series
        # Each first call probed as a scope's is (host_call: the CPU clock read at both ends).
        h = s["first_call_host"]
        assert h is not None and (s["name"] == "c.async" or h["cpu"] > 0), (s["name"], h)
    assert "on the host: a range's device time is measured with WARMUP_NVTX_DEVICE=on" in notices(r), notices(r)
    async_site = next(s for s in r["sites"] if s["name"] == "c.async")
    assert async_site["host"]["first"] > 0


def test_thread_slot():
    """The tool reads each thread's ranges from the static TLS slot of libwarmup_nvtx_thread.so
    beside it; a tool with no slot library beside it keeps a thread_local (as where dlopen
    refuses the library: the static TLS block full), with the same report."""
    for folder, files, state in (("pair", (TOOL, THREAD_SLOT), "set"), ("alone", (TOOL,), "none")):
        # Copies elsewhere: the slot library is found beside the tool, not through the build's paths.
        there = os.path.join(WORK, folder)
        os.makedirs(there, exist_ok=True)
        for f in files:
            shutil.copy(f, there)
        r, _ = run(C_PROGRAM, "slot", env={"NVTX_INJECTION64_PATH": os.path.join(there, os.path.basename(TOOL))})
        # Main, a thread started after the tool loaded, and one started before it.
        assert LAST_STDOUT[0].splitlines() == ["slot before none", f"slot main {state}", f"slot thread {state}",
                                               f"slot early {state}"], (folder, LAST_STDOUT)
        assert calls(r) == {"slot.range": 3}, (folder, calls(r))


def test_varying_setting():
    r, _ = run(C_PROGRAM, "ranges", env={"WARMUP_NVTX_VARYING": "none"})
    addmm = [n for n in calls(r) if n.startswith("aten::addmm")]
    assert len(addmm) == 6, addmm  # every call its own first call: why the default drops them
    r, _ = run(C_PROGRAM, "ranges", env={"WARMUP_NVTX_VARYING": "seq, op_id, input_op_ids, sizes"})
    assert calls(r)["aten::addmm"] == 6


def test_domain_setting():
    r, _ = run(C_PROGRAM, "ranges", env={"WARMUP_NVTX_DOMAINS": "NCCL"})
    assert calls(r) == {"[NCCL] AllReduce": 4, "[NCCL] Send": 2, "[NCCL] Recv": 1}, calls(r)
    assert "not warmup's NVTX tool" not in notices(r), notices(r)  # the tool is warmup's: nothing to say
    r, _ = run(C_PROGRAM, "ranges", env={"WARMUP_NVTX_DOMAINS": "default"})
    assert "c.outer" in calls(r) and not any(n.startswith("[") for n in calls(r))
    assert "named no domain" not in notices(r), notices(r)


def test_domain_setting_that_keeps_nothing_is_said():
    # A name in the wrong case keeps no range: said, with the domains the program used and the
    # ranges left out (every range of the C program's: 956, those of its threads that ended too).
    r, _ = run(C_PROGRAM, "ranges", env={"WARMUP_NVTX_DOMAINS": "nccl,Default"})
    assert calls(r) == {}, calls(r)
    assert ("WARMUP_NVTX_DOMAINS=nccl,Default named no domain this program used (it used: default, NCCL, "
            "wide\u00e9); 956 ranges left out") in notices(r), notices(r)
    said = "WARMUP_NVTX_DOMAINS=NCCL named no domain this program used (it used: default); {} ranges left out"
    r, _ = run(C_PROGRAM, "one", env={"WARMUP_NVTX_DOMAINS": "NCCL"})  # one range: said too
    assert calls(r) == {} and r["notices"] == [said.format(1)], r["notices"]
    # A forked child's count is its own: its one range, not the parent's two before the fork too.
    r, _ = run(C_PROGRAM, "fork", env={"WARMUP_NVTX_DOMAINS": "NCCL"})
    assert calls(r) == {} and r["notices"] == [said.format(2)], r["notices"]
    with open(os.path.join(WORK, f"report.{child_pid()}.json")) as f:
        child = json.load(f)
    assert calls(child) == {} and child["notices"] == [said.format(1)], child["notices"]


def child_pid():
    """The pid the C program's fork mode printed (its child's report is report.PID.json)."""
    line = LAST_STDOUT[0]
    assert line.startswith("child ") and line.endswith("\n"), line
    return int(line[len("child "):])


def test_registered_string_pushed_in_another_domain():
    # Registered in NCCL, pushed in NCCL, in "other" and in the default domain: each range is the
    # domain's it was pushed in.
    r, _ = run(C_PROGRAM, "cross")
    assert calls(r) == {"[NCCL] Shared": 2, "[other] Shared": 2, "Shared": 2}, calls(r)


def test_every_entry_point_with_its_own_argument():
    # Each NVTX call that opens a range, twice, with the kind of name it takes: narrow, wide,
    # Ex with an ASCII, a Unicode and a registered message (registered narrow or wide), in the
    # default domain and in one of the program's. A wide name read as char* would name the site
    # by its first character ("e", "d"); one read as another call's kind, another site.
    r, _ = run(C_PROGRAM, "entry_points")
    e = "\u00e9"
    names = ["e.push.a", f"e.push.w{e}", "e.push.ex.ascii", f"e.push.ex.unicode{e}", "e.push.ex.registered",
             "e.start.a", f"e.start.w{e}", "e.start.ex.ascii", f"e.start.ex.unicode{e}", f"e.start.ex.registered{e}",
             "[entry] d.push.ascii", f"[entry] d.push.unicode{e}", "[entry] d.push.registered_a",
             f"[entry] d.push.registered_w{e}", "[entry] d.start.ascii", f"[entry] d.start.unicode{e}",
             "[entry] d.start.registered"]
    assert calls(r) == {n: 2 for n in names}, calls(r)
    assert "no range" not in notices(r) and "never" not in notices(r), notices(r)


def test_device_time_asked_where_it_cannot_be_had():
    # WARMUP_NVTX_DEVICE=on needs CUPTI and a GPU (tests/nvtx_tool/check_nvtx_device.py has the
    # GPU's side): without them the ranges are measured all the same, host-timed, and the report
    # says why. A value that is neither on nor off is said (the library's words), never taken for either.
    # On a GPU machine CUPTI starts: the C program launches no GPU work, so no range gets a
    # device time and the notice counts none.
    for value, said in (("on", "WARMUP_NVTX_DEVICE=on, but the NVTX ranges are host-timed: CUPTI did not start"),
                        ("sometimes", "WARMUP_NVTX_DEVICE='sometimes' is not one of 1, on, true, yes, 0, off, false, no (in any "
                                      "case); the ranges' device time stays off")):
        r, _ = run(C_PROGRAM, "ranges", env={"WARMUP_NVTX_DEVICE": value})
        assert calls(r)["c.outer"] == 3, calls(r)
        assert all(s["device"] is None for s in r["sites"]), r["sites"]
        if value == "on" and " 0 push/pop calls device-timed" in notices(r):
            continue  # CUPTI runs here
        assert said in notices(r), notices(r)
        assert "device-timed" not in notices(r), notices(r)


def test_device_setting_takes_every_on_off_spelling():
    # The library's spellings (docs/environment.md), in any case; anything else is said.
    on_said = ("WARMUP_NVTX_DEVICE=on, but the NVTX ranges are host-timed", " push/pop calls device-timed")
    off_said = "on the host: a range's device time is measured with WARMUP_NVTX_DEVICE=on"
    for value in ("1", "on", "ON", "true", "True", "yes", "YES", "0", "off", "Off", "false", "FALSE", "no", "No",
                  "sometimes", "2", "y"):
        r, _ = run(C_PROGRAM, "one", env={"WARMUP_NVTX_DEVICE": value})
        n = notices(r)
        assert calls(r) == {"one.range": 1}, (value, calls(r))
        if value.lower() in ("1", "on", "true", "yes"):
            assert any(said in n for said in on_said) and "is not one of" not in n, (value, n)
        elif value.lower() in ("0", "off", "false", "no"):
            assert off_said in n and "is not one of" not in n, (value, n)
        else:
            assert f"WARMUP_NVTX_DEVICE='{value}' is not one of 1, on, true, yes" in n, (value, n)


def test_ranges_after_the_report_are_counted():
    # In an exit handler registered before the first NVTX call (a push/pop and a start/end) and in
    # a static object's destructor: after the report, so in none; counted, and said at the very end.
    r, err = run(CPP_PROGRAM, "late")
    assert calls(r) == {"late.main": 1, "late.main.start_end": 1}, calls(r)
    assert ("warmup: 3 NVTX ranges ended after the report was written (in exit handlers or static destructors) "
            "and are not in it") in err, err
    # None late: nothing said of them; stderr holds the report's notices and nothing else.
    r, err = run(C_PROGRAM, "one")
    assert r["notices"] and err == "".join(f"warmup: {n}\n" for n in r["notices"]), (err, r["notices"])


def test_cpp_ranges():
    r, _ = run(CPP_PROGRAM, "ranges")
    c = calls(r)
    expected = {
        "cpp.outer": 4, "[mylib] cpp.inner": 4, "[mylib] cpp.registered": 4,
        "[mylib] cpp.categorised": 3, "cpp.unique": 3,
        "cpp.worker": 1000, "cpp.worker.inner": 1000,  # four threads at once
    }
    assert c == expected, c
    assert r["notices"] == ["the first call of 'cpp.unique' ended on a thread other than the one it began on: "
                            "its CPU time, faults and CPU samples are not known",
                            "the NVTX ranges' sites were measured by warmup's NVTX tool, on the host: a range's "
                            "device time is measured with WARMUP_NVTX_DEVICE=on (docs/nvtx-tool.md, \"Device time\")"], r["notices"]


def test_a_push_out_of_memory_returns_its_depth():
    run(CPP_PROGRAM, "oom")
    assert LAST_STDOUT[-1].split() == ["64"], LAST_STDOUT[-1]


def test_fork_inside_a_range():
    r, _ = run(CPP_PROGRAM, "fork")
    # The child's ranges are its own, and it reports none; its exit status says that a thread it
    # started in the memory of the parent's worker (inside "fork.worker") found no range to pop.
    assert calls(r) == {"fork.parent": 1, "fork.worker": 1}, calls(r)


def test_misbehaviour():
    r, err = run(C_PROGRAM, "misbehave")
    c = calls(r)
    # A null message, a string handle NVTX never gave (a heap address, one pointing nowhere).
    assert c["fine"] == 1 and c["(no message)"] == 3, c
    assert c.get("bad\ufffd\ufffd utf8", c.get("bad?? utf8")) == 1, c
    long_names = [n for n in c if n.startswith("xxxx")]
    assert len(long_names) == 1 and len(long_names[0].encode()) <= 4096, [len(n) for n in long_names]
    # Ranges never closed are sites with no calls; the notice says what was left, at exit.
    assert c["never.popped"] == 0 and c["never.ended"] == 0 and c["thread.left_open"] == 0
    n = notices(r)
    assert "an NVTX pop with no range pushed" in n, n  # said once, as it happens; the rest at exit
    assert ("2 pushed and never popped, 1 started and never ended" in n and
            "4 pops with no push, 1 ends of no open range" in n), n
    # The pop of a thread started in an ended one's memory (its thread pointer: glibc reuses it)
    # is one with no push: the ended thread's range stays open, never its call.
    assert "the second thread had the ended thread's memory: yes" in LAST_STDOUT[0], LAST_STDOUT
    assert "cut to its first 4096" in n
    assert "warmup: NVTX ranges the program left unbalanced" in err


def test_a_signal_handler_that_exits():
    r, err = run(C_PROGRAM, "signal", expect=3)
    assert calls(r) == {"signal.done": 1, "signal.open": 0}, calls(r)
    assert "1 pushed and never popped" in notices(r) and "'signal.open'" in notices(r), notices(r)


def test_blocked_calls_are_not_cut_short():
    # CPU sampling on: the ranges' first calls are sampled, and their waits end on time.
    r, _ = run(C_PROGRAM, "blocked", env={"WARMUP_CPU_SAMPLING": "on"})
    assert LAST_STDOUT[0].strip() == "poll 0 sleep 0 elapsed full", LAST_STDOUT
    assert calls(r) == {"blocked.poll": 1, "blocked.sleep": 1}, calls(r)
    assert r["cpu_sampling"] is not None, r["cpu_sampling"]


def test_many_names_bounded():
    r, _ = run(C_PROGRAM, "many", "150000")
    c = calls(r)
    assert len(c) == 100001 and c["distinct.99999"] == 1, len(c)  # the cap, and one site for the rest
    assert c["(names beyond the site cap)"] == 50000, c["(names beyond the site cap)"]
    assert "more than 100000 distinct site names" in notices(r), notices(r)


def test_pushes_never_popped_are_bounded():
    # A million pushes with no pop: each push costs the same (no scan of the stack), the first
    # 65,536 are kept and the rest counted; none is a call.
    r, _ = run(C_PROGRAM, "deep", "1000000")
    assert calls(r) == {"deep": 0}, calls(r)
    n = notices(r)
    assert "999990 pushed and never popped" in n and "934464 pushes past the 65536 open on a thread" in n, n
    # The same on a thread that ends with them open: counted when it ends, those past the depth too.
    r, _ = run(C_PROGRAM, "deep_thread", "70000")
    n = notices(r)
    assert "70000 pushed and never popped" in n and "4464 pushes past the 65536 open on a thread" in n, n
    # Starts never ended: the first 65,536 kept open, the rest counted.
    r, _ = run(C_PROGRAM, "unended", "100000")
    n = notices(r)
    assert "65536 started and never ended" in n and "34464 starts past the 65536 open at once" in n, n


def test_warmup_domain_not_counted_twice():
    out = os.path.join(WORK, "scopes.json")
    _, err = run(SCOPES, out, "--first-us", "100", "--steady-us", "10", "--calls", "30", "--no-io", report=False)
    with open(out) as f:
        r = json.load(f)
    c = calls(r)
    assert c.get("step") == 30 and not any("warmup" in n for n in c), c
    # Two copies of the library in the process (the program's, the tool's): one report at exit.
    p = subprocess.run([SCOPES, out, "--first-us", "10", "--steady-us", "1", "--calls", "5", "--no-io"],
                       env=clean_env(NVTX_INJECTION64_PATH=TOOL, WARMUP_REPORT="stderr"), capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0 and p.stderr.count("warmup report") == 1, p.stderr
    # The library's own ranges are never "left out", whatever domains the setting names.
    at_exit = os.path.join(WORK, "scopes_at_exit.json")
    run(SCOPES, out, "--first-us", "10", "--steady-us", "1", "--calls", "5", "--no-io", report=False,
        env={"WARMUP_NVTX_DOMAINS": "NCCL", "WARMUP_REPORT": at_exit})
    with open(at_exit) as f:
        r = json.load(f)
    assert calls(r).get("step") == 5 and "left out" not in notices(r), notices(r)


def test_next_tool_sees_every_call():
    capture = os.path.join(WORK, "capture.txt")
    r, _ = run(C_PROGRAM, "ranges", env={"WARMUP_NVTX_NEXT": CAPTURE, "NVTX_CAPTURE_FILE": capture})
    assert calls(r)["[NCCL] AllReduce"] == 4
    with open(capture) as f:
        lines = f.read().splitlines()
    assert lines.count("attached |") == 1
    assert lines.count("push NCCL|AllReduce") == 4     # its own domain and string handles
    assert lines.count("push NCCL|Send") == 2 and lines.count("push NCCL|Recv") == 1 and lines.count("pop NCCL|") == 7
    assert lines.count("push |c.outer") == 3 and lines.count("push |c.ex") == 3
    assert lines.count("start |c.async") == 5 and lines.count("end |42") == 5  # its own range ids
    assert lines.count("mark |c.mark") == 1
    assert lines.count("category NCCL|wide collective?") == 1, "a domain's category named in a wide string"
    assert lines.count("resource NCCL|communicator") == 1 and lines.count("resource_destroy |its resource") == 1, \
        "a resource made and destroyed with the next tool's own handles"
    assert lines.count("module CUDA|found") == 1, "a module this tool leaves alone: the program's own table"
    assert not any("WARMUP_NVTX_NEXT" in n for n in r["notices"]), r["notices"]  # attached: nothing to say
    assert sum(l.startswith("push |aten::addmm, seq = ") for l in lines) == 6  # names as the program gave them
    # A wide start handed on, and the next tool's range id given back at its end (4: A and W, twice).
    os.remove(capture)
    run(C_PROGRAM, "entry_points", env={"WARMUP_NVTX_NEXT": CAPTURE, "NVTX_CAPTURE_FILE": capture})
    with open(capture) as f:
        lines = f.read().splitlines()
    assert lines.count("start |e.start.w?") == 2 and lines.count("end |42") == 4, lines
    # A next tool that declines to attach: said, and the ranges still measured.
    r, _ = run(C_PROGRAM, "one", env={"WARMUP_NVTX_NEXT": CAPTURE, "NVTX_CAPTURE_DECLINE": "1"})
    assert calls(r) == {"one.range": 1}, calls(r)
    assert (f"WARMUP_NVTX_NEXT={CAPTURE} declined to attach (its InitializeInjectionNvtx2 returned 0)"
            in r["notices"]), r["notices"]
    # A next tool that cannot be loaded: said, and the ranges still measured.
    r, err = run(C_PROGRAM, "ranges", env={"WARMUP_NVTX_NEXT": os.path.join(WORK, "missing.so")})
    assert calls(r)["c.outer"] == 3 and "could not be loaded" in notices(r), notices(r)
    r, err = run(C_PROGRAM, "ranges", env={"WARMUP_NVTX_NEXT": C_PROGRAM})  # no NVTX tool
    assert calls(r)["c.outer"] == 3 and ("could not be loaded" in notices(r) or "is no NVTX tool" in notices(r))
    # This tool behind itself: refused (its handlers would call themselves), each range counted once.
    r, err = run(C_PROGRAM, "ranges", env={"WARMUP_NVTX_NEXT": TOOL})
    assert calls(r)["c.outer"] == 3 and "is warmup's NVTX tool itself" in notices(r), notices(r)


def test_entry_point_declines_a_missing_table():
    # InitializeInjectionNvtx2 with no export table, or one with no callbacks: 0, nothing read.
    run(C_PROGRAM, "null_table", report=False)
    assert LAST_STDOUT[0] == "no table 0, no callbacks 0\n", LAST_STDOUT


def status_records(folder):
    """{name: text} of the records in `folder`, and the image id they all share."""
    records = {}
    for name in os.listdir(folder):
        with open(os.path.join(folder, name), errors="replace") as f:
            records[name] = f.read()
    images = {name.rsplit(".", 1)[1] for name in records}
    assert len(images) == 1 and all(len(i) == 16 and set(i) <= set("0123456789abcdef") for i in images), records
    return records, images.pop()


def test_status_records():
    # The records a launcher reads (nvtx_tool/run_status.hpp), exactly: "began.PID.IMAGE" at the
    # first range, "report.PID.IMAGE" once the report is written. The command line is
    # /proc/self/cmdline's first 256 bytes, each NUL a space.
    folder = tempfile.mkdtemp(dir=WORK)
    p = subprocess.Popen([C_PROGRAM, "one", "x" * 300], env=clean_env(
        NVTX_INJECTION64_PATH=TOOL, WARMUP_REPORT=os.path.join(WORK, "status.json"), WARMUP_NVTX_STATUS=folder),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert p.wait(timeout=120) == 0
    cmdline = (C_PROGRAM + "\0one\0" + "x" * 300 + "\0").encode()[:256]
    cmdline = cmdline[:-1] if cmdline.endswith(b"\0") else cmdline
    shown = "".join(" " if b == 0 else "?" if b < 0x20 or b == 0x7f else chr(b) for b in cmdline)
    records, image = status_records(folder)
    assert records == {f"began.{p.pid}.{image}": f"pid {p.pid}\nprogram {shown}\n",
                       f"report.{p.pid}.{image}": f"pid {p.pid}\n"}, records
    # Started with its standard input closed: a record may get descriptor 0, and is written.
    folder = tempfile.mkdtemp(dir=WORK)
    p = subprocess.Popen([C_PROGRAM, "one"], env=clean_env(
        NVTX_INJECTION64_PATH=TOOL, WARMUP_REPORT=os.path.join(WORK, "status.json"), WARMUP_NVTX_STATUS=folder),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=lambda: os.close(0))
    assert p.wait(timeout=120) == 0
    records, image = status_records(folder)
    assert sorted(records) == [f"began.{p.pid}.{image}", f"report.{p.pid}.{image}"], records
    # A forked child is a process of its own: its first range recorded again, with its pid and
    # the same image; its report too.
    folder = tempfile.mkdtemp(dir=WORK)
    p = subprocess.Popen([C_PROGRAM, "fork"], env=clean_env(
        NVTX_INJECTION64_PATH=TOOL, WARMUP_REPORT=os.path.join(WORK, "status.json"), WARMUP_NVTX_STATUS=folder),
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    LAST_STDOUT[:] = [p.communicate(timeout=120)[0]]
    assert p.returncode == 0, p.returncode
    child = child_pid()
    records, image = status_records(folder)
    assert records == {f"began.{p.pid}.{image}": f"pid {p.pid}\nprogram {C_PROGRAM} fork\n",
                       f"report.{p.pid}.{image}": f"pid {p.pid}\n",
                       f"began.{child}.{image}": f"pid {child}\nprogram {C_PROGRAM} fork\n",
                       f"report.{child}.{image}": f"pid {child}\n"}, records


def test_not_chosen_is_said():
    out = os.path.join(WORK, "scopes.json")
    e = clean_env(WARMUP_NVTX_DOMAINS="all", NVTX_INJECTION64_PATH=CAPTURE)
    p = subprocess.run([SCOPES, out, "--first-us", "10", "--steady-us", "1", "--calls", "5", "--no-io"],
                       env=e, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    with open(out) as f:
        r = json.load(f)
    assert "not warmup's NVTX tool" in notices(r) and CAPTURE in notices(r), notices(r)
    # No tool at all: said too; and with no WARMUP_NVTX_* setting, nothing is said.
    for env, said in ((clean_env(WARMUP_NVTX_VARYING="iter"), True), (clean_env(), False)):
        p = subprocess.run([SCOPES, out, "--first-us", "10", "--steady-us", "1", "--calls", "5", "--no-io"],
                           env=env, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        with open(out) as f:
            n = notices(json.load(f))
        assert ("NVTX's tool is none, not warmup's NVTX tool" in n) == said, (said, n)


def test_launcher():
    out = os.path.join(WORK, "launched.json")
    p = subprocess.run([REPORT_TOOL, "run", "-o", out, "--", C_PROGRAM, "ranges"], env=clean_env(),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    with open(out) as f:
        assert calls(json.load(f))["c.outer"] == 3
    # Without -o or WARMUP_REPORT: the table on stderr.
    p = subprocess.run([REPORT_TOOL, "run", "--", C_PROGRAM, "ranges"], env=clean_env(),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "c.outer" in p.stderr and "[NCCL] AllReduce" in p.stderr, p.stderr
    # A tool named already is chained, and told; a WARMUP_NVTX_NEXT exported empty names none.
    capture = os.path.join(WORK, "launcher_capture.txt")
    p = subprocess.run([REPORT_TOOL, "run", "-o", out, "--", C_PROGRAM, "ranges"],
                       env=clean_env(NVTX_INJECTION64_PATH=CAPTURE, NVTX_CAPTURE_FILE=capture, WARMUP_NVTX_NEXT=""),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "WARMUP_NVTX_NEXT" in p.stderr, p.stderr
    with open(capture) as f:
        assert f.read().count("push |c.outer") == 3
    # The program's exit status is the command's; a missing program is 127, no program 2.
    p = subprocess.run([REPORT_TOOL, "run", "--", C_PROGRAM, "bad-mode"], env=clean_env(), capture_output=True, text=True)
    assert p.returncode == 2 and "usage" in p.stderr
    # A program that cannot start leaves no folder of the run's behind in TMPDIR.
    tmp = os.path.join(WORK, "launcher_tmp")
    os.makedirs(tmp, exist_ok=True)
    p = subprocess.run([REPORT_TOOL, "run", "--", os.path.join(WORK, "no-such-program")], env=clean_env(TMPDIR=tmp),
                       capture_output=True, text=True)
    assert p.returncode == 127 and "cannot start" in p.stderr, p.stderr
    assert os.listdir(tmp) == [], os.listdir(tmp)
    # A TMPDIR where no folder can be made: the program runs, without a status folder named.
    p = subprocess.run([REPORT_TOOL, "run", "--", "/usr/bin/env"], env=clean_env(TMPDIR=os.path.join(WORK, "no-such-dir")),
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "NVTX_INJECTION64_PATH=" in p.stdout, p.stderr
    assert "WARMUP_NVTX_STATUS" not in p.stdout, p.stdout
    p = subprocess.run([REPORT_TOOL, "run"], env=clean_env(), capture_output=True, text=True)
    assert p.returncode == 2 and "run needs a program" in p.stderr
    p = subprocess.run([REPORT_TOOL, "run", "-o", out], env=clean_env(), capture_output=True, text=True)
    assert p.returncode == 2 and "run needs a program" in p.stderr, p.stderr  # -o has its value
    # The program starts with the signal mask the launcher was given (its own waits blocked
    # signals while it waits, not for the program): SIGUSR1 blocked stays blocked, no more.
    p = subprocess.run([REPORT_TOOL, "run", "--", "/bin/grep", "^SigBlk", "/proc/self/status"], env=clean_env(),
                       capture_output=True, text=True, timeout=60,
                       preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_SETMASK, {signal.SIGUSR1}))
    assert p.returncode == 0 and int(p.stdout.split()[1], 16) == 1 << (signal.SIGUSR1 - 1), p.stdout
    # Many processes and few descriptors: each record is read and closed, so every process that
    # ended without its report is named with its own pid.
    tmp = os.path.join(WORK, "launcher_many")
    os.makedirs(tmp, exist_ok=True)
    loop = f"for i in $(seq 40); do {shlex.quote(C_PROGRAM)} exec >/dev/null || exit 1; done"
    p = subprocess.run([REPORT_TOOL, "run", "-o", out, "--", "/bin/sh", "-c", loop], env=clean_env(TMPDIR=tmp),
                       capture_output=True, text=True, timeout=120,
                       preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (32, 32)))
    named = re.findall(r"process (\d+) \(\S+ exec\) made NVTX ranges and ended without writing its report", p.stderr)
    assert p.returncode == 0 and len(set(named)) == 40 and "0" not in named, (len(set(named)), p.stderr[-2000:])
    # A build tree copied whole elsewhere (a bundle for another machine): the tool is found where
    # the tree puts it beside the program, not at the path the build made it.
    tree = os.path.join(WORK, "copied_tree")
    copied_tool = os.path.join(tree, os.path.relpath(TOOL, os.path.dirname(REPORT_TOOL)))
    os.makedirs(os.path.dirname(copied_tool), exist_ok=True)
    shutil.copy2(REPORT_TOOL, os.path.join(tree, "warmup-report"))
    shutil.copy2(TOOL, copied_tool)
    p = subprocess.run([os.path.join(tree, "warmup-report"), "run", "--", "/usr/bin/env"], env=clean_env(),
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert f"NVTX_INJECTION64_PATH={os.path.realpath(copied_tool)}\n" in p.stdout, p.stdout


def test_launcher_says_what_became_of_each_report():
    check_launcher([REPORT_TOOL, "run"], "warmup-report: run: ", C_PROGRAM, WORK, clean_env)


if __name__ == "__main__":
    failed = 0
    chosen = sys.argv[8:] or [n for n in globals() if n.startswith("test_") and n != "test_many_names_bounded"]
    for name in chosen:
        try:
            globals()[name]()
            print("ok  ", name)
        except AssertionError as e:
            failed += 1
            print("FAIL", name, str(e)[:3000])
    sys.exit(1 if failed else 0)
