"""`@warmup.timed` on what is not a plain function: static and class methods (the decorator above
or below theirs), async functions (over their awaited run), generator functions and async ones
(over their iteration), and what it refuses, with a sentence."""
import asyncio
import threading
import time

import pytest

import warmup


def site(name):
    s = warmup.snapshot().find(name)
    assert s is not None, f"no site {name!r} in the report"
    return s


def test_static_and_class_methods_in_either_order():
    class K:
        @warmup.timed
        @staticmethod
        def above_static(x):
            return x + 1

        @staticmethod
        @warmup.timed
        def below_static(x):
            return x + 2

        @warmup.timed("timed.above_class")
        @classmethod
        def above_class(cls, x):
            return (cls, x)

        @classmethod
        @warmup.timed
        def below_class(cls, x):
            return (cls, x)

    assert K().above_static(1) == 2 and K.above_static(1) == 2
    assert K().below_static(1) == 3 and K.below_static(1) == 3
    assert K().above_class(5) == (K, 5) and K.above_class(6) == (K, 6)
    assert K.below_class(7) == (K, 7)
    assert site(K.above_static.__qualname__).calls == 2
    assert K.above_static.__qualname__.endswith("K.above_static")  # its own name, not the wrapper's
    assert site(K.below_static.__qualname__).calls == 2
    assert site("timed.above_class").calls == 2
    assert site(K.below_class.__qualname__).calls == 1


def test_an_async_function_is_timed_over_its_awaited_run():
    @warmup.timed("timed.async")
    async def fetch(x):
        await asyncio.sleep(0.05)
        return x * 2

    async def main():
        coroutine = fetch(4)  # made, not yet run: no call
        assert warmup.snapshot().find("timed.async") is None
        return await coroutine
    assert asyncio.run(main()) == 8
    s = site("timed.async")
    assert s.calls == 1 and s.exceptions == 0
    assert s.host.first >= 50_000_000  # the awaits inside, not the coroutine's creation


def test_async_calls_that_interleave_on_one_thread():
    # Two runs of one site and a scope between their awaits, on the event loop's thread: each run
    # ends after the other began; an exception is counted as a call's.
    @warmup.timed("timed.interleaved")
    async def step(delay, fail=False):
        await asyncio.sleep(delay)
        with warmup.region("timed.between"):
            pass
        await asyncio.sleep(delay)
        if fail:
            raise KeyError("k")

    async def main():
        results = await asyncio.gather(step(0.03), step(0.01, fail=True), return_exceptions=True)
        assert isinstance(results[1], KeyError)
    asyncio.run(main())
    s = site("timed.interleaved")
    assert s.calls == 2 and s.exceptions == 1
    assert s.host.first >= 20_000_000
    assert site("timed.between").calls == 2


def test_a_generator_is_timed_over_its_iteration():
    @warmup.timed("timed.generator")
    def batches(n):
        for i in range(n):
            time.sleep(0.02)
            yield i
        return "done"

    g = batches(3)  # made, not yet iterated: no call
    assert warmup.snapshot().find("timed.generator") is None
    assert list(g) == [0, 1, 2]
    s = site("timed.generator")
    assert s.calls == 1 and s.exceptions == 0
    assert s.host.first >= 60_000_000  # every item, as one call

    def delegate():
        return (yield from batches(1))
    d = delegate()
    next(d)
    with pytest.raises(StopIteration) as stop:
        next(d)
    assert stop.value.value == "done"  # its return value passes through

    # Stopped early by its consumer: a call, no exception; resumed on another thread: the same.
    for i in batches(5):
        if i == 1:
            break
    g = batches(2)
    next(g)
    t = threading.Thread(target=lambda: list(g))
    t.start()
    t.join()
    s = site("timed.generator")
    assert s.calls == 4 and s.exceptions == 0

    @warmup.timed("timed.generator_raises")
    def raises():
        yield 1
        raise ValueError("v")
    with pytest.raises(ValueError):
        list(raises())
    assert site("timed.generator_raises").exceptions == 1


def test_an_async_generator_is_timed_over_its_iteration():
    @warmup.timed("timed.async_generator")
    async def rows(n):
        for i in range(n):
            await asyncio.sleep(0.02)
            got = yield i
            if got is not None:
                yield got

    async def main():
        assert [i async for i in rows(3)] == [0, 1, 2]
        a = rows(5)
        assert await a.__anext__() == 0
        assert await a.asend("sent") == "sent"  # sent values pass through
        await a.aclose()  # stopped early: no exception
    asyncio.run(main())
    s = site("timed.async_generator")
    assert s.calls == 2 and s.exceptions == 0
    assert s.host.first >= 60_000_000


def test_refused_with_a_sentence():
    with pytest.raises(ValueError, match=r"async function.*host only.*stream="):
        @warmup.timed("timed.async_stream", stream=0)
        async def on_stream():
            pass
    with pytest.raises(ValueError, match=r"generator function.*host only"):
        @warmup.timed("timed.generator_stream", stream=0)
        def gen():
            yield 1
    with pytest.raises(ValueError, match="byte count"):
        warmup.timed("x", kind="h2d")


def test_disabled_no_call_is_detached():
    # warmup.disable() reaches the calls timed over a run or an iteration too: none is counted.
    @warmup.timed("timed.off_gen")
    def gen():
        yield 1

    @warmup.timed("timed.off_async")
    async def run():
        return 2

    warmup.disable()
    try:
        assert list(gen()) == [1] and asyncio.run(run()) == 2
    finally:
        warmup.enable()
    r = warmup.snapshot()
    assert r.find("timed.off_gen") is None and r.find("timed.off_async") is None


def test_a_detached_call_of_an_unknown_kind_names_every_kind():
    # The native helper behind them takes any kind by name, and names each one it knows.
    from warmup import _warmup
    with pytest.raises(ValueError) as e:
        _warmup._begin_detached("nonsense", "timed.unknown")
    assert str(e.value) == ("warmup: no operation kind is named 'nonsense' "
                            "(context, alloc, h2d, d2h, d2d, launch, region)")
