#!/usr/bin/env python3
"""Two cudaperf-analyze binaries timed back to back on the same real-code files, so both see the same
machine load (docs/benchmarks.md, "Real code": LLVM 19 against LLVM 22).

usage: ab-time.py --sources DIR --a OLD_BINARY --b NEW_BINARY [--results data/realcode/results-llvm22.jsonl]
                  [--files 40] [--repeat 1] [--out FILE.jsonl]

The files are the first N (evenly spaced) that the analyzer analysed in --results, with the flags recorded
there. For each file and repeat, A then B then B then A (ABBA, so a load that drifts during one pair is
paid by both), each with an empty resource cache (a cold run, as bench-realcode.py measures). Prints, per
binary, the median seconds and the median of the per-file ratio B/A; with --out, one JSON row per file.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def timed(binary, path, flags, timeout):
    with tempfile.TemporaryDirectory(prefix="ab-time-") as tmp:
        env = dict(os.environ, CUDAPERF_CACHE_DIR=os.path.join(tmp, "cache"))
        start = time.monotonic()
        try:
            p = subprocess.run([binary, "--format=json", path, "--"] + flags, cwd=os.path.dirname(path),
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            rc = None
        return rc, time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--sources", required=True)
    ap.add_argument("--a", required=True, help="the old binary")
    ap.add_argument("--b", required=True, help="the new binary")
    ap.add_argument("--results", default=os.path.join(os.path.dirname(__file__), "../../data/realcode/results-llvm22.jsonl"))
    ap.add_argument("--files", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--out")
    args = ap.parse_args()
    if args.files < 1 or args.repeat < 1:
        ap.error("--files and --repeat must be at least 1")
    for b in (args.a, args.b):
        if not os.access(b, os.X_OK):
            ap.error("not executable: %s" % b)
    if not os.path.isfile(args.results):
        ap.error("no results file %s" % args.results)
    a_bin, b_bin, sources = os.path.abspath(args.a), os.path.abspath(args.b), os.path.abspath(args.sources)
    try:
        rows = [json.loads(l) for l in open(args.results) if l.strip()]
    except ValueError as e:
        sys.exit("ab-time: %s is not JSON lines: %s" % (args.results, e))
    ok = sorted((r for r in rows if r.get("analyzer", {}).get("ok")), key=lambda r: (r["repository"], r["path"]))
    step = max(1.0, len(ok) / args.files)
    picked = [ok[int(i * step)] for i in range(min(args.files, len(ok)))]
    out = open(args.out, "a") if args.out else None
    ratios, secs_a, secs_b = [], [], []
    for n, r in enumerate(picked, 1):
        root = os.path.join(sources, r["repository"].replace("/", "+"))
        path = os.path.join(root, r["path"])
        flags = [f.replace("{root}", root) for f in r["flags"]]
        ta, tb, bad = [], [], False
        for _ in range(args.repeat):
            for which in "abba":
                rc, s = timed(a_bin if which == "a" else b_bin, path, flags, args.timeout)
                bad |= rc not in (0, 1)
                (ta if which == "a" else tb).append(s)
        if bad:
            print("[%d/%d] skipped (a run failed) %s" % (n, len(picked), r["path"]), file=sys.stderr)
            continue
        a, b = statistics.median(ta), statistics.median(tb)
        ratios.append(b / a)
        secs_a.append(a)
        secs_b.append(b)
        print("[%d/%d] %s a %.2fs b %.2fs b/a %.2f" % (n, len(picked), r["path"], a, b, b / a), file=sys.stderr, flush=True)
        if out:
            out.write(json.dumps({"repository": r["repository"], "path": r["path"], "a_seconds": [round(x, 3) for x in ta],
                                  "b_seconds": [round(x, 3) for x in tb]}) + "\n")
            out.flush()
    if not ratios:
        sys.exit("ab-time: no file timed")
    q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
    print(json.dumps({"files": len(ratios), "median_seconds_a": round(statistics.median(secs_a), 3),
                      "median_seconds_b": round(statistics.median(secs_b), 3),
                      "sum_seconds_a": round(sum(secs_a), 1), "sum_seconds_b": round(sum(secs_b), 1),
                      "median_ratio_b_over_a": round(statistics.median(ratios), 3),
                      "quartiles_ratio": [round(q[0], 3), round(q[2], 3)],
                      "max_ratio": round(max(ratios), 3), "min_ratio": round(min(ratios), 3)}, indent=1))


if __name__ == "__main__":
    main()
