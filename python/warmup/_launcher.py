"""`python -m warmup run [-o REPORT] -- PROGRAM [ARGS...]`: PROGRAM under warmup's NVTX tool, with
no change to it (docs/nvtx-tool.md). Each NVTX range it opens (PyTorch's `emit_nvtx` and
`torch.cuda.nvtx.range`, a library's own) becomes a site of the report written at its exit:
`-o`'s value as WARMUP_REPORT takes it, else WARMUP_REPORT's, else the table on stderr.

    python -m warmup run -o report.json -- python train.py

The tool is the package's own copy of libwarmup_nvtx.so. An NVTX tool named already in
NVTX_INJECTION64_PATH (Nsight's, a capture) gets every call through it (WARMUP_NVTX_NEXT).
Exits as PROGRAM does; 127 where it cannot be found, 2 on bad usage.

Pure Python: the package's __init__ runs it before loading its native module when Python was
started as `python -m warmup`, so that the launcher starts no runtime of its own (no settings
read, no NVTX or CUPTI loaded): what it measures is the program's.
"""
import os
import sys

USAGE = "usage: python -m warmup run [-o REPORT] -- PROGRAM [ARGS...]"


def tool_path():
    """The package's copy of libwarmup_nvtx.so, or None."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libwarmup_nvtx.so")
    return path if os.path.exists(path) else None


def launching():
    """Whether Python was started as `python -m warmup` and is locating the package's __main__
    now (sys.argv[0] is "-m" until it runs): the package then only launches."""
    argv = getattr(sys, "orig_argv", [])
    if sys.argv[:1] != ["-m"] or "-m" not in argv:
        return False
    at = argv.index("-m")
    return argv[at + 1:at + 2] == ["warmup"]


def run(args):
    report = None
    i = 0
    while i < len(args):
        if args[i] == "--":
            i += 1
            break
        if args[i] == "-o" and i + 1 < len(args):
            report = args[i + 1]
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
              "build it with -DWARMUP_BUILD_NVTX_TOOL=ON (tools/install-python does)", file=sys.stderr)
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
        os.execvpe(program[0], program, env)
    except OSError as e:
        print(f"warmup: run: cannot start {program[0]}: {e.strerror}", file=sys.stderr)
        return 127 if isinstance(e, FileNotFoundError) else 126


def main(argv):
    if len(argv) < 1 or argv[0] != "run":
        print(USAGE, file=sys.stderr)
        return 2
    return run(argv[1:])
