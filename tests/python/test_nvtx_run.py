"""`python -m warmup run` (docs/nvtx-tool.md): a program that knows nothing of warmup, run under the
package's own copy of the NVTX tool, reports its NVTX ranges. The program is the NVTX tool's C
test program (tests/nvtx_tool/c_program.c), named by CTest in NVTX_TEST_PROGRAM."""
import json
import os
import subprocess
import sys

import pytest
import warmup

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nvtx_tool"))
from launcher_checks import check_launcher  # noqa: E402

PROGRAM = os.environ.get("NVTX_TEST_PROGRAM")


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WARMUP_", "NVTX_INJECTION"))}
    env.update(extra)
    return env


def launch(*args, env=None):
    return subprocess.run([sys.executable, "-m", "warmup", *args], capture_output=True, text=True, timeout=120,
                          env=env or clean_env())


def test_the_package_carries_the_tool():
    path = warmup.nvtx_tool_path()
    assert path is not None and os.path.basename(path) == "libwarmup_nvtx.so", path
    # and its thread slot beside it, which the tool loads from its own folder (docs/nvtx-tool.md, "Cost")
    assert os.path.exists(os.path.join(os.path.dirname(path), "libwarmup_nvtx_thread.so")), os.listdir(os.path.dirname(path))


@pytest.mark.skipif(PROGRAM is None, reason="NVTX_TEST_PROGRAM is set by CTest's `python` test")
def test_run_reports_the_programs_ranges(tmp_path):
    report = tmp_path / "report.json"
    r = launch("run", "-o", str(report), "--", PROGRAM, "ranges")
    assert r.returncode == 0, r.stderr
    calls = {s["name"]: s["calls"] for s in json.loads(report.read_text())["sites"]}
    assert calls["c.outer"] == 3 and calls["[NCCL] AllReduce"] == 4, calls
    # The package's tool reads its threads' ranges from the slot library it carries.
    r = launch("run", "-o", str(report), "--", PROGRAM, "slot")
    assert r.returncode == 0 and r.stdout.splitlines()[1:] == ["slot main set", "slot thread set", "slot early set"], r.stdout
    # No -o and no WARMUP_REPORT: the table on stderr; the program's exit status is the command's.
    r = launch("run", "--", PROGRAM, "ranges")
    assert r.returncode == 0 and "c.outer" in r.stderr, r.stderr
    r = launch("run", "--", PROGRAM, "no-such-mode")
    assert r.returncode == 2 and "usage" in r.stderr
    # The launcher starts no runtime of its own: a setting is read once, by the program's.
    r = launch("run", "--", PROGRAM, "ranges", env=clean_env(WARMUP_NO_SUCH_SETTING="1"))
    assert r.returncode == 0 and r.stderr.count("unknown variable WARMUP_NO_SUCH_SETTING") == 1, r.stderr


def test_run_says_what_is_wrong(tmp_path):
    r = launch("run")
    assert r.returncode == 2 and "run needs a program" in r.stderr
    r = launch("run", "-o", str(tmp_path / "r.json"))  # -o has its value: the program is what is missing
    assert r.returncode == 2 and "run needs a program" in r.stderr, r.stderr
    r = launch("run", "--", str(tmp_path / "missing"))
    assert r.returncode == 127 and "cannot start" in r.stderr, r.stderr
    r = launch("walk")
    assert r.returncode == 2 and "usage" in r.stderr


@pytest.mark.skipif(PROGRAM is None, reason="NVTX_TEST_PROGRAM is set by CTest's `python` test")
def test_run_says_what_became_of_each_report(tmp_path):
    # The launcher's promises, checked as for `warmup-report run` (tests/nvtx_tool/launcher_checks.py).
    check_launcher([sys.executable, "-m", "warmup", "run"], "warmup: run: ", PROGRAM, str(tmp_path), clean_env)


@pytest.mark.parametrize("how", [["-mwarmup"], ["-Bm", "warmup"], ["-Xdev", "-Bmwarmup"]])
def test_every_way_of_writing_dash_m_launches_with_no_runtime(tmp_path, how):
    # However Python's options are written, the package launches before its native module loads:
    # the launcher writes no report of its own (it would be written over the program's).
    report = tmp_path / "launcher.json"
    r = subprocess.run([sys.executable, *how, "run"], capture_output=True, text=True, timeout=60,
                       env=clean_env(WARMUP_REPORT=str(report)))
    assert r.returncode == 2 and "run needs a program" in r.stderr, r.stderr
    assert not report.exists()


def test_main_launches_only_as_main():
    # Run as __main__ by other means than `python -m warmup` (runpy; a Python before 3.10, which
    # has no sys.orig_argv), the package's __main__ launches; imported, it does nothing.
    r = subprocess.run([sys.executable, "-c", "import runpy, sys; sys.argv = ['warmup', 'run']; "
                        "runpy.run_module('warmup', run_name='__main__')"],
                       capture_output=True, text=True, timeout=60, env=clean_env())
    assert r.returncode == 2 and "run needs a program" in r.stderr, r.stderr
    r = subprocess.run([sys.executable, "-c", "import warmup.__main__; print('imported')"],
                       capture_output=True, text=True, timeout=60, env=clean_env())
    assert r.returncode == 0 and r.stdout == "imported\n", r.stderr
