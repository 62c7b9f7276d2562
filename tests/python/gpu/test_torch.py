"""On a GPU: scopes on torch and CuPy streams, device times against torch.cuda.Event pairs
around the same work, and the first call's excess against a plain clock's."""
import statistics
import time

import pytest
import torch

import warmup


def test_a_torch_stream_is_device_timed():
    s = torch.cuda.Stream()
    a = torch.randn(512, 512, device="cuda")
    with torch.cuda.stream(s):
        for _ in range(20):
            with warmup.launch("gpu.torch_stream", stream=s):
                a @ a
    s.synchronize()
    site = warmup.snapshot(wait=True).find("gpu.torch_stream")
    assert site.calls == 20
    assert site.device is not None and site.device.calls >= 1 and site.device.first > 0
    assert warmup.stream_handle(s) == s.cuda_stream


def test_the_current_stream_and_the_default_stream():
    x = torch.ones(1 << 20, device="cuda")
    for stream in (torch.cuda.current_stream(), 0):
        with warmup.region(f"gpu.stream_{'current' if stream else 'zero'}", stream=stream):
            x.mul_(1.0)
    torch.cuda.synchronize()
    r = warmup.snapshot(wait=True)
    for name in ("gpu.stream_current", "gpu.stream_zero"):
        assert r.find(name).device is not None, name
    assert r.device.name == torch.cuda.get_device_name()


def test_a_cupy_stream():
    cupy = pytest.importorskip("cupy")
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        a = cupy.ones((1024, 1024), dtype=cupy.float32)
        for _ in range(10):
            with warmup.region("gpu.cupy", stream=s):
                a.sum()
    s.synchronize()
    site = warmup.snapshot(wait=True).find("gpu.cupy")
    assert site.calls == 10 and site.device is not None and site.device.calls >= 1


def test_no_synchronisation_inside_a_scope():
    # A long kernel: the scope's end returns long before the kernel does (no sync in the hot path).
    a = torch.randn(4096, 4096, device="cuda")
    torch.cuda.synchronize()
    t0 = time.perf_counter_ns()
    with warmup.launch("gpu.async", stream=torch.cuda.current_stream()):
        for _ in range(20):
            a @ a
    host = time.perf_counter_ns() - t0
    torch.cuda.synchronize()
    after = time.perf_counter_ns() - t0
    assert host < after / 2, (host, after)
    assert warmup.snapshot(wait=True).find("gpu.async").device.first > host


def test_device_times_agree_with_torch_events_on_a_model():
    # A small MLP's forward, timed in turn by the scope's events and by a torch.cuda.Event pair
    # on the same stream (the same work; a pair nested in the other would add its two records,
    # about the event-pair floor, to the outer one): the steady p50s within max(1%, 2 us). The
    # stream is kept busy (a sleep kernel queued first), so that both time the GPU's work and
    # not the host's pace between two records.
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024)).cuda()
    x = torch.randn(256, 1024, device="cuda")
    stream = torch.cuda.current_stream()
    pairs = []
    with torch.no_grad():
        model(x)
        torch.cuda.synchronize()
        torch.cuda._sleep(200_000_000)  # about 0.1 s of GPU time: the loop below is queued behind it
        for _ in range(60):  # within the exact window (64 calls): the report's p50 is exact, not bucketed
            with warmup.region("gpu.mlp", stream=stream):
                model(x)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record(stream)
            model(x)
            end.record(stream)
            pairs.append((start, end))
    torch.cuda.synchronize()
    site = warmup.snapshot(wait=True).find("gpu.mlp")
    ours = site.device.steady.p50
    warm = site.device.warmup_calls  # the same calls on both sides: those after the warm-up
    torch_ns = statistics.median(s.elapsed_time(e) * 1e6 for s, e in pairs[warm:])
    assert abs(ours - torch_ns) <= max(0.01 * torch_ns, 2000), (ours, torch_ns)


def test_first_call_excess_against_a_plain_clock():
    # cuBLAS's first GEMM of a new shape and dtype: its first call is tens of ms (BENCHMARKS.md).
    a = torch.randn(3000, 1000, device="cuda", dtype=torch.float16)
    b = torch.randn(1000, 700, device="cuda", dtype=torch.float16)
    plain = []
    for _ in range(30):
        t0 = time.perf_counter_ns()
        with warmup.region("gpu.first_gemm"):
            a @ b
            torch.cuda.synchronize()
        plain.append(time.perf_counter_ns() - t0)
    host = warmup.snapshot().find("gpu.first_gemm").host
    plain_excess = plain[0] - statistics.median(plain[1:])
    assert abs(host.first_call_excess - plain_excess) <= 0.01 * plain_excess + 20_000, (host.first_call_excess, plain_excess)


def test_until_steady_on_a_compiled_free_model_and_prewarm():
    model = torch.nn.Linear(512, 512).cuda()
    x = torch.randn(64, 512, device="cuda")
    r = warmup.until_steady(lambda: model(x), "gpu.until_steady", stream=torch.cuda.current_stream())
    assert r.steady, (r.why, r.calls, r.status.message)
    assert warmup.prewarm_context()
    assert warmup.prewarm_pool(64 << 20, stream=torch.cuda.current_stream())
    rep = warmup.snapshot(wait=True)
    assert rep.find("warmup::prewarm_context", "context") is not None
    assert rep.find("warmup::prewarm_pool", "alloc") is not None


def test_ctrl_c_keeps_the_device_times(tmp_path):
    # Ctrl-C ends the interpreter with no exit handler: the package's atexit hook reads the
    # device's times back (CUDA still alive) and writes the report.
    import json
    import os
    import signal
    import subprocess
    import sys
    import textwrap
    path = tmp_path / "interrupted.json"
    code = textwrap.dedent("""
        import torch, warmup
        a = torch.randn(1024, 1024, device="cuda")
        s = torch.cuda.current_stream()
        for _ in range(10):
            with warmup.launch("gpu.interrupted", stream=s):
                a @ a
        print("ready", flush=True)
        while True:
            with warmup.launch("gpu.interrupted", stream=s):
                a @ a
        """)
    # SIGINT's default restored: a run in the background inherits it ignored (test_process.py).
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, WARMUP_REPORT=str(path)),
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert p.stdout.readline().strip() == "ready"
        os.kill(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=120)
    finally:  # a failed test leaves no loop behind
        if p.poll() is None:
            p.kill()
        p.wait()
    assert p.returncode in (-signal.SIGINT, 130), err
    site = next(s for s in json.loads(path.read_text())["sites"] if s["name"] == "gpu.interrupted")
    assert site["calls"] >= 10
    assert site["device"] is not None and site["device"]["calls"] >= 10 and site["device"]["first"] > 0
