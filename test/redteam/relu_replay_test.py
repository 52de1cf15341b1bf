#!/usr/bin/env python3
"""Replays the stored KernelBench ReLU cost runs (data/eval-runs/*relu*/): for every results file
relu-NAME.jsonl beside a summary.txt that the GPU run printed, scripts/gpu/eval-scale-report.py relu
must print the same "per additional candidate: max X s, mean Y s" line for that evaluator as the device
did (guards the report's "additional" rule: the candidate that paid the task data is left out), and
every figure must be a number the results hold (a result without a worker stage fails). Skips (77)
while no run with a summary is stored."""
import glob
import os
import re
import subprocess
import sys

report, runs = sys.argv[1], sys.argv[2]
checked = failed = 0
for summary in sorted(glob.glob(os.path.join(runs, "*relu*", "**", "summary.txt"), recursive=True)):
    d = os.path.dirname(summary)
    text = open(summary).read()
    # "relu NAME: rc=0 ..." opens each evaluator's block; its "per additional" line follows.
    for name, block in re.findall(r"^relu ([\w-]+): rc=0[^\n]*\n(.*?)(?=^relu |^== |\Z)", text, re.S | re.M):
        want = re.search(r"per additional candidate: max ([\d.]+) s, mean ([\d.]+) s", block)
        results = os.path.join(d, f"relu-{name}.jsonl")
        if not want or not os.path.exists(results):
            continue
        p = subprocess.run([sys.executable, report, "relu", results, "4300"], capture_output=True, text=True)
        got = re.search(r"per additional candidate: max ([\d.]+) s, mean ([\d.]+) s", p.stdout)
        ok = p.returncode == 0 and got is not None and got.groups() == want.groups()
        print(f"{'ok  ' if ok else 'FAIL'} {results}: device {want.groups()}, replayed {got.groups() if got else None}")
        if not ok:
            print(p.stdout[-2000:], p.stderr[-2000:])
        checked += 1
        failed += not ok
if checked == 0:
    print(f"SKIP: no stored ReLU run with a summary under {runs}")
    sys.exit(77)
print(f"{checked} evaluator(s) replayed, {failed} failed")
sys.exit(1 if failed else 0)
