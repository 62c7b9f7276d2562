"""`warmup-report try` end to end, on try_program (first calls an environment variable or a cache
folder makes fast): the verdicts it gives, read from its JSON (warmup.try/1) as well as its text;
cold runs that stay cold whatever folder the user's environment names; code remedies shown, never
run; bad usage, a failing program and a missing one refused with their exit statuses; and
`python -m warmup try` forwarding to it.

The remedies' effects are 140 ms or more on a first call of 150 ms (sleeps, which a loaded
machine delays by a wake-up only), so that --runs 3 separates them on a busy CI machine; one
that does nothing changes a first call by far less than the 10% margin.

usage: check_try.py WARMUP_REPORT TRY_PROGRAM [PART...]   (works in a temporary folder)

PART: environment, cache, diagnosis or usage (every part where none is named); CTest runs each
as a test of its own (report_tool.try.PART), so that a planted bug reruns only the part that
catches it.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check  # noqa: E402

tool, program = (os.path.abspath(p) for p in sys.argv[1:3])
parts = sys.argv[3:]
work = tempfile.mkdtemp(prefix="warmup-check-try-")
check = warmup_check.Checks()


def env_for(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("WARMUP_", "TRY_TEST_")) and k not in ("TRITON_CACHE_DIR", "TMPDIR")}
    env["TMPDIR"] = os.path.join(work, "tmp")  # try's private folders, checked for removal
    os.makedirs(env["TMPDIR"], exist_ok=True)
    env.update(extra)
    return env


def run(*args, env=None, command=None, timeout=120):
    started = time.monotonic()
    try:
        p = subprocess.run([*(command or [tool]), *args], capture_output=True, text=True, env=env or env_for(),
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, "", f"still running after {timeout} s"
    print(f"     ({time.monotonic() - started:.1f} s: {' '.join(args[:8])} ...)")
    return p.returncode, p.stdout, p.stderr


def verdicts(path):
    """{(remedy, site, figure): verdict} from try's JSON."""
    doc = json.load(open(path))
    check(doc.get("schema") == "warmup.try/1", f"{path}: schema warmup.try/1 (got {doc.get('schema')!r})")
    return doc, {(r["name"], v["site"], v["figure"]): v["verdict"] for r in doc["remedies"] for v in r["verdicts"]}


def environment():
    """Environment settings: better, worse, no effect, runs that fail."""
    out_json = os.path.join(work, "env.json")
    rc, out, err = run("try", "--runs", "3", "--env", "TRY_TEST_FIRST_MS=10", "--env", "TRY_TEST_FIRST_MS=400",
                       "--env", "SOME_IGNORED_VAR=1", "--env", "TRY_TEST_EXIT=3", "-o", out_json, "--", program)
    check(rc == 0, f"try with four --env settings exits 0 (got {rc}; {err[-800:]})")
    doc, v = verdicts(out_json)
    check(v.get(("env TRY_TEST_FIRST_MS=10", "first call", "first call")) == "better",
          f"a 10 ms first call instead of 150 ms: better ({v.get(('env TRY_TEST_FIRST_MS=10', 'first call', 'first call'))})")
    check(v.get(("env TRY_TEST_FIRST_MS=10", "first call", "time to first result")) == "better",
          "... and its time to the first result: better")
    check(v.get(("env TRY_TEST_FIRST_MS=400", "first call", "first call")) == "worse",
          f"a 400 ms first call instead of 150 ms: worse ({v.get(('env TRY_TEST_FIRST_MS=400', 'first call', 'first call'))})")
    for site in ("first call", "compile"):
        check(v.get(("env SOME_IGNORED_VAR=1", site, "first call")) == "same within noise",
              f"a variable the program ignores: \"{site}\"'s first call the same within noise "
              f"({v.get(('env SOME_IGNORED_VAR=1', site, 'first call'))})")
    check(v.get(("env TRY_TEST_EXIT=3", "", "wall time")) == "too few runs" and
          v.get(("env TRY_TEST_EXIT=3", "first call", "time to first result")) == "too few runs",
          "a setting that makes every run fail: no verdict (too few runs), on the wall time and each site's figures")
    ignored_wall = next(f for r in doc["remedies"] if r["name"] == "env SOME_IGNORED_VAR=1" for f in r["verdicts"]
                        if f["figure"] == "wall time")
    check(ignored_wall["cold"]["runs"] == 3 and ignored_wall["with"]["runs"] == 3 and ignored_wall["verdict"] != "too few runs",
          f"the program's wall time judged on every run that ended well ({ignored_wall})")
    check(not [l for l in out.splitlines() if l.endswith(" ")], "the text's tables pad no line's last column")
    failed = next(r for r in doc["remedies"] if r["name"] == "env TRY_TEST_EXIT=3")["runs"]
    check(len(failed) == 3 and all(not r["ok"] and r["status"] == "exit 3" for r in failed),
          f"... its runs said as failed, with their status ({[r['status'] for r in failed]})")
    check("exit 3 (left out)" in err, "the failed runs are said as left out as they happen")
    check(err.count("try_program: failing as asked (exit 3)") == 1 and "its output ended with:" in err,
          "a setting's first failed run has the last lines of its output said, once")
    check("try_program: done, exit 0" not in out and "try_program: done, exit 0" not in err,
          "the program's output is kept apart from try's own (a run that ends well shows none)")
    cold_runs = doc["cold"]["runs"]
    check(len(cold_runs) == 3 and all(r["ok"] for r in cold_runs), "three cold runs, all read")
    check(all(any(e == "WARMUP_REPORT=" + e.split("=", 1)[1] and e.split("=", 1)[1].endswith(".json") for e in r["env"])
              for r in cold_runs), "each run writes its report to try's own file (WARMUP_REPORT in its environment)")
    check("better" in out and "worse" in out and "same within noise" in out and "wall time" in out,
          "the text has the verdicts and the program's wall time")
    check("Cold means cold" in out and "TRITON_CACHE_DIR" in out and "page cache" in out,
          "the text says what was made cold and what was not")
    check(os.listdir(os.path.join(work, "tmp")) == [], "try's private folder is removed at the end")


def cache():
    """A cache remedy: cold runs stay cold, the remedy's folders are kept (--all)."""
    user_cache = os.path.join(work, "user-triton-cache")
    os.makedirs(user_cache)
    open(os.path.join(user_cache, "try_test_marker"), "w").write("compiled\n")  # a warm cache of the user's
    out_json = os.path.join(work, "cache.json")
    out_txt = os.path.join(work, "cache.txt")
    rc, out, err = run("try", "--runs", "3", "--all", "--remedy", "prewarm_kernels",
                       "-o", out_json, "-o", out_txt, "--", program,
                       env=env_for(TRITON_CACHE_DIR=user_cache, WARMUP_REPORT=os.path.join(work, "mine.json")))
    check(rc == 0, f"try --all exits 0 (got {rc}; {err[-800:]})")
    doc, v = verdicts(out_json)
    tried = {r["name"]: r["kind"] for r in doc["remedies"]}
    check({"module_loading_eager", "jit_cache_kept", "compile_caches_kept", "nccl_connect_at_init"} <= set(tried) and
          "code" not in tried.values() and doc["rounds"] == 3,
          f"--all: every remedy of the table that needs no code, in 3 rounds ({tried}, {doc['rounds']})")
    check(v.get(("compile_caches_kept", "compile", "first call")) == "better",
          f"the compile site's first call with its cache kept: better ({v.get(('compile_caches_kept', 'compile', 'first call'))})")
    check(v.get(("compile_caches_kept", "first call", "first call")) == "same within noise",
          "the other site: same within noise")
    cold_compile = [s["first_call_ns"] for r in doc["cold"]["runs"] for s in r["sites"] if s["name"] == "compile"]
    check(len(cold_compile) == 3 and min(cold_compile) > 100e6,
          f"cold runs stay cold though the user's TRITON_CACHE_DIR is warm: fresh folders each run ({cold_compile})")
    folders = [e for r in doc["cold"]["runs"] for e in r["env"] if e.startswith("TRITON_CACHE_DIR=")]
    check(len(set(folders)) == 3 and user_cache not in " ".join(folders), f"a different TRITON_CACHE_DIR each cold run")
    remedy = next(r for r in doc["remedies"] if r["name"] == "compile_caches_kept")
    check(remedy["priming"] is not None and remedy["priming"]["ok"], "one priming run fills the remedy's folders")
    kept = {e for r in remedy["runs"] for e in r["env"] if e.startswith("TRITON_CACHE_DIR=")}
    check(len(kept) == 1 and kept == {e for e in remedy["priming"]["env"] if e.startswith("TRITON_CACHE_DIR=")},
          "the remedy's runs share the priming run's folder")
    check("priming run" in err and "not measured" in err, "the priming run is said, as not measured")
    check("your WARMUP_REPORT" in err and "replaced" in err, "the user's WARMUP_REPORT is said to be replaced")
    check(not os.path.exists(os.path.join(work, "mine.json")), "... and the user's report file is not written")
    check("your TRITON_CACHE_DIR" in err, "the user's TRITON_CACHE_DIR is said to be unused")
    check("prewarm_kernels needs a change to the program" in out and "warmup::prewarm_kernels(&my_kernel" in out,
          "a code remedy named: said to need code, with its snippet")
    check("Remedies that need code (not measured on your program)" in out and "on warmup's examples, not on your program" in out,
          "code remedies are labelled as measured on warmup's examples")
    check([c["name"] for c in doc["code_remedies"]] == ["prewarm_kernels"], "the JSON lists it among code_remedies")
    check(os.path.exists(out_txt) and "compile_caches_kept" in open(out_txt).read(), "-o FILE.txt has the text")


def code_alone():
    """A code remedy alone: nothing run but the diagnosis, the snippet shown."""
    rc, out, err = run("try", "--remedy", "until_steady", "--", program)
    check(rc == 0 and "warmup::warmup_until_steady" in out and "no remedy without code to try" in err,
          f"only a code remedy named: exit 0, its snippet, nothing measured (rc {rc})")


def diagnosis():
    """The diagnosis run: the remedies its first calls' causes support."""
    template = os.path.join(work, "template.json")
    subprocess.run([program], check=True, env=env_for(WARMUP_REPORT=template))
    out_json = os.path.join(work, "diagnosed.json")
    rc, out, err = run("try", "--runs", "3", "-o", out_json, "--", sys.executable,
                       os.path.join(os.path.dirname(os.path.abspath(__file__)), "diagnosed_program.py"), template)
    check(rc == 0, f"try on a program whose diagnosis names remedies exits 0 (rc {rc}; {err[-500:]!r})")
    doc, v = verdicts(out_json)
    check(doc["diagnosed_remedies"] == ["module_loading_eager", "prewarm_kernels"],
          f"the diagnosis run's remedies are read from its report ({doc['diagnosed_remedies']})")
    check([r["name"] for r in doc["remedies"]] == ["module_loading_eager"],
          "the remedy without code among them is tried, the one with code is not")
    check(doc["remedies"][0]["settings"] == ["CUDA_MODULE_LOADING=EAGER"], "... with the table's setting")
    check(not any("WARMUP_ATTRIBUTION=1" in e for r in doc["cold"]["runs"] for e in r["env"]),
          "the measured runs run without attribution")
    check({"WARMUP_ATTRIBUTION=1", "WARMUP_CPU_SAMPLING=on"} <= set(doc["diagnosis"]["env"]),
          f"the diagnosis run with attribution and CPU sampling, the evidence of remedies by object ({doc['diagnosis']['env']})")
    check("lazy_kernel_load" in err and "first call" in err, "why it was chosen: the site and the cause are said")
    check(v.get(("module_loading_eager", "first call", "first call")) == "better", "its verdict: better")
    check([c["name"] for c in doc["code_remedies"]] == ["prewarm_kernels"] and "warmup::prewarm_kernels" in out,
          "the remedy that needs code is shown with its snippet, as not measured")


def usage():
    """Bad usage, a failing program, a missing one."""
    for args, words in ((["try"], "needs a program"), (["try", "--"], "needs a program"),
                        (["try", "--runs", "1", "--", program], "--runs takes a whole number from 3"),
                        (["try", "--runs", "x", "--", program], "--runs takes a whole number from 3"),
                        (["try", "--remedy", "no_such", "--", program], "module_loading_eager"),
                        (["try", "--env", "NOEQUALS", "--", program], "--env takes NAME=VALUE"),
                        (["try", "--env", "=1", "--", program], "--env takes NAME=VALUE"),
                        (["try", "-o", "out.csv", "--", program], "must end in .json or .txt"),
                        (["try", "--bogus", "--", program], "unknown option --bogus")):
        rc, out, err = run(*args)
        check(rc == 2 and words in err, f"{' '.join(args[:3])}: exit 2 and says \"{words}\" (rc {rc}; {err[:200]!r})")
    if not os.access("/proc/sys/vm/drop_caches", os.W_OK):
        rc, out, err = run("try", "--drop-caches", "--env", "A=1", "--", program)
        check(rc == 2 and "needs root" in err, f"--drop-caches without root: refused at start (rc {rc})")
    # As root, where the kernel lets this machine drop its page cache: before every run, and said.
    def can_drop():
        try:
            with open("/proc/sys/vm/drop_caches", "w") as f:
                f.write("1")
            return True
        except OSError:
            return False


    if os.access("/proc/sys/vm/drop_caches", os.W_OK) and can_drop():
        out_json = os.path.join(work, "dropped.json")
        rc, out, err = run("try", "--drop-caches", "--runs", "3", "--env", "A=1", "-o", out_json, "--", program)
        check(rc == 0 and "could not be dropped" not in err and json.load(open(out_json))["cold_means_cold"]["page_cache_dropped"],
              f"--drop-caches as root: the page cache dropped before each run, and said so (rc {rc}; {err[-300:]!r})")
    else:
        print("--drop-caches as root: this machine lets no one drop its page cache; not checked here")
    rc, out, err = run("try", "--runs", "3", "--env", "A=1", "--", program, "--exit", "1")
    check(rc == 2 and "every cold run failed" in err and "exit 1" in err,
          f"a program that exits 1 in every run: exit 2, said (rc {rc}; {err[-300:]!r})")
    rc, out, err = run("try", "--env", "A=1", "--", os.path.join(work, "no-such-program"))
    check(rc == 127 and "cannot start" in err, f"a missing program: 127 (rc {rc})")
    check(os.listdir(os.path.join(work, "tmp")) == [], "no private folder is left behind, whatever the end")


def python_launcher():
    """python -m warmup try."""
    python_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
    env = env_for(PYTHONPATH=python_dir, PYTHONDONTWRITEBYTECODE="1",
                  PATH=os.path.dirname(tool) + os.pathsep + os.environ.get("PATH", ""))
    out_json = os.path.join(work, "python.json")
    rc, out, err = run("-m", "warmup", "try", "--runs", "3", "--env", "TRY_TEST_FIRST_MS=10", "-o", out_json, "--", program,
                       env=env, command=[sys.executable])
    check(rc == 0 and os.path.exists(out_json), f"python -m warmup try runs warmup-report's try (rc {rc}; {err[-300:]!r})")
    if rc == 0:
        doc, v = verdicts(out_json)
        check(v.get(("env TRY_TEST_FIRST_MS=10", "first call", "first call")) == "better", "... with its verdicts")
    rc, out, err = run("-m", "warmup", "try", "--runs", "1", "--", program, env=env, command=[sys.executable])
    check(rc == 2 and "--runs" in err, f"python -m warmup try exits as warmup-report does (bad usage: 2; got {rc})")


PARTS = {"environment": [environment], "cache": [cache], "diagnosis": [code_alone, diagnosis],
         "usage": [usage, python_launcher]}
unknown = [p for p in parts if p not in PARTS]
if unknown:
    sys.exit(f"check_try.py: no part named {', '.join(unknown)} (parts: {', '.join(PARTS)})")
for part in parts or PARTS:
    for section in PARTS[part]:
        section()
shutil.rmtree(work, ignore_errors=True)
sys.exit(check.summary())
