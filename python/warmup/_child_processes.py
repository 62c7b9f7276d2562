"""The reports of Python's multiprocessing children: each written beside its parent's (its pid
before the extension: report.1234.json), never over it, and written before the child ends.

Each child that multiprocessing starts (a Pool's worker, a Process) is marked as one
(`_report_beside_parent`: a `spawn` child, a new interpreter running the parent's script again,
is seen by no fork handler) as it begins its work, and:
- `fork` and `forkserver` children end with `os._exit`, which runs no exit handler: the report
  is written by a multiprocessing finalizer, which `Process._bootstrap` runs before `os._exit`,
  after every other one;
- `spawn` children end by `sys.exit`: the report is written by an atexit hook, once the
  program's threads are joined;
- SIGTERM (`Pool.terminate()`, called on leaving a Pool's `with` block) writes the report before
  it ends the process, where its action is the default (python/terminate_report.hpp), and never
  cuts short a report the child is writing as it ends on its own.
Forked children begin their work in `Process._bootstrap`, which runs the functions given to
`multiprocessing.util.register_after_fork`; spawned ones import the parent's script (and so
warmup) just before it, and a spawn context's processes run no such function.

The fork server, which imports the parent's script to fork children from it where it preloads
it, is marked too: its own report, if it writes one, goes beside its parent's.

Nothing here imports multiprocessing: a program that never uses it pays nothing. A child always
has it imported; a parent that imports it after warmup gets the hook at its next fork.

    # WARMUP_REPORT=report.json python train.py
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        pool.map(step, batches)   # report.json, and report.<pid>.json for each worker
"""
import atexit
import os
import sys

from . import _warmup

_hooked = False
_begun_in = None  # the process whose work _in_child prepared


class _Anchor:
    """What multiprocessing's after-fork registry holds, weakly: it must stay alive."""


_anchor = _Anchor()


def _in_child(_anchor=None):
    """Run as a multiprocessing child begins its work (or as warmup is imported in one), once."""
    global _begun_in
    if _begun_in == os.getpid():
        return
    _begun_in = os.getpid()
    _warmup._report_beside_parent()
    _warmup._report_on_sigterm()
    if _spawned():
        atexit.register(_warmup._write_child_report)
    else:
        from multiprocessing import util
        util.Finalize(None, _warmup._write_child_report, exitpriority=-sys.maxsize)


def _spawned():
    """Whether this child was spawned, and so ends by sys.exit: multiprocessing's entry point for
    spawned children (`spawn_main`) is below this call on the stack. Forked children (`fork`,
    `forkserver`) begin in the forking process's frames, and end by os._exit."""
    spawn = sys.modules.get("multiprocessing.spawn")
    code = getattr(getattr(spawn, "spawn_main", None), "__code__", None)
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code is code:
            return True
        frame = frame.f_back
    return False


def _hook(_=None):
    """Registers the after-fork hook once multiprocessing is imported (a parent's fork may come
    later: `os.register_at_fork` asks again before each)."""
    global _hooked
    if _hooked or "multiprocessing.util" not in sys.modules:
        return
    _hooked = True
    sys.modules["multiprocessing.util"].register_after_fork(_anchor, _in_child)


def _started_by_multiprocessing():
    """Whether this process is a multiprocessing child at work (warmup imported by its target), or
    one that imports the parent's script (`_inheriting`): a spawned child before its work, a
    forkserver child (where the fork server did not preload the script), or the fork server."""
    process = sys.modules.get("multiprocessing.process")
    if process is None:
        return False
    return _at_work() or getattr(process.current_process(), "_inheriting", False)


def _at_work():
    """Whether this process is a multiprocessing child at its work (Python 3.8 and later say)."""
    process = sys.modules.get("multiprocessing.process")
    return getattr(process, "parent_process", lambda: None)() is not None


if _started_by_multiprocessing():
    _warmup._report_beside_parent()
    if _spawned() or _at_work():
        _in_child()  # a forkserver child at its script's import gets it from _bootstrap
_hook()
os.register_at_fork(before=_hook)
