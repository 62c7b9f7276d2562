"""`@warmup.timed`: each call of a function as a call of one site, whatever kind of function it
decorates:
- a function or method: over the call, as a `with` scope around it (host, and device given a
  stream);
- a static or class method, the decorator above `@staticmethod` / `@classmethod` or below it;
- an async function: over its awaited run, from its first step to its result or exception (not
  the coroutine's creation), with every other task's work between its awaits;
- a generator function, or an async one: over its iteration, from the first `next()` to its
  end (exhausted, raised, or closed by a consumer that stopped early, which is no exception),
  with the consumer's own work between the items.
Coroutines and generators are timed on the host only: between their two ends other calls of the
thread begin and end, and they may end on another thread, so their calls are detached
(python/detached_call.hpp); `stream=` is refused for them.
"""
import functools

from . import _warmup

# The kinds whose scopes take no byte count, from the C++ kind table.
_KINDS = {kind: getattr(_warmup, kind) for kind, takes_bytes in _warmup.op_kinds.items() if not takes_bytes}


def timed(name=None, kind="region", stream=None):
    """Times every call of the decorated function as one site (its qualified name by default).

        @warmup.timed("step")
        def step(batch): ...

        @warmup.timed                   # an async function: over its awaited run
        async def fetch(url): ...

        class Model:
            @warmup.timed               # above or below @staticmethod, @classmethod
            @staticmethod
            def load(path): ...
    """
    if (callable(name) or isinstance(name, (staticmethod, classmethod))) and kind == "region" and stream is None:
        return timed()(name)  # @warmup.timed without arguments
    if kind not in _KINDS:
        raise ValueError(f"warmup.timed: kind is one of {sorted(_KINDS)} (copies and allocations take a byte count: "
                         f"use `with warmup.h2d(name, bytes)`), not {kind!r}")

    def wrap(fn):
        import inspect  # here: a program that decorates nothing pays nothing for it
        if isinstance(fn, (staticmethod, classmethod)):
            return type(fn)(wrap(fn.__func__))
        site = name if name is not None else getattr(fn, "__qualname__", repr(fn))
        what = ("an async generator function" if inspect.isasyncgenfunction(fn) else
                "an async function" if inspect.iscoroutinefunction(fn) else
                "a generator function" if inspect.isgeneratorfunction(fn) else None)
        if what is None:
            return _timed_call(fn, _KINDS[kind], site, stream)
        if stream is not None:
            raise ValueError(f"warmup.timed: {site!r} is {what}, timed on the host only (over its run, across "
                             f"which other calls begin and end): stream= is for plain functions; time its device "
                             f"work inside it, with `with warmup.{kind}(name, stream=s)`")
        if inspect.isasyncgenfunction(fn):
            return _timed_async_iteration(fn, kind, site)
        if inspect.iscoroutinefunction(fn):
            return _timed_run(fn, kind, site)
        return _timed_iteration(fn, kind, site)
    return wrap


def _timed_call(fn, make, site, stream):
    @functools.wraps(fn)
    def timed_call(*args, **kwargs):
        with make(site, stream):
            return fn(*args, **kwargs)
    return timed_call


def _timed_run(fn, kind, site):
    @functools.wraps(fn)
    async def timed_run(*args, **kwargs):
        call = _warmup._begin_detached(kind, site)
        raised = True
        try:
            result = await fn(*args, **kwargs)
            raised = False
            return result
        finally:
            call.end(raised)
    return timed_run


def _timed_iteration(fn, kind, site):
    @functools.wraps(fn)
    def timed_iteration(*args, **kwargs):
        call = _warmup._begin_detached(kind, site)
        raised = True
        try:
            result = yield from fn(*args, **kwargs)
            raised = False
            return result
        except GeneratorExit:  # closed by its consumer: an end, not a failure
            raised = False
            raise
        finally:
            call.end(raised)
    return timed_iteration


def _timed_async_iteration(fn, kind, site):
    @functools.wraps(fn)
    async def timed_async_iteration(*args, **kwargs):
        inner = fn(*args, **kwargs)
        call = _warmup._begin_detached(kind, site)
        raised = True
        try:
            step = inner.asend(None)
            while True:  # `yield from`, by hand: async generators have none
                try:
                    value = await step
                except StopAsyncIteration:
                    raised = False
                    return
                try:
                    sent = yield value
                except GeneratorExit:
                    await inner.aclose()
                    raised = False
                    raise
                except BaseException as e:  # noqa: BLE001 - thrown in by the consumer: passed on
                    step = inner.athrow(e)
                else:
                    step = inner.asend(sent)
        finally:
            call.end(raised)
    return timed_async_iteration
