#!/usr/bin/env python3
"""The red-team suite's headers are well formed, it has >= 40 hostile and >= 40 honest candidates, at
least 4 honest ones per shipped task, and data/redteam/suite.json is what the headers generate."""
import json
import os
import subprocess
import sys
import tempfile

check, suite = sys.argv[1], sys.argv[2]
with tempfile.TemporaryDirectory() as tmp:
    listing = os.path.join(tmp, "suite.json")
    run = subprocess.run([sys.executable, check, "--headers", suite, "--write-suite", listing],
                         capture_output=True, text=True)
    print(run.stdout, run.stderr)
    if run.returncode != 0:
        sys.exit("FAIL: headers not well formed")
    generated = json.load(open(listing))
stored = json.load(open(os.path.join(suite, "suite.json")))
if stored != generated:
    sys.exit("FAIL: data/redteam/suite.json is stale: regenerate it with "
             "scripts/redteam-check.py --headers data/redteam --write-suite data/redteam/suite.json")
honest = {}
for c in generated["candidates"]:
    if c["kind"] == "honest":
        honest[c["task"]] = honest.get(c["task"], 0) + 1
shipped = ["histogram", "matmul", "reduce_sum", "saxpy", "softmax", "stencil2d", "transpose", "vector_add"]
short = [t for t in shipped if honest.get(t, 0) < 4]
if short:
    sys.exit(f"FAIL: fewer than 4 honest candidates for {', '.join(short)}")

# The header reader refuses what it should: a broken header is an error, not a silently dropped file.
sys.path.insert(0, os.path.dirname(check))
import importlib.util
spec = importlib.util.spec_from_file_location("redteam_check", check)
rc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rc)
cases = {
    "no expect": "// cudaperf-task: saxpy\n// cudaperf-class: x\n// cudaperf-source: y\n",
    "bad outcome": "// cudaperf-task: saxpy\n// cudaperf-class: x\n// cudaperf-source: y\n// cudaperf-expect: okay\n",
    "unknown key": "// cudaperf-task: saxpy\n// cudaperf-class: x\n// cudaperf-source: y\n// cudaperf-expect: ok\n"
                   "// cudaperf-expect-speedup: 2\n",
    "max without ok": "// cudaperf-task: saxpy\n// cudaperf-class: x\n// cudaperf-source: y\n"
                      "// cudaperf-expect: wrong_answer\n// cudaperf-expect-max-speedup: 1.5\n",
}
with tempfile.TemporaryDirectory() as tmp:
    for what, text in cases.items():
        path = os.path.join(tmp, "c.cu")
        open(path, "w").write(text + "#include <cuda_runtime.h>\n")
        try:
            rc.read_header(path)
        except rc.HeaderError:
            continue
        sys.exit(f"FAIL: a header with {what} was accepted")
print("headers ok")
