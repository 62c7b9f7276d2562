"""warmup's PEP 517 build backend: `pip install --no-build-isolation .` and `pip wheel .`, offline.

Written here, with nothing but the standard library, because no backend is common to every
machine that builds warmup (Debian 12 has no scikit-build-core; a pyenv Python may have no
`wheel`). It runs CMake (Release; the Python module, the NVTX tool and its thread slot,
warmup-report; no tests or examples), installs into a staging folder, and writes one wheel for
both languages with zipfile (PEP 427: the package, its dist-info with METADATA, WHEEL,
entry_points.txt and RECORD):

    warmup/                       the package (pure Python and _warmup.<EXT_SUFFIX>)
    warmup/bin/warmup-report      the program (console script `warmup-report` runs it)
    warmup/lib/libwarmup_nvtx.so  the NVTX tool and libwarmup_nvtx_thread.so beside it
    warmup/lib/cmake/warmup/      the CMake package: -Dwarmup_DIR=$(python -m warmup --cmake-dir)
    warmup/include/warmup/        the C++ headers (python -m warmup --include-dir)
    warmup/share/warmup/          the runtime's source, compiled once per consumer's build

Config settings (`pip ... --config-settings=KEY=VALUE`):
    build-dir=PATH   the CMake build folder. One already configured (a CMakeCache.txt) is used as
                     it is, whatever its build type and options: only the wheel's targets are
                     built there (nothing when they are up to date), so a test build's module
                     makes a wheel without a second build. Default: build/wheel-<cache tag>.
Parallel jobs: CMAKE_BUILD_PARALLEL_LEVEL, as for `cmake --build` (Ninja, where it is installed,
uses every core by default).
PEP 660's build_editable is not offered: a native module is rebuilt by CMake, not by import;
use tools/install-python's build folder on PYTHONPATH for a working copy (docs/python.md).
"""
import base64
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile

NAME = "warmup"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUMMARY = "What the first call of your GPU work really costs, and what it costs once warm"
# The targets the wheel carries; CMake builds what they need.
TARGETS = ["warmup_python", "warmup_nvtx", "warmup_nvtx_thread", "warmup-report"]
ENTRY_POINTS = "[console_scripts]\nwarmup-report = warmup._launcher:report_tool\n"
# A fixed time for every member, so that one build's wheel is the same bytes each time.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def _say(text):
    print(f"warmup build backend: {text}", file=sys.stderr, flush=True)


def version():
    """The project's version, as CMakeLists.txt's project() states it."""
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        m = re.search(r"project\(\s*warmup\s+VERSION\s+([0-9.]+)", f.read())
    if not m:
        raise RuntimeError("warmup build backend: no project(warmup VERSION ...) in CMakeLists.txt")
    return m.group(1)


def tag():
    """The wheel's tag for the running Python (PEP 425): cp311-cp311-linux_x86_64."""
    impl = {"cpython": "cp", "pypy": "pp"}.get(sys.implementation.name, sys.implementation.name)
    py = f"{impl}{sys.version_info[0]}{sys.version_info[1]}"
    abi = sys.implementation.cache_tag.replace("-", "") if impl != "cp" else py
    abi += "t" if sysconfig.get_config_var("Py_GIL_DISABLED") else ""
    platform = re.sub(r"[^A-Za-z0-9]", "_", sysconfig.get_platform())
    return f"{py}-{abi}-{platform}"


def metadata():
    readme = ""
    try:
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            readme = f.read()
    except OSError:
        pass
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {version()}\nSummary: {SUMMARY}\n"
            "Requires-Python: >=3.8\nClassifier: Operating System :: POSIX :: Linux\n"
            "Classifier: Programming Language :: C++\nClassifier: Programming Language :: Python :: 3\n"
            f"Description-Content-Type: text/markdown\n\n{readme}")


def _dist_info():
    return f"{NAME}-{version()}.dist-info"


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    folder = os.path.join(metadata_directory, _dist_info())
    os.makedirs(folder, exist_ok=True)
    for name, text in _dist_info_files("").items():
        if name != "RECORD":
            with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
                f.write(text)
    return _dist_info()


def _dist_info_files(wheel_tag):
    return {"METADATA": metadata(),
            "WHEEL": (f"Wheel-Version: 1.0\nGenerator: warmup-build ({version()})\nRoot-Is-Purelib: false\n"
                      f"Tag: {wheel_tag}\n"),
            "entry_points.txt": ENTRY_POINTS,
            "RECORD": ""}


def _run(cmd, **kw):
    _say(" ".join(cmd))
    subprocess.run(cmd, check=True, **kw)


def _cached(build, key):
    try:
        with open(os.path.join(build, "CMakeCache.txt"), errors="replace") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return None


def _configure(build):
    if _cached(build, "CMAKE_HOME_DIRECTORY"):
        _say(f"using the configured build folder {build} as it is (its build type and options)")
    else:
        _configure_new(build)
    if not _cached(build, "WARMUP_PYTHON_INSTALL_DIR"):
        raise RuntimeError(f"warmup build backend: {build} builds no Python module: it needs the Python's headers "
                           "(python3-dev) and pybind11 (python3-pybind11, or pip install pybind11), and "
                           "WARMUP_BUILD_PYTHON=ON; its CMakeCache.txt names the Python it looked at")


def _configure_new(build):
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    _run(["cmake", "-S", ROOT, "-B", build, *generator, "-DCMAKE_BUILD_TYPE=Release",
          f"-DPython3_EXECUTABLE={sys.executable}", "-DWARMUP_BUILD_PYTHON=ON", "-DWARMUP_BUILD_TOOLS=ON",
          "-DWARMUP_BUILD_NVTX_TOOL=ON", "-DWARMUP_BUILD_TESTS=OFF", "-DWARMUP_BUILD_EXAMPLES=OFF",
          "-DWARMUP_BUILD_BENCHMARKS=OFF"])


def _stage(build, stage):
    """Installs the build's package into stage/warmup: the C++ install (headers, CMake package,
    warmup-report, the NVTX tool) with the package folder as its prefix, then the Python files."""
    prefix = os.path.join(stage, NAME)
    _run(["cmake", "--install", build, "--prefix", prefix], stdout=subprocess.DEVNULL)
    _run(["cmake", "--install", build, "--prefix", prefix, "--component", "python_wheel"], stdout=subprocess.DEVNULL)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    if not os.path.exists(os.path.join(prefix, "_warmup" + suffix)):
        built = [n for n in os.listdir(prefix) if n.startswith("_warmup.")]
        raise RuntimeError(f"warmup build backend: {build} holds no module for {sys.executable} (_warmup{suffix}), "
                           f"but {built or 'none'}: name a build folder made for this Python (build-dir=PATH)")


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _write_wheel(stage, wheel_directory):
    wheel_tag = tag()
    path = os.path.join(wheel_directory, f"{NAME}-{version()}-{wheel_tag}.whl")
    dist_info = _dist_info()
    files = []
    for folder, dirs, names in os.walk(stage):
        dirs.sort()
        for n in sorted(names):
            files.append(os.path.join(folder, n))
    record = []
    with zipfile.ZipFile(path + ".part", "w", compression=zipfile.ZIP_DEFLATED) as z:
        def add(name, data, mode):
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.external_attr = (mode & 0xFFFF) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
            record.append(_record_line(name, data))
        for f in files:
            if "__pycache__" in f.split(os.sep):
                continue
            with open(f, "rb") as src:
                data = src.read()
            mode = 0o100755 if os.access(f, os.X_OK) else 0o100644
            add(os.path.relpath(f, stage).replace(os.sep, "/"), data, mode)
        for name, text in _dist_info_files(wheel_tag).items():
            if name != "RECORD":
                add(f"{dist_info}/{name}", text.encode("utf-8"), 0o100644)
        record.append(f"{dist_info}/RECORD,,")
        info = zipfile.ZipInfo(f"{dist_info}/RECORD", ZIP_TIME)
        info.external_attr = 0o100644 << 16
        z.writestr(info, "\n".join(record) + "\n", compress_type=zipfile.ZIP_DEFLATED)
    os.replace(path + ".part", path)
    return os.path.basename(path)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    settings = config_settings or {}
    build = settings.get("build-dir") or os.path.join(ROOT, "build", f"wheel-{sys.implementation.cache_tag}")
    build = os.path.abspath(build)
    _configure(build)
    _run(["cmake", "--build", build, "--target", *TARGETS])
    stage = tempfile.mkdtemp(prefix="warmup-wheel-")
    try:
        _stage(build, stage)
        name = _write_wheel(stage, wheel_directory)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    _say(f"wrote {name}")
    return name


def build_sdist(sdist_directory, config_settings=None):
    """The repository's files as git has them (tracked, and new ones it does not ignore), with
    PKG-INFO: enough for pip to build the wheel from."""
    listed = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, text=True)
    if listed.returncode != 0:
        raise RuntimeError("warmup build backend: an sdist is made from a git checkout (git ls-files failed): "
                           f"{listed.stderr.strip()}")
    base = f"{NAME}-{version()}"
    path = os.path.join(sdist_directory, base + ".tar.gz")
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as t:
        for f in sorted(n for n in listed.stdout.split("\0") if n):
            if os.path.isfile(os.path.join(ROOT, f)):
                t.add(os.path.join(ROOT, f), arcname=f"{base}/{f}", recursive=False)
        data = metadata().encode("utf-8")
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        info.size = len(data)
        info.mode = 0o644
        t.addfile(info, io.BytesIO(data))
    return os.path.basename(path)
