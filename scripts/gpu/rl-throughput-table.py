#!/usr/bin/env python3
"""The RL step throughput of a `cudaperf-train rl` run folder (docs/training.md, "RL step throughput"):
every step's seconds per phase and counts from RUN/rl-log.jsonl, the means from RUN/rl-report.json
(step_means) when the run finished, and the generation tokens/s. Writes them to OUT.json and prints a table.
Usage: rl-throughput-table.py RUN_DIR OUT.json
Exit status: 0, 1 when the run has no step line, 2 on bad usage."""
import json
import os
import sys

PHASES = ["prompt", "generate", "extract", "reward_wait", "overlapped", "evaluate", "rank", "score", "update", "step"]
COUNTS = ["candidates", "unique_candidates", "duplicates", "reused", "evaluated", "ranked", "ranking_calls",
          "generated_tokens"]


def number(v, digits=2):
    return "-" if not isinstance(v, (int, float)) or isinstance(v, bool) else ("%.*f" % (digits, v))


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    run, path = sys.argv[1], sys.argv[2]
    steps = []
    try:
        with open(os.path.join(run, "rl-log.jsonl")) as f:
            for line in f:
                try:
                    j = json.loads(line)
                except ValueError:
                    continue  # a line cut by a killed run
                if isinstance(j, dict) and isinstance(j.get("seconds"), dict):
                    steps.append(j)
    except OSError as e:
        print("rl-throughput-table: %s" % e, file=sys.stderr)
    if not steps:
        print("rl-throughput-table: %s: no step line" % run, file=sys.stderr)
        json.dump({"steps": []}, open(path, "w"), indent=1)
        return 1
    print("step " + " ".join("%8s" % p[:8] for p in PHASES) + " | " + " ".join("%6s" % c[:6] for c in COUNTS) + " | tok/s")
    rows = []
    for j in steps:
        s, c = j["seconds"], j.get("counts") if isinstance(j.get("counts"), dict) else {}
        gen, tokens = s.get("generate"), c.get("generated_tokens", j.get("generated_tokens"))
        rate = tokens / gen if isinstance(gen, (int, float)) and gen > 0 and isinstance(tokens, (int, float)) else None
        rows.append({"step": j.get("step"), "seconds": s, "counts": c, "tokens_per_second": rate})
        print("%4s " % j.get("step") + " ".join("%8s" % number(s.get(p)) for p in PHASES) + " | " +
              " ".join("%6s" % number(c.get(k), 0) for k in COUNTS) + " | " + number(rate, 0))
    means = None
    try:
        means = json.load(open(os.path.join(run, "rl-report.json"))).get("step_means")
    except (OSError, ValueError, AttributeError):
        pass
    if isinstance(means, dict):
        ms, mc = means.get("seconds", {}), means.get("counts", {})
        print("mean " + " ".join("%8s" % number(ms.get(p)) for p in PHASES) + " | " +
              " ".join("%6s" % number(mc.get(k), 0) for k in COUNTS) + " | " +
              number(means.get("generated_tokens_per_second"), 0))
    doc = {"schema": "cudaperf-rl-throughput/1", "run": run, "steps": rows, "step_means": means}
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
