"""Scopes from Python: each kind, the decorator, exceptions, threads, streams refused or taken,
and names and byte counts that a hostile caller passes."""
import threading

import pytest

import warmup


def site(name, kind=None):
    s = warmup.snapshot().find(name, kind)
    assert s is not None, f"no site {name!r} in the report"
    return s


def test_each_kind_is_a_site_of_its_own():
    for make in (warmup.context, warmup.launch, warmup.region):
        with make("scopes.kind"):
            pass
    for make in (warmup.alloc, warmup.h2d, warmup.d2h, warmup.d2d):
        with make("scopes.kind", 256):
            pass
    r = warmup.snapshot()
    kinds = sorted(s.op for s in r.sites if s.name == "scopes.kind")
    assert kinds == ["alloc", "context", "d2d", "d2h", "h2d", "launch", "region"]


def test_every_kind_of_the_cpp_table_is_a_maker_exported_and_timed_offers_those_without_bytes():
    # The makers come from the C++ kind table (one row a kind, for both languages): each is
    # exported, makes a site of its own kind, and takes a byte count exactly where its row says.
    kinds = warmup._warmup.op_kinds
    assert "region" in kinds and kinds["h2d"] and not kinds["launch"]
    for kind, takes_bytes in kinds.items():
        assert kind in warmup.__all__ and getattr(warmup, kind) is getattr(warmup._warmup, kind)
        with getattr(warmup, kind)("scopes.table", *([64] if takes_bytes else [])):
            pass
        assert warmup.snapshot().find("scopes.table", kind).op == kind
        if takes_bytes:
            with pytest.raises(TypeError):
                getattr(warmup, kind)("scopes.table")
    with pytest.raises(ValueError, match=r"kind is one of \['context', 'launch', 'region'\]"):
        warmup.timed("scopes.timed", kind="h2d")


def test_first_call_apart_from_the_rest():
    for _ in range(30):
        with warmup.region("scopes.calls"):
            pass
    s = site("scopes.calls")
    assert s.calls == 30 and s.host.calls == 30
    assert s.host.first > 0
    assert s.device is None  # no stream: host timing only


def test_host_time_is_the_time_inside_the_with():
    import time
    with warmup.region("scopes.sleep"):
        time.sleep(0.02)
    first = site("scopes.sleep").host.first
    assert 20_000_000 <= first < 2_000_000_000


def test_copies_keep_their_bytes():
    for n in (1000, 3000):
        with warmup.h2d("scopes.upload", n):
            pass
    b = site("scopes.upload", "h2d").bytes
    assert b.first == 1000 and b.total == 4000 and b.sizes_vary


def test_negative_and_huge_byte_counts():
    with warmup.alloc("scopes.negative", -5):
        pass
    negative = site("scopes.negative", "alloc")
    assert negative.calls == 1 and negative.bytes is None  # counted as 0 bytes: none moved
    assert any("negative byte count" in n for n in warmup.snapshot().notices)  # and said once
    saturated = "the byte total passed 2^64 - 1 and is shown saturated; no mean bandwidth"
    # Every count C++ takes (up to 2**64 - 1) is kept as it is.
    for n in (2 ** 63, 2 ** 64 - 1):
        with warmup.h2d(f"scopes.bytes_{n}", n):
            pass
        b = site(f"scopes.bytes_{n}", "h2d")
        assert b.bytes.first == n and b.bytes.total == n and not b.bytes.total_saturated
        assert saturated not in b.notes
    # A total past 2**64 - 1 saturates, and the report says so, whether a sum or one count passed it.
    for name, counts in (("scopes.sum_past", [2 ** 63, 2 ** 63]), ("scopes.huge", [2 ** 70])):
        for n in counts:
            with warmup.alloc(name, n):
                pass
        b = site(name, "alloc")
        assert b.bytes.total == 2 ** 64 - 1 and b.bytes.total_saturated and saturated in b.notes
    assert site("scopes.huge", "alloc").bytes.first == 2 ** 64 - 1
    with pytest.raises(TypeError):
        warmup.h2d("scopes.bad", "many")
    with pytest.raises(TypeError):
        warmup.h2d("scopes.bad")  # copies need their byte count


def test_an_exception_propagates_unchanged_and_is_counted():
    class Mine(Exception):
        pass
    with pytest.raises(Mine) as e:
        with warmup.region("scopes.raises"):
            raise Mine("kept")
    assert str(e.value) == "kept"
    with warmup.region("scopes.raises"):
        pass
    s = site("scopes.raises")
    assert s.calls == 2 and s.exceptions == 1


def test_the_decorator():
    @warmup.timed("scopes.decorated")
    def f(x, y=1):
        return x + y

    assert [f(1), f(2, y=3)] == [2, 5]
    assert f.__name__ == "f"
    assert site("scopes.decorated").calls == 2

    @warmup.timed
    def bare():
        return 7
    assert bare() == 7
    assert site(bare.__qualname__).calls == 1

    @warmup.timed("scopes.decorated_raises")
    def g():
        raise KeyError("k")
    with pytest.raises(KeyError):
        g()
    assert site("scopes.decorated_raises").exceptions == 1
    with pytest.raises(ValueError, match="byte count"):
        warmup.timed("x", kind="h2d")


def test_threads_share_a_site():
    def work():
        for _ in range(200):
            with warmup.region("scopes.threads"):
                pass
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert site("scopes.threads").calls == 800


def test_one_scope_object_entered_nested_and_from_threads():
    s = warmup.region("scopes.reused")
    with s:
        with s:
            pass
    errors = []

    def enter_and_leave():
        try:
            for _ in range(100):
                with s:
                    pass
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    threads = [threading.Thread(target=enter_and_leave) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert site("scopes.reused").calls == 302
    with pytest.raises(ValueError, match="without __enter__"):
        s.__exit__(None, None, None)


def test_odd_names():
    names = ["", "with space", "ünïcødé ✓", "nul\0inside", "x" * 10_000, "quote\"and,comma"]
    for n in names:
        with warmup.region(n):
            pass
    r = warmup.snapshot()
    seen = {s.name for s in r.sites}
    for n in names[:4] + names[5:]:
        assert n in seen, n
    with pytest.raises(TypeError, match="name is a str"):
        warmup.region(b"bytes")
    with pytest.raises(TypeError):
        warmup.region(None)


def test_streams_refused_with_a_sentence():
    with pytest.raises(TypeError, match="stream= takes"):
        warmup.region("scopes.stream", stream="default")
    with pytest.raises(TypeError, match="stream= takes"):
        warmup.region("scopes.stream", stream=True)
    with pytest.raises(ValueError, match="an integer from 0"):
        warmup.region("scopes.stream", stream=-1)
    with pytest.raises(ValueError, match="an integer from 0"):
        warmup.region("scopes.stream", stream=2 ** 64)

    class Triple:  # __cuda_stream__ gives (version, handle), two items, never three
        def __cuda_stream__(self):
            return (0, 1234, 5)

    class Handle:
        def __cuda_stream__(self):
            return 1234
    for wrong in (Triple(), Handle()):
        with pytest.raises(TypeError, match=r"__cuda_stream__\(\) must return \(version, handle\)"):
            warmup.stream_handle(wrong)


def test_streams_named_every_way():
    class Protocol:
        def __cuda_stream__(self):
            return (0, 1234)

    class TorchLike:
        cuda_stream = 5678

    class CupyLike:
        ptr = 91011

    assert warmup.stream_handle(0) == 0
    assert warmup.stream_handle(Protocol()) == 1234
    assert warmup.stream_handle(TorchLike()) == 5678
    assert warmup.stream_handle(CupyLike()) == 91011


def test_a_stream_without_a_gpu_keeps_host_timing_and_says_why():
    with warmup.launch("scopes.no_gpu", stream=0):
        pass
    r = warmup.snapshot()
    s = r.find("scopes.no_gpu")
    assert s.calls == 1 and s.host.first > 0
    if r.device is None:  # no GPU here: the report says why the device was not timed
        assert r.device_status != "ok" and r.device_status


def test_disable_and_enable():
    warmup.disable()
    try:
        with warmup.region("scopes.off"):
            pass
    finally:
        warmup.enable()
    assert warmup.snapshot().find("scopes.off") is None
