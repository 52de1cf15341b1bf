#!/usr/bin/env python3
"""The held-out SFT evaluation from scripts/gpu/sft.sh's samples.jsonl and eval.jsonl.

Usage: scripts/sft-eval-tables.py SAMPLES.jsonl EVAL.jsonl OUTDIR
Writes OUTDIR/sft-eval.json (schema cudaperf-sft-eval/1: outcome counts, compile and correct rates),
OUTDIR/outcomes.jsonl (task, candidate relative to the samples folder, outcome, detail) and
OUTDIR/per-family.txt (samples, compile and correct rates per family; the family is the task folder's
parent), and prints the summary line. A sample without a code block is `no_code_block`, one the
evaluator did not reach (a deadline) `not_evaluated` and left out of the rates. Missing inputs count
as empty (sft.sh calls this after a failed step too).
"""
import collections
import json
import os
import sys

FAILED_TO_COMPILE = ("no_code_block", "compile_error", "not_evaluated")


def rel(path):
    return path.split("/samples/", 1)[-1]


def lines(path):
    if not os.path.exists(path):
        return []
    return [json.loads(l) for l in open(path) if l.strip()]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[2])
    samples_path, eval_path, out = sys.argv[1:]
    results = {rel(r.get("candidate", "")): r for r in lines(eval_path)}
    rows, fam, outcomes = [], collections.defaultdict(collections.Counter), collections.Counter()
    for s in lines(samples_path):
        r = results.get(rel(s.get("candidate", ""))) if s.get("extracted") else None
        outcome = "no_code_block" if not s.get("extracted") else (r.get("outcome", "unknown") if r else "not_evaluated")
        outcomes[outcome] += 1
        rows.append({"task": s["task"], "candidate": rel(s.get("candidate", "")), "outcome": outcome,
                     "detail": (r or {}).get("detail", "")[:300]})
        family = os.path.basename(os.path.dirname(s.get("task_dir", ""))) or s["task"].rsplit("_", 1)[0]
        c = fam[family]
        c["n"] += 1
        c["compiled"] += outcome not in FAILED_TO_COMPILE
        c["correct"] += outcome == "ok"
    n = len(rows)
    counted = n - outcomes["not_evaluated"]
    compiled = sum(v for k, v in outcomes.items() if k not in FAILED_TO_COMPILE)
    doc = {"schema": "cudaperf-sft-eval/1", "samples": n, "tasks": len({r["task"] for r in rows}),
           "evaluated": sum(v for k, v in outcomes.items() if k not in ("no_code_block", "not_evaluated")),
           "outcomes": dict(outcomes),
           "compile_rate": compiled / counted if counted else None,
           "correct_rate": outcomes["ok"] / counted if counted else None,
           "note": "held-out (test split) C tasks of the training families, temperature 0.8; cudaperf-eval --no-timing --sets 2; "
                   "rates over the samples the evaluator reached, a sample without a code block counted as failed"}
    os.makedirs(out, exist_ok=True)
    json.dump(doc, open(os.path.join(out, "sft-eval.json"), "w"), indent=1)
    with open(os.path.join(out, "outcomes.jsonl"), "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    with open(os.path.join(out, "per-family.txt"), "w") as f:
        f.write("%-24s %3s %8s %8s\n" % ("family", "n", "compile", "correct"))
        for name in sorted(fam):
            c = fam[name]
            f.write("%-24s %3d %7.0f%% %7.0f%%\n" % (name, c["n"], 100 * c["compiled"] / c["n"], 100 * c["correct"] / c["n"]))
    rate = lambda v: "%.1f%%" % (100 * v) if v is not None else "n/a"
    print("samples %d (%d tasks), evaluated %d; compile rate %s, correct rate %s; outcomes %s" % (
        n, doc["tasks"], doc["evaluated"], rate(doc["compile_rate"]), rate(doc["correct_rate"]), dict(outcomes)))


if __name__ == "__main__":
    main()
