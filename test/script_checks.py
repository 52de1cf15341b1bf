"""What the Python test scripts under test/ share: the repository root, a check that records a failure and goes
on (so one run lists every failed check), the closing count and exit status, and running a script of scripts/
with this interpreter. A test script adds test/ to sys.path and imports from here:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from script_checks import ROOT, check, failures, finish, run_python
"""
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def finish():
    """Prints the number of failed checks; the exit status: 1 if any failed, else 0."""
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


def run_python(script, args, timeout):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True, timeout=timeout)
