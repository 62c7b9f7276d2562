"""What the check scripts share: running the program under test, skipping where it cannot run
here, failing with a message that says what went wrong, and reading its report.

A check imports this by its own path, so that it runs from any folder (CTest runs it with an
absolute path, .ci/gpu-run from the repository root):

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
    import warmup_check
"""
import json
import os
import shutil
import subprocess
import sys

# CTest counts this exit status as skipped (SKIP_RETURN_CODE); .ci/gpu-run lets only multi-GPU
# tests return it.
SKIP = 77


def skip(reason):
    """Ends the check as skipped, saying why: a skip is never a pass."""
    print(f"skipped: {reason}", flush=True)
    sys.exit(SKIP)


def fail(message):
    """Ends the check as failed, with the message on stderr."""
    sys.stdout.flush()
    sys.exit(f"FAIL: {message}")


def environment(changes=None):
    """This process's environment with `changes` applied; a value of None removes the variable,
    so that a setting of the caller's cannot leak into the run."""
    env = dict(os.environ)
    for name, value in (changes or {}).items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def run(command, env=None, timeout=None, echo=False):
    """Runs `command` (a list) with the environment changes `env`; returns the CompletedProcess,
    its output read as UTF-8 as it came, line ends included (a CSV field may hold a lone CR).
    Output that is not UTF-8 fails: every output of the library must be UTF-8. `echo` copies the
    output to this script's, so that CTest's log and gpu-run's keep it."""
    try:
        proc = subprocess.run([str(c) for c in command], env=environment(env), capture_output=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        fail(f"{shown(command)} did not finish in {timeout} s")
    try:
        proc.stdout, proc.stderr = proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")
    except UnicodeDecodeError as e:
        fail(f"{shown(command)} wrote output that is not UTF-8: {e}")
    if echo:
        sys.stdout.write(proc.stdout)
        sys.stderr.write(proc.stderr)
        sys.stdout.flush()
    return proc


def expect_exit(proc, code=0):
    """Fails unless the run ended with `code`, showing all it said (a compiler's first error
    comes first; CTest and CMake say why on stdout)."""
    if proc.returncode != code:
        fail(f"{shown(proc.args)} exited {proc.returncode}, not {code}\n"
             f"--- stdout\n{proc.stdout}--- stderr\n{proc.stderr}")
    return proc


def run_ok(command, **how):
    """run(), failing unless the program exits 0."""
    return expect_exit(run(command, **how))


def skip_without_gpu(proc):
    """Skips where the program found no GPU: it exits 77, or says "no usable GPU" on stderr (the
    examples, which still print what they measured without one). The reason given is the
    program's own line about the GPU."""
    if proc.returncode == SKIP or "no usable GPU" in proc.stderr:
        said = [line for line in (proc.stdout + "\n" + proc.stderr).splitlines() if "GPU" in line]
        skip(said[-1] if said else f"{shown(proc.args)} exited {SKIP}")


def load_report(path):
    """A JSON report (or trace) written to a file."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def last_line_report(stdout):
    """The JSON report a program prints as the last line of its output."""
    return json.loads(stdout.rstrip("\n").split("\n")[-1])


def sites_by_key(doc):
    """A report's sites by (op, name)."""
    return {(s["op"], s["name"]): s for s in doc["sites"]}


def keep(path):
    """Copies a file the check made into $CHECK_KEEP_DIR where that is set (.ci/gpu-run sets it
    to its log folder), so that a GPU run's reports come back with its logs."""
    folder = os.environ.get("CHECK_KEEP_DIR")
    if folder:
        os.makedirs(folder, exist_ok=True)
        shutil.copy(path, folder)


def shown(command):
    return " ".join(str(c) for c in command)


if __name__ == "__main__":
    # CMake's stand-in for a test that cannot be built here: `warmup_check.py skip REASON`.
    if sys.argv[1:2] != ["skip"] or len(sys.argv) != 3:
        fail(f"usage: {sys.argv[0]} skip REASON")
    skip(sys.argv[2])
