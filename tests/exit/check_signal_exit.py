#!/usr/bin/env python3
"""SIGINT, whose handler calls std::exit(130), at random moments while signal_exit makes sites:
with and without WARMUP_REPORT, every run must end with status 130, no crash and no hang.
0.1 hung or crashed in 21 of 30 runs.

usage: check_signal_exit.py PROGRAM
"""
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check

program = sys.argv[1]
random.seed(12)
outcomes = {}
with tempfile.TemporaryDirectory() as tmp:
    for report in (None, "stderr", os.path.join(tmp, "r.json")):
        env = warmup_check.environment({"WARMUP_REPORT": report})
        for run in range(30):
            p = subprocess.Popen([program], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            assert p.stdout.readline().strip() == b"ready"
            time.sleep(random.uniform(0, 0.08))
            p.send_signal(signal.SIGINT)
            try:
                _, err = p.communicate(timeout=20)
                rc = p.returncode
            except subprocess.TimeoutExpired:
                p.kill()
                p.communicate()
                rc = "hang"
            outcomes.setdefault(str(report and os.path.basename(report)), []).append(rc)
            if rc != 130:
                warmup_check.fail(f"WARMUP_REPORT={report}, run {run}: {rc}\n{err.decode(errors='replace')[-2000:]}")
for report, rcs in outcomes.items():
    print(f"WARMUP_REPORT={report}: {len(rcs)} runs, all exit 130")
