"""The package's pure Python as a wheel lays it out (tools/packaging/warmup_build.py): the C++
install under the package folder. `python -m warmup --cmake-dir/--include-dir/--prefix` print its
folders without loading the native module, the NVTX tool is found in its lib/, and the console
script `warmup-report` runs its bin/'s program with the arguments. A copy of the package's .py
files with stand-ins for the native parts (the whole wheel: CTest's python_wheel)."""
import importlib.util
import os
import shutil
import subprocess
import sys

import pytest


@pytest.fixture
def wheel_package(tmp_path):
    """tmp/site/warmup: the package's .py files, a CMake config, a header, a tool and a program
    (a shell script printing its arguments), laid out as in the wheel, and no native module."""
    here = importlib.util.find_spec("warmup").submodule_search_locations[0]
    pkg = tmp_path / "site" / "warmup"
    pkg.mkdir(parents=True)
    for name in os.listdir(here):
        if name.endswith(".py"):
            shutil.copy(os.path.join(here, name), pkg / name)
    for path, text in (("lib/cmake/warmup/warmupConfig.cmake", "# stand-in\n"), ("include/warmup/profile.hpp", "\n"),
                       ("lib/libwarmup_nvtx.so", ""), ("bin/warmup-report", "#!/bin/sh\necho \"program $*\"\n")):
        (pkg / path).parent.mkdir(parents=True, exist_ok=True)
        (pkg / path).write_text(text)
    os.chmod(pkg / "bin" / "warmup-report", 0o755)
    return pkg


def python(pkg, *args):
    # The copy first; the folders after it stay, for what they hold beside the package (the
    # mutation build's switches, _warmup_mutation.py).
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(pkg.parent), os.environ.get("PYTHONPATH")) if p))
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, timeout=60,
                          cwd=str(pkg.parent.parent))


def test_python_m_warmup_prints_the_wheels_folders_without_the_native_module(wheel_package):
    for option, folder in (("--cmake-dir", wheel_package / "lib" / "cmake" / "warmup"),
                           ("--include-dir", wheel_package / "include"), ("--prefix", wheel_package)):
        r = python(wheel_package, "-m", "warmup", option)
        assert r.returncode == 0, r  # no _warmup here: the native module was not loaded
        assert r.stdout == f"{folder}\n", (option, r.stdout)


def test_a_copy_without_the_cpp_install_says_where_it_comes_from(wheel_package):
    shutil.rmtree(wheel_package / "lib" / "cmake")
    r = python(wheel_package, "-m", "warmup", "--cmake-dir")
    assert r.returncode == 1 and r.stdout == "", r
    assert "carries no C++ headers or CMake package" in r.stderr and "pip install" in r.stderr, r.stderr


def test_the_nvtx_tool_is_found_in_the_wheels_lib(wheel_package):
    # Importing warmup._launcher runs the package's __init__, which loads the native module: read
    # the launcher as a file of its own instead.
    r = python(wheel_package, "-c", f"import sys; sys.path.insert(0, {str(wheel_package)!r}); import _launcher; "
               "print(_launcher.tool_path())")
    assert r.returncode == 0, r
    assert r.stdout == f"{wheel_package / 'lib' / 'libwarmup_nvtx.so'}\n"


def test_the_console_script_runs_the_packaged_program_with_its_arguments(wheel_package):
    r = python(wheel_package, "-c", f"import sys; sys.path.insert(0, {str(wheel_package)!r}); import _launcher; "
               "sys.argv = ['warmup-report', 'merge', 'a b.json']; sys.exit(_launcher.report_tool())")
    assert r.returncode == 0, r
    assert r.stdout == "program merge a b.json\n", r.stdout
