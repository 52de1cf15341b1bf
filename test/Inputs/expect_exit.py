"""Runs a command and fails unless it exits with the expected code; passes its output through.

usage: expect_exit.py CODE [--timeout SECONDS] -- COMMAND...
A crash (signal) or a time-out always fails, so a test also proves the tool neither crashes nor hangs.
"""
import subprocess
import sys

args = sys.argv[1:]
want = int(args.pop(0))
timeout = 120
if args and args[0] == "--timeout":
    timeout = float(args[1])
    args = args[2:]
if args and args[0] == "--":
    args = args[1:]
try:
    proc = subprocess.run(args, capture_output=True, timeout=timeout)
except subprocess.TimeoutExpired:
    sys.stderr.write("expect_exit: command timed out after %ss\n" % timeout)
    sys.exit(1)
sys.stdout.buffer.write(proc.stdout)
sys.stdout.buffer.write(proc.stderr)
if proc.returncode < 0:
    sys.stderr.write("expect_exit: killed by signal %d\n" % -proc.returncode)
    sys.exit(1)
if proc.returncode != want:
    sys.stderr.write("expect_exit: exit code %d, expected %d\n" % (proc.returncode, want))
    sys.exit(1)
if b"Stack dump" in proc.stderr or b"PLEASE submit a bug report" in proc.stderr:
    sys.stderr.write("expect_exit: the tool printed a stack trace\n")
    sys.exit(1)
