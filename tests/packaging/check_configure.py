#!/usr/bin/env python3
"""Configures warmup as a new user would, in a scratch folder, and checks what they get.

usage: check_configure.py SOURCE_DIR SCRATCH_DIR GENERATOR
  1. no build type given: the project builds Release (its figures are timings);
  2. no Catch2 and no test option: configure and install succeed, tests are off, and CMake says so;
     that install, made without a build, says it holds the headers only; a consumer of it builds
     without the tool, and one that asks for the component report-tool is refused, told why and
     what to do; a project of LANGUAGES CUDA alone is refused with a sentence that says to enable
     CXX (where nvcc is found), not FindThreads' error;
  3. no Catch2, tests asked for: the Catch2 tests are listed and reported as skipped with the
     reason, never as passed, and the tests that need no Catch2 still run: one built here (a
     small program, seconds) and one that needs no build, both passed.
"""
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check

NO_CATCH2 = "-DCMAKE_DISABLE_FIND_PACKAGE_Catch2=ON"
# The Catch2 tests (stand-ins where Catch2 is missing), and tests that need no Catch2: a small
# program built here (WARMUP_DISABLE's usage, about 2 s to compile), and a script (the header list of
# docs/scopes-and-builds.md).
CATCH2_TESTS = ("host", "host_steady_clock", "cpu_sampling", "long_runs", "nvtx", "no_gpu", "no_gpu_hidden")
BUILT = {"packaging.disable.usage": "warmup_disabled_usage"}  # test: the target it runs
NO_BUILD = ("docs.readme_headers",)


def cmake(src, generator, build, *args):
    r = warmup_check.run_ok(["cmake", "-S", src, "-B", build, "-G", generator, "-DWARMUP_BUILD_EXAMPLES=OFF", *args])
    return r.stdout + r.stderr


def cache(build, key):
    for line in open(os.path.join(build, "CMakeCache.txt")):
        if line.startswith(key + ":"):
            return line.split("=", 1)[1].strip()
    return None


def outcomes(ctest_stdout):
    """Each test's outcome as CTest reports it: "Passed", "Skipped", "Failed", "Not Run", ..."""
    found = {}
    for line in ctest_stdout.splitlines():
        m = re.match(r"\s*\d+/\d+ Test\s+#\d+: (\S+) \.*\s*(?:\*\*\*)?(\S.*?)\s+[0-9.]+ sec$", line)
        if m:
            found[m.group(1)] = m.group(2)
    return found


def check_without_catch2(got, ctest_stdout=""):
    """Without Catch2, its tests are reported skipped, never passed; the others run and pass."""
    catch2 = {t: got.get(t, "not listed") for t in CATCH2_TESTS}
    assert all(v == "Skipped" for v in catch2.values()), (
        f"without Catch2, its tests must be reported skipped (never passed): {catch2}\n{ctest_stdout}")
    others = {t: got.get(t, "not listed") for t in (*BUILT, *NO_BUILD)}
    assert all(v == "Passed" for v in others.values()), (
        f"without Catch2, the tests that need none must still run and pass: {others}\n{ctest_stdout}")
    return f"{len(catch2)} Catch2 tests skipped, {len(others)} others ran and passed ({', '.join(others)})"


CONSUMER = """cmake_minimum_required(VERSION 3.25)
project(consumer LANGUAGES {languages})
find_package(warmup REQUIRED {components})
add_executable(consumer main.cpp)
target_link_libraries(consumer PRIVATE warmup::warmup)
if(TARGET warmup::report-tool)
  message(FATAL_ERROR "a header-only install named warmup::report-tool")
endif()
"""


def header_only_consumers(scratch, generator, prefix):
    """Consumers of an install made without a build: the headers serve; asking for the tool fails
    at find_package, naming the missing program and the commands that install it."""
    said = []
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
    cases = [("headers", "", "CXX"), ("tool", "COMPONENTS report-tool", "CXX")]
    if nvcc:
        cases.append(("cuda_only", "", "CUDA"))
    else:
        said.append("no nvcc: the CUDA-only project is not tried")
    for name, components, languages in cases:
        src = os.path.join(scratch, f"consumer_{name}")
        os.makedirs(src, exist_ok=True)
        with open(os.path.join(src, "CMakeLists.txt"), "w") as f:
            f.write(CONSUMER.format(components=components, languages=languages))
        with open(os.path.join(src, "main.cpp"), "w") as f:
            f.write("#include <warmup/profile.hpp>\nint main() { WARMUP_SCOPE(\"x\"); }\n")
        cuda = [f"-DCMAKE_CUDA_COMPILER={nvcc}", "-DCMAKE_CUDA_ARCHITECTURES=90"] if languages == "CUDA" else []
        r = warmup_check.run(["cmake", "-S", src, "-B", os.path.join(src, "build"), "-G", generator,
                              f"-DCMAKE_PREFIX_PATH={prefix}", *cuda])
        out = r.stdout + r.stderr
        if languages == "CUDA":
            flat = " ".join(out.split())
            assert r.returncode != 0, f"a CUDA-only project configured with warmup, which needs CXX:\n{out}"
            assert "FindThreads only works" not in flat and "project(app LANGUAGES CXX CUDA)" in flat, out
            said.append("a CUDA-only project is told to enable CXX")
            continue
        if not components:
            assert r.returncode == 0, out
            said.append("a consumer of the headers configures")
            continue
        assert r.returncode != 0, f"find_package(warmup COMPONENTS report-tool) passed on a header-only install:\n{out}"
        flat = " ".join(out.split())  # CMake wraps long messages
        for text in (os.path.join(prefix, "bin", "warmup-report"), "installed without being built",
                     "cmake --build <build> && cmake --install <build>"):
            assert text in flat, (text, out)
        said.append("one asking for report-tool is refused: " + flat[flat.index("warmup at"):][:60] + "...")
    return "header-only install: " + "; ".join(said)


def main(src, scratch, generator):
    shutil.rmtree(scratch, ignore_errors=True)
    b1 = os.path.join(scratch, "plain")
    out = cmake(src, generator, b1, NO_CATCH2)
    assert cache(b1, "CMAKE_BUILD_TYPE") == "Release", cache(b1, "CMAKE_BUILD_TYPE")
    assert "using Release" in out, out
    assert cache(b1, "WARMUP_BUILD_TESTS") == "OFF", cache(b1, "WARMUP_BUILD_TESTS")
    assert "Catch2 not found; tests are off" in out, out
    prefix = os.path.join(scratch, "prefix")
    r = warmup_check.run_ok(["cmake", "--install", b1, "--prefix", prefix])
    assert os.path.exists(os.path.join(prefix, "include", "warmup", "profile.hpp"))
    assert not os.path.exists(os.path.join(prefix, "bin", "warmup-report"))
    assert "warmup-report was not built" in r.stdout + r.stderr, r.stdout + r.stderr
    print("no build type: Release; no Catch2: tests off with a message, install works")
    print(header_only_consumers(scratch, generator, prefix))

    b2 = os.path.join(scratch, "asked")
    # What is checked here is Catch2's absence: the CUDA language, Python and MPI are not looked
    # for (the first configure above looked for all of them, as a new user's does).
    out2 = cmake(src, generator, b2, NO_CATCH2, "-DWARMUP_BUILD_TESTS=ON", "-DCMAKE_BUILD_TYPE=Debug",
          "-DCMAKE_CUDA_COMPILER=", "-DWARMUP_BUILD_PYTHON=OFF", "-DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON")
    assert cache(b2, "CMAKE_BUILD_TYPE") == "Debug"
    # No MPI: one calm line, no FindMPI "Could NOT find" that reads like an error.
    mpi = [line for line in out2.splitlines() if "MPI" in line]
    assert mpi == ["-- warmup: MPI parts are off (no MPI for C++ here): warmup::mpi is made where MPI is installed, "
                   "and the MPI tests are reported as skipped"], mpi
    warmup_check.run_ok(["cmake", "--build", b2, "--target", *BUILT.values()])
    names = "|".join(re.escape(t) for t in (*CATCH2_TESTS, *BUILT, *NO_BUILD))
    r = warmup_check.run(["ctest", "--test-dir", b2, "-R", f"^({names})$"])
    said = check_without_catch2(outcomes(r.stdout), r.stdout)
    warmup_check.expect_exit(r)
    r = warmup_check.run(["ctest", "--test-dir", b2, "-R", "^host$", "-V"])
    assert "skipped: Catch2 (2 or 3) was not found" in r.stdout, r.stdout
    print(f"no Catch2, tests asked for: its tests skipped with the reason; {said}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
