"""warmup-report end to end: real reports from spin_program (scopes of known length), merged
and compared, and every kind of bad input.

A first call is one sample, at the mercy of the machine (CI runs two tests at once beside
compilers): across two real runs only steady p50s, medians of many calls, are compared; verdicts
on every figure, and exit statuses, come from reports made from one run (a copy, or a copy with a
planted change), so that they are what the tool decides, not what the machine did.

usage: check_report_tool.py WARMUP_REPORT SPIN_PROGRAM   (works in a temporary folder)
"""
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check  # noqa: E402

tool, spin = sys.argv[1:3]
work = tempfile.mkdtemp(prefix="warmup-report-tool-")
check = warmup_check.Checks()


def env_for(rank=None, size=None):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMPI_", "PMI_", "SLURM_", "WARMUP_")) and k not in ("RANK", "LOCAL_RANK", "WORLD_SIZE")}
    if rank is not None:
        env.update(OMPI_COMM_WORLD_RANK=str(rank), OMPI_COMM_WORLD_SIZE=str(size), OMPI_COMM_WORLD_LOCAL_RANK=str(rank))
    return env


def program(name, *args, rank=None, size=None):
    path = os.path.join(work, name)
    subprocess.run([spin, path, *args], check=True, env=env_for(rank, size))
    return path


def run(*args, env=None, timeout=120):
    try:
        p = subprocess.run([tool, *args], capture_output=True, text=True, env=env or env_for(), timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, "", f"warmup-report {' '.join(args)}: still running after {timeout} s (blocked?)"
    return p.returncode, p.stdout, p.stderr


def verdicts(out_json):
    c = json.load(open(out_json))
    return c, {(s["name"], f): s[f]["change"] for s in c["sites"] for f in ("first", "warmup_excess", "p50")}


def derived(name, edit):
    """A copy of base's report, `edit` applied to its JSON: the two reports come from one run, so
    the planted change is their only difference."""
    doc = json.load(open(base))
    edit(doc)
    path = os.path.join(work, name)
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def steady_scaled(factor, name="step"):
    """An edit: site `name`'s steady host figures (p50, its interval, ...) times `factor`."""
    def edit(doc):
        for site in doc["sites"]:
            if site["name"] == name:
                st = site["host"]["steady"]
                for k in ("p50", "p90", "p99", "p999", "min", "max", "mean", "p50_low", "p50_high"):
                    if st.get(k) is not None:
                        st[k] = int(st[k] * factor)
    return edit


# --- compare --------------------------------------------------------------------------
base = program("base.json")
copy = derived("copy.json", lambda doc: None)
rc, out, err = run("compare", base, copy, "-o", os.path.join(work, "copy.cmp.json"), "-o", "-")
c, v = verdicts(os.path.join(work, "copy.cmp.json"))
check(rc == 0 and c["schema"] == "warmup.compare/1" and not c["regressed"], "a report against its copy: exit 0, no regression")
check(len(v) == 9 and all(x == "same" for x in v.values()), f"  every verdict 'same', on every figure of the 3 sites ({v})")
check("no regression: 3 sites compared" in out, "  the table says no regression")

# Two real runs: their steady p50s (medians of 60 and 20 calls, with their intervals) agree,
# within 25% (the machine's load moves a 30 us site's p50 by more than the default between two
# runs); their first calls, one sample each, may not, and are not compared here.
same = program("same.json")
rc, out, err = run("compare", "--threshold", "25%", base, same, "-o", os.path.join(work, "same.cmp.json"))
c, v = verdicts(os.path.join(work, "same.cmp.json"))
p50s = {k: x for k, x in v.items() if k[1] == "p50"}
check(rc in (0, 1) and len(p50s) == 3 and all(x == "same" for x in p50s.values()),
      f"two runs of one program: every steady p50 'same' ({p50s})")

slow = program("slow_steady.json", "--steady-us", "240")
rc, out, err = run("compare", base, slow, "-o", os.path.join(work, "slow.cmp.json"))
c, v = verdicts(os.path.join(work, "slow.cmp.json"))
step = next(s for s in c["sites"] if s["name"] == "step")
check(rc == 1 and c["regressed"], "20% slower steady state (a real run): exit 1")
check(v[("step", "p50")] == "slower" and step["p50"]["basis"] == "interval", "  step's p50 'slower', on its intervals")
check(1.15 < step["p50"]["ratio"] < 1.25, f"  step's p50 ratio near 1.2 ({step['p50']['ratio']})")
# That the sites left alone keep 'same' is checked on a copy (below): between two real runs a
# 30 us site's p50 moves with the machine's load, as CI's two tests at once showed.

slow20 = derived("slow20.json", steady_scaled(1.2))
rc, out, err = run("compare", base, slow20, "-o", os.path.join(work, "slow20.cmp.json"))
c, v = verdicts(os.path.join(work, "slow20.cmp.json"))
check(rc == 1 and [k for k, x in v.items() if x != "same"] == [("step", "p50")],
      f"step's steady state 20% slower in a copy: exit 1, its p50 the only verdict not 'same' ({v})")
rc, out, err = run("compare", "--threshold", "25%", base, slow20)
check(rc == 0, "the same 20% with --threshold 25%: exit 0")

# A first call is one sample, at the mercy of the machine: injected into a real report's JSON.
cold_report = json.load(open(base))
for site in cold_report["sites"]:
    if site["name"] == "step":
        site["host"]["first"] = int(site["host"]["first"] * 1.2)
        site["host"]["total"] += site["host"]["first"] // 6
cold = os.path.join(work, "slow_first.json")
json.dump(cold_report, open(cold, "w"))
rc, out, err = run("compare", base, cold, "-o", os.path.join(work, "cold.cmp.json"), "-o", "-")
c, v = verdicts(os.path.join(work, "cold.cmp.json"))
check(rc == 1 and v[("step", "first")] == "slower", "20% slower first call: exit 1, step's first call 'slower'")
check(v[("step", "p50")] == "same", "  its steady p50 stays 'same'")
check("SLOWER" in out and "REGRESSED: 1 of 3 sites" in out, "  the table says which")

fast = program("fast.json", "--steady-us", "150")
rc, out, err = run("compare", base, fast, "-o", os.path.join(work, "fast.cmp.json"))
c, v = verdicts(os.path.join(work, "fast.cmp.json"))
check(v[("step", "p50")] == "faster" and v[("io", "p50")] == "same", "a faster steady state (a real run): step's p50 'faster'")
fast25 = derived("fast25.json", steady_scaled(0.75))
rc, out, err = run("compare", base, fast25, "-o", os.path.join(work, "fast25.cmp.json"))
c, v = verdicts(os.path.join(work, "fast25.cmp.json"))
check(rc == 0 and v[("step", "p50")] == "faster" and not c["regressed"], "a faster steady state in a copy: 'faster', exit 0")


def moved_sites(doc):
    io = next(s for s in doc["sites"] if s["name"] == "io")
    doc["sites"].remove(io)
    doc["sites"].append(dict(io, name="new site"))


moved = derived("moved.json", moved_sites)
rc, out, err = run("compare", base, moved, "-o", os.path.join(work, "moved.cmp.json"), "-o", "-")
c = json.load(open(os.path.join(work, "moved.cmp.json")))
check(rc == 0, "a site removed and one added: exit 0")
check([s["name"] for s in c["removed"]] == ["io"] and [s["name"] for s in c["added"]] == ["new site"],
      "  io listed as removed, 'new site' as added")
check("removed (base only): region io" in out and "added (new only): region new site" in out, "  the table lists both")

# What changed between the runs, besides the code: above the verdicts, and in the JSON.
def old_setup_of(doc):
    doc.update(device={"index": 0, "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-0", "compute_major": 9,
                       "compute_minor": 0, "multiprocessors": 132, "memory_bytes": 85899345920,
                       "driver_version": 12040, "runtime_version": 12040, "event_pair_floor": None},
               module_loading="LAZY (the default)", jit_cache="enabled", attribution_source="off", cpu_sampling="off")


def new_setup_of(doc):
    old_setup_of(doc)
    doc["device"].update(driver_version=12080, runtime_version=12090)
    doc.update(module_loading="EAGER", jit_cache="disabled", attribution_source="cupti",
               cpu_sampling="every 1000 us in first calls, weighted by CPU time")


old_setup, upgraded = derived("old_setup.json", old_setup_of), derived("upgraded.json", new_setup_of)
rc, out, err = run("compare", old_setup, upgraded, "-o", os.path.join(work, "setup.cmp.json"), "-o", "-")
c = json.load(open(os.path.join(work, "setup.cmp.json")))
changes = [(x["what"], x["base"], x["now"]) for x in c["run_changes"]]
check(rc == 0 and changes == [("driver", "12.4", "12.8"), ("runtime", "12.4", "12.9"),
                              ("module_loading", "LAZY (the default)", "EAGER"), ("jit_cache", "enabled", "disabled"),
                              ("attribution", "off", "cupti"),
                              ("cpu_sampling", "off", "every 1000 us in first calls, weighted by CPU time")],
      f"a new driver, runtime, module loading, JIT cache, attribution and sampling: each in run_changes ({changes})")
block = out.find("changed between the runs")
check(0 < block < out.find("\nsite ") and "  driver: 12.4 -> 12.8\n" in out and "  module_loading: LAZY (the default) -> EAGER\n" in out,
      "  the table lists them above the verdicts")
rc, out, err = run("compare", old_setup, old_setup, "-o", os.path.join(work, "nosetup.cmp.json"), "-o", "-")
check(rc == 0 and "changed between" not in out and json.load(open(os.path.join(work, "nosetup.cmp.json")))["run_changes"] == [],
      "the same setup: no such block, run_changes empty")

# --- show: a report written again in the formats WARMUP_REPORT writes at exit --------------
formats = ["txt", "json", "csv", "trace.json", "svg"]
at_exit = os.path.join(work, "atexit")
subprocess.run([spin, ",".join(f"{at_exit}.{f}" for f in formats), "--first-us", "3000"], check=True, env=env_for())
for f in formats:
    again = os.path.join(work, f"again.{f}")
    args = ("show", at_exit + ".json", "-o", again) if f != "svg" else ("show", "-o", again, at_exit + ".json")
    rc, out, err = run(*args)
    same_bytes = os.path.exists(again) and open(again, "rb").read() == open(f"{at_exit}.{f}", "rb").read()
    check(rc == 0 and out == "" and same_bytes, f"show -o .{f}: the very file the program wrote at exit ({err.strip()[:200]})")
trace = json.load(open(os.path.join(work, "again.trace.json")))
calls = [e for e in trace["traceEvents"] if e["ph"] == "X"]
check(len(calls) >= 3 and any(e["args"]["first"] for e in calls), f"  the trace has the calls ({len(calls)} events)")
circles = list(ET.parse(os.path.join(work, "again.svg")).getroot().iter("{http://www.w3.org/2000/svg}circle"))
check(len(circles) > 4 + 60, f"  the picture has a point per call ({len(circles)} circles)")
rc, out, err = run("show", at_exit + ".json", "-o", "-")
check(rc == 0 and out == open(at_exit + ".txt").read(), "show -o -: the table on standard output")

for bad_out in ("x.svgz", "x.png", "noextension"):
    target = os.path.join(work, bad_out)
    rc, out, err = run("show", at_exit + ".json", "-o", os.path.join(work, "ok.svg"), "-o", target)
    check(rc == 2 and "must end in .txt, .json, .csv, .trace.json, .svg" in err and not os.path.exists(target)
          and not os.path.exists(os.path.join(work, "ok.svg")), f"show -o {bad_out}: refused, exit 2, nothing written")
rc, out, err = run("show", at_exit + ".json", "-o", "/nonexistent-dir/x.svg")
check(rc == 2 and "/nonexistent-dir/x.svg" in err and "No such file or directory" in err,
      "show -o into a folder that does not exist: named with the reason, exit 2")
rc, out, err = run("show", at_exit + ".json", "-o")
check(rc == 2 and "-o needs a file name" in err, "show -o with no file: exit 2")
rc, out, err = run("show", at_exit + ".json", "--threshold", "5%")
check(rc == 2 and "unknown option --threshold for show" in err, "a compare option given to show: refused, exit 2")


def schema_2(doc):  # what an earlier release wrote: no call times
    doc["schema"] = "warmup.report/2"
    for site in doc["sites"]:
        del site["first_calls"], site["timeline"]


old = derived("schema2.json", schema_2)
rc, out, err = run("show", old, "-o", os.path.join(work, "old.svg"), "-o", os.path.join(work, "old.trace.json"),
                   "-o", os.path.join(work, "old.txt"))
svg_text = open(os.path.join(work, "old.svg")).read()
check(rc == 0 and "warmup.report/2" in err and svg_text.count("call times not in this report (warmup.report/2)") == 3,
      "a warmup.report/2 report: its picture says on each panel that the call times are missing, and so does stderr")
check("no call times" in open(os.path.join(work, "old.trace.json")).read(), "  its trace says so too")
rc, out, err = run("show", old)
check(rc == 0 and out == open(os.path.join(work, "old.txt")).read() and "step" in out, "  its table is written, as show prints it")
rc, out, err = run("compare", base, old)
check(rc == 0, "a warmup.report/2 report compares with a warmup.report/3 one")

# --- bad input ------------------------------------------------------------------------
def bad(name, text, expect):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    rc, out, err = run("compare", base, path)
    check(rc == 2 and expect in err and "Traceback" not in err, f"{name}: exit 2, says '{expect}' ({err.strip()[:150]})")


bad("truncated.json", open(base).read()[:200], "not valid JSON: line 1, column")
bad("empty.json", "", "not valid JSON")
bad("array.json", "[1, 2]", "not a warmup report: the JSON is not an object")
bad("foreign.json", '{"benchmarks": []}', "not a warmup report: it has no \"schema\"")
bad("other_schema.json", '{"schema": "chrome.trace/1"}', "not a warmup report: its schema is")
bad("future.json", '{"schema": "warmup.report/9", "sites": []}', "is a version this build does not read")
bad("deep.json", "[" * 100000 + "]" * 100000, "nested deeper than 64 levels")
bad("control.json", '{"schema": "warmup.report/2", "x": "a\x01b"}', "a control character inside a string")
good = json.load(open(base))
good["sites"][0]["calls"] = "many"
bad("wrong_type.json", json.dumps(good), "sites[0].calls: expected a non-negative integer")
good = json.load(open(base))
good["sites"][1]["op"] = "teleport"
bad("wrong_enum.json", json.dumps(good), "sites[1].op: \"teleport\" is not a name this version knows")
good = json.load(open(base))
good["sites"][0]["host"]["first"] = 1e30
bad("huge.json", json.dumps(good), "sites[0].host.first: expected an integer number of nanoseconds")
good = json.load(open(base))
good["sites"][0]["host"]["first"] = 99999999999999999999
bad("overflow.json", json.dumps(good), "sites[0].host.first: 99999999999999999999 is out of range")
rc, out, err = run("compare", base, os.path.join(work, "no such file.json"))
check(rc == 2 and "No such file or directory" in err, "a missing file: exit 2, the system's reason")
rc, out, err = run("compare", base)
check(rc == 2 and "usage:" in err, "one report to compare: usage, exit 2")
for t in ("10", "abc", "-5%", "nan"):
    rc, out, err = run("compare", "--threshold", t, base, same)
    check(rc == 2 and "--threshold takes" in err, f"--threshold {t}: refused")
rc, out, err = run("compare", "--floor", "5 parsecs", base, same)
check(rc == 2 and "--floor takes" in err, "--floor with no unit: refused")
rc, out, err = run("compare", "--first-floor", "-1ms", base, same)
check(rc == 2 and "--first-floor takes" in err, "--first-floor negative: refused")
rc, out, err = run("compare", "--first-floor", "30ms", base, cold)
check(rc == 0, "the 20 ms first-call slowdown under --first-floor 30ms: exit 0")
rc, out, err = run("frobnicate")
check(rc == 2 and "unknown command" in err, "an unknown command: exit 2")

# Negative and huge figures written by a hand (or another tool) read and compare, never crash.
good = json.load(open(base))
good["sites"][0]["host"]["first"] = -5
good["sites"][1]["host"]["first"] = 9223372036854775807
path = os.path.join(work, "extreme.json")
json.dump(good, open(path, "w"))
rc, out, err = run("compare", base, path)
check(rc in (0, 1) and "Traceback" not in err and out.count("\n") > 3, f"negative and 2^63-1 ns figures: compared (exit {rc})")

# --- merge ----------------------------------------------------------------------------
ranks = []
for r in range(4):
    args = ["--first-us", "1000000"] if r == 2 else []
    if r == 3:
        args += ["--no-io", "--calls", "30"]
    program("rank%r.json", *args, rank=r, size=4)  # %r: ranks never write over each other
    ranks.append(os.path.join(work, f"rank{r}.json"))
merged = os.path.join(work, "merged.json")
rc, out, err = run("merge", "-o", merged, "-o", os.path.join(work, "merged.csv"), "-o", os.path.join(work, "merged.svg"),
                   "-o", "-", *reversed(ranks))
check(rc == 0, f"merge of 4 ranks: exit 0 ({err.strip()[:200]})")
m = json.load(open(merged))
check(m["schema"] == "warmup.merged/1" and [r["rank"] for r in m["ranks"]] == [0, 1, 2, 3],
      "merged JSON: its schema, ranks in order whatever the input order")
s = {x["name"]: x for x in m["sites"]}
check(s["step"]["ranks"] == 4 and s["step"]["calls"] == 60 * 3 + 30, f"step: 4 ranks, calls summed exactly ({s['step']['calls']})")
firsts = [f["first"] for f in s["step"]["per_rank"]]
check(s["step"]["first"]["slowest_rank"] == 2 and s["step"]["first"]["max"] == firsts[2] >= 1e9,
      f"step's first call: slowest on rank 2, its 1 s ({firsts})")
check(s["step"]["first"]["median"] == sorted(firsts)[1] and s["step"]["first"]["min"] == min(firsts),
      "  min and lower median agree with the per-rank figures")
check(s["io"]["ranks"] == 3 and s["io"]["missing_ranks"] == [3] and s["io"]["calls"] == 60, "io: on 3 ranks, rank 3 listed missing")
check([f["rank"] for f in s["step"]["per_rank"]] == [0, 1, 2, 3] and [f["calls"] for f in s["step"]["per_rank"]] == [60, 60, 60, 30],
      "step's per-rank figures: every rank, its own count")
check("missing on ranks 3" in out and "rank 2" in out, "the table names the missing rank and the slowest")
csv = open(os.path.join(work, "merged.csv")).read().splitlines()
check(csv[0].startswith("name,op,ranks,calls,first.min,first.median,first.max,first.slowest_rank") and len(csv) == 4,
      "merged CSV: dotted columns, one row per site")
svg = ET.parse(os.path.join(work, "merged.svg")).getroot()
paths = [p.get("d") for p in svg.iter("{http://www.w3.org/2000/svg}path")]
marks = sum(len(x["per_rank"]) + sum(f["p50"] is not None for f in x["per_rank"]) for x in m["sites"])
check(marks == 4 + 8 + 6 and sum(d.count("v8") for d in paths) == marks,
      "merged SVG: a mark per rank for each first call and each steady p50")

# show writes a merged report in its own formats, as merge -o does; a merged report has no timeline.
rc, out, err = run("show", merged, "-o", os.path.join(work, "shown.svg"), "-o", os.path.join(work, "shown.csv"))
check(rc == 0 and open(os.path.join(work, "shown.svg")).read() == open(os.path.join(work, "merged.svg")).read()
      and open(os.path.join(work, "shown.csv")).read() == open(os.path.join(work, "merged.csv")).read(),
      "show -o of a merged report: the SVG and CSV merge -o wrote")
rc, out, err = run("show", merged, "-o", os.path.join(work, "shown.trace.json"))
check(rc == 2 and "merged report" in err and not os.path.exists(os.path.join(work, "shown.trace.json")),
      "show -o .trace.json of a merged report: refused, exit 2")

# Merges merge: two halves merged, then merged again, give the same figures as all at once.
half_a, half_b = os.path.join(work, "half_a.json"), os.path.join(work, "half_b.json")
run("merge", "-o", half_a, ranks[0], ranks[1])
run("merge", "-o", half_b, ranks[2], ranks[3])
rc, out, err = run("merge", "-o", os.path.join(work, "tree.json"), half_a, half_b)
t = json.load(open(os.path.join(work, "tree.json")))
check(rc == 0 and t["sites"] == m["sites"], "a merge of two merges equals the merge of all four")

# A directory stands for its reports; an unreadable one among them is left out and said.
d = os.path.join(work, "dir")
os.makedirs(d, exist_ok=True)
for i, r in enumerate(ranks):
    open(os.path.join(d, f"rank{i}.json"), "w").write(open(r).read())
open(os.path.join(d, "broken.json"), "w").write("{")
fifo = os.path.join(d, "planted.json")
if not os.path.exists(fifo):
    os.mkfifo(fifo)  # nobody writes it: reading it would block for ever
rc, out, err = run("merge", d, "-o", os.path.join(work, "dir.json"))
dm = json.load(open(os.path.join(work, "dir.json")))
check(rc == 2 and len(dm["ranks"]) == 4 and "broken.json" in err and any("left out" in n for n in dm["notices"]),
      "a directory with a broken report: the rest merged, the broken one named, exit 2")
check("planted.json: not a regular file" in err, "a FIFO among the reports: left out, never waited on")
rc, out, err = run("merge", os.path.join(work, "base.json"), os.path.join(work, "same.json"))
check(rc == 0 and "numbered by input order" in out, "reports with no rank: numbered by input order, said")
rc, out, err = run("merge", merged, "-o", "/nonexistent-dir/out.json")
check(rc == 2 and "/nonexistent-dir/out.json" in err, "an output that cannot be written: named, exit 2")

# One rule for a path's format, WARMUP_REPORT's: the extension in any case.
def json_of(path):
    """The JSON document in `path`, or None where it holds none (the table, say)."""
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None


upper = {x: os.path.join(work, x) for x in ("M.JSON", "C.JSON", "X2.SVG", "M.Csv")}
rc, out, err = run("merge", "-o", upper["M.JSON"], "-o", upper["M.Csv"], *ranks)
check(rc == 0 and (json_of(upper["M.JSON"]) or {}).get("sites") == m["sites"]
      and open(upper["M.Csv"]).read() == open(os.path.join(work, "merged.csv")).read(),
      "merge -o M.JSON, -o M.Csv: the merged JSON and CSV, as .json and .csv")
# A report against its copy: exit 0 whatever the machine did (two real runs may differ by more
# than the default 10%, and what is judged here is the output's format).
rc, out, err = run("compare", "-o", upper["C.JSON"], base, copy)
check(rc == 0 and (json_of(upper["C.JSON"]) or {}).get("schema") == "warmup.compare/1", "compare -o C.JSON: the comparison's JSON")
rc, out, err = run("show", merged, "-o", upper["X2.SVG"])
check(rc == 0 and open(upper["X2.SVG"]).read() == open(os.path.join(work, "merged.svg")).read(),
      "show merged.json -o X2.SVG: the merged SVG, as .svg")
# OUT.JSON is JSON for every command and document, the merged one shown included.
shown = {x: os.path.join(work, x) for x in ("OUT.JSON", "OUT2.JSON")}
rc, out, err = run("show", merged, "-o", shown["OUT.JSON"])
check(rc == 0 and open(shown["OUT.JSON"]).read() == open(upper["M.JSON"]).read(),
      "show merged.json -o OUT.JSON: the merged JSON, not the table")
rc, out, err = run("show", base, "-o", shown["OUT2.JSON"])
check(rc == 0 and (json_of(shown["OUT2.JSON"]) or {}).get("schema") == "warmup.report/3", "show report.json -o OUT2.JSON: the report's JSON")

# A refused -o is named, cut at 200 bytes (a path as long as a hostile one may be).
long_name = os.path.join(work, "x" * 300 + ".trace.json")
rc, out, err = run("merge", "-o", long_name, *ranks)
shown_name = long_name.encode()[:200].decode()
check(rc == 2 and f"-o {shown_name}...:" in err, "merge -o with a 300-byte name: named, cut at 200 bytes")

# One table of formats says which documents each writes: an extension of a format a document is
# not written in is refused before anything is read or written, naming the formats it is.
for args, written_as in ((("merge", "-o", os.path.join(work, "refused.trace.json"), *ranks), ".txt, .json, .csv, .svg"),
                         (("compare", "-o", os.path.join(work, "refused.CSV"), base, same), ".txt, .json"),
                         (("compare", "-o", os.path.join(work, "refused.svg"), base, same), ".txt, .json"),
                         (("show", merged, "-o", os.path.join(work, "ok.json"), "-o", os.path.join(work, "refused.trace.json")),
                          ".txt, .json, .csv, .svg")):
    rc, out, err = run(*args)
    kind = "comparison" if args[0] == "compare" else "merged report"
    check(rc == 2 and f"a {kind} has no" in err and f"(it is written as {written_as})" in err
          and not any(os.path.exists(os.path.join(work, f)) for f in ("refused.trace.json", "refused.CSV", "refused.svg", "ok.json")),
          f"{args[0]} -o {os.path.basename(next(a for a in args if 'refused' in a))}: refused, named, nothing written "
          f"({err.strip()[:160]})")

# An input that is no regular file is refused at once: a FIFO nobody writes never blocks.
lone_fifo = os.path.join(work, "fifo.json")
os.mkfifo(lone_fifo)
for args in (("show", lone_fifo), ("compare", base, lone_fifo), ("compare", lone_fifo, base), ("merge", ranks[0], lone_fifo),
             ("show", d), ("show", "/dev/null")):
    rc, out, err = run(*args, timeout=20)
    check(rc == 2 and "not a regular file" in err and "Traceback" not in err,
          f"{' '.join(os.path.basename(a) for a in args)}: refused at once, exit 2 ({err.strip()[:120]})")

# The tool is built with WARMUP_DISABLE: a WARMUP_REPORT in its environment writes nothing.
trap = os.path.join(work, "tool_report.json")
env = env_for()
env["WARMUP_REPORT"] = trap
rc, out, err = run("show", base, env=env)
check(rc == 0 and "step" in out and not os.path.exists(trap), "show prints a report; the tool writes no report of its own")

# --- advise ------------------------------------------------------------------------------
rc, out, err = run("advise", base)
check(rc == 0 and "names no causes" in out and "WARMUP_ATTRIBUTION=1" in out, "advise, a report without causes: says how to get them")


def with_causes(doc):
    """step's first call: module loads and cuBLASLt's code; load's: a pool's growth and a sync
    wait. A stale remedy list (a newer version's name) stays in the JSON: advise works it out again."""
    for site in doc["sites"]:
        first = site["host"]["first"]
        steady = site["host"]["steady"]["p50"] if site["host"].get("steady") else 0
        causes = {"step": [("module_load", 0.5, ""), ("host_code", 0.3, "libcublasLt.so.13")],
                  "load": [("pool_growth", 0.4, ""), ("sync_wait", 0.5, "")]}.get(site["name"])
        if causes is None:
            continue
        excess = first - steady
        site["host"]["first_call_causes"] = {
            "calls": 1, "call": first, "excess": excess, "named": int(excess * 0.8), "unattributed": excess - int(excess * 0.8),
            "causes": [{"what": w, "time": int(excess * f), "count": 1, "where": where, "functions": []} for w, f, where in causes],
            "spans": [], "spans_left_out": 0, "other_threads": [],
            "remedies": [{"remedy": "from_a_newer_version", "could_save": excess}]}


advised = derived("advised.json", with_causes)
rc, out, err = run("advise", advised)
steps = out.find("step (region), first call")
loads = out.find("load (region), first call")
check(rc == 0 and 0 <= steps < loads, f"advise: each first call with causes, the larger excess (step's 100 ms) first ({err.strip()[:200]})")
step_part = out[steps:loads]
# 80% of step's excess is cuBLAS's or module loads: the two remedies that cover both tie (the
# table's order), then those of the module loads alone.
order = [step_part.find("  " + r + ": up to") for r in ("cublas_prewarm", "until_steady", "prewarm_kernels")]
check(all(i > 0 for i in order) and order == sorted(order), f"  step's remedies largest saving first: {order}")
check("from_a_newer_version" not in out, "  worked out again from the causes by this version's table, not the stale list")
load_part = out[loads:]
check("prewarm_pool: up to" in load_part and "cublas_prewarm" not in load_part and "prewarm_kernels" not in load_part,
      "  load's: the pool's remedy, none its causes do not support (the sync wait has none)")
check("code:  warmup::prewarm_pool(" in load_part and "on our examples: first 7.6 us vs steady 1.2 us" in load_part,
      "  a code remedy with its snippet and what it did on our examples")
check("set:   CUDA_MODULE_LOADING=EAGER  (warmup-report try measures it on your program)" in step_part,
      "  an environment remedy with its setting, and try to measure it")
rc, out, err = run("show", advised)
check(rc == 0 and "remedies, by what they could save on this call" in out and "from_a_newer_version" in out,
      "show: the report's own remedy lines under the causes, a name this version does not know kept")
for args, what in ((("advise",), "no report"), (("advise", base, advised), "two reports"),
                   (("advise", os.path.join(work, "none.json")), "a missing file")):
    rc, out, err = run(*args)
    check(rc == 2 and "warmup-report" in err and "Traceback" not in err, f"advise, {what}: exit 2 ({err.strip()[:100]})")
rc, out, err = run("advise", merged)
check(rc == 2 and "a merged report keeps no causes" in err and out == "", f"advise, a merged report: refused, exit 2 ({err.strip()[:100]})")

if not check.failures:
    import shutil
    shutil.rmtree(work, ignore_errors=True)
else:
    print(f"the files are kept in {work}")
sys.exit(check.summary())
