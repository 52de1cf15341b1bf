#!/usr/bin/env python3
"""A stand-in for `cudaperf-eval --serve` (docs/eval-serve.md) in the RL environment's tests: the
protocol's ready line, then one result per request, computed by test/reward/fake-eval.py from the
marker in the candidate's source. A candidate marked `// fake: crash` kills the whole service, as a
crash of the real evaluator's server process would; one marked `// fake: bad-answer` is answered with
lines the client must pass over or refuse (the service goes on)."""
import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
fake = os.path.join(here, "..", "reward", "fake-eval.py")
print(json.dumps({"type": "ready", "protocol": "cudaperf-eval-serve/1", "devices": [], "queue_limit": 256}), flush=True)
compile_only = "--compile-only" in sys.argv
for line in sys.stdin:
    request = json.loads(line)
    if request.get("op") == "shutdown":
        break
    if request.get("op") == "cancel":
        continue
    # The service takes the source text, not a path (issue 35; docs/eval-serve.md).
    source = request["source"].encode() if "source" in request else open(request["candidate"], "rb").read()
    if b"// fake: crash" in source:
        os._exit(139)
    if b"// fake: bad-answer" in source:
        # A stray print, an answer to no request of the client's, then this request's result line
        # without its result document: the client ends this request and goes on reading.
        print("not a message", flush=True)
        print(json.dumps({"type": "result", "id": 999999, "outcome": "ok"}), flush=True)
        print(json.dumps({"type": "result", "id": request["id"], "outcome": "ok"}), flush=True)
        continue
    with tempfile.TemporaryDirectory() as scratch:
        candidate = os.path.join(scratch, request.get("name", "candidate.cu"))
        with open(candidate, "wb") as f:
            f.write(source)
        args = [sys.executable, fake, request["task_dir"], candidate, "--jsonl"] + (["--compile-only"] if compile_only else [])
        out = subprocess.run(args, capture_output=True, text=True).stdout.strip().splitlines()
    result = json.loads(out[-1])
    print(json.dumps({"type": "result", "id": request["id"], "outcome": result["outcome"], "result": result}), flush=True)
