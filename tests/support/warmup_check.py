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


class Checks:
    """Checks that go on after one fails: each printed as it is made, the failures counted at the
    end.

        check = warmup_check.Checks()
        check(rc == 0, "it exits 0")
        sys.exit(check.summary())
    """

    def __init__(self):
        self.failures = []

    def __call__(self, ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            self.failures.append(what)

    def summary(self):
        """Prints how many failed; the exit status: 1 where any did, else 0."""
        print(f"{len(self.failures)} failure(s)" if self.failures else "all passed")
        return 1 if self.failures else 0


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


def host_gpu_count():
    """The NVIDIA GPUs this machine has, asked of the system, never of the code under test: the
    "GPU " lines of `nvidia-smi -L`, or the /dev/nvidiaN device files, whichever are more."""
    listed = 0
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=60).stdout
        listed = sum(line.startswith(b"GPU ") for line in out.splitlines())
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        files = sum(1 for n in os.listdir("/dev") if n.startswith("nvidia") and n[6:].isdigit())
    except OSError:
        files = 0
    return max(listed, files)


def host_has_gpu():
    """Whether this machine has an NVIDIA GPU (host_gpu_count()): a program under test that cannot
    use it has failed; only a host without one may skip."""
    return host_gpu_count() > 0


def gpus_hidden():
    """Whether the runner hid every GPU on purpose: CUDA_VISIBLE_DEVICES set and empty, or -1."""
    v = os.environ.get("CUDA_VISIBLE_DEVICES")
    return v is not None and v.strip() in ("", "-1")


def no_gpu(said):
    """The program under test found no GPU to use (`said`: its own words): skipped where this host
    has none (or the runner hid them), failed where it has one."""
    if gpus_hidden():
        skip(f"GPUs hidden by CUDA_VISIBLE_DEVICES; the program said: {said}")
    n = host_gpu_count()
    if n == 0:
        skip(f"this host has no GPU (nvidia-smi -L, /dev/nvidiaN); the program said: {said}")
    fail(f"this host has {n} GPU{'s' if n != 1 else ''} (nvidia-smi -L, /dev/nvidiaN), but the program "
         f"under test could not use one: {said}")


def skip_without_gpu(proc):
    """Where the program found no GPU (it exits 77, or says "no usable GPU" on stderr, as the
    examples do, which still print what they measured without one): skips on a host without a
    GPU, fails on a host with one (no_gpu()). The reason given is the program's own line about
    the GPU."""
    if proc.returncode == SKIP or "no usable GPU" in proc.stderr:
        said = [line for line in (proc.stdout + "\n" + proc.stderr).splitlines() if "GPU" in line]
        no_gpu(said[-1] if said else f"{shown(proc.args)} exited {SKIP}")


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


def format_duration(ns):
    """A duration as the report's table writes it (detail::format_duration): "950 ns", "1.23 us",
    "12.3 ms", "1.50 s"."""
    a = abs(ns)
    if a < 1e3:
        return "%.0f ns" % ns
    if a < 1e6:
        return ("%.2f us" if a < 1e4 else "%.1f us" if a < 1e5 else "%.0f us") % (ns / 1e3)
    if a < 1e9:
        return ("%.2f ms" if a < 1e7 else "%.1f ms" if a < 1e8 else "%.0f ms") % (ns / 1e6)
    return "%.2f s" % (ns / 1e9)


def check_causes(why, timing, host_clock, table=None, first=True, label="first_call_causes"):
    """What the split of a cold call among causes (a timing's `first_call_causes`, or with
    first=False its `cold_causes`) means, not how it was computed: the causes' times sum to
    `named` exactly; `named` lies within the call (0 <= named <= call: no instant counted twice);
    `excess` is the call over the steady p50 (call - calls x p50); for a first call, `call` is the
    timing's own `first` (and `excess` its `first_call_excess`), exactly on the steady clock, within
    the cycle counter's calibration (0.1% + 1 us) on it. Where the named causes exceed the excess
    (`unattributed` < 0), `table` (the printed report, when given) must say so, with the figure.
    Returns `why`."""
    assert why is not None, f"{label}: no causes"
    causes = why["causes"]
    times = [c["time"] for c in causes]
    # A count of records or samples is at least 1; waiting's is the major page faults meanwhile.
    assert all(isinstance(t, int) and t > 0 and c["count"] >= (0 if c["what"] == "waiting" else 1)
               for t, c in zip(times, causes)), (label, causes)
    assert times == sorted(times, reverse=True), f"{label}: causes not largest first: {times}"
    assert sum(times) == why["named"], f"{label}: the causes' times sum to {sum(times)} ns, not named = {why['named']}: {why}"
    assert 0 <= why["named"] <= why["call"], (
        f"{label}: named {why['named']} ns outside 0..call {why['call']} ns (an instant counted twice?): {why}")
    p50 = timing["steady"]["p50"] if timing["steady"] is not None else 0
    assert why["excess"] == why["call"] - why["calls"] * p50, (
        f"{label}: excess {why['excess']} ns is not call {why['call']} - {why['calls']} x steady p50 {p50}: {why}")
    assert why["unattributed"] == why["excess"] - why["named"], (label, why)
    if first:
        assert why["calls"] == 1, (label, why)
        slack = 0 if host_clock.startswith("steady_clock (") else 1e-3 * timing["first"] + 1000
        assert abs(why["call"] - timing["first"]) <= slack, (
            f"{label}: call {why['call']} ns is not the first call's {timing['first']} ns (host clock: {host_clock})")
        if timing["first_call_excess"] is not None:
            assert abs(why["excess"] - timing["first_call_excess"]) <= slack, (
                f"{label}: excess {why['excess']} ns is not first - steady p50 = {timing['first_call_excess']} ns")
    if table is not None:
        who = "first call" if first else (f"{why['calls']} cold calls" if why["calls"] > 1 else "cold call")
        # "why: first call 12 ms over the steady p50:" then a line a cause and the unattributed
        # rest (or by how much the named causes exceed the excess); without a steady p50 the
        # excess is the whole call; at or under the p50, one line: no excess to explain.
        if timing["steady"] is None:
            head = f"why: {who} {format_duration(why['excess'])}, no steady p50 to compare with"
        elif why["excess"] <= 0:
            under = f" {format_duration(-why['excess'])} under" if why["excess"] < 0 else " at"
            head = f"why: {who}{under} the steady p50: no excess to explain"
        else:
            head = f"why: {who} {format_duration(why['excess'])} over the steady p50:"
        blocks = why_blocks(table, head)
        if why["excess"] <= 0 and timing["steady"] is not None:
            ok, said = bool(blocks), ""
        elif why["unattributed"] < 0:
            said = f"the named causes exceed the excess by {format_duration(-why['unattributed'])}"
            ok = any(said in l for b in blocks for l in b)
        else:
            said = f"unattributed {format_duration(why['unattributed'])}"
            ok = any(" ".join(l.split()).startswith(said) for b in blocks for l in b)
        assert ok, f"{label}: the table has no '{head}' with '{said}' under it: {blocks or 'no why line for it'}"
    return why


def why_blocks(table, head):
    """Each "why:" line of the table that starts with `head`, with the breakdown indented under
    it, as lists of stripped lines."""
    lines = table.splitlines()
    indent = lambda l: len(l) - len(l.lstrip(" "))
    out = []
    for i, l in enumerate(lines):
        if l.strip().startswith(head):
            block = [l.strip()]
            for m in lines[i + 1:]:
                if indent(m) <= indent(l):
                    break
                block.append(m.strip())
            out.append(block)
    return out


def check_site_causes(site, doc, table, label):
    """check_causes() on a site's first call and cold calls, where the report split them."""
    host = site["host"]
    if host["first_call_causes"] is not None:
        check_causes(host["first_call_causes"], host, doc["host_clock"], table, label=f"{label}: first_call_causes")
    if host["cold_causes"] is not None:
        check_causes(host["cold_causes"], host, doc["host_clock"], table, first=False, label=f"{label}: cold_causes")


# JSON numbers that are not integers are written with %.6g (detail::append_json_number): six
# significant digits, within 5e-6 of the value.
JSON_DOUBLE = 1e-5


def check_bandwidth(site):
    """A site's bandwidth figures are its bytes over its time, as the library defines them
    (GB/s: bytes per ns, from the device's timing where the site has one, else the host's):
    first_gbps = bytes.first / first, steady_gbps = bytes.first / steady p50 (equal sizes only),
    mean_gbps = bytes.total / total (every call timed on that clock, total not saturated), each
    within JSON's rounding: a factor of two, or GiB/s written as GB/s (1.074), fails. Allocations
    report bytes and no bandwidth."""
    b = site["bytes"]
    if b is None:
        return
    label = f"{site['op']} {site['name']!r}"
    keys = ("first_gbps", "steady_gbps", "mean_gbps")
    if site["op"] not in ("h2d", "d2h", "d2d"):
        assert b["gbps_clock"] is None and all(b[k] is None for k in keys), f"{label}: bandwidth for no copy: {b}"
        return
    t = site["device"] if site["device"] is not None else site["host"]
    clock = "device" if site["device"] is not None else "host"
    assert b["gbps_clock"] == clock, f"{label}: gbps_clock {b['gbps_clock']}, but its times are the {clock}'s"

    def expect(key, num, den, defined):
        got = b[key]
        if not defined or den <= 0:
            assert got is None, f"{label}: {key} {got}, where the library defines none: {b}"
            return
        want = num / den
        assert got is not None and abs(got - want) <= JSON_DOUBLE * want, (
            f"{label}: {key} {got} is not {num} bytes / {den} ns = {want:.6g} GB/s ({clock} clock)")
    expect("first_gbps", b["first"], t["first"], True)
    expect("steady_gbps", b["first"], t["steady"]["p50"] if t["steady"] else 0, not b["sizes_vary"] and t["steady"] is not None)
    expect("mean_gbps", b["total"], t["total"], not b["total_saturated"] and t["calls"] == site["calls"])


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
