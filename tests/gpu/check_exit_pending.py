#!/usr/bin/env python3
"""Runs exit_pending with WARMUP_REPORT set and checks that the report written at exit holds the
device time of the kernel still running when main returned; then again with attribution on:
CUPTI's records of the first launch, never read by a snapshot before exit, are in its causes. Exits 77 on a host without a GPU;
where the host has one, a program that cannot use it has failed.

usage: check_exit_pending.py PROGRAM
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "exit.json")
    run = warmup_check.run([sys.argv[1]], env={"WARMUP_REPORT": path})
    warmup_check.skip_without_gpu(run)
    warmup_check.expect_exit(run)
    assert "warmup:" not in run.stderr or "device timing" not in run.stderr, run.stderr
    doc = warmup_check.load_report(path)
(site,) = [s for s in doc["sites"] if s["name"] == "exit.pending_200ms"]
# The device is described at exit too (it was null in 0.1: its description was destroyed before
# the exit handler read it), with the event-pair floor measured on it.
assert doc["device_status"] == "ok", doc["device_status"]
assert doc["device"] is not None and doc["device"]["name"], doc["device"]
floor = doc["device"]["event_pair_floor"]
assert floor is not None and 0 <= floor < 100_000, floor
assert doc["device_pending"] == 0, doc["device_pending"]
assert site["device"] is not None and site["device"]["calls"] == 1, site
assert site["device"]["first"] >= 200_000_000, site["device"]
assert site["host"]["first"] < 50_000_000, site["host"]  # the launch itself did not wait
print(f"report at exit: {doc['device']['name']}, event-pair floor {floor} ns; host {site['host']['first'] / 1e6:.3f} ms, device {site['device']['first'] / 1e6:.1f} ms")

# With attribution on and no snapshot before exit: what CUPTI recorded of the first launch is
# read back before the runtime's teardown, and splits that call in the report at exit; the
# process's first CUDA call, made in a scope of its own, has the driver's initialisation.
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "exit.json")
    run = warmup_check.run([sys.argv[1], "init"], env={"WARMUP_REPORT": path, "WARMUP_ATTRIBUTION": "1"})
    warmup_check.expect_exit(run)
    doc = warmup_check.load_report(path)
assert doc["attribution_source"] == "cupti", doc["attribution_source"]
(site,) = [s for s in doc["sites"] if s["name"] == "exit.pending_200ms"]
why = site["host"]["first_call_causes"]
assert why is not None and why["causes"], (site["host"], run.stderr)
warmup_check.check_causes(why, site["host"], doc["host_clock"])
(first,) = [s for s in doc["sites"] if s["name"] == "exit.first_cuda_call"]
init = first["host"]["first_call_causes"]
assert init is not None, first["host"]
warmup_check.check_causes(init, first["host"], doc["host_clock"])
context = sum(c["time"] for c in init["causes"] if c["what"] == "context_init")
# The driver's initialisation (cuInit, before CUPTI could record it: its attach point, kept at
# exit) and the context's creation: nearly all of that call, as on the demo's --lazy-context.
assert context >= 0.9 * init["call"], init
print("with attribution, the first launch at exit: " +
      ", ".join(f"{c['what']} {c['time'] / 1e3:.1f} us" for c in why["causes"]) +
      f"; the first CUDA call {init['call'] / 1e6:.1f} ms, context_init {context / 1e6:.1f} ms of it")
