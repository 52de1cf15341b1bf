#!/usr/bin/env python3
"""Per-sample outcomes and a per-family table from scripts/gpu/sft.sh's samples.jsonl and eval.jsonl.

Usage: scripts/sft-eval-tables.py SAMPLES.jsonl EVAL.jsonl OUTDIR
Writes OUTDIR/outcomes.jsonl (task, candidate relative to the samples folder, outcome, detail; a sample
without a code block is `no_code_block`, one the evaluator did not reach `not_evaluated`) and
OUTDIR/per-family.txt (samples, compile and correct rates per family; the family is the task folder's parent).
"""
import collections
import json
import os
import sys


def rel(path):
    return path.split("/samples/", 1)[-1]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[2])
    samples_path, eval_path, out = sys.argv[1:]
    results = {}
    for line in open(eval_path):
        if line.strip():
            r = json.loads(line)
            results[rel(r.get("candidate", ""))] = r
    rows, fam = [], collections.defaultdict(collections.Counter)
    for line in open(samples_path):
        if not line.strip():
            continue
        s = json.loads(line)
        cand = rel(s.get("candidate", ""))
        r = results.get(cand) if s.get("extracted") else None
        outcome = "no_code_block" if not s.get("extracted") else (r.get("outcome") if r else "not_evaluated")
        rows.append({"task": s["task"], "candidate": cand, "outcome": outcome,
                     "detail": (r or {}).get("detail", "")[:300]})
        family = os.path.basename(os.path.dirname(s.get("task_dir", ""))) or s["task"].rsplit("_", 1)[0]
        c = fam[family]
        c["n"] += 1
        c["compiled"] += outcome not in ("no_code_block", "compile_error", "not_evaluated")
        c["correct"] += outcome == "ok"
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "outcomes.jsonl"), "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    with open(os.path.join(out, "per-family.txt"), "w") as f:
        f.write("%-24s %3s %8s %8s\n" % ("family", "n", "compile", "correct"))
        for name in sorted(fam):
            c = fam[name]
            f.write("%-24s %3d %7.0f%% %7.0f%%\n" % (name, c["n"], 100 * c["compiled"] / c["n"], 100 * c["correct"] / c["n"]))
    print("%d samples, %d families -> %s" % (len(rows), len(fam), out))


if __name__ == "__main__":
    main()
