#!/usr/bin/env python3
"""Replays the H200 validation run of data/validation/2026-11-29-h200 (cudaperf's own CUPTI counters:
the corpus through the injection library, the task implementations through cudaperf-eval --counters)
with the analyzer built here, and checks the agreement the run established, less a margin where the
feature depends on more than counting. Fails if the analyzer's predictions drift from the stored
measurements.

Usage: cupti_replay_test.py --analyzer build/bin/cudaperf-analyze
"""
import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "data", "validation", "2026-11-29-h200")

# feature -> (least n, least exact rate, least within-tolerance rate), over corpus and tasks together.
EXPECT = {
    "global_ld_sectors_per_request": (150, 0.95, 0.98),
    "global_st_sectors_per_request": (150, 0.98, 0.98),
    "flops_total": (60, 0.70, 0.85),
    "registers": (150, 1.0, 1.0),
    "theoretical_occupancy": (150, 1.0, 1.0),
    "shared_ld_wavefronts_per_request": (50, 0.55, 0.80),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--analyzer", required=True)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="cupti-replay-")
    try:
        with tarfile.open(os.path.join(RUN, "corpus-counters.tar.gz")) as t:
            t.extractall(tmp)
        counters = next(os.path.join(d, n) for d, ds, _ in os.walk(tmp) for n in ds if n == "corpus-counters")
        results = os.path.join(tmp, "task-results.jsonl")
        with gzip.open(os.path.join(RUN, "task-results.jsonl.gz")) as src, open(results, "wb") as dst:
            shutil.copyfileobj(src, dst)
        out = os.path.join(tmp, "validation.json")
        p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "validate.py"), "--analyzer", a.analyzer,
                            "--corpus-counters", counters, "--task-results", results, "--json", out],
                           capture_output=True, text=True, cwd=ROOT)
        if p.returncode != 0:
            print(p.stdout[-3000:], p.stderr[-3000:])
            return 1
        summary = {s["feature"]: s for s in json.load(open(out))["summaries"]["cupti"]}
        failed = 0
        for feature, (n, exact, within) in EXPECT.items():
            s = summary.get(feature)
            ok = s is not None and s["n"] >= n and s["exact_rate"] >= exact and s["within_rate"] >= within
            print("%-4s %-34s n=%s exact=%s within=%s (need n>=%d, exact>=%.2f, within>=%.2f)" % (
                "ok" if ok else "FAIL", feature, s and s["n"], s and round(s["exact_rate"], 3),
                s and round(s["within_rate"], 3), n, exact, within))
            failed += not ok
        return 1 if failed else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
