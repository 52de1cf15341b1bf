#!/usr/bin/env python3
"""The wall-clock check's figures of a stored cudaperf-eval run, one row per candidate and
configuration (for test/runtime/WallClockTest.cpp, which replays the shipped rule on them).
Usage: wall-clock-figures.py RESULTS.jsonl[.xz] SUITE_DIR > figures.tsv
Columns: candidate, role (honest/hostile, from SUITE_DIR's folders), config, event_median_ms,
wall_ms_per_call, launches, calls, outcome of the run."""
import json, lzma, os, sys

path, suite = sys.argv[1], sys.argv[2]
honest = set(os.listdir(os.path.join(suite, "honest")))
opener = lzma.open if path.endswith(".xz") else open
print("candidate\trole\tconfig\tevent_median_ms\twall_ms_per_call\tlaunches\tcalls\toutcome")
with opener(path, "rt") as f:
    for line in f:
        try:
            r = json.loads(line)
        except ValueError:
            continue
        name = os.path.basename(r.get("candidate", ""))
        for cfg in r.get("configs", []):
            w = ((cfg.get("candidate") or {}).get("integrity") or {}).get("wall_clock")
            if not isinstance(w, dict):
                continue
            launches = len(cfg.get("launches", []))
            print(f"{name}\t{'honest' if name in honest else 'hostile'}\t{cfg['name']}\t{w['event_median_ms']}\t"
                  f"{w['wall_ms_per_call']}\t{launches}\t{w['calls']}\t{r.get('outcome')}")
