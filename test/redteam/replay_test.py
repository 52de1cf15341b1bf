#!/usr/bin/env python3
"""Replays stored GPU runs of the red-team suite (data/eval-runs/*redteam*/): every results file there
(batch.jsonl, serve.jsonl, or the same .xz-compressed) must pass scripts/redteam-check.py with the skips the run recorded
(skipped.txt). Skips (77) while no run is stored."""
import glob
import lzma
import os
import subprocess
import sys
import tempfile

check, suite, runs = sys.argv[1], sys.argv[2], sys.argv[3]
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
        args = [sys.executable, check, suite, target]
        for s in skips:
            args += ["--skip", s]
        p = subprocess.run(args, capture_output=True, text=True)
        if target != path:
            os.unlink(target)
        print(f"== {path}: exit {p.returncode}")
        print(p.stdout[-3000:], p.stderr)
        failed += p.returncode != 0
sys.exit(1 if failed else 0)
