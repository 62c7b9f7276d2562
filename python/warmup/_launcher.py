"""`python -m warmup run [-o REPORT] -- PROGRAM [ARGS...]`: PROGRAM under warmup's NVTX tool, with
no change to it (docs/nvtx-tool.md). Each NVTX range it opens (PyTorch's `emit_nvtx` and
`torch.cuda.nvtx.range`, a library's own) becomes a site of the report written at its exit:
`-o`'s value as WARMUP_REPORT takes it, else WARMUP_REPORT's, else the table on stderr.

    python -m warmup run -o report.json -- python train.py

`python -m warmup try -- PROGRAM [ARGS...]` is warmup-report's `try` (docs/try.md): the program run
cold, then with each remedy that needs no code change, each enough times to tell its effect from
noise.

The tool is the package's own copy of libwarmup_nvtx.so. An NVTX tool named already in
NVTX_INJECTION64_PATH (Nsight's, a capture) gets every call through it (WARMUP_NVTX_NEXT).
PROGRAM runs as a child: SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to the launcher by a process are
passed on to it (a terminal's reach it by themselves), and the launcher exits as PROGRAM does (a
signal that ends it ends the launcher too); 127 where it cannot be found, 2 on bad usage. Once it
has ended, the launcher says which of its processes made NVTX ranges and wrote no report (an
exec, _exit, a signal), from the tool's records in a private folder (WARMUP_NVTX_STATUS), or that
none made a range under the tool (docs/nvtx-tool.md, "What the launcher says").

Pure Python: the package's __init__ runs it before loading its native module when Python was
started as `python -m warmup`, so that the launcher starts no runtime of its own (no settings
read, no NVTX or CUPTI loaded): what it measures is the program's.
"""
import os
import resource
import shutil
import signal
import sys
import tempfile

USAGE = ("usage: python -m warmup run [-o REPORT] -- PROGRAM [ARGS...]\n"
         "       python -m warmup try [--runs N] [--remedy NAME]... [--all] [--env NAME=VALUE]... [--drop-caches]\n"
         "                            [-o FILE.json|FILE.txt]... -- PROGRAM [ARGS...]\n"
         "       python -m warmup --cmake-dir | --include-dir | --prefix")
HERE = os.path.dirname(os.path.abspath(__file__))
# What a wheel carries beside the Python (tools/packaging/warmup_build.py): the C++ install with
# the package folder as its prefix.
FOLDERS = {"--prefix": "", "--cmake-dir": os.path.join("lib", "cmake", "warmup"), "--include-dir": "include"}


def tool_path():
    """The package's copy of libwarmup_nvtx.so, or None: in its lib/ (a wheel's, first: an install
    made before the wheel left one beside the package), or beside the package (a build folder's)."""
    for path in (os.path.join(HERE, "lib", "libwarmup_nvtx.so"), os.path.join(HERE, "libwarmup_nvtx.so")):
        if os.path.exists(path):
            return path
    return None


def folder(option):
    """Prints the installed package's folder that `option` names (--cmake-dir: warmupConfig.cmake's,
    for -Dwarmup_DIR=; --prefix: for CMAKE_PREFIX_PATH; --include-dir: the headers'), as pybind11's
    --cmakedir does; 1 where this package has no C++ install (a build folder's copy)."""
    path = os.path.join(HERE, FOLDERS[option]) if FOLDERS[option] else HERE
    if not os.path.exists(os.path.join(HERE, FOLDERS["--cmake-dir"], "warmupConfig.cmake")):
        print(f"warmup: {option}: this copy of the package ({HERE}) carries no C++ headers or CMake package; "
              "they come with the wheel (pip install --no-build-isolation .)", file=sys.stderr)
        return 1
    print(path)
    return 0


def report_tool():
    """The console script `warmup-report`: runs the wheel's program (warmup/bin/warmup-report)."""
    program = os.path.join(HERE, "bin", "warmup-report")
    try:
        os.execv(program, [program, *sys.argv[1:]])
    except OSError as e:
        print(f"warmup-report: cannot run {program}: {e.strerror}", file=sys.stderr)
        return 127


def report_program():
    """The warmup-report program: the wheel's (warmup/bin/warmup-report), else the first on PATH (a
    build folder's, an install's), or None."""
    program = os.path.join(HERE, "bin", "warmup-report")
    if os.access(program, os.X_OK):
        return program
    return shutil.which("warmup-report")


def try_remedies(args):
    """`python -m warmup try ...`: warmup-report's `try` (docs/try.md), which runs the program cold
    and with each remedy that needs no code, and says what each did; exits as it does."""
    program = report_program()
    if program is None:
        print("warmup: try: no warmup-report program (the wheel's warmup/bin/warmup-report, or one on PATH); "
              "build it with -DWARMUP_BUILD_TOOLS=ON (pip install . does)", file=sys.stderr)
        return 2
    try:
        os.execv(program, [program, "try", *args])
    except OSError as e:
        print(f"warmup: try: cannot run {program}: {e.strerror}", file=sys.stderr)
        return 126


def launching():
    """Whether Python was started as `python -m warmup` and is locating the package's __main__
    now (sys.argv[0] is "-m" until it runs): the package then only launches. The module is read
    from Python's own command line as Python reads it: `-m warmup`, `-mwarmup`, or after other
    flags in one word (`-Bm warmup`, `-Bmwarmup`)."""
    if sys.argv[:1] != ["-m"]:
        return False
    return module_run(getattr(sys, "orig_argv", [])[1:]) == "warmup"


def module_run(options):
    """The module Python's options `options` (its command line after the interpreter) run with
    -m, or None: the options before it, one letter each, clustered or not (-W and -X take a value,
    the rest of the word or the next word); a script, -c or `--` first: none."""
    i = 0
    while i < len(options) and options[i].startswith("-") and options[i] not in ("-", "--"):
        word = options[i]
        if word.startswith("--"):  # --check-hash-based-pycs MODE; --help and --version run nothing
            i += 2 if word == "--check-hash-based-pycs" else 1
            continue
        for at in range(1, len(word)):
            if word[at] in "cmWX":
                value = word[at + 1:] or (options[i + 1] if i + 1 < len(options) else None)
                if word[at] == "m":
                    return value
                if word[at] == "c":
                    return None
                i += 0 if word[at + 1:] else 1
                break
        i += 1
    return None


def run(args):
    report = None
    i = 0
    while i < len(args):
        if args[i] == "--":
            i += 1
            break
        if args[i] == "-o":
            if i + 1 >= len(args) or args[i + 1] == "--":
                print(f"warmup: run: -o needs a value (a report: report.json, stderr, ...)\n{USAGE}", file=sys.stderr)
                return 2
            report = args[i + 1]
            if not report:
                print("warmup: run: -o's value is empty; name a report (report.json, stderr, ...), or leave -o out "
                      f"for WARMUP_REPORT's, else the table on stderr\n{USAGE}", file=sys.stderr)
                return 2
            i += 2
        elif args[i].startswith("-"):
            print(f"warmup: unknown option {args[i]} for run\n{USAGE}", file=sys.stderr)
            return 2
        else:
            break
    program = args[i:]
    if not program:
        print(f"warmup: run needs a program\n{USAGE}", file=sys.stderr)
        return 2
    tool = tool_path()
    if tool is None:
        print("warmup: this install has no NVTX tool (libwarmup_nvtx.so beside the package); "
              "build it with -DWARMUP_BUILD_NVTX_TOOL=ON (pip install . does)", file=sys.stderr)
        return 2
    env = dict(os.environ)
    other = env.get("NVTX_INJECTION64_PATH")
    if other and os.path.realpath(other) != os.path.realpath(tool):
        if env.get("WARMUP_NVTX_NEXT"):
            print(f"warmup: run: NVTX_INJECTION64_PATH named another NVTX tool ({other}) and WARMUP_NVTX_NEXT "
                  f"names {env['WARMUP_NVTX_NEXT']}: the first is left out", file=sys.stderr)
        else:
            env["WARMUP_NVTX_NEXT"] = other
            print(f"warmup: run: NVTX_INJECTION64_PATH named another NVTX tool ({other}); it sees every NVTX "
                  "call through warmup's (WARMUP_NVTX_NEXT)", file=sys.stderr)
    env["NVTX_INJECTION64_PATH"] = tool
    if report is not None:
        env["WARMUP_REPORT"] = report
    elif not env.get("WARMUP_REPORT"):
        env["WARMUP_REPORT"] = "stderr"
    try:
        records = tempfile.mkdtemp(prefix="warmup-run-")
        env["WARMUP_NVTX_STATUS"] = records
    except OSError:
        records = None  # no records: nothing said of them
    try:
        pid, status = start_and_wait(program, env)
    except OSError as e:
        if records:
            shutil.rmtree(records, ignore_errors=True)
        print(f"warmup: run: cannot start {program[0]}: {e.strerror}", file=sys.stderr)
        return 127 if isinstance(e, FileNotFoundError) else 126
    if records:
        say_what_the_tool_recorded(records, " ".join(program), pid, status)
    return exit_as(status)


# The signals waited for: the child's end, and those passed on to it.
WAITED = {signal.SIGCHLD, signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT}


def start_and_wait(program, env):
    """Starts `program` (looked for in PATH) as a child and waits for it; returns its pid and wait
    status. The signals are blocked and taken with sigwaitinfo, none lost between the start and
    the wait; one a process sent (si_code <= 0: kill) is passed on, one the terminal sent reached
    the child's process group, the child included, by itself. The child gets the launcher's mask
    and the default actions of the signals Python ignores (SIGPIPE, SIGXFSZ), as from a shell.

        pid, status = start_and_wait(["./app", "--port", "8000"], dict(os.environ))
    """
    before = signal.pthread_sigmask(signal.SIG_BLOCK, WAITED)
    if signal.getsignal(signal.SIGCHLD) == signal.SIG_IGN:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # else no status to wait for
    try:
        pid = os.posix_spawnp(program[0], program, env, setsigmask=before,
                              setsigdef=[signal.SIGPIPE, signal.SIGXFSZ])
    except OSError:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
        raise
    while True:
        info = signal.sigwaitinfo(WAITED)
        if info.si_signo == signal.SIGCHLD:
            try:
                done, status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:  # reaped by no one we know of: nothing to wait for
                return pid, 255 << 8
            if done == pid:
                return pid, status
        elif info.si_code <= 0:
            os.kill(pid, info.si_signo)


def exit_as(status):
    """The launcher's exit status for a child that ended with wait status `status`: its exit code;
    where a signal ended it, that signal raised on the launcher with its default action (no core
    file), so that the shell sees the same end (128 + the signal where the launcher outlives it)."""
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    if not os.WIFSIGNALED(status):
        return 1
    sig = os.WTERMSIG(status)
    sys.stdout.flush()
    sys.stderr.flush()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # the child's core file, if any, is the one to read
    try:
        signal.signal(sig, signal.SIG_DFL)
    except (OSError, ValueError):  # SIGKILL and SIGSTOP keep their default action: none to set
        pass
    os.kill(os.getpid(), sig)  # pending while blocked: delivered at the unblock
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})
    return 128 + sig


def say_what_the_tool_recorded(folder, program, child, status):
    """Says each process that made NVTX ranges under the tool and ended without writing its report,
    or, where no process made a range under it, that the program made no NVTX call or set
    NVTX_INJECTION64_PATH itself; then removes the folder. The records are the tool's
    (nvtx_tool/run_status.hpp): began.<pid>.<image> at a process's first range ("pid N" and
    "program ..." lines), report.<pid>.<image> once its report was written."""
    began, reported = {}, set()
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        kind, _, image = name.partition(".")
        if kind == "began":
            try:
                with open(os.path.join(folder, name), errors="replace") as f:
                    fields = dict(line.partition(" ")[::2] for line in f.read(4096).splitlines())
            except OSError:
                fields = {}
            began[image] = fields
        elif kind == "report":
            reported.add(image)
    shutil.rmtree(folder, ignore_errors=True)
    if not names:
        print(f"warmup: run: no report from {program}: none of its processes made an NVTX range under warmup's "
              "NVTX tool (it made no NVTX call, or it set NVTX_INJECTION64_PATH itself, to another tool or none, "
              "before its first)", file=sys.stderr)
        return
    for image, fields in sorted(began.items(), key=lambda kv: (int(kv[1].get("pid", "0") or 0), kv[0])):
        if image in reported:
            continue
        pid = int(fields.get("pid", "0") or 0)
        how = "it called exec or _exit, or a signal ended it"
        if pid == child and os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            how = f"it was ended by signal {sig} ({signal.strsignal(sig)})"
        print(f"warmup: run: process {pid} ({fields.get('program', '')}) made NVTX ranges and ended without writing "
              f"its report ({how}): its ranges are in no report", file=sys.stderr)


def main(argv):
    if len(argv) == 1 and argv[0] in FOLDERS:
        return folder(argv[0])
    if len(argv) >= 1 and argv[0] == "try":
        return try_remedies(argv[1:])
    if len(argv) < 1 or argv[0] != "run":
        print(USAGE, file=sys.stderr)
        return 2
    return run(argv[1:])
