"""One schema build of a copy of the tree, its tests, and each mutant judged by the tests that
cover its header (by rule: every test that runs a program whose objects, or the objects of the
libraries it links, include the header, as the compiler's dependency files say)."""
import glob
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import generate  # noqa: E402
import schema  # noqa: E402

INCLUDE = os.path.join("include", "warmup")
# The programs a mutation build makes: every C++ test program that runs without a GPU, a
# compiler or MPI, each host test file a program of its own (WARMUP_TEST_PER_FILE). Left out:
# the host files' combined program (the same tests as the per-file ones), the 10^8-call runs
# (minutes at -O0), the CUDA programs (no GPU on the CI machine: they skip), MPI's.
PROGRAMS = ["warmup_synthetic_report", "warmup_exit_program", "warmup_hostile_names", "warmup_spin_program",
            "warmup-report", "warmup_nvtx_tests", "warmup_no_gpu_tests", "warmup_sampling_tests"]
# Every host test file, as tests/CMakeLists.txt lists them (tests/host/test_*.cpp).
HOST_FILES = sorted(os.path.basename(f)[len("test_"):-len(".cpp")]
                    for f in glob.glob(os.path.join(ROOT, "tests", "host", "test_*.cpp")))
# The Catch2 programs among them.
CATCH_PROGRAMS = ("warmup_host_file_", "warmup_nvtx_tests", "warmup_no_gpu_tests", "warmup_sampling_tests")
# Tests a mutant never runs: they build the headers themselves (flags, packaging, docs that
# compile); and tests slower than this at -O0 on a clean build (rendering 50 sites in a browser).
SLOW_S = 45.0

# Headers whose code runs only where there is a GPU, CUPTI, cuBLAS or MPI: their mutants are
# generated and listed, but not sampled for the score, which is measured where CI runs (no GPU).
NOT_SCORED = {
    "detail/analysis/cupti.hpp": "CUPTI: only with a GPU and its driver",
    "cublas.hpp": "cuBLAS prewarm: only with a GPU",
    "mpi.hpp": "MPI gathering: mpirun with 4 ranks, not in the mutation build",
    "detail/io/rank_wire.hpp": "MPI's wire format: only warmup::mpi's programs use it",
    "detail/runtime/device_timer.hpp": "device timing: only with a GPU",
    "detail/runtime/event_ring.hpp": "CUDA events: only with a GPU",
    "detail/runtime/cuda_runtime.hpp": "the CUDA runtime's state: only with a GPU",
    "detail/runtime/prewarm.hpp": "prewarm's CUDA steps: only with a GPU",
    "prewarm.hpp": "prewarm's CUDA steps: only with a GPU",
    "detail/analysis/memory_driver.hpp": "the driver's memory calls: only with a GPU",
    "detail/runtime/memory_probe.hpp": "the pool's reserved bytes: only with a GPU",
    "detail/record/device_timer.hpp": "device timing: only with a GPU",
}


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


def all_candidates(root=ROOT):
    texts = headers(root)
    fields = generate.field_neighbours([generate.lex(t) for t in texts.values()])
    out = []
    for h, t in texts.items():
        out.extend(generate.candidates_in(h, t, fields)[0])
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
def copy_tree(src):
    listed = run(["git", "-C", ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard"])
    if listed.returncode != 0:
        raise SystemExit(f"tools/mutate: git ls-files failed:\n{listed.stdout}")
    for f in sorted(f for f in listed.stdout.split("\0") if f and os.path.isfile(os.path.join(ROOT, f))):
        here, there = os.path.join(ROOT, f), os.path.join(src, f)
        os.makedirs(os.path.dirname(there), exist_ok=True)
        if not os.path.exists(there) or open(here, "rb").read() != open(there, "rb").read():
            shutil.copy2(here, there)


class Build:
    def __init__(self, work, jobs):
        work = os.path.abspath(work)
        self.work = work
        self.src = os.path.join(work, "src")
        self.dir = os.path.join(work, "build")
        self.active = os.path.join(work, "active")
        self.switch = os.path.join(work, "switch", "warmup_mutation_switch.hpp")
        self.jobs = jobs
        # choose(build), called once configured: the programs to build, where not all are
        # needed (tools/mutants' planted mutants alone name their tests); None builds every one.
        self.choose = None
        self.only = None

    def set_active(self, mid):
        tmp = self.active + ".tmp"
        with open(tmp, "w") as f:
            f.write(str(mid))
        os.replace(tmp, self.active)

    def prepare(self, mutants, log=say):
        """Copies the tree, writes the schemata of `mutants` (each with id) into its headers,
        builds. Mutants whose switch does not compile are taken out (returned), and the rest
        built again."""
        os.makedirs(self.work, exist_ok=True)
        copy_tree(self.src)
        self.set_active(-1)
        schema.write_switch(self.switch, self.active)
        clean = headers(ROOT)
        # Mutants an earlier build of this copy found uncompilable are not tried again.
        known = os.path.join(self.work, "uncompilable.json")
        before = set(json.load(open(known))) if os.path.exists(known) else set()
        live = [m for m in mutants if m["key"] not in before]
        uncompilable = [m for m in mutants if m["key"] in before]
        configured = False
        for attempt in range(12):
            self.write(clean, live)
            if not configured:
                r = run(["cmake", "-S", self.src, "-B", self.dir, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Debug",
                         "-DCMAKE_CXX_FLAGS_DEBUG=-O0", f"-DCMAKE_CXX_FLAGS=-include {self.switch}",
                         "-DWARMUP_BUILD_TESTS=ON", "-DWARMUP_BUILD_EXAMPLES=OFF", "-DWARMUP_BUILD_BENCHMARKS=OFF",
                         "-DWARMUP_TEST_PER_FILE=ON"])
                if r.returncode != 0:
                    raise SystemExit(f"tools/mutate: configuring {self.src} failed:\n{r.stdout[-4000:]}")
                configured = True
                if self.choose is not None:
                    self.only = set(self.choose(self))
            t0 = time.monotonic()
            r = run(["cmake", "--build", self.dir, "--parallel", str(self.jobs), "--target", *self.targets(), "--",
                     "-k", "0"])
            with open(os.path.join(self.work, f"build-{attempt + 1}.log"), "w") as f:
                f.write(r.stdout)
            log(f"tools/mutate: build {attempt + 1} with {len(live)} mutants: "
                f"{'ok' if r.returncode == 0 else 'errors'} ({time.monotonic() - t0:.0f} s)")
            if r.returncode == 0:
                return live, uncompilable
            bad = self.blame(r.stdout, live)
            if not bad:
                raise SystemExit("tools/mutate: the build failed where no mutant is:\n" + r.stdout[-6000:])
            uncompilable.extend(m for m in live if m["id"] in bad)
            live = [m for m in live if m["id"] not in bad]
            with open(known, "w") as f:
                json.dump(sorted(before | {m["key"] for m in uncompilable}), f)
        raise SystemExit("tools/mutate: the build still fails after 12 rounds")

    def targets(self):
        every = [f"warmup_host_file_{f}" for f in HOST_FILES] + PROGRAMS
        return every if self.only is None else [t for t in every if t in self.only]

    def write(self, clean, live):
        by_header = {}
        for m in live:
            by_header.setdefault(m["header"], []).append(m)
        for h, text in clean.items():
            path = os.path.join(self.src, INCLUDE, h)
            new = text
            if h in by_header:
                new, dropped = schema.apply(text, by_header[h])
                assert not dropped, "nested regions must be resolved before writing"
            if open(path, encoding="utf-8").read() != new:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(new)

    def blame(self, output, live):
        """The mutants whose switch a compiler error points at (an error's line, or a line its
        notes name in a header, within the mutant's region)."""
        where = set()
        base = os.path.join(self.src, INCLUDE) + os.sep
        for m in re.finditer(r"^(\S+?\.hpp):(\d+):(?:\d+:)? (error|note|required from)", output, re.M):
            p = os.path.normpath(m.group(1))
            if p.startswith(base):
                where.add((p[len(base):], int(m.group(2))))
        for m in re.finditer(r"(\S+?\.hpp):(\d+):\d+:\s+(?:required from|in constexpr expansion)", output):
            p = os.path.normpath(m.group(1))
            if p.startswith(base):
                where.add((p[len(base):], int(m.group(2))))
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
            used = sorted({p for p, path in progs.items() if path in cmd})
            if not used:
                continue
            props = {p["name"]: p["value"] for p in t.get("properties", [])}
            out[t["name"]] = {"name": t["name"], "command": cmd, "programs": used,
                              "env": props.get("ENVIRONMENT", []), "cwd": props.get("WORKING_DIRECTORY", self.dir),
                              "skip_code": props.get("SKIP_RETURN_CODE"), "will_fail": props.get("WILL_FAIL", False)}
        return out

    def programs(self):
        out = {}
        for t in self.targets():
            name = "warmup-report" if t == "warmup-report" else t
            for cand in (os.path.join(self.dir, "tests", name), os.path.join(self.dir, name)):
                if os.path.exists(cand):
                    out[t] = cand
        return out

    def header_programs(self):
        """(own, linked): header -> the programs whose own objects include it, and those whose
        linked libraries' objects do."""
        deps = {}
        r = run(["ninja", "-C", self.dir, "-t", "deps"])
        cur = None
        for line in r.stdout.splitlines():
            if line and not line.startswith(" "):
                cur = line.split(":")[0]
                deps[cur] = set()
            elif cur and line.strip():
                deps[cur].add(os.path.normpath(os.path.join(self.dir, line.strip())))
        base = os.path.join(self.src, INCLUDE) + os.sep
        own, linked = {}, {}
        for prog in self.programs():
            objs = self.objects(("tests/" if prog != "warmup-report" else "") + prog, set())
            for o in objs:
                into = linked if os.path.basename(os.path.dirname(o)).startswith("warmup_shared_runtime") or \
                    "/warmup_shared_runtime.dir/" in "/" + o else own
                for d in deps.get(o, ()):
                    if d.startswith(base):
                        into.setdefault(d[len(base):], set()).add(prog)
        return own, linked

    def objects(self, target, seen):
        if target in seen:
            return set()
        seen.add(target)
        r = run(["ninja", "-C", self.dir, "-t", "query", target])
        objs = set()
        in_inputs = False
        for line in r.stdout.splitlines():
            s = line.strip()
            if s.startswith("input:"):
                in_inputs = True
                continue
            if s.startswith("outputs:"):
                in_inputs = False
                continue
            if not in_inputs:
                continue
            s = s.lstrip("|").strip()
            if s.endswith(".o"):
                objs.add(s)
            elif s.endswith(".a") and not s.startswith("/"):
                objs |= self.objects(s, seen)
        return objs

    def run_test(self, t, timeout, mutant=-1):
        """(outcome, seconds): passed, failed, skipped or timeout, with `mutant` active."""
        # The tools' own WARMUP_MUTANT* and WARMUP_MUTATE_DIR are not the library's: left out,
        # or it would name them as unknown on stderr, which tests of its output read.
        env = {k: v for k, v in os.environ.items() if not k.startswith(("WARMUP_MUTANT", "WARMUP_MUTATE"))}
        env["WARMUPTEST_MUTANT"] = str(mutant)
        for kv in t["env"]:
            k, _, v = kv.partition("=")
            env[k] = v
        command = list(t["command"])
        # A Catch2 program run as it is stops at its first failure when a mutant is active: one
        # failure is all a verdict needs (--abort, in Catch2 2 and 3).
        if mutant != -1 and len(command) == 1 and t["programs"] and \
                all(p.startswith(CATCH_PROGRAMS) for p in t["programs"]):
            command.append("--abort")
        t0 = time.monotonic()
        try:
            p = subprocess.run(command, cwd=t["cwd"], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=timeout, start_new_session=True)
        except subprocess.TimeoutExpired:
            return "timeout", time.monotonic() - t0
        dt = time.monotonic() - t0
        if t["skip_code"] is not None and p.returncode == int(t["skip_code"]):
            return "skipped", dt
        ok = (p.returncode == 0) != bool(t["will_fail"])
        return ("passed" if ok else "failed"), dt


def timeout_for(baseline_s):
    """Stryker's rule: a test that runs this much longer than on the clean build has hung."""
    return 2.0 * baseline_s + 10.0


def judge(build, mutant, tests, covering, baseline, out):
    """Runs the covering tests (in the order given) with `mutant` active; stops at the first
    failure."""
    t0 = time.monotonic()
    status, by = "survived", None
    ran = 0
    for name in covering:
        outcome, _ = build.run_test(tests[name], timeout_for(baseline[name]), mutant["id"])
        ran += 1
        if outcome in ("failed", "timeout"):
            status, by = ("killed" if outcome == "failed" else "timeout"), name
            break
    rec = {"key": mutant["key"], "header": mutant["header"], "operator": mutant["operator"],
           "line": mutant["line"], "occurrence": mutant["occurrence"], "line_text": mutant["line_text"],
           "mutated": mutant["mutated"], "status": status, "by": by, "tests_run": ran,
           "tests_covering": len(covering), "seconds": round(time.monotonic() - t0, 1)}
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
        runs = list(pool.map(lambda n: (n, *build.run_test(tests[n], 600)), sorted(tests)))
    for name, outcome, dt in runs:
        if outcome in ("failed", "timeout"):  # once more, alone: a test that failed under load
            outcome, dt = build.run_test(tests[name], 600)
            if outcome == "passed":
                log(f"tools/mutate: {name} failed on the clean build, then passed alone: kept")
        if outcome == "passed" and dt <= SLOW_S:
            base[name] = dt
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


def covering_tests(header, tests, baseline, cover):
    """The tests that cover `header`: those running a program that includes it (own: its own
    files do; linked: a library it links does). The programs' own first, then by clean time."""
    own, linked = cover
    progs = linked.get(header, set()) | own.get(header, set())
    names = [n for n, t in tests.items() if n in baseline and set(t["programs"]) & progs]
    mine = own.get(header, set())
    return sorted(names, key=lambda n: (not (set(tests[n]["programs"]) & mine), baseline[n]))


def judge_all(build, mutants, tests, baseline, cover, out, workers):
    """Judges `mutants` with `workers` running side by side; returns their records in order."""
    import concurrent.futures
    lock = __import__("threading").Lock()

    def one(m):
        covering = covering_tests(m["header"], tests, baseline, cover)
        if not covering:
            rec = {"key": m["key"], "header": m["header"], "operator": m["operator"], "line": m["line"],
                   "occurrence": m["occurrence"], "line_text": m["line_text"], "mutated": m["mutated"],
                   "status": "no_coverage", "by": None}
            with lock:
                out(rec)
            return rec

        def locked(rec):
            with lock:
                out(rec)
        return judge(build, m, tests, covering, baseline, locked)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(one, mutants))
