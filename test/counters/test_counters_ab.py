#!/usr/bin/env python3
"""Replays the stored H200 counters-mode A/B (data/eval-runs/2026-12-02-h200-counters-ab, docs/counters.md,
"Counters mode"): scripts/gpu/counters-ab-compare.py run again on the three stored result files gives the stored
compare.txt; the mode is recorded as it should be in every document; the counters that are deterministic (equal
in every pair of the per-config run and its repeat) are equal in every pair of the shared run too; and the
candidates per minute docs/counters.md quotes are those of the stored runs."""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RUN = os.path.join(ROOT, "data", "eval-runs", "2026-12-02-h200-counters-ab")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def main():
    with tempfile.TemporaryDirectory(prefix="counters-ab-test-") as tmp:
        args = []
        for label in ("default", "shared", "repeat"):
            path = os.path.join(tmp, f"results-{label}.jsonl")
            with open(path, "wb") as f:
                subprocess.run(["zstd", "-qdc", os.path.join(RUN, f"results-{label}.jsonl.zst")], stdout=f, check=True)
            args += [f"--{label}", path]
        js = os.path.join(tmp, "compare.json")
        p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gpu", "counters-ab-compare.py"), *args,
                            "--runs", os.path.join(RUN, "runs.tsv"), "--json", js],
                           capture_output=True, text=True, timeout=120)
        check(p.returncode == 0, f"counters-ab-compare.py exit {p.returncode}: {p.stderr}")
        check(p.stdout == open(os.path.join(RUN, "compare.txt")).read(), "compare.txt replays byte for byte")
        d = json.load(open(js))
    check(not d["mode_problems"], f"modes recorded as expected: {d['mode_problems']}")
    deterministic = [m for m, s in d["metrics"].items() if s["equal_repeat"] == s["pairs"] > 0]
    check(len(deterministic) >= 10, f"deterministic metrics found: {deterministic}")
    for m in deterministic:
        s = d["metrics"][m]
        check(s["equal_shared"] == s["pairs"], f"{m}: shared equal in {s['equal_shared']} of {s['pairs']} pairs")
    runs = d["runs"]
    check(all(r["ok"] == r["results"] == 20 for r in runs.values()), "20 ok results in each run")
    doc = open(os.path.join(ROOT, "docs", "counters.md")).read()
    for label in ("default", "shared", "repeat"):
        quoted = f"{runs[label]['candidates_per_minute']:.1f} candidates per minute"
        check(quoted in doc, f"docs/counters.md quotes the {label} run's '{quoted}'")
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
