#!/usr/bin/env python3
"""A stand-in for cudaperf-eval in cudaperf-bench's command-line tests (no GPU): for each batch line
"TASK_DIR CANDIDATE", the candidate's first line says what to report:
    // fake: ok MS        correct, MS milliseconds in every configuration against a 1 ms baseline
    // fake: OUTCOME      that outcome (wrong_answer, timing_violation, ...)
It writes cudaperf-eval-result/1 lines to --output and records its command line beside them."""
import argparse
import json
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--batch", required=True)
ap.add_argument("--output", required=True)
ap.add_argument("--jobs")
ap.add_argument("--jsonl", action="store_true")
ap.add_argument("--summary", action="store_true")
args, extra = ap.parse_known_args()
with open(args.output + ".argv", "w") as f:
    json.dump(sys.argv[1:], f)
with open(args.batch) as f, open(args.output, "w") as out:
    for line in f:
        if not line.strip() or line.startswith("#"):
            continue
        task_dir, cand = line.split()
        task = json.load(open(task_dir + "/task.json"))
        words = open(cand).readline().split()  # "//", "fake:", outcome, [ms]
        result = {"schema": "cudaperf-eval-result/1", "task": task["name"], "task_dir": task_dir,
                  "candidate": cand, "outcome": words[2], "detail": "", "gpu": {"name": "fake GPU"},
                  "tools": {"cudaperf_eval": "fake"}}
        if words[2] == "ok":
            ms = float(words[3])
            timing = lambda m: {"median_ms": m, "p10_ms": m, "p90_ms": m, "spread": 0, "runs": 20}
            result["configs"] = [{"name": c["name"], "baseline": timing(1.0), "candidate": timing(ms), "audit": {}}
                                 for c in task["configs"]]
        out.write(json.dumps(result) + "\n")
        if args.summary:
            print(f"{cand}: {words[2]}", file=sys.stderr)
