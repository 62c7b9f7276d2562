"""examples/nccl on a machine of two GPUs or more: built against the Python packages' NCCL, run
under mpirun (reports gathered over MPI) and under torchrun --no-python (a report per rank,
merged by warmup-report), and each merged report checked: every rank, every site on every rank,
counts exact, device times for the all-reduces, the first 64 MiB all-reduce above its steady
p50. Exit 77 only where the host has fewer than two GPUs (nvidia-smi -L, /dev/nvidiaN: asked
before anything else) or the runner hid them; with two or more, no NCCL (nvidia.nccl) fails, and so
does a run in which no launcher ran (neither mpirun with an MPI build, nor torchrun).

usage: check_nccl.py BUILD_DIR OUT_DIR
"""
import glob
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check

build, out = sys.argv[1:3]
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
gpus = warmup_check.host_gpu_count()
if warmup_check.gpus_hidden():
    warmup_check.skip("GPUs hidden by CUDA_VISIBLE_DEVICES; NCCL needs a GPU per rank")
if gpus < 2:
    warmup_check.skip(f"{gpus} GPU(s) on this host (nvidia-smi -L, /dev/nvidiaN); NCCL needs a GPU per rank")
try:
    import nvidia.nccl
    nccl = list(nvidia.nccl.__path__)[0]
except ImportError as e:
    warmup_check.fail(f"{gpus} GPUs here, but no NCCL in this Python ({sys.executable}: {e}); "
                      "install nvidia-nccl-cu12 (or the machine's PyTorch) so that the two-GPU run can happen")
os.makedirs(out, exist_ok=True)
subprocess.run(["cmake", "-S", os.path.join(root, "examples", "nccl"), "-B", build, "-G", "Ninja",
                "-DCMAKE_BUILD_TYPE=Release", f"-DNCCL_ROOT={nccl}"], check=True, stdout=subprocess.DEVNULL)
subprocess.run(["cmake", "--build", build, "-j", "16"], check=True, stdout=subprocess.DEVNULL)
env = dict(os.environ, NCCL_NVLS_ENABLE="0", LD_LIBRARY_PATH=os.path.join(nccl, "lib") + ":" + os.environ.get("LD_LIBRARY_PATH", ""))
env.pop("CHECK_KEEP_DIR", None)
program, tool = os.path.join(build, "allreduce"), os.path.join(build, "warmup", "warmup-report")
check = warmup_check.Checks()
launched = []  # the launchers that ran the program


def check_merged(path, how):
    m = json.load(open(path))
    sites = {s["name"]: s for s in m["sites"]}
    check([r["rank"] for r in m["ranks"]] == [0, 1] and len({r["uuid"] for r in m["ranks"]}) == 2,
          f"{how}: ranks 0 and 1, on two GPUs (their UUIDs)")
    check(all(s["ranks"] == 2 and not s["missing_ranks"] for s in m["sites"]), f"{how}: every site on both ranks")
    for size in ("64 MiB", "256 KiB"):
        s = sites[f"allreduce {size}"]
        check([f["calls"] for f in s["per_rank"]] == [50, 50] and s["calls"] == 100, f"{how}: allreduce {size}: 50 calls a rank")
        check(s["device_p50"] is not None and s["device_p50"]["ranks"] == 2, f"{how}: allreduce {size}: device-timed on both ranks")
    big = sites["allreduce 64 MiB"]
    check(big["first"]["min"] > 10 * big["device_p50"]["max"],
          f"{how}: the first 64 MiB all-reduce ({big['first']['min'] / 1e6:.1f} ms) far above its steady device p50 "
          f"({big['device_p50']['median'] / 1e3:.0f} us)")
    return m


mpirun = shutil.which("mpirun")
built_with_mpi = "WARMUP_EXAMPLE_MPI" in open(os.path.join(build, "build.ninja")).read()
if mpirun and built_with_mpi:
    merged = os.path.join(out, "nccl_mpirun.json")
    p = subprocess.run([mpirun, "--allow-run-as-root", "-np", "2", "-x", "NCCL_NVLS_ENABLE", "-x", "LD_LIBRARY_PATH", program, merged],
                       env=env, capture_output=True, text=True, timeout=300)
    print(p.stdout[-3000:], p.stderr[-2000:])
    launched.append("mpirun")
    check(p.returncode == 0, "mpirun -np 2: exit 0")
    if p.returncode == 0:
        check_merged(merged, "mpirun")
else:
    print("note: no mpirun or no MPI at build time: the MPI run is left out")

torchrun = shutil.which("torchrun")
if torchrun:
    for f in glob.glob(os.path.join(out, "nccl_torchrun*.json")):
        os.remove(f)
    each = os.path.join(out, "nccl_torchrun.json")
    p = subprocess.run([torchrun, "--nproc-per-node", "2", "--no-python", program, each], env=env,
                       capture_output=True, text=True, timeout=300)
    print(p.stderr[-2000:])
    launched.append("torchrun")
    check(p.returncode == 0, "torchrun --nproc-per-node 2 --no-python: exit 0")
    ranks = sorted(glob.glob(os.path.join(out, "nccl_torchrun.rank*.json")))
    check(len(ranks) == 2, f"torchrun: a report per rank ({ranks})")
    merged = os.path.join(out, "nccl_torchrun_merged.json")
    p = subprocess.run([tool, "merge", *ranks, "-o", merged, "-o", "-"], capture_output=True, text=True)
    print(p.stdout)
    check(p.returncode == 0, "warmup-report merge of the torchrun ranks: exit 0")
    if p.returncode == 0:
        check_merged(merged, "torchrun")
else:
    print("note: no torchrun: the torchrun run is left out")
check(bool(launched), f"{gpus} GPUs: at least one launcher ran the two ranks (ran: {', '.join(launched) or 'none'}; "
                      f"mpirun {'found' if mpirun else 'not found'}, MPI at build time {'yes' if built_with_mpi else 'no'}, "
                      f"torchrun {'found' if torchrun else 'not found'})")
sys.exit(check.summary())
