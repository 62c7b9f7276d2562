#!/usr/bin/env python3
"""Runs a program and checks its last line of output with Python's own JSON parser.

usage: check_json.py steps PROGRAM     the issue's 50-step example: schema and figures
       check_json.py hostile PROGRAM   hostile site names survive as valid JSON and UTF-8
"""
import json
import subprocess
import sys


def run(program):
    out = subprocess.run([program], check=True, capture_output=True).stdout
    line = out.rstrip(b"\n").split(b"\n")[-1]
    line.decode("utf-8")  # raises on invalid UTF-8
    return json.loads(line)


def check_steps(doc):
    assert doc["schema"] == "warmup.report/1", doc["schema"]
    assert doc["device"] is None or isinstance(doc["device"]["name"], str)
    assert isinstance(doc["device_status"], str) and doc["device_status"]
    (site,) = [s for s in doc["sites"] if s["name"] == "step"]
    assert site["op"] == "region" and site["calls"] == 50, site
    host = site["host_ns"]
    assert host["first"] >= 20_000_000, host
    steady = host["steady"]
    assert steady["calls"] == 50 - host["warmup_calls"], host
    assert steady["p50"] >= 1_000_000 and steady["p50"] <= steady["p90"] <= steady["p99"], steady
    assert host["warmup_calls"] >= 1, host
    assert host["first_call_excess"] == host["first"] - steady["p50"], host
    assert site["device_ns"] is None and site["bytes"] is None
    return f"step: first {host['first']} ns, steady p50 {steady['p50']} ns, warm-up {host['warmup_calls']}"


def check_hostile(doc):
    names = [s["name"] for s in doc["sites"]]
    expected = {
        'quote" backslash\\ slash/',
        "newline\n tab\t cr\r",
        "nul\x00inside",
        "control \x01\x02\x1f\x7f",
        "comma, <angle> & ampersand",
        "bad utf8 \ufffd\ufffd \ufffd \ufffd\ufffd",
        "good utf8 \u00e9\u20ac\U0001F600",
        "x" * (1 << 20),
    }
    for name in expected:
        assert names.count(name) == 2, (name[:40], names[:20])
    return f"{len(names)} sites with hostile names parsed"


if __name__ == "__main__":
    mode, program = sys.argv[1], sys.argv[2]
    doc = run(program)
    print({"steps": check_steps, "hostile": check_hostile}[mode](doc))
