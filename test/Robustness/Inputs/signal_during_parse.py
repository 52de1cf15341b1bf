"""SIGTERM while the analyzer parses (issue 35): it stops within seconds with exit code 1 and
"stopped by SIGTERM", without "terminate called" or a report of a cudaperf defect.
Usage: signal_during_parse.py WORKDIR ANALYZER [ARGS...]"""
import os
import signal
import subprocess
import sys
import time

work, command = sys.argv[1], sys.argv[2:]
# A brace-less loop nest deep enough that parsing and optimising it takes well over a second.
depth = 300
body = "".join(f"for (int i{d} = 0; i{d} < n; ++i{d})\n" for d in range(depth))
source = os.path.join(work, "deep.cu")
with open(source, "w") as f:
    f.write("__global__ void deep(float *x, int n) {\n" + body + "x[0] += 1.0f;\n}\n")
p = subprocess.Popen(command + [source], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
time.sleep(2.0)
if p.poll() is not None:
    sys.exit(f"the analyzer ended before the signal (exit {p.returncode}); the test needs a slower input")
p.send_signal(signal.SIGTERM)
try:
    out, err = p.communicate(timeout=10)
except subprocess.TimeoutExpired:
    p.kill()
    p.communicate()
    sys.exit("the analyzer was still running 10 s after SIGTERM")
print(err, file=sys.stderr)
if p.returncode != 1:
    sys.exit(f"exit code {p.returncode}, expected 1")
for bad in ("terminate called", "defect"):
    if bad in err:
        sys.exit(f"stderr says {bad!r}")
if "stopped by SIGTERM" not in err:
    sys.exit("no 'stopped by SIGTERM' message")
print("stopped cleanly")
