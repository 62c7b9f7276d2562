"""Runs a program that must fail: passes only if it exits neither 0 (passed) nor 77 (skipped).

usage: check_fails.py PROGRAM [ARG...]
"""
import subprocess
import sys

status = subprocess.run(sys.argv[1:]).returncode
print(f"{sys.argv[1]} exited {status}")
if status in (0, 77):
    sys.exit(f"FAIL: a failing run must exit neither 0 nor 77 (read as passed or skipped), it exited {status}")
