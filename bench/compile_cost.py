#!/usr/bin/env python3
"""What a file that measures costs to compile: compiler CPU time, peak memory and bytes of code,
against the same file with CUDA's runtime header alone and with an NVTX range (nvtx3), compiled
in the same run.

Each file is what a new user writes: `cuda_runtime.h`, the instrumentation header, and one range
(`nvtx3::scoped_range`; `WARMUP_SCOPE` and a device-timed `region_scope` for warmup). Every file
is compiled `--runs` times; the figures are medians. CPU time is the compiler's own (user + sys
of the child processes), so a busy machine blurs it less than wall time; peak memory is the
largest resident set of one compiler process; code is `size`'s text of the object file.

usage: bench/compile_cost.py [--compiler g++] [--opt=-O2] [--runs 3] [--nvcc] [--include DIR]
  --nvcc: compile each file as CUDA with nvcc instead (wall time and memory of the whole driver)
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

BODY = {
    "cuda_runtime.h alone": """
#include <cuda_runtime.h>
int work(cudaStream_t s) { return cudaStreamQuery(s) == cudaSuccess; }
""",
    "nvtx3 scoped_range": """
#include <cuda_runtime.h>
#include <nvtx3/nvtx3.hpp>
int work(cudaStream_t s) {
  nvtx3::scoped_range r{"work"};
  return cudaStreamQuery(s) == cudaSuccess;
}
""",
    "warmup/scope.hpp": """
#include <cuda_runtime.h>
#include <warmup/scope.hpp>
int work(cudaStream_t s) {
  WARMUP_SCOPE("work");
  warmup::region_scope timed{"work.device", s};
  return cudaStreamQuery(s) == cudaSuccess;
}
""",
    "warmup/profile.hpp": """
#include <cuda_runtime.h>
#include <warmup/profile.hpp>
int work(cudaStream_t s) {
  WARMUP_SCOPE("work");
  warmup::region_scope timed{"work.device", s};
  return cudaStreamQuery(s) == cudaSuccess;
}
""",
}
# Each warmup file twice: whole (the runtime compiled in it, as a one-file program) and light
# (-DWARMUP_LIGHT: the runtime left to one file of the program, <warmup/runtime.hpp>).
ROWS = [("cuda_runtime.h alone", "cuda_runtime.h alone", []),
        ("nvtx3 scoped_range", "nvtx3 scoped_range", []),
        ("warmup/scope.hpp", "warmup/scope.hpp", []),
        ("warmup/scope.hpp light", "warmup/scope.hpp", ["-DWARMUP_LIGHT"]),
        ("warmup/profile.hpp", "warmup/profile.hpp", []),
        ("warmup/profile.hpp light", "warmup/profile.hpp", ["-DWARMUP_LIGHT"])]


def cuda_root():
    for c in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if c and os.path.isdir(os.path.join(c, "include")):
            return c
    sys.exit("compile_cost: no CUDA toolkit (set CUDA_HOME)")


def text_bytes(obj):
    out = subprocess.run(["size", obj], capture_output=True, text=True, check=True).stdout.splitlines()
    return int(out[1].split()[0])


def measure(command):
    """Runs `command` in a child Python, so that RUSAGE_CHILDREN's peak is this compile's alone."""
    probe = ("import resource,subprocess,sys,time\n"
             "t=time.monotonic();r=subprocess.run(sys.argv[1:]);w=time.monotonic()-t\n"
             "u=resource.getrusage(resource.RUSAGE_CHILDREN)\n"
             "print(u.ru_utime+u.ru_stime,w,u.ru_maxrss);sys.exit(r.returncode)")
    r = subprocess.run([sys.executable, "-c", probe, *command], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"compile_cost: {' '.join(command)} failed:\n{r.stderr[-4000:]}")
    cpu, wall, peak = r.stdout.split()
    return float(cpu), float(wall), int(peak)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--compiler", default=os.environ.get("CXX", "g++"))
    ap.add_argument("--opt", default="-O2")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--nvcc", action="store_true")
    ap.add_argument("--include", default=os.path.join(ROOT, "include"))
    a = ap.parse_args()
    cuda = cuda_root()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, key, extra in ROWS:
            src = os.path.join(tmp, "f" + str(len(rows)) + (".cu" if a.nvcc else ".cpp"))
            obj = src + ".o"
            with open(src, "w") as f:
                f.write(BODY[key])
            if a.nvcc:
                nvcc = shutil.which("nvcc") or os.path.join(cuda, "bin", "nvcc")
                command = [nvcc, "-std=c++17", a.opt, "-I", a.include, *extra, "-c", src, "-o", obj]
            else:
                command = [a.compiler, "-std=c++17", a.opt, "-I", a.include, "-isystem", os.path.join(cuda, "include"),
                           *extra, "-c", src, "-o", obj]
            runs = [measure(command) for _ in range(a.runs)]
            rows.append((name, statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs),
                         max(r[2] for r in runs) / 1024.0, text_bytes(obj)))
    nvtx = next(r for r in rows if r[0] == "nvtx3 scoped_range")
    what = f"{'nvcc' if a.nvcc else a.compiler} {a.opt}, median of {a.runs}"
    print(f"compile cost of one file ({what})")
    print(f"{'file':26} {'CPU s':>7} {'wall s':>7} {'peak MB':>8} {'code KB':>8}   {'CPU / nvtx3':>11} {'code / nvtx3':>12}")
    for name, cpu, wall, peak, code in rows:
        print(f"{name:26} {cpu:7.2f} {wall:7.2f} {peak:8.0f} {code / 1024:8.1f}   {cpu / nvtx[1]:10.2f}x {code / nvtx[4]:11.2f}x")


if __name__ == "__main__":
    main()
