#!/usr/bin/env python3
"""Replays the stored H200 runs of scripts/gpu/bench.sh (data/eval-runs/*-h200-bench/): the shipped
implementations' results scored again with cudaperf-bench --results must give the figures the GPU
host wrote (bench.json), and every KernelBench problem must be imported or refused with a reason.
Exits 77 (skipped) while no run is stored.

    replay_stored_runs.py --bench build/bin/cudaperf-bench --root REPO
"""
import argparse
import glob
import json
import math
import os
import subprocess
import sys
import tempfile


def same(a, b):
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--root", required=True)
    args = ap.parse_args()
    runs = sorted(glob.glob(os.path.join(args.root, "data", "eval-runs", "*-h200-bench")))
    if not runs:
        print("no stored cudaperf-bench run (data/eval-runs/*-h200-bench): skipped")
        return 77
    failures = []
    for run in runs:
        results = os.path.join(run, "shipped-results.jsonl")
        stored = os.path.join(run, "bench.json")
        if os.path.exists(results) and os.path.exists(stored):
            cmd = [args.bench, "--results", results, "--suite", os.path.join(args.root, "data/suites/shipped.json")]
            timings = os.path.join(run, "torch-timings.jsonl")
            if os.path.exists(timings) and os.path.getsize(timings):
                cmd += ["--torch-timings", timings]
            with tempfile.TemporaryDirectory() as out:
                p = subprocess.run(cmd + ["--out", out], capture_output=True, text=True, timeout=300)
                if p.returncode != 0:
                    failures.append(f"{run}: cudaperf-bench exited {p.returncode}: {p.stderr[-500:]}")
                    continue
                now = json.load(open(os.path.join(out, "bench.json")))["summary"]["figures"]
            then = json.load(open(stored))["summary"]["figures"]
            for key, fig in then.items():
                if key not in now:
                    failures.append(f"{run}: figure {key} is no longer computed")
                elif not same(now[key]["value"], fig["value"]) or not all(map(same, now[key]["ci"], fig["ci"])):
                    failures.append(f"{run}: {key} = {now[key]} now, {fig} on the GPU host")
            print(f"{run}: {len(then)} figures replayed")
        report = os.path.join(run, "kernelbench-import.json")
        if os.path.exists(report):
            kb = json.load(open(report))
            for p in kb["problems"]:
                if p["outcome"] != "imported" and not p["reason"].strip():
                    failures.append(f"{run}: {p['task']} refused without a reason")
            print(f"{run}: {sum(p['outcome'] == 'imported' for p in kb['problems'])} of {len(kb['problems'])} "
                  "KernelBench problems imported, every refusal with its reason")
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
