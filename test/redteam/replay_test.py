#!/usr/bin/env python3
"""Replays stored GPU runs of the red-team suite (data/eval-runs/*redteam*/): every results file there
(batch.jsonl, serve.jsonl, or the same .xz-compressed) must pass scripts/redteam-check.py with the skips the run recorded
(skipped.txt) and the candidates its own checker listing (check-MODE.txt) does not name: those added to the suite
after the run. A run may list in known-failures.txt the candidates that failed their expected outcome there
("MODE CANDIDATE OUTCOME: why", MODE batch or serve): the checker's failures of that results file must then be
exactly those, each with that outcome (a known failure that passes, or a failure not listed, fails the replay).
Skips (77) while no run is stored."""
import glob
import json
import lzma
import os
import subprocess
import sys
import tempfile

check, suite, runs = sys.argv[1], sys.argv[2], sys.argv[3]
suite_json = os.path.join(suite, "suite.json") if os.path.isdir(suite) else suite
stored = sorted(d for d in glob.glob(os.path.join(runs, "*redteam*")) if os.path.isdir(d))
if not stored:
    print(f"SKIP: no stored red-team GPU run under {runs}/*redteam*/ yet (scripts/gpu/redteam.sh makes one)")
    sys.exit(77)
failed = 0
for d in stored:
    skips = []
    skip_file = os.path.join(d, "skipped.txt")
    if os.path.exists(skip_file):
        skips = [l.split()[0] for l in open(skip_file) if l.strip() and not l.startswith("#")]
    known = {}
    known_file = os.path.join(d, "known-failures.txt")
    if os.path.exists(known_file):
        for l in open(known_file):
            if l.strip() and not l.startswith("#"):
                mode, cand, outcome = l.split()[:3]
                known.setdefault(mode, {})[cand] = outcome.rstrip(":")
    for results in ("batch.jsonl", "serve.jsonl", "batch.jsonl.xz", "serve.jsonl.xz"):
        path = os.path.join(d, results)
        if not os.path.exists(path):
            continue
        if path.endswith(".xz"):
            plain = tempfile.NamedTemporaryFile(suffix=".jsonl", delete=False)
            with lzma.open(path) as f:
                plain.write(f.read())
            plain.close()
            target = plain.name
        else:
            target = path
        # Candidates added to the suite after the run: the run's own checker listing
        # (check-MODE.txt, every candidate of the suite then) does not name them.
        later = []
        listing = os.path.join(d, "check-" + results.split(".")[0] + ".txt")
        if os.path.exists(listing):
            named = {c for l in open(listing) for c in l.split()[1:2] if c.endswith(".cu")}
            later = [os.path.basename(c["path"]) for c in json.load(open(suite_json))["candidates"]
                     if os.path.basename(c["path"]) not in named]
            if later:
                print(f"   not in this run (added to the suite later): {' '.join(later)}")
        args = [sys.executable, check, suite, target]
        for s in skips + later:
            args += ["--skip", s]
        p = subprocess.run(args, capture_output=True, text=True)
        if target != path:
            os.unlink(target)
        expected = known.get(results.split(".")[0], {})
        # The checker's row of a failure: KIND CANDIDATE TASK EXPECTED GOT ... FAIL (...)
        got = {}
        for line in p.stdout.splitlines():
            cols = line.split()
            if len(cols) >= 5 and " FAIL" in line and cols[1].endswith(".cu"):
                got[cols[1]] = cols[4]
        if expected:
            ok = got == expected
            print(f"== {path}: exit {p.returncode}; failures {got}, known {expected}: {'as listed' if ok else 'NOT as listed'}")
        else:
            ok = p.returncode == 0
            print(f"== {path}: exit {p.returncode}")
        print(p.stdout[-3000:], p.stderr)
        failed += not ok
sys.exit(1 if failed else 0)
