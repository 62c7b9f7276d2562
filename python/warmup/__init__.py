"""warmup: what the first call of your GPU work really costs, what it costs once warm, and why.

The C++ library's scopes, report and prewarm, for Python, over the same runtime: a C++ extension
built with warmup's header in the same process shares one registry and one report with the
Python code (docs/python.md).

    import warmup
    with warmup.region("forward", stream=torch.cuda.current_stream()):
        y = model(x)
    warmup.snapshot().print()

Scopes, one per operation kind of the C++ kind table (`_warmup.op_kinds`); `stream` is None (host timing only), an integer handle, a
`torch.cuda.Stream`, a CuPy stream or any object with `__cuda_stream__`, and a scope given one
is timed on the device too (events recorded now, read later, never a synchronisation):
    context(name, stream=None), launch(name, stream=None), region(name, stream=None),
    alloc(name, bytes, stream=None), h2d(...), d2h(...), d2d(...)
An exception inside a `with` propagates unchanged, and the call is counted as in C++.
"""
import sys as _sys

from . import _launcher

if _launcher.launching():  # `python -m warmup run ...`: launch, with no runtime of the launcher's own
    _sys.exit(_launcher.main(_sys.argv[1:]))

import atexit as _atexit  # noqa: E402
import json as _json  # noqa: E402

from . import _warmup  # noqa: E402
from ._warmup import (disable, enable, prewarm_context, prewarm_pool, set_attribution,  # noqa: E402
                      set_python_names, settings, stream_handle)
from . import _child_processes  # noqa: E402,F401 - multiprocessing's children: reports beside the parent's
from ._timed import timed  # noqa: E402

# A scope's maker for each operation kind, as the C++ kind table lists them (a new kind is its
# row there).
globals().update({kind: getattr(_warmup, kind) for kind in _warmup.op_kinds})

__all__ = sorted(["Report", "Record", "disable", "enable", "nvtx_tool_path", "prewarm_context", "prewarm_pool",
                  "read", "set_attribution", "set_python_names", "settings", "snapshot", "stream_handle", "timed",
                  "until_steady", *_warmup.op_kinds])


def nvtx_tool_path():
    """The package's copy of warmup's NVTX tool (libwarmup_nvtx.so), or None where this install has
    none: the library NVTX_INJECTION64_PATH names to measure a program's NVTX ranges with no
    change to it. `python -m warmup run -- PROGRAM` sets it (docs/nvtx-tool.md).

        subprocess.run(cmd, env=dict(os.environ, NVTX_INJECTION64_PATH=warmup.nvtx_tool_path(),
                                     WARMUP_REPORT="report.json"))
    """
    return _launcher.tool_path()


class Record:
    """A part of a report, read as attributes named as the JSON keys: `site.host.first`,
    `site.host.steady.p50` (durations in ns, as in JSON). `None` where JSON has null."""
    __slots__ = ("_fields",)

    def __init__(self, fields):
        object.__setattr__(self, "_fields", fields)

    def __getattr__(self, key):
        try:
            return _wrap(self._fields[key])
        except KeyError:
            raise AttributeError(f"warmup: no field {key!r} here; there are {sorted(self._fields)}") from None

    def __setattr__(self, key, value):
        raise AttributeError("warmup: a report is read-only")

    def __dir__(self):
        return sorted(self._fields)

    def __eq__(self, other):
        return isinstance(other, Record) and other._fields == self._fields

    def __repr__(self):
        name = self._fields.get("name")
        return f"<warmup.Record {name!r}>" if isinstance(name, str) else f"<warmup.Record {sorted(self._fields)}>"

    def to_dict(self):
        """The fields as plain Python values (what `json.loads` of the JSON gives)."""
        return self._fields


def _wrap(value):
    if isinstance(value, dict):
        return Record(value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


class Report(Record):
    """A report: its fields as attributes (`report.sites`, `report.device`, ...), and its writers.

        r = warmup.snapshot()
        r.sites[0].host.first          # ns
        r.write("report.json,report.svg")
    """
    __slots__ = ("_native",)

    def __init__(self, native):
        object.__setattr__(self, "_native", native)
        Record.__init__(self, _json.loads(native.to_json()))

    def find(self, name, kind=None):
        """The site named `name` (of operation kind `kind`, where given), or None."""
        for s in self.sites:
            if s.name == name and (kind is None or s.op == kind):
                return s
        return None

    def to_json(self):
        return self._native.to_json()

    def to_csv(self):
        return self._native.to_csv()

    def to_trace(self):
        """Chrome's trace format (Perfetto, chrome://tracing)."""
        return self._native.to_trace()

    def to_svg(self):
        return self._native.to_svg()

    def table(self):
        """The table `print()` writes, as text."""
        return self._native.table()

    def print(self, file=None):
        (file or _sys.stdout).write(self.table())

    def write(self, spec):
        """Writes to each destination of `spec` ("stderr,report.json,report.svg", as WARMUP_REPORT
        takes); a destination that cannot be written gets its reason on stderr and the table in
        its place. Raises OSError if any could not be written, and ValueError, writing nothing,
        where `spec` names none or names one wrongly."""
        error = _warmup._destinations_error(spec)
        if error:
            raise ValueError(f"warmup: Report.write: {error}")
        if not self._native.write(spec):
            raise OSError(f"warmup: could not write every destination of {spec!r} (stderr says why)")

    def _repr_svg_(self):
        return self.to_svg()

    def _repr_html_(self):
        import html
        svg = self.to_svg()
        if svg.startswith("<?xml"):  # inline in HTML: the picture without its XML declaration
            svg = svg[svg.index("?>") + 2:].lstrip()
        return f"<pre>{html.escape(self.table())}</pre>\n{svg}"

    def __repr__(self):
        return f"<warmup.Report: {len(self.sites)} sites>"


def snapshot(wait=False):
    """The report now. `wait=True` waits for every device measurement (at the end of a program);
    by default unfinished device work is counted as pending, never waited for."""
    return Report(_warmup.snapshot(wait))


def read(path):
    """A report read back from its JSON file (warmup.report/3 or /2)."""
    return Report(_warmup.read(path))


def until_steady(fn, name, stream=None, max_calls=1000, max_time=30.0, steady_calls=20, tolerance=0.05):
    """Calls `fn()` until the site `name` is steady by the report's own rule, within a call and a
    time budget (`max_time` in seconds); each call is a region scope, followed on the device by
    a synchronisation of `stream` where one is given. An exception from `fn` propagates."""
    return _warmup.until_steady(fn, name, stream, max_calls, max_time, steady_calls, tolerance)


def _report_after_an_interrupt():
    """WARMUP_REPORT's report, where Python will not run the exit handler that writes it: ending
    on an uncaught KeyboardInterrupt (Ctrl-C), Python kills itself with SIGINT once its own
    shutdown is done. Python sets sys.last_value as it prints that exception."""
    last = getattr(_sys, "last_exc", None) or getattr(_sys, "last_value", None)
    if isinstance(last, KeyboardInterrupt):
        for f in (_sys.stdout, _sys.stderr):
            try:
                f.flush()  # what the program printed comes before the report on the same stream
            except Exception:  # noqa: BLE001 - a closed or broken stream: the report still goes
                pass
        _warmup.write_report_at_exit_now()


_atexit.register(_report_after_an_interrupt)
# Before the interpreter finalises, the code sampler's thread ends: it must not wait for the
# interpreter's lock then (python/code_sampler.hpp).
_atexit.register(_warmup._stop_code_sampler)
