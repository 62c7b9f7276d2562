"""What a launcher of the NVTX tool promises (docs/nvtx-tool.md, "What the launcher says"), checked of
either: `warmup-report run` (check_nvtx_tool.py) and `python -m warmup run`
(tests/python/test_nvtx_run.py). The program is the tool's C test program (c_program.c).

    check_launcher([REPORT_TOOL, "run"], "warmup-report: run: ", C_PROGRAM, work, clean_env)
"""
import json
import os
import signal
import subprocess
import tempfile


def check_launcher(command, prefix, program, work, clean_env):
    """Runs every check; `clean_env(**extra)` gives the environment with no setting of warmup's."""

    def launched(*args, env=None):
        # A TMPDIR of its own, checked empty after: the records' folder is removed.
        tmp = tempfile.mkdtemp(dir=work)
        p = subprocess.run([*command, *args], env=clean_env(TMPDIR=tmp, **(env or {})), capture_output=True,
                           text=True, errors="replace", timeout=120)
        assert os.listdir(tmp) == [], (args, os.listdir(tmp))
        return p

    def calls(path):
        with open(path) as f:
            return {s["name"]: s["calls"] for s in json.load(f)["sites"]}

    out = os.path.join(work, "launched.json")
    # Ranges, then exec: the process is named, with what ended it.
    p = launched("-o", out, "--", program, "exec")
    assert p.returncode == 0, p.stderr
    assert f"{prefix}process " in p.stderr, p.stderr
    assert (f"({program} exec) made NVTX ranges and ended without writing its report (it called exec or _exit, or "
            "a signal ended it): its ranges are in no report") in p.stderr, p.stderr
    # NVTX_INJECTION64_PATH replaced by the program before its first NVTX call.
    p = launched("-o", out, "--", program, "replace")
    assert p.returncode == 0, p.stderr
    assert (f"{prefix}no report from {program} replace: none of its processes made an NVTX range under warmup's "
            "NVTX tool (it made no NVTX call, or it set NVTX_INJECTION64_PATH itself") in p.stderr, p.stderr
    # A run with its report says nothing more.
    p = launched("-o", out, "--", program, "one")
    assert p.returncode == 0 and prefix not in p.stderr and calls(out) == {"one.range": 1}, p.stderr
    # The program's end is the launcher's: an exit status; a signal (and the process it ended named).
    p = launched("-o", out, "--", program, "exit", "3")
    assert p.returncode == 3 and prefix not in p.stderr, (p.returncode, p.stderr)
    p = launched("-o", out, "--", program, "kill")
    assert p.returncode == -signal.SIGTERM, (p.returncode, p.stderr)
    assert f"({program} kill) made NVTX ranges and ended without writing its report (it was ended by signal 15 " in p.stderr
    # A signal sent to the launcher reaches the program, whose handler exits 5 (after its report).
    tmp = tempfile.mkdtemp(dir=work)
    w = subprocess.Popen([*command, "-o", out, "--", program, "wait"], env=clean_env(TMPDIR=tmp),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert w.stdout.readline() == "ready\n"
        w.send_signal(signal.SIGTERM)
        assert w.wait(timeout=30) == 5, w.stderr.read()
    finally:
        w.kill()
        w.wait()
        w.stdout.close()
        w.stderr.close()
    assert os.listdir(tmp) == [] and calls(out) == {"wait.range": 1}
    # -o with no value, or an empty one: bad usage, said, and the program never runs.
    for args, said in ((["-o"], "-o needs a value"), (["-o", "--", program, "one"], "-o needs a value"),
                       (["-o", "", "--", program, "one"], "-o's value is empty")):
        p = launched(*args)
        assert p.returncode == 2 and f"{prefix}{said}" in p.stderr, (args, p.returncode, p.stderr)
        assert "one.range" not in p.stderr, p.stderr
    # The user's own WARMUP_REPORT is kept where -o is not given.
    own = os.path.join(work, "own.json")
    p = launched("--", program, "one", env={"WARMUP_REPORT": own})
    assert p.returncode == 0 and "one.range" not in p.stderr, p.stderr
    assert calls(own) == {"one.range": 1}
