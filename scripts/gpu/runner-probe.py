#!/usr/bin/env python3
"""Starts cudaperf-eval-worker --runner by hand on the GPU host and prints its first message (the
sandbox it applied and whether the CUDA context came up): the quickest way to see what a sandbox
rule costs the driver. Usage: runner-probe.py WORKER [extra runner args...]"""
import json, os, socket, subprocess, sys, tempfile
worker = os.path.abspath(sys.argv[1])
scratch = tempfile.mkdtemp(prefix="runner-probe-")
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
os.set_inheritable(b.fileno(), True)
cmd = [worker, "--runner", "--channel", str(b.fileno()), "--scratch", scratch] + sys.argv[2:]
wrap = os.environ.get("PROBE_WRAP", "").split()
p = subprocess.Popen(wrap + cmd, pass_fds=(b.fileno(),), cwd=scratch)
b.close()
a.settimeout(60)
try:
    msg = a.recv(1 << 20)
    print(json.dumps(json.loads(msg), indent=1))
except Exception as e:
    print("no message:", e)
try:
    a.send(b'{"op":"quit"}')
except Exception:
    pass
print("runner exit:", p.wait(timeout=30))
