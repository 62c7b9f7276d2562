"""The NVTX tool's device time (WARMUP_NVTX_DEVICE=on, docs/nvtx-tool.md), on a GPU: a program with
NVTX ranges around its work and no warmup header (tests/gpu/nvtx_device.cu) run under the tool.
A range's device time is the span of the kernels, copies and memsets its thread launched inside
it, nested ranges' included; ranges that launch nothing, and start/end ranges, stay host-timed.
The program times its kernel and memset itself with CUDA events, outside every range: the
ranges' device times are compared with those, never with figures copied from elsewhere.

usage: check_nvtx_device.py TOOL PROGRAM   (exits 77 where the program finds no GPU)
"""
import json
import os
import subprocess
import sys
import tempfile

TOOL, PROGRAM = sys.argv[1:3]
WORK = tempfile.mkdtemp(prefix="warmup_nvtx_device_")


def run(**env):
    path = os.path.join(WORK, "report.json")
    if os.path.exists(path):
        os.remove(path)
    e = {k: v for k, v in os.environ.items() if not k.startswith(("WARMUP_", "NVTX_"))}
    e.update(NVTX_INJECTION64_PATH=TOOL, WARMUP_REPORT=path, **env)
    p = subprocess.run([PROGRAM], env=e, capture_output=True, text=True, timeout=300)
    if p.returncode == 77:
        print(p.stdout.strip())
        sys.exit(77)
    assert p.returncode == 0, (p.returncode, p.stderr[-3000:])
    figures = dict(line.split() for line in p.stdout.splitlines())
    with open(path) as f:
        report = json.load(f)
    return {s["name"]: s for s in report["sites"]}, report["notices"], figures


def main():
    sites, notices, figures = run(WARMUP_NVTX_DEVICE="on")
    kernel, memset, calls = float(figures["kernel_us"]) * 1e3, float(figures["memset_us"]) * 1e3, int(figures["calls"])
    inner, outer, driver = sites["gpu.inner"]["device"], sites["gpu.outer"]["device"], sites["gpu.driver_launch"]["device"]
    for n in ("gpu.inner", "gpu.outer", "gpu.driver_launch"):
        assert sites[n]["device"] is not None, (n, {k: s["device"] is not None for k, s in sites.items()}, notices)
    print(f"kernel {kernel / 1e3:.1f} us, memset {memset / 1e3:.1f} us (events); device p50: inner "
          f"{inner['steady']['p50'] / 1e3:.1f} us, driver launch {driver['steady']['p50'] / 1e3:.1f} us, outer "
          f"{outer['steady']['p50'] / 1e3:.1f} us; first: inner {inner['first'] / 1e3:.1f} us, outer {outer['first'] / 1e3:.1f} us")
    # Every call of a range that launched work is device-timed, the driver's launches too.
    for d in (inner, outer, driver):
        assert d is not None and d["calls"] == calls, d
    # A range around one kernel reads the kernel: CUDA's events around the same kernel hold it
    # and their own floor (a few microseconds), no more.
    for d in (inner, driver):
        assert 0.9 * kernel <= d["steady"]["p50"] <= kernel + 5e3, (d["steady"]["p50"], kernel)
        assert 0.9 * kernel <= d["first"] <= kernel + 50e3, (d["first"], kernel)
    # The outer range spans its inner range's kernel and its own memset, queued one after the other.
    p50 = outer["steady"]["p50"]
    assert inner["steady"]["p50"] + 0.5 * memset <= p50 <= inner["steady"]["p50"] + memset + 50e3, (p50, inner, memset)
    # No device work, or a range that may end on another thread: host-timed.
    assert sites["gpu.no_work"]["device"] is None and sites["gpu.no_work"]["calls"] == calls
    assert sites["gpu.started"]["device"] is None and sites["gpu.started"]["calls"] == calls
    said = "\n".join(notices)
    assert f"{3 * calls} push/pop calls device-timed" in said, said

    # Without the setting, every range is host-timed, and the notice says how to ask.
    sites, notices, _ = run()
    assert all(s["device"] is None for s in sites.values()), [n for n, s in sites.items() if s["device"]]
    assert any("WARMUP_NVTX_DEVICE=on" in n for n in notices), notices
    print("ok")


if __name__ == "__main__":
    main()
