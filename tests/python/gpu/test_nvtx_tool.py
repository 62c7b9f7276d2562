"""warmup's NVTX tool on PyTorch (docs/nvtx-tool.md), checked on the GPU: a model run under
`emit_nvtx` with no warmup code reports every operator's first call, and those of the first
forward account for the forward's; `torch.cuda.nvtx.range` gives what `warmup.region` gives
around the same code. The figures are printed for BENCHMARKS.md; the checks compare each run
with itself, never with a figure copied from there."""
import json
import os
import subprocess
import sys

import pytest
import warmup

HERE = os.path.dirname(os.path.abspath(__file__))

PROGRAM = r'''
import sys, torch
mode, calls = sys.argv[1], int(sys.argv[2])
torch.manual_seed(0)
layers = []
for _ in range(6):
    layers += [torch.nn.Linear(1024, 1024), torch.nn.ReLU()]
model = torch.nn.Sequential(*layers).cuda()
# Batch 64, but for the comparison of a range with a region: there, 8192, so that the work is
# milliseconds and the inner one's own enter and exit (Python's, microseconds on a slow host)
# stay well inside the 2% the two are compared to.
x = torch.randn(8192 if mode in ("region_outside", "nvtx_outside") else 64, 1024, device="cuda")
if mode == "emit":
    # No warmup code at all: the operators' ranges are emit_nvtx's, the forward's the user's.
    with torch.no_grad(), torch.autograd.profiler.emit_nvtx():
        for _ in range(calls):
            with torch.cuda.nvtx.range("forward"):
                model(x)
                torch.cuda.synchronize()
elif mode == "device":
    # The forward's own CUDA events, inside its range, against the range's device time.
    ms = []
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with torch.no_grad(), torch.autograd.profiler.emit_nvtx():
        for _ in range(calls):
            with torch.cuda.nvtx.range("forward"):
                a.record()
                model(x)
                b.record()
                torch.cuda.synchronize()
            ms.append(a.elapsed_time(b))
    print("events_p50_us", sorted(ms[calls // 2:])[len(ms[calls // 2:]) // 2] * 1000)
else:
    # Each order in a process of its own, so that both first calls are the model's first.
    import warmup
    def ranges():
        if mode == "region_outside":
            return warmup.region("region outside"), torch.cuda.nvtx.range("nvtx inside")
        return torch.cuda.nvtx.range("nvtx outside"), warmup.region("region inside")
    with torch.no_grad():
        for _ in range(calls):
            outer, inner = ranges()
            with outer, inner:
                model(x)
                torch.cuda.synchronize()
'''


def tool_path():
    """The installed package's tool (a wheel's), else the tool of the build tree the module comes
    from (build/X/python/warmup -> build/X/nvtx_tool)."""
    if warmup.nvtx_tool_path() is not None:
        return warmup.nvtx_tool_path()
    build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(warmup.__file__))))
    path = os.path.join(build, "nvtx_tool", "libwarmup_nvtx.so")
    assert os.path.exists(path), f"no NVTX tool beside the module ({path}): build warmup_nvtx"
    return path


def run(tmp_path, mode, calls, **env):
    report = tmp_path / f"{mode}.json"
    e = {k: v for k, v in os.environ.items() if not k.startswith("WARMUP_")}
    e.update(NVTX_INJECTION64_PATH=tool_path(), WARMUP_REPORT=str(report), **env)
    r = subprocess.run([sys.executable, "-c", PROGRAM, mode, str(calls)], capture_output=True, text=True,
                       timeout=300, env=e)
    assert r.returncode == 0, r.stderr[-3000:]
    run.stdout = r.stdout
    return {s["name"]: s for s in json.loads(report.read_text())["sites"]}, r.stderr


def test_emit_nvtx_operators_account_for_the_first_forward(tmp_path):
    sites, err = run(tmp_path, "emit", 40, WARMUP_ATTRIBUTION="1")
    forward = sites["forward"]
    assert forward["calls"] == 40
    ops = {n: s for n, s in sites.items() if n.startswith("aten::")}
    # Sequence numbers dropped: one site per operator, every forward's calls in it.
    assert ops["aten::linear"]["calls"] == 6 * 40, {n: s["calls"] for n, s in ops.items()}
    assert ops["aten::relu"]["calls"] == 6 * 40
    assert not any("seq =" in n for n in sites), [n for n in sites if "seq =" in n]
    # The forward's own operators (nn.Linear calls aten::linear, which calls aten::addmm inside
    # it: counting only the outer ones counts nothing twice).
    top = ("aten::linear", "aten::relu")
    f = forward["host"]
    ops_excess = sum(ops[n]["host"]["warmup_excess"] for n in top)
    print(f"\nforward: first {f['first'] / 1e3:.1f} us, p50 {f['steady']['p50'] / 1e3:.1f} us, warm-up excess "
          f"{f['warmup_excess'] / 1e3:.1f} us; aten::linear + aten::relu warm-up excess {ops_excess / 1e3:.1f} us; "
          + ", ".join(f"{n} first {ops[n]['host']['first'] / 1e3:.1f} us p50 {ops[n]['host']['steady']['p50'] / 1e3:.2f} us"
                      for n in top))
    assert f["first"] > 10 * f["steady"]["p50"], f
    assert 0.6 * f["warmup_excess"] <= ops_excess <= 1.05 * f["warmup_excess"], (ops_excess, f["warmup_excess"])
    # Attribution joins the first calls' causes to the ranges, as to scopes.
    why = ops["aten::linear"]["host"]["first_call_causes"]
    assert why is not None and why["named"] > 0, why


def test_an_nvtx_range_measures_what_a_region_measures(tmp_path):
    for mode, outer, inner in (("region_outside", "region outside", "nvtx inside"),
                               ("nvtx_outside", "nvtx outside", "region inside")):
        sites, _ = run(tmp_path, mode, 200)
        a, b = sites[outer]["host"], sites[inner]["host"]
        assert sites[outer]["calls"] == sites[inner]["calls"] == 200
        print(f"\n{outer} / {inner}: first {a['first'] / 1e3:.1f} / {b['first'] / 1e3:.1f} us, "
              f"p50 {a['steady']['p50'] / 1e3:.2f} / {b['steady']['p50'] / 1e3:.2f} us")
        # The outer one holds the inner one's two ends: within 2% of each other, either way round.
        assert abs(a["first"] - b["first"]) <= 0.02 * a["first"], (outer, a["first"], b["first"])
        assert abs(a["steady"]["p50"] - b["steady"]["p50"]) <= 0.02 * a["steady"]["p50"], (outer, a["steady"], b["steady"])
        assert set(sites) == {outer, inner}, set(sites)  # the module's own ranges are not counted twice


def test_device_time_of_pytorch_ranges(tmp_path):
    """WARMUP_NVTX_DEVICE=on: the forward's range and every operator's get device times, from
    the kernels they launched; the forward's reads what CUDA events around it read, less the
    events' own gaps before the first kernel and after the last."""
    sites, err = run(tmp_path, "device", 60, WARMUP_NVTX_DEVICE="on")
    events = float(run.stdout.split()[-1]) * 1e3
    forward, linear = sites["forward"]["device"], sites["aten::linear"]["device"]
    assert forward is not None and forward["calls"] == 60, forward
    assert linear is not None and linear["calls"] == 6 * 60, linear
    p50 = forward["steady"]["p50"]
    print(f"\nforward device p50 {p50 / 1e3:.1f} us (events {events / 1e3:.1f} us), first {forward['first'] / 1e3:.1f} us; "
          f"aten::linear device p50 {linear['steady']['p50'] / 1e3:.2f} us; host p50 {sites['forward']['host']['steady']['p50'] / 1e3:.1f} us")
    assert 0.7 * events <= p50 <= 1.02 * events, (p50, events)
    # The operators' device times lie inside the forward's.
    assert 6 * linear["steady"]["p50"] <= 1.02 * p50, (linear["steady"], p50)


NCCL_PROGRAM = r'''
import os, sys, torch, torch.distributed as dist
dist.init_process_group("nccl", rank=0, world_size=1)
x = torch.ones(1 << 20, device="cuda")
for _ in range(int(sys.argv[1])):
    dist.all_reduce(x)
torch.cuda.synchronize()
dist.destroy_process_group()
'''


def test_nccl_own_ranges_on_one_gpu(tmp_path):
    """NCCL annotates its own calls with NVTX (domain NCCL): with no line of warmup in the
    program, each collective is a site with its first call and steady state. One rank on one
    GPU here; the same ranges on two GPUs need a machine with two."""
    report = tmp_path / "nccl.json"
    e = {k: v for k, v in os.environ.items() if not k.startswith("WARMUP_")}
    e.update(NVTX_INJECTION64_PATH=tool_path(), WARMUP_REPORT=str(report), WARMUP_NVTX_DEVICE="on",
             NCCL_NVLS_ENABLE="0", MASTER_ADDR="127.0.0.1", MASTER_PORT="29517")
    r = subprocess.run([sys.executable, "-c", NCCL_PROGRAM, "50"], capture_output=True, text=True, timeout=300, env=e)
    assert r.returncode == 0, r.stderr[-3000:]
    r = json.loads(report.read_text())
    sites = {s["name"]: s for s in r["sites"]}
    print("\n" + "\n".join(r["notices"]))
    nccl = {n: s for n, s in sites.items() if n.startswith("[NCCL]")}
    print("\n" + "\n".join(f"{n}: {s['calls']} calls, first {s['host']['first'] / 1e3:.1f} us, p50 "
                           f"{(s['host']['steady'] or {}).get('p50', 0) / 1e3:.1f} us, device "
                           f"{'none' if s['device'] is None else str(s['device']['calls']) + ' calls'}"
                           for n, s in nccl.items()))
    all_reduce = [s for n, s in nccl.items() if "AllReduce" in n]
    assert all_reduce, sorted(sites)
    assert sum(s["calls"] for s in all_reduce) == 50, {n: s["calls"] for n, s in nccl.items()}


TWO_RANK_PROGRAM = r'''
import os, sys, torch, torch.distributed as dist
rank = int(os.environ["RANK"])
torch.cuda.set_device(rank)
dist.init_process_group("nccl")
x = torch.ones(1 << 20, device="cuda")
calls = int(sys.argv[1])
for _ in range(calls):
    dist.all_reduce(x)
torch.cuda.synchronize()
assert x[0].item() == 2.0 ** calls, x[0].item()
dist.destroy_process_group()
'''


def test_nccl_own_ranges_on_two_gpus(tmp_path):
    """The same collectives across two GPUs of one host, launched by torchrun under
    `python -m warmup run`: each rank writes its report, and in each the first all-reduce (where
    NCCL connects the two ranks' peers) stands apart from the steady state."""
    import torch
    if torch.cuda.device_count() < 2:
        pytest.skip(f"{torch.cuda.device_count()} GPU(s) here: two ranks need two")
    script = tmp_path / "two_ranks.py"
    script.write_text(TWO_RANK_PROGRAM)
    report = tmp_path / "nccl2.rank%r.json"  # %r: the rank (torchrun's RANK)
    e = {k: v for k, v in os.environ.items() if not k.startswith("WARMUP_") and k != "NVTX_INJECTION64_PATH"}
    e.update(NCCL_NVLS_ENABLE="0", WARMUP_NVTX_DEVICE="on")
    r = subprocess.run([sys.executable, "-m", "warmup", "run", "-o", str(report), "--",
                        sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", "--master-port", "29518",
                        str(script), "50"], capture_output=True, text=True, timeout=300, env=e)
    assert r.returncode == 0, r.stderr[-3000:]
    ranks = sorted(tmp_path.glob("nccl2.rank*.json"))
    assert [p.name for p in ranks] == ["nccl2.rank0.json", "nccl2.rank1.json"], sorted(os.listdir(tmp_path))
    for path in ranks:
        r = json.loads(path.read_text())
        assert r["identity"]["rank"] == int(path.name[len("nccl2.rank"):-len(".json")]), r["identity"]
        sites = {s["name"]: s for s in r["sites"]}
        all_reduce = sites.get("[NCCL] ncclAllReduce")
        assert all_reduce is not None, sorted(sites)
        assert all_reduce["calls"] == 50, all_reduce["calls"]
        host = all_reduce["host"]
        print(f"\n{path.name}: [NCCL] ncclAllReduce first {host['first'] / 1e3:.1f} us, steady p50 "
              f"{host['steady']['p50'] / 1e3:.1f} us; " +
              ", ".join(f"{n} {s['host']['first'] / 1e6:.1f} ms" for n, s in sites.items()
                        if n.startswith("[NCCL]") and s["calls"] == 1))
        assert host["first"] > 10 * host["steady"]["p50"], host
