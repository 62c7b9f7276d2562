#!/usr/bin/env python3
"""Runs exit_pending with WARMUP_REPORT set and checks that the report written at exit holds the
device time of the kernel still running when main returned. Exits 77 without a GPU.

usage: check_exit_pending.py PROGRAM
"""
import json
import os
import subprocess
import sys
import tempfile

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "exit.json")
    run = subprocess.run([sys.argv[1]], env=dict(os.environ, WARMUP_REPORT=path), capture_output=True, text=True)
    if run.returncode == 77:
        print(run.stdout.strip())
        sys.exit(77)
    assert run.returncode == 0, (run.returncode, run.stderr)
    assert "warmup:" not in run.stderr or "device timing" not in run.stderr, run.stderr
    doc = json.load(open(path, encoding="utf-8"))
(site,) = [s for s in doc["sites"] if s["name"] == "exit.pending_200ms"]
# The device is described at exit too (it was null in 0.1: its description was destroyed before
# the exit handler read it), with the event-pair floor measured on it.
assert doc["device_status"] == "ok", doc["device_status"]
assert doc["device"] is not None and doc["device"]["name"], doc["device"]
floor = doc["device"]["event_pair_floor_ns"]
assert floor is not None and 0 <= floor < 100_000, floor
assert doc["device_pending"] == 0, doc["device_pending"]
assert site["device_ns"] is not None and site["device_ns"]["calls"] == 1, site
assert site["device_ns"]["first"] >= 200_000_000, site["device_ns"]
assert site["host_ns"]["first"] < 50_000_000, site["host_ns"]  # the launch itself did not wait
print(f"report at exit: {doc['device']['name']}, event-pair floor {floor} ns; host {site['host_ns']['first'] / 1e6:.3f} ms, device {site['device_ns']['first'] / 1e6:.1f} ms")
