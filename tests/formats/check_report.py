#!/usr/bin/env python3
"""Runs a program and reads its report back with real parsers: Python's JSON parser, its CSV
reader, and an XML parser for SVG. Every output must be valid UTF-8.

usage: check_report.py steps PROGRAM            the issue's 50-step example: schema and figures
       check_report.py trace_times PROGRAM      every timeline call's ts and dur round-trip to the
                                                nanosecond (PROGRAM: synthetic_report)
       check_report.py trace_causes PROGRAM     a first call's causes: slices nested in it, at their
                                                times, and its arguments (PROGRAM: synthetic_report)
       check_report.py svg_bars PROGRAM         each site's cause bars: parts in order, widths in
                                                proportion, shares written (PROGRAM: synthetic_report)
       check_report.py hostile FORMAT PROGRAM   hostile site names survive in FORMAT
                                                (json, csv, svg, trace)
"""
import csv
import decimal
import io
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check

HOSTILE = [  # as the program names its sites, and as a parser must read them back
    ('quote" backslash\\ slash/', 'quote" backslash\\ slash/'),
    ("newline\n tab\t cr\r", "newline\n tab\t cr\r"),
    ("nul\x00inside", "nul\x00inside"),
    ("control \x01\x02\x1f\x7f", "control \x01\x02\x1f\x7f"),
    ("comma, <angle> & ampersand", "comma, <angle> & ampersand"),
    ("bad utf8", "bad utf8 \ufffd\ufffd \ufffd \ufffd\ufffd"),
    ("good utf8", "good utf8 \u00e9\u20ac\U0001F600"),
    ("1 MiB", "x" * (1 << 20)),
]


def run(args):
    return warmup_check.run_ok(args).stdout  # fails on invalid UTF-8


def check_steps(program):
    doc = warmup_check.last_line_report(run([program]))
    assert doc["schema"] == "warmup.report/3", doc["schema"]
    assert doc["device"] is None or isinstance(doc["device"]["name"], str)
    assert isinstance(doc["device_status"], str) and doc["device_status"]
    (site,) = [s for s in doc["sites"] if s["name"] == "step"]
    assert site["op"] == "region" and site["calls"] == 50, site
    host = site["host"]
    assert host["first"] >= 20_000_000, host
    steady = host["steady"]
    assert steady["calls"] == 50 - host["warmup_calls"] - host["cold_recurrences"], host
    assert steady["p50"] >= 1_000_000 and steady["p50"] <= steady["p90"] <= steady["p99"] <= steady["p999"], steady
    assert host["warmup_calls"] >= 1, host
    assert host["first_call_excess"] == host["first"] - steady["p50"], host
    assert site["device"] is None and site["bytes"] is None
    return f"step: first {host['first']} ns, steady p50 {steady['p50']} ns, warm-up {host['warmup_calls']}"


def check_trace_times(program):
    """The trace's ts and dur (microseconds) must give back every call's integer nanoseconds."""
    expected = []
    for line in run([program, "3", "timeline"]).splitlines():
        site, index, host_start, host, device_start, device = line.split()
        expected.append((1, int(site) + 1, int(index), int(host_start), int(host)))
        if device_start != "-":
            expected.append((2, int(site) + 1, int(index), int(device_start), int(device)))
    doc = json.loads(run([program, "3", "trace"]), parse_float=decimal.Decimal)
    got = []
    for e in doc["traceEvents"]:
        if e.get("ph") != "X" or e.get("cat") == "cause":
            continue
        assert isinstance(e["ts"], decimal.Decimal) and isinstance(e["dur"], decimal.Decimal), e
        to_ns = lambda us: int(us * 1000) if (us * 1000) == int(us * 1000) else None
        got.append((e["pid"], e["tid"], e["args"]["call"], to_ns(e["ts"]), to_ns(e["dur"])))
    assert sorted(got) == sorted(expected), [g for g in got if g not in expected][:5]
    late = max(x[3] for x in expected)
    return f"trace: {len(got)} events, ts and dur exact to the ns (latest start {late} ns)"


def check_trace_causes(program):
    """Under each first call with causes, one slice per stretch of its attribution's spans, on the
    call's own track, inside the call (so that a viewer nests it), at the call's start plus `at`
    to the nanosecond; the call's arguments carry every cause's time and the CPU samples by object."""
    report = json.loads(run([program, "4", "json"]))
    doc = json.loads(run([program, "4", "trace"]), parse_float=decimal.Decimal)
    ns = lambda us: int(us * 1000)
    events = [e for e in doc["traceEvents"] if e.get("ph") == "X" and e["pid"] == 1]
    checked = 0
    for tid, site in enumerate(report["sites"], start=1):
        why = site["host"]["first_call_causes"]
        (first,) = [e for e in events if e["tid"] == tid and e.get("cat") != "cause" and e["args"]["call"] == 0]
        slices = sorted((e for e in events if e["tid"] == tid and e.get("cat") == "cause"), key=lambda e: e["ts"])
        if why is None:
            assert not slices and "why_us" not in first["args"], (tid, slices[:1], first["args"])
            continue
        start, end = ns(first["ts"]), ns(first["ts"]) + ns(first["dur"])
        assert len(slices) == len(why["spans"]) > 0, (len(slices), why["spans"])
        for e, span in zip(slices, why["spans"]):
            assert e["args"]["cause"] == span["what"], (e, span)
            assert ns(e["ts"]) == start + span["at"] and ns(e["dur"]) == span["time"], (e, span, start)
            assert start <= ns(e["ts"]) and ns(e["ts"]) + ns(e["dur"]) <= end, ("outside its call", e, first)
        got = {k: ns(v) for k, v in first["args"]["why_us"].items()}
        want = {c["what"]: c["time"] for c in why["causes"] if c["what"] != "host_code"}
        want.update(unattributed=why["unattributed"], excess=why["excess"])
        assert got == want, (got, want)
        samples = [(c["where"], c["time"], c["count"]) for c in why["causes"] if c["what"] == "host_code"]
        assert [(x["object"], ns(x["time_us"]), x["samples"]) for x in first["args"]["cpu_samples"]] == samples
        checked += 1
    assert checked >= 2, "the synthetic report has causes on every other site"
    return f"trace: {checked} first calls with their cause slices nested inside, at their times"


def check_svg_bars(program):
    """A bar per cold attribution (first call, then calls cold again), its parts largest first
    with widths in proportion to their time over the excess (or the named time, where larger),
    the grey part for what no cause explains, and the largest shares written on the bar."""
    report = json.loads(run([program, "4", "json"]))
    root = ET.fromstring(run([program, "4", "svg"]).encode("utf-8"))
    svg = "{http://www.w3.org/2000/svg}"
    panels = [g for g in root.iter(svg + "g")]
    assert len(panels) == len(report["sites"]), len(panels)
    bars_seen = 0
    for g, site in zip(panels, report["sites"]):
        parts = [r for r in g.iter(svg + "rect") if r.find(svg + "title") is not None]
        whys = [w for w in (site["host"]["first_call_causes"], site["host"]["cold_causes"])
                if w is not None and w["excess"] > 0 and w["causes"]]
        texts = ["".join(t.itertext()) for t in g.iter(svg + "text")]
        heads = [t for t in texts if re.search(r"(over p50|no steady p50):", t)]
        assert len(heads) == len(whys), (heads, len(whys))
        for why in whys:
            n = len(why["causes"]) + (why["unattributed"] > 0)
            mine, parts = parts[:n], parts[n:]
            assert len(mine) == n, (len(mine), n)
            whole = max(why["excess"], why["named"])
            widths = [float(r.get("width")) for r in mine]
            # The bar's full width (its background) stands for the excess, or the named time where larger.
            at = lambda r: (round(float(r.get("x")), 1), round(float(r.get("y")), 1))
            (track,) = [r for r in g.iter(svg + "rect") if r.get("fill") == "#f0f1f4" and at(r) == at(mine[0])]
            total = float(track.get("width"))
            # Causes and the grey remainder fill it: the excess, or the causes alone where they exceed it.
            assert abs(sum(widths) - total) < 0.05, (widths, total)
            for c, w in zip(why["causes"], widths):
                assert abs(w / total - c["time"] / whole) < 1e-3, (w, total, c, whole)
            assert widths[:len(why["causes"])] == sorted(widths[:len(why["causes"])], reverse=True), widths
            xs = [float(r.get("x")) for r in mine]
            assert all(abs(xs[i] + widths[i] - xs[i + 1]) < 0.02 for i in range(n - 1)), "parts must abut"
            if why["unattributed"] > 0:
                assert mine[-1].get("fill") == "#d9dce1" and "unattributed" in mine[-1].find(svg + "title").text
            top = round(100 * why["causes"][0]["time"] / why["excess"])
            assert f"{top}%" in texts, (top, texts)
            bars_seen += 1
        assert not parts, "a bar part with no attribution to show"
    assert bars_seen >= 2, bars_seen
    return f"svg: {bars_seen} cause bars, parts in order and in proportion"


def names_from(fmt, text):
    if fmt == "json":
        return [s["name"] for s in json.loads(text)["sites"]]
    if fmt == "trace":
        events = json.loads(text)["traceEvents"]
        return [e["name"] for e in events if e.get("ph") == "X"]
    if fmt == "csv":
        csv.field_size_limit(sys.maxsize)  # a 1 MiB name is one field
        rows = list(csv.reader(io.StringIO(text, newline="")))
        assert rows[0][:3] == ["name", "op", "calls"], rows[0][:3]
        assert all(len(r) == len(rows[0]) for r in rows), "ragged rows"
        return [r[0] for r in rows[1:]]
    if fmt == "svg":
        root = ET.fromstring(text.encode("utf-8"))
        assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
        assert "<script" not in text and "href" not in text, "the picture must be self-contained"
        return ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]
    raise SystemExit(f"unknown format {fmt}")


NAME_BYTES, SLICE_BYTES = 4096, 256  # a site's name kept; the part of it on each trace slice


def cut(name, limit):
    """`name`'s first `limit` bytes of UTF-8, never half a character."""
    return name.encode("utf-8", "surrogatepass")[:limit].decode("utf-8", "ignore")


def check_hostile(fmt, program):
    text = run([program, fmt])
    names = names_from(fmt, text)
    for label, name in HOSTILE:
        name = cut(name, SLICE_BYTES if fmt == "trace" else NAME_BYTES)
        if fmt == "svg":
            # Panels show names cut to fit and control characters replaced: the start must be there.
            start = name.replace("\x00", "\ufffd")[:10]
            start = "".join(c if c >= " " and c != "\x7f" else "\ufffd" for c in start)
            assert any(n.startswith(start) for n in names), (label, start)
        elif fmt == "csv":
            # CSV carries line breaks, not other control characters or NUL: those become U+FFFD.
            want = "".join(c if c >= " " or c in "\n\r\t" else "\ufffd" for c in name).replace("\x7f", "\ufffd")
            assert names.count(want) == 2, (label, names[:4])
        else:
            assert names.count(name) >= 2, (label, [n[:30] for n in names][:20])
    return f"{fmt}: {len(names)} names read back, all {len(HOSTILE)} hostile ones intact"


if __name__ == "__main__":
    if sys.argv[1] == "steps":
        print(check_steps(sys.argv[2]))
    elif sys.argv[1] == "trace_times":
        print(check_trace_times(sys.argv[2]))
    elif sys.argv[1] == "trace_causes":
        print(check_trace_causes(sys.argv[2]))
    elif sys.argv[1] == "svg_bars":
        print(check_svg_bars(sys.argv[2]))
    else:
        print(check_hostile(sys.argv[2], sys.argv[3]))
