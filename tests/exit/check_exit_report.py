#!/usr/bin/env python3
"""The report at exit, chosen by WARMUP_REPORT: every format, several at once, bad values and
unwritable paths, and the program's exit status never changed.

usage: check_exit_report.py PROGRAM
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check

program = sys.argv[1]
failures = []


def run(report, how="return", code=0, extra_env=None):
    """Runs the program with WARMUP_REPORT=report (None: unset); returns (status, stdout, stderr)."""
    p = warmup_check.run([program, how, str(code)], env={**(extra_env or {}), "WARMUP_REPORT": report}, timeout=60)
    return p.returncode, p.stdout, p.stderr


def schema_of(path):
    """The JSON report's schema at `path`, or why there is none."""
    try:
        return json.loads(open(path, encoding="utf-8").read())["schema"]
    except (OSError, ValueError, KeyError) as e:
        return f"no report: {e!r}"


def check(name, condition, detail=""):
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else f": {detail}"))
    if not condition:
        failures.append(name)


with tempfile.TemporaryDirectory() as tmp:
    rc, out, err = run(None, code=5)
    check("no WARMUP_REPORT: no report, status kept", rc == 5 and "warmup report" not in out + err, (rc, err))

    rc, out, err = run("stderr", code=3)
    check("stderr: the table on stderr, status kept", rc == 3 and "exit.step" in err and "warmup report" in err, (rc, err))

    rc, out, err = run("stdout")
    check("stdout: the table on stdout", rc == 0 and "exit.step" in out, out)

    paths = {f: os.path.join(tmp, "r" + f) for f in (".txt", ".json", ".csv", ".trace.json", ".svg")}
    rc, out, err = run(",".join(paths.values()), how="exit", code=7)
    check("files: std::exit keeps its status", rc == 7, rc)
    for ext, path in paths.items():
        check(f"files: {ext} written", os.path.exists(path), os.listdir(tmp))
    if all(os.path.exists(p) for p in paths.values()):
        doc = warmup_check.load_report(paths[".json"])
        steps = [s for s in doc["sites"] if s["name"] == "exit.step"]
        check("files: .json holds every call", steps and steps[0]["calls"] == 20, steps)
        rows = list(csv.reader(io.StringIO(open(paths[".csv"], encoding="utf-8", newline="").read())))
        check("files: .csv has a header and a row per site", rows[0][0] == "name" and len(rows) == 3, rows[:1])
        trace = warmup_check.load_report(paths[".trace.json"])
        check("files: .trace.json has events", any(e.get("ph") == "X" for e in trace["traceEvents"]))
        ET.parse(paths[".svg"])
        check("files: .svg is XML", True)
        check("files: .txt is the table", "exit.step" in open(paths[".txt"], encoding="utf-8").read())
        check("files: no temporary file left", not [f for f in os.listdir(tmp) if ".tmp" in f], os.listdir(tmp))

    rc, out, err = run("bogus", code=4)
    check("unknown value: one clear message, no crash, status kept",
          rc == 4 and err.count("warmup: WARMUP_REPORT") == 1 and "'bogus'" in err, (rc, err))

    typo = os.path.join(tmp, "report.jsn")
    rc, out, err = run(typo, code=0)
    check("a typo is said at start-up, and the table goes to stderr at exit",
          err.startswith("warmup: WARMUP_REPORT") and "at exit the table goes to stderr" in err and "exit.step" in err
          and not os.path.exists(typo), err)
    upper = os.path.join(tmp, "report.JSON")
    rc, out, err = run(upper)
    check("an extension in capitals is understood",
          rc == 0 and warmup_check.load_report(upper)["schema"] == "warmup.report/3", err)
    rc, out, err = run(" ,,, ", code=0)
    check("a list that names nothing is said, and the table goes to stderr",
          "names no destination" in err and "exit.step" in err, err)
    rc, out, err = run("/dev/stdout:json")
    check("/dev/stdout with a format: JSON on stdout (a pipe here)",
          rc == 0 and json.loads(out)["schema"] == "warmup.report/3", (rc, out[:200], err))
    # As the shell's > does: /dev/stdout and /dev/fd/N written where they point (a file here;
    # root may rename over /dev/stdout, and must not), a link written through, /dev unchanged.
    dev_before = sorted((e, os.lstat("/dev/" + e).st_mode, os.lstat("/dev/" + e).st_ino) for e in os.listdir("/dev"))
    shell = lambda line, env: subprocess.run(["sh", "-c", line], env={**os.environ, **env}, capture_output=True,
                                              timeout=60)
    to_file = os.path.join(tmp, "x.json")
    p = shell(f"'{program}' > '{to_file}'", {"WARMUP_REPORT": "/dev/stdout:json"})
    check("/dev/stdout redirected to a file: the report in the file",
          p.returncode == 0 and schema_of(to_file) == "warmup.report/3",
          (p.returncode, p.stderr[-300:]))
    fd3 = os.path.join(tmp, "out.csv")
    p = shell(f"'{program}' 3> '{fd3}'", {"WARMUP_REPORT": "/dev/fd/3:csv"})
    check("/dev/fd/3 redirected to a file: the CSV in the file",
          p.returncode == 0 and open(fd3, encoding="utf-8").read().startswith("name,op,calls"), p.stderr[-300:])
    real = os.path.join(tmp, "elsewhere", "real.json")
    os.mkdir(os.path.dirname(real))
    link = os.path.join(tmp, "link.json")
    os.symlink(real, link)
    rc, out, err = run(link)
    check("a link: written through to its target, the link kept",
          os.path.islink(link) and schema_of(real) == "warmup.report/3", err)
    dev_after = sorted((e, os.lstat("/dev/" + e).st_mode, os.lstat("/dev/" + e).st_ino) for e in os.listdir("/dev"))
    check("/dev unchanged by reports written to /dev/stdout and /dev/fd/3", dev_before == dev_after,
          set(dev_before) ^ set(dev_after))
    # Two programs given one path at once: both reports kept, the later beside the first, said.
    shared = os.path.join(tmp, "shared.json")
    procs = [subprocess.Popen([program, "gate", "0"], env={**os.environ, "WARMUP_REPORT": shared},
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    ready = [pr.stdout.readline() for pr in procs]  # both running: neither has written yet
    said = [pr.communicate(timeout=60)[1].decode() for pr in procs]
    kept = sorted(f for f in os.listdir(tmp) if f.startswith("shared."))
    pids = sorted(json.loads(open(os.path.join(tmp, f), encoding="utf-8").read())["identity"]["pid"] for f in kept)
    check("two programs, one path: both reports kept",
          ready == [b"ready\n"] * 2 and pids == sorted(pr.pid for pr in procs), (ready, kept, pids))
    check("two programs, one path: the later one says where its report went",
          sum("another process wrote" in e for e in said) == 1, said)
    fifo = os.path.join(tmp, "nobody-reads")
    os.mkfifo(fifo)
    rc, out, err = run(fifo + ":csv", code=3)
    check("a FIFO nobody reads: no hang, a message, the table on stderr", rc == 3 and fifo in err and "exit.step" in err,
          (rc, err))
    long_name = os.path.join(tmp, "r" * 250 + ".txt")  # 254 bytes: a legal name
    rc, out, err = run(long_name)
    check("a legal 254-byte file name is written", os.path.exists(long_name), err)

    bad = "/nonexistent-dir/report.json"
    rc, out, err = run(bad, code=2)
    check("unwritable path: named with its reason, table on stderr, status kept",
          rc == 2 and bad in err and "No such file or directory" in err and "exit.step" in err, (rc, err))

    taken = os.path.join(tmp, "taken.json")
    os.mkdir(taken)
    rc, out, err = run(taken + ",stdout", code=0)
    check("a directory in the way: message, the other destinations still written",
          rc == 0 and taken in err and "exit.step" in out and os.path.isdir(taken), (rc, err))

    old = os.path.join(tmp, "old.json")
    open(old, "w").write("previous report")
    # An earlier run's: dated a second back (one written within a tick of the kernel's file clock
    # before the start counts as this run's, and is kept: docs/behaviour.md).
    os.utime(old, (time.time() - 1, time.time() - 1))
    rc, out, err = run(old)
    check("an existing report is replaced whole", warmup_check.load_report(old)["schema"] == "warmup.report/3")

    rc, out, err = run("stderr", how="quick_exit", code=6)
    check("std::quick_exit: status kept, no report (exit handlers do not run)", rc == 6 and "warmup report" not in err,
          (rc, err))

    rc, out, err = run("stderr", how="now_quick", code=6)
    check("write_report_at_exit_now, then std::quick_exit: the report all the same", rc == 6 and
          err.count("warmup report") == 1 and "exit.step" in err, (rc, err))
    rc, out, err = run("stderr", how="now", code=5)
    check("write_report_at_exit_now, then exit: one report, not two", rc == 5 and err.count("warmup report") == 1,
          (rc, err))

    inside = os.path.join(tmp, "inside.json")
    rc, out, err = run(inside, how="exit_inside", code=8)
    check("exit from inside the library: status kept, no report, and why",
          rc == 8 and not os.path.exists(inside) and "no report at exit: the program exited from inside the library" in err,
          (rc, err))

    # fork: the child's report goes beside the parent's (its pid in the name), each whole.
    forked = os.path.join(tmp, "forked.json")
    rc, out, err = run(forked + "," + os.path.join(tmp, "forked.trace.json"), how="fork", code=9)
    child_pid = out.strip()
    check("fork: the parent's status kept", rc == 9, (rc, err))
    parent = warmup_check.load_report(forked)
    names = {s["name"]: s["calls"] for s in parent["sites"]}
    check("fork: the parent's report holds its calls, not the child's",
          names.get("exit.step") == 20 and "exit.child" not in names, names)
    child_path = os.path.join(tmp, f"forked.{child_pid}.json")
    child_trace = os.path.join(tmp, f"forked.{child_pid}.trace.json")
    ok = child_pid.isdigit() and os.path.exists(child_path) and os.path.exists(child_trace)
    check("fork: the child writes its own files, named with its pid", ok, (child_pid, sorted(os.listdir(tmp))))
    if ok:
        child = {s["name"]: s["calls"] for s in warmup_check.load_report(child_path)["sites"]}
        check("fork: the child's report starts clean", child.get("exit.child") == 3 and child.get("exit.step", 0) == 0,
              child)
        warmup_check.load_report(child_trace)

    # Garbage in every WARMUP_* variable: one message each, the defaults kept, status unchanged.
    garbage = {"WARMUP_ENABLE": "perhaps", "WARMUP_DEVICE_SAMPLING": "sometimes", "WARMUP_IDLE_MS": "-1",
               "WARMUP_TIMELINE_CALLS": "lots", "WARMUP_REPROT": "x"}
    path = os.path.join(tmp, "garbage.json")
    rc, out, err = run(path, code=11, extra_env=garbage)
    check("garbage variables: status kept", rc == 11, (rc, err))
    for name in garbage:
        line = f"warmup: unknown variable {name}" if name == "WARMUP_REPROT" else f"warmup: {name}="
        check(f"garbage variables: one message for {name}", err.count(line) == 1, err)
    doc = warmup_check.load_report(path)
    steps = [s for s in doc["sites"] if s["name"] == "exit.step"]
    check("garbage variables: still measuring (WARMUP_ENABLE kept on)", steps and steps[0]["calls"] == 20, steps)
    rc, out, err = run(os.path.join(tmp, "off.json"), code=0, extra_env={"WARMUP_ENABLE": "0"})
    off = warmup_check.load_report(os.path.join(tmp, "off.json"))
    check("WARMUP_ENABLE=0: nothing measured", all(s["calls"] == 0 for s in off["sites"]), off["sites"])

if failures:
    warmup_check.fail(f"{len(failures)} checks failed")
print("all exit-report checks passed")
