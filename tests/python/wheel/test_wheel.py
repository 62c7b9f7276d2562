"""The wheel `pip install .` makes (tools/packaging/warmup_build.py, docs/python.md "Install"):
built from a copy of the repository as a fresh clone has it, from the CTest build's folder (the
module is built once, by that build), then

- its content: the package, the module, the NVTX tool, warmup-report, headers and CMake package,
  a RECORD whose digests hold; its native parts need libc, libstdc++ and the CUDA runtime only,
  with no RUNPATH into the build folder;
- `pip install --no-build-isolation .` into a fresh venv: `import warmup`, `python -m warmup run`,
  the console script warmup-report, and a C++ project that finds the package through
  `python -m warmup --cmake-dir`;
- the wheel installed into a second venv (Debian's Python, for its pytest) with no compiler or
  CMake on PATH: tests/python's tests pass against it.

Environment (set by CTest): WARMUPTEST_BUILD_DIR, WARMUPTEST_MODULE_PYTHON (the Python the module
was built for), WARMUPTEST_CUDA_LIBRARY_DIR, NVTX_TEST_PROGRAM."""
import base64
import csv
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
BUILD = os.environ.get("WARMUPTEST_BUILD_DIR")
MODULE_PYTHON = os.environ.get("WARMUPTEST_MODULE_PYTHON")
CUDA_LIBS = os.environ.get("WARMUPTEST_CUDA_LIBRARY_DIR", "")
PROGRAM = os.environ.get("NVTX_TEST_PROGRAM")
pytestmark = pytest.mark.skipif(not BUILD or not MODULE_PYTHON, reason="CTest's python_wheel test sets the build")
# What the wheel's native parts may need: the C and C++ runtimes, and the CUDA runtime by soname.
ALLOWED = re.compile(r"(libc|libm|libdl|libpthread|librt|libgcc_s|libstdc\+\+|ld-linux-x86-64|ld-linux-aarch64)"
                     r"\.so(\.[0-9]+)*|libcudart\.so\.[0-9]+")
COMPILERS = ("cc", "c++", "gcc", "g++", "clang", "clang++", "nvcc", "cmake")


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=kw.pop("timeout", 600), **kw)
    assert r.returncode == 0, f"{cmd}: {r.returncode}\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}"
    return r


def clean_env(**extra):
    """The environment without this build's PYTHONPATH or WARMUP_ settings, so that a venv
    imports its own install."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("WARMUP")}
    env.update(PYTHONDONTWRITEBYTECODE="1", PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", **extra)
    return env


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """The repository's files as a fresh clone has them (git's tracked files and the new ones it
    does not ignore: what would be committed), without its build folders."""
    dest = tmp_path_factory.mktemp("clone") / "warmup"
    listed = run(["git", "-C", SOURCE, "ls-files", "-z", "--cached", "--others", "--exclude-standard"])
    for f in listed.stdout.split("\0"):
        if f and os.path.isfile(os.path.join(SOURCE, f)):
            os.makedirs(dest / os.path.dirname(f), exist_ok=True)
            shutil.copy2(os.path.join(SOURCE, f), dest / f)
    return dest


@pytest.fixture(scope="module")
def wheel(clone, tmp_path_factory):
    out = tmp_path_factory.mktemp("wheels")
    run([MODULE_PYTHON, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index", "-w", str(out),
         f"--config-settings=build-dir={BUILD}", str(clone)], env=clean_env())
    wheels = [p for p in os.listdir(out) if p.endswith(".whl")]
    assert len(wheels) == 1, wheels
    return out / wheels[0]


def test_the_wheel_holds_both_languages_and_its_record(wheel, tmp_path):
    tag = run([MODULE_PYTHON, "-c", "import sys, sysconfig; v = sys.version_info; "
               "print(f'cp{v[0]}{v[1]}-cp{v[0]}{v[1]}-' + sysconfig.get_platform().replace('-', '_').replace('.', '_'))"])
    assert wheel.name.endswith(f"-{tag.stdout.strip()}.whl"), wheel.name
    ext = run([MODULE_PYTHON, "-c", "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))"]).stdout.strip()
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/WHEEL"))
        for required in ("warmup/__init__.py", "warmup/__main__.py", "warmup/_launcher.py", f"warmup/_warmup{ext}",
                         "warmup/lib/libwarmup_nvtx.so", "warmup/lib/libwarmup_nvtx_thread.so",
                         "warmup/bin/warmup-report", "warmup/include/warmup/profile.hpp",
                         "warmup/lib/cmake/warmup/warmupConfig.cmake", "warmup/lib/cmake/warmup/warmupToolTargets.cmake",
                         "warmup/share/warmup/warmup_runtime.cpp", f"{info}/METADATA", f"{info}/RECORD",
                         f"{info}/entry_points.txt"):
            assert required in names, f"{required} not in the wheel: {sorted(names)}"
        assert not [n for n in names if "__pycache__" in n or n.startswith(("tests/", "build/"))]
        assert "warmup-report = warmup._launcher:report_tool" in z.read(f"{info}/entry_points.txt").decode()
        wheel_file = z.read(f"{info}/WHEEL").decode()
        assert "Root-Is-Purelib: false" in wheel_file and f"Tag: {wheel.name.split('-', 2)[2][:-4]}" in wheel_file
        # RECORD (PEP 376/427): every member once, with the sha256 and size of its bytes.
        rows = list(csv.reader(io.StringIO(z.read(f"{info}/RECORD").decode())))
        assert {r[0] for r in rows} == names and len(rows) == len(names)
        for path, digest, size in rows:
            if path == f"{info}/RECORD":
                assert digest == size == ""
                continue
            data = z.read(path)
            assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode(), path
            assert int(size) == len(data), path
        assert z.getinfo("warmup/bin/warmup-report").external_attr >> 16 & 0o111, "warmup-report lost its x bit"
        z.extractall(tmp_path)
    # The native parts: what they need, and where they look.
    elves = [n for n in names if n.endswith(".so") or n == "warmup/bin/warmup-report"]
    assert len(elves) == 4, elves
    build = os.path.realpath(BUILD)
    for n in elves:
        dynamic = run(["readelf", "-d", str(tmp_path / n)]).stdout
        needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.*)\]", dynamic)
        assert all(ALLOWED.fullmatch(lib) for lib in needed), f"{n} needs {needed}"
        for path in re.findall(r"\((?:RPATH|RUNPATH)\)\s+Library r(?:un)?path: \[(.*)\]", dynamic):
            # $ORIGIN-relative (pip's CUDA runtime wheel beside the package), else the toolkit's folder.
            for entry in filter(None, path.split(":")):
                if entry.startswith("$ORIGIN/"):
                    continue
                assert CUDA_LIBS and os.path.realpath(entry) == os.path.realpath(CUDA_LIBS), \
                    f"{n}'s RUNPATH names {entry} ({path})"
                assert not os.path.realpath(entry).startswith(build), f"{n}'s RUNPATH names the build folder: {path}"
        assert build.encode() not in dynamic.encode(), f"{n}'s dynamic section names {build}"


def venv(python, folder, *options):
    run([python, "-m", "venv", *options, str(folder)], env=clean_env())
    return str(folder / "bin" / "python")


def test_pip_install_in_a_fresh_venv(clone, tmp_path):
    python = venv(MODULE_PYTHON, tmp_path / "venv")
    run([python, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index",
         f"--config-settings=build-dir={BUILD}", str(clone)], env=clean_env(), cwd=tmp_path)
    env = clean_env()
    where = run([python, "-c", "import warmup; print(warmup.__file__); print(warmup.nvtx_tool_path())"],
                env=env, cwd=tmp_path).stdout.split()
    package = os.path.dirname(where[0])
    assert package.startswith(str(tmp_path / "venv")), where
    assert where[1] == os.path.join(package, "lib", "libwarmup_nvtx.so"), where
    # A scope and its report.
    r = run([python, "-c", "import warmup\nwith warmup.region('wheel.step'):\n    pass\n"
             "print(warmup.snapshot().find('wheel.step').calls)"], env=env, cwd=tmp_path)
    assert r.stdout.strip() == "1", r.stdout
    # The console script runs the packaged program.
    version = run([str(tmp_path / "venv" / "bin" / "warmup-report"), "--version"], env=env, cwd=tmp_path)
    assert "0." in version.stdout + version.stderr, version
    # python -m warmup run: the package's NVTX tool measures a program's NVTX ranges.
    if PROGRAM:
        r = run([python, "-m", "warmup", "run", "-o", str(tmp_path / "run.json"), "--", PROGRAM], env=env, cwd=tmp_path)
        assert (tmp_path / "run.json").exists(), r.stderr
        assert '"name"' in (tmp_path / "run.json").read_text()
        # The packaged warmup-report runs it too, with the tool beside it (its bin/../lib first).
        run([str(tmp_path / "venv" / "bin" / "warmup-report"), "run", "-o", str(tmp_path / "run2.json"), "--", PROGRAM],
            env=env, cwd=tmp_path)
        assert '"name"' in (tmp_path / "run2.json").read_text()
    # The folders a C++ project reads, printed without loading the native module.
    cmake_dir = run([python, "-m", "warmup", "--cmake-dir"], env=env, cwd=tmp_path).stdout.strip()
    include_dir = run([python, "-m", "warmup", "--include-dir"], env=env, cwd=tmp_path).stdout.strip()
    assert cmake_dir == os.path.join(package, "lib", "cmake", "warmup")
    assert os.path.exists(os.path.join(include_dir, "warmup", "profile.hpp"))
    # A C++ project finds the package there, builds and runs.
    consumer = tmp_path / "consumer"
    consumer.mkdir()
    (consumer / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.25)\nproject(wheel_consumer LANGUAGES CXX)\n"
        "find_package(warmup 0.4 REQUIRED COMPONENTS report-tool)\n"
        "add_executable(app app.cpp)\ntarget_link_libraries(app PRIVATE warmup::warmup)\n")
    (consumer / "app.cpp").write_text(
        "#include <warmup/profile.hpp>\n#include <iostream>\n"
        "int main() { { warmup::region_scope s{\"consumer.step\"}; }\n"
        "  std::cout << warmup::snapshot().sites.size() << \" site\\n\"; }\n")
    run(["cmake", "-S", str(consumer), "-B", str(consumer / "build"), f"-Dwarmup_DIR={cmake_dir}",
         "-DCMAKE_BUILD_TYPE=Debug", "-DCMAKE_CXX_FLAGS_DEBUG=-O0"], env=env)
    run(["cmake", "--build", str(consumer / "build"), "-j2"], env=env)
    assert run([str(consumer / "build" / "app")], env=env).stdout == "1 site\n"


# tests/python's tests that need nothing of the build folder (no C++ extension of the tests).
PORTABLE_TESTS = ["test_scopes.py", "test_report.py", "test_timed.py", "test_nvtx_run.py"]


def test_a_wheel_built_once_installs_and_passes_elsewhere_without_a_compiler(wheel, tmp_path):
    system = "/usr/bin/python3"
    same = run([MODULE_PYTHON, "-c", "import sys; print(sys.version_info[:2])"]).stdout
    if not os.path.exists(system) or run([system, "-c", "import sys; print(sys.version_info[:2])"]).stdout != same:
        pytest.skip(f"no {system} of the module's Python version (for its pytest) here")
    python = venv(system, tmp_path / "other", "--system-site-packages")
    run([python, "-m", "pip", "install", "--no-deps", "--no-index", str(wheel)], env=clean_env(), cwd=tmp_path)
    path = str(tmp_path / "other" / "bin")
    assert not [c for c in COMPILERS if shutil.which(c, path=path)]
    env = clean_env(PATH=path)
    if PROGRAM:
        env["NVTX_TEST_PROGRAM"] = PROGRAM
    where = run([python, "-c", "import warmup; print(warmup.__file__)"], env=env, cwd=tmp_path).stdout
    assert where.startswith(str(tmp_path / "other")), where
    tests = [os.path.join(SOURCE, "tests", "python", t) for t in PORTABLE_TESTS]
    r = run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests], env=env, cwd=tmp_path)
    assert " passed" in r.stdout and " failed" not in r.stdout, r.stdout
