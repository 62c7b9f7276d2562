#!/usr/bin/env python3
"""Configures warmup as a new user would, in a scratch folder, and checks what they get.

usage: check_configure.py SOURCE_DIR SCRATCH_DIR GENERATOR
  1. no build type given: the project builds Release (its figures are timings);
  2. no Catch2 and no test option: configure and install succeed, tests are off, and CMake says so;
  3. no Catch2, tests asked for: the Catch2 tests are listed and reported as skipped with the
     reason, never as passed, and the tests that need no Catch2 still run.
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check

src, scratch, generator = sys.argv[1:4]
shutil.rmtree(scratch, ignore_errors=True)


def cmake(build, *args):
    r = warmup_check.run_ok(["cmake", "-S", src, "-B", build, "-G", generator, "-DWARMUP_BUILD_EXAMPLES=OFF", *args])
    return r.stdout + r.stderr


def cache(build, key):
    for line in open(os.path.join(build, "CMakeCache.txt")):
        if line.startswith(key + ":"):
            return line.split("=", 1)[1].strip()
    return None


no_catch2 = "-DCMAKE_DISABLE_FIND_PACKAGE_Catch2=ON"

b1 = os.path.join(scratch, "plain")
out = cmake(b1, no_catch2)
assert cache(b1, "CMAKE_BUILD_TYPE") == "Release", cache(b1, "CMAKE_BUILD_TYPE")
assert "using Release" in out, out
assert cache(b1, "WARMUP_BUILD_TESTS") == "OFF", cache(b1, "WARMUP_BUILD_TESTS")
assert "Catch2 not found; tests are off" in out, out
prefix = os.path.join(scratch, "prefix")
warmup_check.run_ok(["cmake", "--install", b1, "--prefix", prefix])
assert os.path.exists(os.path.join(prefix, "include", "warmup", "profile.hpp"))
print("no build type: Release; no Catch2: tests off with a message, install works")

b2 = os.path.join(scratch, "asked")
cmake(b2, no_catch2, "-DWARMUP_BUILD_TESTS=ON", "-DCMAKE_BUILD_TYPE=Debug")
assert cache(b2, "CMAKE_BUILD_TYPE") == "Debug"
r = warmup_check.run_ok(["ctest", "--test-dir", b2, "-R", "^(host|nvtx|long_runs)$"])
assert r.stdout.count("Skipped") >= 3 and "Passed" not in r.stdout.split("tests passed")[0], r.stdout
r = warmup_check.run(["ctest", "--test-dir", b2, "-R", "^host$", "-V"])
assert "skipped: Catch2 (2 or 3) was not found" in r.stdout, r.stdout
print("no Catch2, tests asked for: its tests skipped with the reason")
