#!/usr/bin/env python3
"""scripts/rl-compare.py: the overlay of several RL runs' per-step curves (docs/training.md, session 8's
experiment). Checks the SVG it writes against the logs it read (one legend entry per run with its step
count, one marker per step and metric that has a value, markers inside their panel and in time order),
the stored H200 run of data/eval-runs/2026-12-02-h200-rl-4 (its three runs' step counts read from their
logs, not written here), and the exit code 2 with a message on bad input."""
import json
import os
import re
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from script_checks import ROOT, check, finish, run_python  # noqa: E402
SCRIPT = os.path.join(ROOT, "scripts", "rl-compare.py")
NS = "{http://www.w3.org/2000/svg}"


def run(*args):
    return run_python(SCRIPT, args, timeout=60)


def write_log(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def step(n, elapsed, reward, t1, speedup):
    return {"step": n, "elapsed": elapsed, "reward_mean": reward, "correct_by_turn": [t1, 0.5], "speedup_mean": speedup}


def circles_by_color(svg_path):
    tree = ET.parse(svg_path)
    out = {}
    for c in tree.iter(NS + "circle"):
        out.setdefault(c.get("fill"), []).append((float(c.get("cx")), float(c.get("cy"))))
    legends = sorted(set(t.text for t in tree.iter(NS + "text") if t.text and re.search(r"\(\d+ steps\)$", t.text)))  # one per panel
    rects = [(float(r.get("y")), float(r.get("height"))) for r in tree.iter(NS + "rect") if r.get("fill") == "none"]
    return out, legends, rects


with tempfile.TemporaryDirectory() as tmp:
    a = os.path.join(tmp, "a.jsonl")
    b = os.path.join(tmp, "b")
    os.mkdir(b)
    write_log(a, [step(1, 10.0, 0.1, 0.8, 2.0), step(2, 20.0, 0.3, 0.9, None), step(3, 30.0, -0.2, 0.7, 3.0)])
    write_log(os.path.join(b, "rl-log.jsonl"), [step(1, 15.0, 0.5, 1.0, 1.5), step(2, 40.0, 0.4, 0.6, 1.2)])
    out = os.path.join(tmp, "c.svg")
    r = run(out, "first=" + a, "second=" + b)
    check(r.returncode == 0, "two runs: rc %d (%s)" % (r.returncode, r.stderr.strip()))
    circles, legends, rects = circles_by_color(out)
    check(sorted(legends) == ["first (3 steps)", "second (2 steps)"], "legends %s" % legends)
    check(len(circles) == 2, "one colour per run: %s" % list(circles))
    counts = sorted(len(v) for v in circles.values())
    # first: 3 rewards + 3 turn-1 + 2 speedups (one null); second: 2 + 2 + 2
    check(counts == [6, 8], "markers per run %s (expected 6 and 8)" % counts)
    check(len(rects) == 3, "three panels: %d" % len(rects))
    for color, pts in circles.items():
        for x, y in pts:
            check(any(top - 0.01 <= y <= top + h + 0.01 for top, h in rects), "marker (%.1f, %.1f) outside every panel" % (x, y))
    # In the first panel (reward) the first run's markers are in time order and the highest reward is highest.
    top0, h0 = min(rects)
    first = [p for p in circles[sorted(circles)[0]] if top0 <= p[1] <= top0 + h0]
    check(len(first) in (2, 3), "reward markers of one run in the first panel: %d" % len(first))
    check([p[0] for p in first] == sorted(p[0] for p in first), "reward markers in time order")

    r = run(os.path.join(tmp, "m.svg"), "first=" + a, "--metrics", "reward_mean")
    check(r.returncode == 0 and len(circles_by_color(os.path.join(tmp, "m.svg"))[2]) == 1, "--metrics reward_mean: one panel")

    # Bad input: a missing log, an empty log, an argument without NAME=, no run at all.
    empty = os.path.join(tmp, "empty.jsonl")
    open(empty, "w").close()
    bad = os.path.join(tmp, "bad.jsonl")
    with open(bad, "w") as f:
        f.write("{not json\n")
    for args, what in [((out, "x=" + os.path.join(tmp, "missing.jsonl")), "missing log"),
                       ((out, "x=" + empty), "empty log"), ((out, "x=" + bad), "log that is not JSON"),
                       ((out, a), "argument without NAME="), ((out,), "no run")]:
        r = run(*args)
        check(r.returncode == 2 and r.stderr.strip() != "", "%s: rc %d, stderr %r" % (what, r.returncode, r.stderr[:80]))

    # The stored H200 experiment: each run's legend says the step count of its own log.
    stored = os.path.join(ROOT, "data", "eval-runs", "2026-12-02-h200-rl-4")
    if os.path.isdir(stored):
        with tarfile.open(os.path.join(stored, "ablations.tar.gz")) as t:
            t.extractall(tmp)
        runs = {"unified": stored, "outcome-only": os.path.join(tmp, "ablation-outcome"),
                "single-turn": os.path.join(tmp, "ablation-single-turn")}
        expect = sorted("%s (%d steps)" % (n, sum(1 for l in open(os.path.join(d, "rl-log.jsonl")) if l.strip())) for n, d in runs.items())
        out = os.path.join(tmp, "stored.svg")
        r = run(out, *("%s=%s" % kv for kv in runs.items()))
        check(r.returncode == 0, "stored run: rc %d (%s)" % (r.returncode, r.stderr.strip()))
        check(sorted(circles_by_color(out)[1]) == expect, "stored legends %s, expected %s" % (circles_by_color(out)[1], expect))

sys.exit(finish())
