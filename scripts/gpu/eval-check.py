#!/usr/bin/env python3
"""Compares cudaperf-eval results (JSON Lines) with expected outcomes.

usage: eval-check.py EXPECTED RESULTS.jsonl [--summary FILE] [--numbers PREFIX]
EXPECTED has one line per evaluated candidate, in order: "TASK_DIR CANDIDATE OUTCOME".
Exit status 0 when every result is present and has the expected outcome. --numbers adds a last
line "NUMBERS {PREFIX_expected: N, PREFIX_as_expected: N, PREFIX_results: N, PREFIX_internal_errors: N,
PREFIX_failed_candidates: [names]}" (scripts/gpu/eval-scale.sh collects it).
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
            try:
                results.append(json.loads(line))
            except ValueError:  # the last line of a run cut by its time cap
                break
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
    failed = sorted({l.split()[2] for l in out if l.startswith("FAIL")} |
                    {l.split()[1].split("/")[-1] for l in out if l.startswith("MISSING")})
    internal = by_outcome.get("internal_error", 0)
    out.append(f"{len(expected) - wrong}/{len(expected)} outcomes as expected; outcomes: {dict(by_outcome)}; "
               f"internal errors: {internal}; results: {len(results)}")
    text = "\n".join(out)
    print(text)
    options = dict(zip(sys.argv[3::2], sys.argv[4::2]))
    if "--summary" in options:
        with open(options["--summary"], "w") as f:
            f.write(text + "\n")
    if "--numbers" in options:
        k = options["--numbers"]
        print("NUMBERS " + json.dumps({f"{k}_expected": len(expected), f"{k}_as_expected": len(expected) - wrong,
                                       f"{k}_results": len(results), f"{k}_internal_errors": internal,
                                       f"{k}_failed_candidates": failed}))
    return 1 if wrong or len(results) != len(expected) else 0


if __name__ == "__main__":
    sys.exit(main())
