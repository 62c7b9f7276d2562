"""One schema build of a copy of the tree, its tests, and each mutant judged by the tests that
reach it (by rule: every test whose run of the clean build went through the mutant's region, as
the switch recorded it; schema.py), and first by the test cases that did."""
import glob
import json
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import generate  # noqa: E402
import pygen  # noqa: E402
import schema  # noqa: E402

INCLUDE = os.path.join("include", "warmup")
def _files(*patterns):
    return tuple(sorted(os.path.relpath(p, ROOT) for pat in patterns for p in glob.glob(os.path.join(ROOT, pat))))


# The Python module's own C++ (python/) and Python (python/warmup/*.py: pygen.py generates its
# mutants, and the build copies the package at configure time, so a planted mutant there is
# written as text): named by their path from the root. The module and the C++ extension of its
# tests are built with the programs; the CTest test `python` judges them.
PYTHON_SOURCES = _files("python/*.cpp", "python/*.hpp", "python/warmup/*.py")
PYTHON_TARGETS = ["warmup_python", "warmup_test_extension"]
# The NVTX tool's own C++ (nvtx_tool/) and `warmup-report` with its launcher, likewise: judged
# by the CTest test `nvtx_tool` (the tool, the programs it runs under, warmup-report), the
# report tool's tests and the host file of its names.
NVTX_TOOL_SOURCES = _files("nvtx_tool/*.cpp", "nvtx_tool/*.hpp", "tools/warmup-report/*.cpp", "tools/warmup-report/*.hpp")
NVTX_TOOL_TARGETS = ["warmup_nvtx", "warmup_nvtx_c_program", "warmup_nvtx_cpp_program", "warmup_nvtx_next_capture",
                     "warmup_spin_program", "warmup_try_program", "warmup-report"]
# Every file outside include/warmup that a mutant may change: every source a user runs.
OTHER_SOURCES = PYTHON_SOURCES + NVTX_TOOL_SOURCES
# Sources with planted mutants alone, no generated ones: the wheel's build backend, whose tests
# build and install wheels (a minute each: too slow to judge a sample by).
PLANTED_ONLY_SOURCES = ["tools/packaging/warmup_build.py"]
# The programs a mutation build makes: every C++ test program that runs without a GPU, a
# compiler or MPI, each host test file a program of its own (WARMUP_TEST_PER_FILE). Left out:
# the host files' combined program (the same tests as the per-file ones), the 10^8-call runs
# (minutes at -O0), the CUDA programs (no GPU on the CI machine: they skip), MPI's.
PROGRAMS = ["warmup_synthetic_report", "warmup_exit_program", "warmup_hostile_names", "warmup_spin_program",
            "warmup-report", "warmup_nvtx_tests", "warmup_no_gpu_tests", "warmup_sampling_tests",
            "warmup_disabled_usage"]
# Every host test file, as tests/CMakeLists.txt lists them (tests/host/test_*.cpp).
HOST_FILES = sorted(os.path.basename(f)[len("test_"):-len(".cpp")]
                    for f in glob.glob(os.path.join(ROOT, "tests", "host", "test_*.cpp")))
# The Catch2 programs among them.
CATCH_PROGRAMS = ("warmup_host_file_", "warmup_nvtx_tests", "warmup_no_gpu_tests", "warmup_sampling_tests")
# Tests a mutant never runs: they build the headers themselves (flags, packaging, docs that
# compile); and tests slower than this at -O0 on a clean build (rendering 50 sites in a browser).
SLOW_S = 45.0

# Headers the preprocessor check leaves out (Build.preprocessed_ids): MPI's needs <mpi.h>.
PREPROCESS_APART = {"mpi.hpp"}

# Headers whose code runs only where there is a GPU, CUPTI, cuBLAS or MPI: their mutants are
# generated and listed, but not sampled for the score, which is measured where CI runs (no GPU).
NOT_SCORED = {
    "detail/analysis/cupti.hpp": "CUPTI: only with a GPU and its driver",
    "detail/analysis/cupti_library.hpp": "CUPTI: only with a GPU and its driver",
    "detail/analysis/cupti_state.hpp": "CUPTI: only with a GPU and its driver",
    "detail/analysis/cupti_records.hpp": "CUPTI: only with a GPU and its driver",
    "detail/analysis/cupti_callbacks.hpp": "CUPTI: only with a GPU and its driver",
    "cublas.hpp": "cuBLAS prewarm: only with a GPU",
    "nvtx_tool/device_time.cpp": "the NVTX tool's device times: CUPTI, only with a GPU",
    "nvtx_tool/device_time.hpp": "the NVTX tool's device times: CUPTI, only with a GPU",
    "nvtx_tool/device_join.cpp": "the NVTX tool's device times: CUPTI, only with a GPU",
    "nvtx_tool/device_calls.hpp": "the NVTX tool's device times: CUPTI, only with a GPU",
    "mpi.hpp": "MPI gathering: mpirun with 4 ranks, not in the mutation build",
    "detail/io/rank_wire.hpp": "MPI's wire format: only warmup::mpi's programs use it",
    "detail/runtime/device_rings.hpp": "device timing: only with a GPU",
    "detail/runtime/device_timer-inl.hpp": "device timing: only with a GPU",
    "detail/runtime/event_ring.hpp": "CUDA events: only with a GPU",
    "detail/runtime/cuda_runtime.hpp": "the CUDA runtime's state: only with a GPU",
    "detail/runtime/prewarm-inl.hpp": "prewarm's CUDA steps: only with a GPU",
    "prewarm.hpp": "prewarm's CUDA steps: only with a GPU",
    "detail/cuda_driver.hpp": "the driver's functions: only with a GPU and its driver",
    "detail/runtime/device_memory.hpp": "the pool's reserved bytes: only with a GPU",
    "detail/runtime/memory_probe-inl.hpp": "the pool's reserved bytes: only with a GPU",
    "detail/record/device_timer.hpp": "device timing: only with a GPU",
}


def catch_main_object():
    """The Catch2 runner object tools/test's build compiled (tests/CMakeLists.txt), where there is
    one: linked, not compiled again; else "" (this build compiles its own)."""
    build = os.environ.get("WARMUP_BUILD_DIR", os.path.join(ROOT, "build", "test"))
    named = os.path.join(build if os.path.isabs(build) else os.path.join(ROOT, build), "catch_main_object")
    try:
        obj = open(named).read().strip()
    except OSError:
        return ""
    return obj if os.path.isfile(obj) else ""


def say(*a):
    print(*a, flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def headers(root=ROOT):
    base = os.path.join(root, INCLUDE)
    out = {}
    for d, _, files in os.walk(base):
        for f in files:
            if f.endswith(".hpp"):
                p = os.path.join(d, f)
                out[os.path.relpath(p, base)] = open(p, encoding="utf-8").read()
    return dict(sorted(out.items()))


def sources(root=ROOT):
    """The headers (by their path under include/warmup) and the other sources a user runs (by
    their path from the root): every text a mutant may change."""
    return {**headers(root), **{p: open(os.path.join(root, p), encoding="utf-8").read() for p in OTHER_SOURCES}}


def planted_only(root=ROOT):
    """The texts of PLANTED_ONLY_SOURCES, by their path from the root."""
    return {p: open(os.path.join(root, p), encoding="utf-8").read() for p in PLANTED_ONLY_SOURCES}


def source_path(root, name):
    """Where a text of sources() or planted_only() lies under `root`."""
    outside = name in OTHER_SOURCES or name in PLANTED_ONLY_SOURCES
    return os.path.join(root, name) if outside else os.path.join(root, INCLUDE, name)


def all_candidates(root=ROOT):
    """Every generated candidate: the headers' and the other sources' C++ (a field's neighbours
    taken from the headers), and the package's Python."""
    texts = sources(root)
    fields = generate.field_neighbours([generate.lex(t) for t in headers(root).values()])
    out = []
    for h, t in texts.items():
        out.extend(pygen.candidates_in(h, t) if h.endswith(".py") else generate.candidates_in(h, t, fields)[0])
    return out


# --- the equivalents list --------------------------------------------------------------------
EQUIVALENT = os.path.join(HERE, "equivalent.txt")


def read_equivalents(path=EQUIVALENT):
    """{key: entry} from the list; an entry is header, operator, occurrence, line, why."""
    out, cur = {}, None
    if not os.path.exists(path):
        return out
    for raw in open(path, encoding="utf-8"):
        line = raw.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith("- "):
            cur = {}
            line = line[2:]
            out_entry = cur
            out.setdefault("__list__", []).append(out_entry)
        m = re.match(r"\s*(header|operator|occurrence|line|why):\s?(.*)$", line)
        if not m or cur is None:
            raise SystemExit(f"{path}: cannot read: {raw!r}")
        cur[m.group(1)] = m.group(2)
    entries = out.pop("__list__", [])
    for e in entries:
        missing = {"header", "operator", "line", "why"} - set(e)
        if missing:
            raise SystemExit(f"{path}: an entry lacks {', '.join(sorted(missing))}: {e}")
        if not e["why"].strip():
            raise SystemExit(f"{path}: an entry gives no reason: {e}")
        k = generate.key_of(e["header"], e["operator"], e["line"].strip(), int(e.get("occurrence", "1")))
        out[k] = e
    return out


# --- sampling --------------------------------------------------------------------------------
def sample(cands, n, seed, exclude_headers=NOT_SCORED):
    """`n` candidates drawn at random with `seed`, evenly over the scored headers in turn (each
    header's own draw in random order), so that a small header is not starved by a large one."""
    rng = random.Random(str(seed))
    per = {}
    for c in cands:
        if c["header"] in exclude_headers:
            continue
        per.setdefault(c["header"], []).append(c)
    pools = {h: rng.sample(v, len(v)) for h, v in sorted(per.items())}
    order = sorted(pools)
    rng.shuffle(order)
    out = []
    while len(out) < n and any(pools.values()):
        for h in order:
            if pools[h] and len(out) < n:
                out.append(pools[h].pop())
    return out


# --- the build -------------------------------------------------------------------------------
def compile_flags(command, keep_file):
    """(compiler, flags) of one entry of compile_commands.json, without its output, dependency
    files and -c; its source file kept or left out."""
    words = command["arguments"] if "arguments" in command else shlex.split(command["command"])
    name = os.sep + os.path.basename(command["file"])
    flags, skip = [], False
    for w in words[1:]:
        if skip:
            skip = False
        elif w in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
        elif w not in ("-c", "-MD", "-MMD") and (keep_file or (w != command["file"] and not w.endswith(name))):
            flags.append(w)
    return words[0], flags


def copy_tree(src):
    listed = run(["git", "-C", ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard"])
    if listed.returncode != 0:
        raise SystemExit(f"tools/mutate: git ls-files failed:\n{listed.stdout}")
    for f in sorted(f for f in listed.stdout.split("\0") if f and os.path.isfile(os.path.join(ROOT, f))):
        here, there = os.path.join(ROOT, f), os.path.join(src, f)
        os.makedirs(os.path.dirname(there), exist_ok=True)
        if not os.path.exists(there) or open(here, "rb").read() != open(there, "rb").read():
            # A fresh time, not the source's (copy2): a file edited after an earlier build of
            # this copy began must be newer than the objects that build made, or ninja keeps them.
            shutil.copy(here, there)


class Build:
    def __init__(self, work, jobs, gpu=False):
        work = os.path.abspath(work)
        self.work = work
        self.src = os.path.join(work, "src")
        self.dir = os.path.join(work, "build")
        self.active = os.path.join(work, "active")
        self.switch = os.path.join(work, "switch", "warmup_mutation_switch.hpp")
        self.jobs = jobs
        # The programs to build, where not all are needed (tools/mutants' planted mutants alone
        # name their tests); None builds every one.
        self.only = None
        # test -> (ids, {case: ids}, {case: seconds}): what its clean run reached (baseline_of).
        self.reach = {}
        # The GPU machine's build (tools/mutate gpu-bundle): every program, the examples and the
        # CUDA files too, each host test file in the one host program; judged there, not here.
        self.gpu = gpu

    def set_active(self, mid):
        tmp = self.active + ".tmp"
        with open(tmp, "w") as f:
            f.write(str(mid))
        os.replace(tmp, self.active)

    def prepare(self, mutants, log=say):
        """Copies the tree, writes the schemata of `mutants` (each with id) into its headers,
        builds. Mutants whose switch does not compile are taken out, and the rest built again;
        returns (live, uncompilable), the latter with those the preprocessor leaves out."""
        os.makedirs(self.work, exist_ok=True)
        copy_tree(self.src)
        self.set_active(-1)
        schema.write_switch(self.switch, self.active)
        clean = sources(ROOT)
        # Mutants an earlier build of this copy found uncompilable are not tried again.
        known = os.path.join(self.work, "uncompilable.json")
        before = set(json.load(open(known))) if os.path.exists(known) else set()
        live = [m for m in mutants if m["key"] not in before]
        uncompilable = [m for m in mutants if m["key"] in before]
        configured = False
        for attempt in range(12):
            # After a failed build, only the mutants that broke it are left out: the files that
            # compiled with them stay built (keep_times).
            self.write(clean, live, keep_times=attempt > 0)
            if not configured:
                on_gpu = "ON" if self.gpu else "OFF"
                r = run(["cmake", "-S", self.src, "-B", self.dir, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Debug",
                         "-DCMAKE_CXX_FLAGS_DEBUG=-O0", f"-DCMAKE_CXX_FLAGS=-include {self.switch}",
                         *([f"-DCMAKE_CUDA_FLAGS=-include {self.switch}", "-DCMAKE_CUDA_FLAGS_DEBUG=-O0"] if self.gpu else []),
                         # The Python module here (its planted mutants, and its tests' reach into
                         # the headers); the GPU machine builds its own for its own Python.
                         "-DWARMUP_BUILD_TESTS=ON", f"-DWARMUP_BUILD_EXAMPLES={on_gpu}", "-DWARMUP_BUILD_BENCHMARKS=OFF",
                         f"-DWARMUP_BUILD_PYTHON={'OFF' if self.gpu else 'ON'}",
                         f"-DWARMUP_TEST_PER_FILE={'OFF' if self.gpu else 'ON'}", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
                         "-DWARMUP_MUTATION_LISTENER=ON", f"-DWARMUP_CATCH_MAIN_OBJECT={catch_main_object()}"])
                if r.returncode != 0:
                    raise SystemExit(f"tools/mutate: configuring {self.src} failed:\n{r.stdout[-4000:]}")
                configured = True
                # The cheap check first: every header in one file, without code generation (the
                # measuring configuration: WARMUP_DISABLE's headers do not all go in one file);
                # each round's faulty switches out before the whole build.
                for _ in range(12):
                    said = self.every_header(["-fsyntax-only"]).stderr
                    bad = self.blame(said, live) if "error" in said else set()
                    if not bad:
                        break
                    uncompilable.extend(m for m in live if m["id"] in bad)
                    live = [m for m in live if m["id"] not in bad]
                    self.write(clean, live)
                    log(f"tools/mutate: {len(bad)} mutants do not compile in the headers alone: out")
            t0 = time.monotonic()
            r = run(["cmake", "--build", self.dir, "--parallel", str(self.jobs), "--target", *self.targets(), "--",
                     "-k", "0"])
            with open(os.path.join(self.work, f"build-{attempt + 1}.log"), "w") as f:
                f.write(r.stdout)
            log(f"tools/mutate: build {attempt + 1} with {len(live)} mutants: "
                f"{'ok' if r.returncode == 0 else 'errors'} ({time.monotonic() - t0:.0f} s)")
            if r.returncode == 0:
                kept = self.preprocessed_ids()
                # A planted mutant in the module's or the tool's own files is compiled wherever
                # they are built; a generated one where the preprocessor keeps it; the package's
                # Python wherever the module is built.
                python_built = bool(glob.glob(os.path.join(self.dir, "python", "warmup", "_warmup*.so")))
                tool_built = os.path.exists(os.path.join(self.dir, "nvtx_tool", "libwarmup_nvtx.so"))
                if python_built:
                    pygen.write_switch_module(os.path.join(self.dir, "python", "_warmup_mutation.py"), self.active)
                others = self.other_preprocessed_ids()
                for m in live:
                    if m["header"] in OTHER_SOURCES and m["operator"] != "planted" and \
                            not m["header"].endswith(".py") and m["id"] not in others:
                        m["why"] = "compiled out here: in a branch the preprocessor leaves out"
                    elif m["header"] in PYTHON_SOURCES:
                        if python_built:
                            kept.add(m["id"])
                        else:
                            m["why"] = "the Python module is not built here (no pybind11 or Python headers)"
                    elif m["header"] in NVTX_TOOL_SOURCES:
                        if tool_built:
                            kept.add(m["id"])
                        else:
                            m["why"] = "the NVTX tool is not built here"
                    elif m["id"] not in kept:
                        m["why"] = "compiled out here: in a branch the preprocessor leaves out"
                return [m for m in live if m["id"] in kept], uncompilable + [m for m in live if m["id"] not in kept]
            bad = self.blame(r.stdout, live)
            if not bad:
                raise SystemExit("tools/mutate: the build failed where no mutant is:\n" + r.stdout[-6000:])
            uncompilable.extend(m for m in live if m["id"] in bad)
            live = [m for m in live if m["id"] not in bad]
            with open(known, "w") as f:
                json.dump(sorted(before | {m["key"] for m in uncompilable}), f)
        raise SystemExit("tools/mutate: the build still fails after 12 rounds")

    def every_header(self, extra):
        """Every header (but PREPROCESS_APART) in one file, compiled with a host test file's
        flags and `extra` (-E, -fsyntax-only, a define): the compiler's result."""
        commands = json.load(open(os.path.join(self.dir, "compile_commands.json")))
        ref = next(c for c in commands if "/tests/host/test_" in c["file"])
        compiler, flags = compile_flags(ref, keep_file=False)
        tu = os.path.join(self.work, "every_header.cpp")
        with open(tu, "w") as f:
            for h in headers(self.src):
                if h not in PREPROCESS_APART:
                    f.write(f"#include <warmup/{h}>\n")
        return subprocess.run([compiler, *flags, *extra, tu], cwd=ref["directory"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def other_preprocessed_ids(self):
        """The generated mutants of the other sources' C++ that the preprocessor keeps, in the
        compile of each of their files (the headers beside them come in with their .cpp)."""
        ids = set()
        commands = json.load(open(os.path.join(self.dir, "compile_commands.json")))
        for c in commands:
            if os.path.relpath(c["file"], self.src) not in OTHER_SOURCES:
                continue
            compiler, flags = compile_flags(c, keep_file=True)
            r = subprocess.run([compiler, *flags, "-E", "-w"], cwd=c["directory"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
            ids |= {int(m) for m in re.findall(r"warmup_mutation::on\((\d+)\)", r.stdout)}
        return ids

    def preprocessed_ids(self):
        """The mutants whose switch the preprocessor keeps, in the configurations the build
        compiles (the library measuring, and under WARMUP_DISABLE). A mutant in a branch left out
        here (another platform's, another standard library's) is not compiled, so not judged."""
        ids = set()
        for extra in ([], ["-DWARMUP_DISABLE"]):
            r = self.every_header(["-E", "-w", *extra])
            if r.returncode != 0:
                raise SystemExit(f"tools/mutate: the headers do not preprocess together:\n{r.stderr[-3000:]}")
            ids |= {int(m) for m in re.findall(r"warmup_mutation::on\((\d+)\)", r.stdout)}
        return ids

    def targets(self):
        if self.gpu:
            return ["all"]
        every = list(dict.fromkeys([f"warmup_host_file_{f}" for f in HOST_FILES] + PROGRAMS + PYTHON_TARGETS +
                                   NVTX_TOOL_TARGETS))
        if self.only is None:
            return every
        # The Python tests need the module and their C++ extension both; the tool's, the tool and
        # every program they run.
        only = set(self.only)
        for group in (PYTHON_TARGETS, NVTX_TOOL_TARGETS):
            if set(group) & set(self.only):
                only |= set(group)
        return [t for t in every if t in only]

    def write(self, clean, live, keep_times=False):
        """The headers with `live` switched in: regions as schema.py writes them, then patches
        (a planted mutant written as its own switch: `patch` is (text, replacement with @ON@)).
        `keep_times`: a rewritten file keeps its modification time, so that ninja rebuilds only
        what failed: a file compiled with a switch that later builds leave out is still right, as
        that switch is never turned on."""
        by_header = {}
        for m in live:
            by_header.setdefault(m["header"], []).append(m)
        for h, text in clean.items():
            path = source_path(self.src, h)
            new = text
            if h in by_header:
                regions = [m for m in by_header[h] if "patch" not in m]
                new, dropped = (pygen.apply if h.endswith(".py") else schema.apply)(text, regions)
                assert not dropped, "nested regions must be resolved before writing"
                for m in by_header[h]:
                    if "patch" in m:
                        old, repl = m["patch"]
                        assert new.count(old) == 1, f"{h}: a patch's text must occur once, outside every region"
                        on = (pygen.call if h.endswith(".py") else schema.call)(m["id"])
                        new = new.replace(old, repl.replace("@ON@", on))
            if open(path, encoding="utf-8").read() != new:
                times = os.stat(path)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(new)
                if keep_times:
                    os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))

    def blame(self, output, live):
        """The mutants whose switch a compiler error points at (an error's line, or a line its
        notes name in a header, within the mutant's region)."""
        where = set()
        base = os.path.join(self.src, INCLUDE) + os.sep

        def named(path):  # the name sources() gives a file of the copy, or None
            p = os.path.normpath(os.path.join(self.dir, path))
            if p.startswith(base):
                return p[len(base):]
            rel = os.path.relpath(p, self.src)
            return rel if rel in OTHER_SOURCES else None

        # g++'s and clang's "file:line:col: error", and nvcc's front end's "file(line): error".
        for m in re.finditer(r"^(\S+?\.[hc]pp)(?::(\d+):(?:\d+:)?|\((\d+)\):) (error|note|required from)", output, re.M):
            if named(m.group(1)):
                where.add((named(m.group(1)), int(m.group(2) or m.group(3))))
        for m in re.finditer(r"(\S+?\.[hc]pp):(\d+):\d+:\s+(?:required from|in constexpr expansion)", output):
            if named(m.group(1)):
                where.add((named(m.group(1)), int(m.group(2))))
        bad = set()
        for mu in live:
            r = mu["region"]
            if any(h == mu["header"] and r.first_line <= ln <= r.last_line for h, ln in where):
                bad.add(mu["id"])
        return bad

    def tests(self):
        """CTest's tests of this build that run one of its programs: name -> dict."""
        r = run(["ctest", "--test-dir", self.dir, "--show-only=json-v1"])
        data = json.loads(r.stdout)
        progs = self.programs()
        out = {}
        for t in data["tests"]:
            cmd = t.get("command")
            if not cmd:
                continue
            props = {p["name"]: p["value"] for p in t.get("properties", [])}
            # A program on the command line, or the Python package's folder on PYTHONPATH.
            used = sorted({p for p, path in progs.items()
                           if path in cmd or any(e.startswith("PYTHONPATH=") and path in e for e in props.get("ENVIRONMENT", []))})
            # A test of a CUDA program, which this build does not make, even where its command
            # also names one it makes (the NVTX tool), is the GPU machine's.
            if not used or "cuda_program" in props.get("LABELS", []):
                continue
            out[t["name"]] = {"name": t["name"], "command": cmd, "programs": used,
                              "env": props.get("ENVIRONMENT", []), "cwd": props.get("WORKING_DIRECTORY", self.dir),
                              "skip_code": props.get("SKIP_RETURN_CODE"), "will_fail": props.get("WILL_FAIL", False)}
        return out

    def programs(self):
        out = {}
        for t in self.targets():
            if t == "warmup_python":  # a package folder, which the test's PYTHONPATH names
                if glob.glob(os.path.join(self.dir, "python", "warmup", "_warmup*.so")):
                    out[t] = os.path.join(self.dir, "python")
                continue
            name = "warmup-report" if t == "warmup-report" else t
            for cand in (os.path.join(self.dir, "tests", name), os.path.join(self.dir, "tests", "packaging", name),
                         os.path.join(self.dir, name), os.path.join(self.dir, "nvtx_tool", f"lib{name}.so"),
                         os.path.join(self.dir, "tests", f"lib{name}.so")):
                if os.path.exists(cand):
                    out[t] = cand
        return out

    def run_test(self, t, timeout, mutant=-1, args=(), reach=None):
        """(outcome, seconds): passed, failed, skipped or timeout, with `mutant` active; `args`
        added to its command (a Catch2 test case's name); `reach`: the folder where its
        processes record what they reach (schema.py), emptied first."""
        # The tools' own WARMUP_MUTANT* and WARMUP_MUTATE_DIR are not the library's: left out,
        # or it would name them as unknown on stderr, which tests of its output read.
        env = {k: v for k, v in os.environ.items() if not k.startswith(("WARMUP_MUTANT", "WARMUP_MUTATE"))}
        env["WARMUPTEST_MUTANT"] = str(mutant)
        env.pop("WARMUPTEST_REACH", None)
        if reach is not None:
            shutil.rmtree(reach, ignore_errors=True)
            os.makedirs(reach)
            env["WARMUPTEST_REACH"] = reach
        for kv in t["env"]:
            k, _, v = kv.partition("=")
            env[k] = v
        command = list(t["command"]) + list(args)
        # A Catch2 program run as it is stops at its first failure when a mutant is active: one
        # failure is all a verdict needs (--abort, in Catch2 2 and 3).
        if mutant != -1 and not args and catch_alone(t):
            command.append("--abort")
        elif mutant != -1 and "pytest" in command:  # python -m pytest: likewise, -x
            command.append("-x")
        t0 = time.monotonic()
        p = subprocess.Popen(command, cwd=t["cwd"], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
        ended = exited_unreaped(p.pid, timeout)
        dt = time.monotonic() - t0
        # The test's session, whole: a mutant may leave a child of the test looping (a signal
        # that no longer ends it), which would run on into every later test's time. The leader
        # is reaped only after, so that its number is still its group's, never a newcomer's.
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        p.wait()
        if not ended:
            return "timeout", dt
        if t["skip_code"] is not None and p.returncode == int(t["skip_code"]):
            return "skipped", dt
        ok = (p.returncode == 0) != bool(t["will_fail"])
        return ("passed" if ok else "failed"), dt


def exited_unreaped(pid, timeout):
    """True once the child `pid` has exited, left unreaped; False where `timeout` seconds pass
    first. Polled as Popen.wait(timeout) polls, with WNOWAIT: the exit is seen, not collected."""
    deadline = time.monotonic() + timeout
    delay = 0.0005
    while os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT | os.WNOHANG) is None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        time.sleep(min(delay, remaining, 0.05))
        delay *= 2
    return True


def record(m, status, by=None):
    """A mutant's result, as the results files hold it."""
    return {"key": m["key"], "header": m["header"], "operator": m["operator"], "line": m["line"],
            "occurrence": m["occurrence"], "line_text": m["line_text"], "mutated": m["mutated"],
            "status": status, "by": by}


def catch_alone(t):
    """Whether test `t` runs one Catch2 program with no arguments (its cases can be run alone)."""
    return len(t["command"]) == 1 and bool(t["programs"]) and all(p.startswith(CATCH_PROGRAMS) for p in t["programs"])


def catch_spec(name):
    """A Catch2 test spec that selects the test case named `name` exactly (Catch2 2 and 3 read a
    backslash as taking the next character as it is)."""
    out = "".join("\\" + c if c in '\\,[]"' else c for c in name)
    if out.startswith(("~", "*")):
        out = "\\" + out
    if out.endswith("*"):
        out = out[:-1] + "\\*"
    return out


def reach_folder(build, name):
    return os.path.join(build.work, "reach", re.sub(r"[^A-Za-z0-9_.-]", "_", name))


def timeout_for(baseline_s):
    """Stryker's rule: a test that runs this much longer than on the clean build has hung."""
    return 2.0 * baseline_s + 10.0


# The reaching test cases a mutant runs alone before the reaching tests run whole: most mutants
# die in the first few; one that many cases reach and none kills (a survivor) would spend more
# on process starts one case at a time than on the whole programs.
CASES_ALONE = 8


def case_runs(build, tests, covering, mid):
    """(seconds, test, case) for each case of a covering Catch2 test whose clean run reached
    mutant `mid`, fastest first."""
    runs = []
    for name in covering:
        if name in build.reach and catch_alone(tests[name]):
            _, cases, durations = build.reach[name]
            runs.extend((durations.get(c, 0.0), name, c) for c, ids in cases.items() if mid in ids)
    return sorted(runs)


def judge(build, mutant, tests, covering, baseline, out):
    """Runs the tests in `covering` with `mutant` active; stops at the first failure. First
    (where the clean run recorded it) the Catch2 test cases that reached the mutant, alone and
    fastest first, up to CASES_ALONE of them: most mutants die in the first; then, for a
    mutant none of those killed, each covering test whole (a case may depend on what an
    earlier case of its program did once, say a setting read at the first call), in the
    order given."""
    t0 = time.monotonic()
    status, by = "survived", None
    ran = 0
    folder = os.path.join(build.work, "judge", str(mutant["id"]))
    for seconds, name, case in case_runs(build, tests, covering, mutant["id"])[:CASES_ALONE]:
        outcome, _ = build.run_test(tests[name], timeout_for(seconds), mutant["id"], args=[catch_spec(case)],
                                    reach=folder)
        ran += 1
        # A failure before the case began (a name Catch2 did not match) proves nothing.
        if outcome == "timeout" or (outcome == "failed" and case in schema.read_reach(folder)[1]):
            status, by = ("killed" if outcome == "failed" else "timeout"), f"{name}: {case}"
            break
    if status == "survived":
        for name in covering:
            outcome, _ = build.run_test(tests[name], timeout_for(baseline[name]), mutant["id"])
            ran += 1
            if outcome in ("failed", "timeout"):
                status, by = ("killed" if outcome == "failed" else "timeout"), name
                break
    shutil.rmtree(folder, ignore_errors=True)
    rec = dict(record(mutant, status, by), tests_run=ran, tests_covering=len(covering),
               seconds=round(time.monotonic() - t0, 1))
    out(rec)
    return rec


def baseline_of(build, tests, log=say, workers=1):
    """Each test's time on the clean build (no mutant active); tests that skip there or take
    longer than SLOW_S are left out, and named. A test that fails there twice (the second time
    alone) stops the run: the switches, all off, must leave the code as it was, or no mutant can
    be judged."""
    import concurrent.futures
    base, left, failed = {}, [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        runs = list(pool.map(lambda n: (n, *build.run_test(tests[n], 600, reach=reach_folder(build, n))),
                             sorted(tests)))
    for name, outcome, dt in runs:
        if outcome in ("failed", "timeout"):  # once more, alone: a test that failed under load
            outcome, dt = build.run_test(tests[name], 600, reach=reach_folder(build, name))
            if outcome == "passed":
                log(f"tools/mutate: {name} failed on the clean build, then passed alone: kept")
        if outcome == "passed" and dt <= SLOW_S:
            base[name] = dt
            build.reach[name] = schema.read_reach(reach_folder(build, name))
        elif outcome in ("failed", "timeout"):
            failed.append(name)
        else:
            left.append(f"{name} ({outcome}, {dt:.0f} s)")
    if failed:
        raise SystemExit("tools/mutate: the build with every switch off fails " + ", ".join(failed) +
                         ": a switch changed the code it holds, or the tree fails its tests; no mutant can be judged")
    with open(os.path.join(build.work, "baseline.json"), "w") as f:
        json.dump(base, f, indent=1, sort_keys=True)
    if left:
        log("tools/mutate: tests left out (failed, skipped or slower than "
            f"{SLOW_S:.0f} s on the clean build): " + ", ".join(left))
    return base


def resolve_overlaps(chosen):
    """Keeps mutants of one region together and drops those inside another chosen region
    (nested regions cannot both switch); returns (kept, dropped)."""
    by_header = {}
    for m in chosen:
        by_header.setdefault(m["header"], []).append(m)
    kept, dropped = [], []
    for h, ms in by_header.items():
        spans = sorted({(m["region"].start, m["region"].end) for m in ms}, key=lambda s: (s[0], -s[1]))
        ok, last = set(), -1
        for s in spans:
            if s[0] >= last:
                ok.add(s)
                last = s[1]
        for m in ms:
            (kept if (m["region"].start, m["region"].end) in ok else dropped).append(m)
    return kept, dropped


def reaching_tests(build, mid, tests, baseline):
    """The tests whose clean run reached mutant `mid` (any of their processes), fastest first:
    no other test can tell it from the code as it is."""
    names = [n for n in tests if n in baseline and n in build.reach and mid in build.reach[n][0]]
    return sorted(names, key=lambda n: baseline[n])


def judge_all(build, mutants, tests, baseline, out, workers):
    """Judges `mutants` with `workers` running side by side; returns their records in order."""
    import concurrent.futures
    lock = __import__("threading").Lock()

    def one(m):
        covering = reaching_tests(build, m["id"], tests, baseline)
        if not covering:
            # No test's run goes through its region: it survives every test (Stryker's "no
            # coverage", counted against the score as a survivor is).
            rec = dict(record(m, "survived"), reached=False)
            with lock:
                out(rec)
            return rec

        def locked(rec):
            with lock:
                out(rec)
        return judge(build, m, tests, covering, baseline, locked)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(one, mutants))
