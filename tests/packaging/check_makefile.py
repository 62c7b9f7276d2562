#!/usr/bin/env python3
"""examples/make/Makefile, as a user would run it: copied to a scratch folder, built by make
with this checkout's headers (g++ or clang for the .cpp files, nvcc for the .cu file), then run:
it exits 0 and writes the report at exit, with the sites of both kinds of file. Skipped (77)
where make or nvcc is missing.

usage: check_makefile.py SOURCE_DIR SCRATCH_DIR CXX NVCC
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check


def main(src, scratch, cxx, nvcc):
    if not shutil.which("make") or not nvcc or not os.path.exists(nvcc):
        print("skipped: make or nvcc not found")
        sys.exit(77)
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(os.path.join(src, "examples", "make"), scratch)
    cuda = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
    warmup_check.run_ok(["make", "-C", scratch, f"WARMUP={src}", f"CXX={cxx}", f"NVCC={nvcc}", f"CUDA={cuda}"],
                        timeout=600)
    report = os.path.join(scratch, "report.json")
    r = warmup_check.run([os.path.join(scratch, "app")], timeout=120, env={"WARMUP_REPORT": report})
    warmup_check.expect_exit(r)
    sites = {s["name"] for s in warmup_check.load_report(report)["sites"]}
    assert {"allocate", "step", "scale"} <= sites, sites
    print(f"examples/make/Makefile built and ran a program of .cpp and .cu files: sites {sorted(sites)}")


if __name__ == "__main__":
    main(*sys.argv[1:5])
