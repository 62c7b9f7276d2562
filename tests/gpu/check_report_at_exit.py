#!/usr/bin/env python3
"""Runs examples/first_inference with WARMUP_REPORT naming an SVG, a trace and a CSV file, and
reads each one back: the CSV has its header and a row per site, `forward` among them; the trace
has `forward` calls in its traceEvents; the SVG is XML that names every site. Exits 77 (skipped)
on a host without a GPU (where it has one, an example that found none has failed).

With `attribution`, the demo runs with WARMUP_ATTRIBUTION=1 (and CPU sampling on) and the
pictures must show why: the SVG draws a cause bar under the sites whose first call has named
causes (forward among them), and the trace nests each first call's cause slices inside it, on its
track. Where CHECK_KEEP_DIR is set (.ci/gpu-run), that run's three files are kept there:
docs/first_inference.svg is its picture.

usage: check_report_at_exit.py PROGRAM [attribution]
"""
import csv
import os
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check

SVG = "{http://www.w3.org/2000/svg}"


def csv_sites(path):
    """The site names of a CSV report, after checking its header and that its rows are whole."""
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    assert rows and rows[0][:3] == ["name", "op", "calls"], rows[:1]
    assert len(rows) > 1 and all(len(r) == len(rows[0]) for r in rows), "no rows, or ragged rows"
    calls = {r[0]: int(r[2]) for r in rows[1:]}
    assert calls.get("forward") == 100, calls
    return list(calls)


def check_trace(path):
    events = warmup_check.load_report(path)["traceEvents"]
    forward = [e for e in events if e.get("ph") == "X" and e["name"] == "forward"]
    assert forward, sorted({e.get("name") for e in events})
    return len(forward)


def check_trace_causes(path):
    """Each first call with causes has its cause slices on its own track, inside it."""
    events = [e for e in warmup_check.load_report(path)["traceEvents"] if e.get("ph") == "X" and e["pid"] == 1]
    firsts = {e["tid"]: e for e in events if e.get("cat") != "cause" and e["args"]["call"] == 0}
    slices = [e for e in events if e.get("cat") == "cause"]
    assert slices, "no cause slice in the trace of a run with attribution on"
    for e in slices:
        call = firsts[e["tid"]]
        assert "why_us" in call["args"], call
        assert call["ts"] <= e["ts"] and e["ts"] + e["dur"] <= call["ts"] + call["dur"] + 0.001, (e, call)
    forward = [e for e in slices if firsts[e["tid"]]["name"] == "forward"]
    assert forward, "the first forward has no cause slice"
    return f"{len(slices)} cause slices ({len(forward)} in the first forward: " + \
        ", ".join(sorted({e["name"] for e in forward})) + ")"


def check_svg_bars(path):
    """A cause bar under forward's panel: its head line names forward's first call and its causes."""
    root = ET.parse(path).getroot()
    for g in root.iter(SVG + "g"):
        texts = ["".join(t.itertext()) for t in g.iter(SVG + "text")]
        if texts and texts[0] == "forward":
            heads = [t for t in texts if t.startswith("first call ") and "p50:" in t]
            parts = [r for r in g.iter(SVG + "rect") if r.find(SVG + "title") is not None]
            assert heads and parts, ("forward's panel has no cause bar", texts)
            return heads[0]
    raise AssertionError("no panel for forward")


def check_svg(path, sites):
    root = ET.parse(path).getroot()
    assert root.tag == SVG + "svg", root.tag
    texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
    # A panel's title is the site's name, or its start where the name was cut to fit ("...").
    named = lambda site: any(t == site or (t.endswith("...") and site.startswith(t[:-3])) for t in texts)
    missing = [s for s in sites if not named(s)]
    assert not missing, (missing, texts)


def main():
    program = sys.argv[1]
    attribution = sys.argv[2:] == ["attribution"]
    with tempfile.TemporaryDirectory() as tmp:
        paths = {kind: os.path.join(tmp, "first_inference." + kind) for kind in ("svg", "trace.json", "csv")}
        env = {"WARMUP_REPORT": ",".join(paths.values())}
        if attribution:  # and CPU sampling, which names the CPU time no record covers
            env.update(WARMUP_ATTRIBUTION="1", WARMUP_CPU_SAMPLING="on")
        run = warmup_check.run([program], env=env, echo=True)
        warmup_check.skip_without_gpu(run)
        warmup_check.expect_exit(run)
        absent = [p for p in paths.values() if not os.path.exists(p)]
        if absent:
            warmup_check.fail(f"WARMUP_REPORT named {', '.join(absent)}, not written; the folder holds "
                              f"{sorted(os.listdir(tmp))}")
        if attribution:
            for path in paths.values():
                warmup_check.keep(path)
        sites = csv_sites(paths["csv"])
        forward_calls = check_trace(paths["trace.json"])
        check_svg(paths["svg"], sites)
        print(f"report at exit: csv {len(sites)} sites, trace {forward_calls} forward calls, svg names them all")
        if attribution:
            print(f"trace: {check_trace_causes(paths['trace.json'])}")
            print(f"svg: forward's bar says \"{check_svg_bars(paths['svg'])}\"")


if __name__ == "__main__":
    main()
