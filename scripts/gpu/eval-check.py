#!/usr/bin/env python3
"""Compares cudaperf-eval results (JSON Lines) with expected outcomes.

usage: eval-check.py EXPECTED RESULTS.jsonl [--summary FILE]
EXPECTED has one line per evaluated candidate, in order: "TASK_DIR CANDIDATE OUTCOME".
Exit status 0 when every result is present and has the expected outcome.
"""
import collections
import json
import sys


def main():
    expected = [l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
    results = []
    for line in open(sys.argv[2]):
        line = line.strip()
        if line:
            results.append(json.loads(line))
    out = []
    wrong = 0
    by_outcome = collections.Counter()
    for i, (task, cand, want) in enumerate(expected):
        if i >= len(results):
            out.append(f"MISSING {cand}")
            wrong += 1
            continue
        r = results[i]
        got = r.get("outcome")
        by_outcome[got] += 1
        ok = got == want and r.get("candidate") == cand
        if not ok:
            wrong += 1
        detail = (r.get("detail") or "").split("\n")[0][:140]
        speed = r.get("speedup")
        speed = f"{speed:.2f}x" if isinstance(speed, (int, float)) else "-"
        out.append(f"{'ok  ' if ok else 'FAIL'} {task.split('/')[-1]:11s} {cand.split('/')[-1]:28s} "
                   f"expected {want:16s} got {got:16s} {speed:>7s} {r.get('evaluation_seconds', 0):6.2f}s  {detail}")
    internal = by_outcome.get("internal_error", 0)
    out.append(f"{len(expected) - wrong}/{len(expected)} outcomes as expected; outcomes: {dict(by_outcome)}; "
               f"internal errors: {internal}; results: {len(results)}")
    text = "\n".join(out)
    print(text)
    if len(sys.argv) > 4 and sys.argv[3] == "--summary":
        with open(sys.argv[4], "w") as f:
            f.write(text + "\n")
    return 1 if wrong or len(results) != len(expected) else 0


if __name__ == "__main__":
    sys.exit(main())
