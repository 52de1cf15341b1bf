#!/usr/bin/env python3
"""Replays the stored H200 counters-mode A/B (data/eval-runs/2026-12-02-h200-counters-ab, docs/counters.md,
"Counters mode"): scripts/gpu/counters-ab-compare.py run again on the three stored result files gives the stored
compare.txt; the mode is recorded as it should be in every document; the counters that are deterministic (equal
in every pair of the per-config run and its repeat) are equal in every pair of the shared run too; and the
candidates per minute docs/counters.md quotes are those of the stored runs. And counters-ab-compare.py --verdict,
which picks the mode for a dataset shard that follows an A/B in the same device call: the stored A/B's verdict is
its new mode, and each way of failing the verdict's conditions gives the base mode."""
import copy
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
        verdict = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gpu", "counters-ab-compare.py"),
                                  "--verdict", js], capture_output=True, text=True, timeout=60)
        check(verdict.returncode == 0 and verdict.stdout == "shared\n",
              f"the stored A/B's verdict is shared: {verdict.returncode} {verdict.stdout!r} {verdict.stderr}")
        bad = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gpu", "counters-ab-compare.py"),
                              "--verdict", os.path.join(tmp, "missing.json")], capture_output=True, text=True, timeout=60)
        check(bad.returncode == 2 and "missing.json" in bad.stderr, f"a missing file: exit {bad.returncode}, {bad.stderr}")
    check(d["modes"] == {"base": "per-config", "new": "shared"} and d["labels"] == ["default", "shared", "repeat"],
          f"modes and labels recorded: {d.get('modes')} {d.get('labels')}")
    sys.path.insert(0, os.path.join(ROOT, "scripts", "gpu"))
    import importlib
    compare = importlib.import_module("counters-ab-compare")
    check(compare.verdict(d)[0] == "shared", "verdict() on the stored A/B")
    slower = copy.deepcopy(d)
    slower["runs"]["shared"]["candidates_per_minute"] = slower["runs"]["repeat"]["candidates_per_minute"]
    check(compare.verdict(slower)[0] == "per-config", "not faster than both base runs: the base mode")
    unequal = copy.deepcopy(d)
    m = next(m for m, st in unequal["metrics"].items() if st["pairs"] and st["equal_repeat"] == st["pairs"])
    unequal["metrics"][m]["equal_shared"] -= 1
    mode, why = compare.verdict(unequal)
    check(mode == "per-config" and any(m in w for w in why), f"a deterministic metric unequal: {mode} {why}")
    failed = copy.deepcopy(d)
    failed["runs"]["repeat"]["ok"] -= 1
    check(compare.verdict(failed)[0] == "per-config", "a run with a result not ok: the base mode")
    recorded = copy.deepcopy(d)
    recorded["mode_problems"] = ["shared: counters_mode {'(absent)': 2}, expected only shared"]
    check(compare.verdict(recorded)[0] == "per-config", "a mode not recorded as expected: the base mode")
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
