#!/usr/bin/env python3
"""scripts/redteam-check.py on synthetic results: all as expected passes; an honest candidate not ok, a
hostile one ok with a large speedup, a hostile one with an outcome it may not get, and a missing result
are each reported as failures (exit 1, named in the table); --compare computes the median ratio."""
import json
import os
import subprocess
import sys
import tempfile

check, suite = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.dirname(check))
import importlib.util
spec = importlib.util.spec_from_file_location("redteam_check", check)
rc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rc)
entries = rc.load_suite(suite)


def result(name, outcome, speedup=None, ms=1.0):
    doc = {"schema": "cudaperf-eval-result/1", "candidate": "/some/dir/" + name, "outcome": outcome, "detail": ""}
    if outcome == "ok":
        doc["speedup"] = speedup if speedup is not None else 1.0
        doc["configs"] = [{"name": "small", "speedup": doc["speedup"], "candidate": {"median_ms": ms}},
                          {"name": "large", "speedup": doc["speedup"], "candidate": {"median_ms": 10 * ms}}]
    return doc


def passing():
    return {e["name"]: result(e["name"], e["expect"][0]) for e in entries}


def run(docs, extra=()):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "results.jsonl")
        with open(path, "w") as f:
            for d in docs.values():
                f.write(json.dumps(d) + "\n")
        p = subprocess.run([sys.executable, check, suite, path, *extra], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


failures = []
code, out = run(passing())
if code != 0 or f"{len(entries)} passed, 0 failed" not in out:
    failures.append("all-expected results did not pass:\n" + out[-2000:])

honest = next(e for e in entries if e["kind"] == "honest")
hostile_fast = next(e for e in entries if e["kind"] == "hostile" and "max_speedup" in e)
hostile_strict = next(e for e in entries if e["kind"] == "hostile" and "ok" not in e["expect"])
missing = next(e for e in entries if e["kind"] == "hostile" and e is not hostile_fast and e is not hostile_strict)
serve_wrapped = next(e for e in entries if e["kind"] == "honest" and e is not honest)
docs = passing()
docs[honest["name"]] = result(honest["name"], "wrong_answer")
docs[hostile_fast["name"]] = result(hostile_fast["name"], "ok", speedup=20.0)
docs[hostile_strict["name"]] = result(hostile_strict["name"], "ok", speedup=1.0)
del docs[missing["name"]]
# A --serve message wrapping the document is read like a bare document.
docs[serve_wrapped["name"]] = {"type": "result", "id": 7, "outcome": "ok",
                               "result": result(serve_wrapped["name"], "ok")}
code, out = run(docs)
if code != 1:
    failures.append(f"exit {code} with four failures, expected 1")
if f"{len(entries) - 4} passed, 4 failed" not in out:
    failures.append("closing line does not count 4 failures:\n" + out[-600:])
for e, why in ((honest, "expected ok"), (hostile_fast, "speedup above"), (hostile_strict, "expected"),
               (missing, "no result")):
    line = next((l for l in out.splitlines() if f" {e['name']} " in l), "")
    if "FAIL" not in line or why not in line:
        failures.append(f"{e['name']}: not reported as a failure ({why}): '{line}'")
line = next((l for l in out.splitlines() if f" {serve_wrapped['name']} " in l), "")
if "pass" not in line:
    failures.append(f"a --serve result message was not read: '{line}'")

# --skip leaves a candidate out; the missing one is then not a failure.
code, out = run({k: v for k, v in passing().items() if k != missing["name"]}, ["--skip", missing["name"]])
if code != 0 or "1 skipped" not in out:
    failures.append("--skip did not leave the candidate out:\n" + out[-400:])

# A per-configuration bound catches a gain on one configuration that the geometric mean hides.
bounded = next((e for e in entries if "max_config_speedup" in e), None)
if bounded:
    docs = passing()
    d = result(bounded["name"], "ok", speedup=1.0)
    d["configs"][1]["speedup"] = bounded["max_config_speedup"] * 2
    docs[bounded["name"]] = d
    code, out = run(docs)
    if code != 1 or "config large" not in out:
        failures.append("a configuration above max-config-speedup was not reported:\n" + out[-400:])

# --compare: honest candidates 2% slower on small and 10% slower on large -> large exceeds 3%.
with tempfile.TemporaryDirectory() as tmp:
    old, new = os.path.join(tmp, "old.jsonl"), os.path.join(tmp, "new.jsonl")
    hon = [e for e in entries if e["kind"] == "honest"][:5]
    with open(old, "w") as f:
        for e in hon:
            f.write(json.dumps(result(e["name"], "ok", ms=1.0)) + "\n")
    with open(new, "w") as f:
        for e in hon:
            d = result(e["name"], "ok", ms=1.0)
            d["configs"][0]["candidate"]["median_ms"] = 1.02
            d["configs"][1]["candidate"]["median_ms"] = 11.0
            f.write(json.dumps(d) + "\n")
    p = subprocess.run([sys.executable, check, "--compare", old, new, "--suite", suite], capture_output=True, text=True)
    if p.returncode != 1 or "1.1000" not in p.stdout or "1.0200" not in p.stdout:
        failures.append("--compare did not report 1.02 and 1.10 with exit 1:\n" + p.stdout + p.stderr)
    p = subprocess.run([sys.executable, check, "--compare", old, old], capture_output=True, text=True)
    if p.returncode != 0:
        failures.append("--compare of a file with itself failed:\n" + p.stdout)

if failures:
    print("\n".join("FAIL: " + f for f in failures))
    sys.exit(1)
print("checker ok")
