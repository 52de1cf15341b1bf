#!/usr/bin/env python3
"""scripts/eval-report.py (issue 34's held-out numbers with bootstrap intervals over tasks) on the hand-written
fixture fixtures/eval-report/candidates.jsonl: 4 tasks of the test set (c1, c2 of kind c; p1, p2 of kind
pytorch), G = 2 samples, T = 2 turns, in phase eval:policy:test; one held-out-family task (eval:policy:
held_out_families); a train line (never read); and eval:after:test, where every task has the same per-task
figures. The point estimates are checked against numbers worked out by hand below; the intervals contain them
and collapse to a point when every task is alike; --compare of a selection with itself is 0 [0, 0] (ratio 1
[1, 1]); bad input exits 2 with one line."""
import gzip
import json
import math
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from script_checks import ROOT, check, finish, run_python  # noqa: E402
SCRIPT = os.path.join(ROOT, "scripts", "eval-report.py")
FIXTURE = os.path.join(ROOT, "test", "learn", "fixtures", "eval-report", "candidates.jsonl")
L = math.log

# Per task (turn1, turn2, best_of_turns): (correct share, fast_1 share, fast_1.5 share, mean log speedup or None)
# of its 2 samples. Samples (correct, speedup) per turn:
#   c1: (T 2.0, T 4.0), (F, T 0.5)      c2: (F, F), (F, F)
#   p1: (T 1.2, T 1.5), (T 3.0, F)      p2: (T unmeasured, T 1.6), (F, T 1.0)
# (1.0 and 1.5 are not faster than 1 and 1.5: the thresholds are strict.)
BY_HAND = {
    "c1": {"turn1": (0.5, 0.5, 0.5, L(2.0)), "turn2": (1.0, 0.5, 0.5, (L(4.0) + L(0.5)) / 2),
           "best_of_turns": (1.0, 0.5, 0.5, (L(4.0) + L(0.5)) / 2)},
    "c2": {"turn1": (0, 0, 0, None), "turn2": (0, 0, 0, None), "best_of_turns": (0, 0, 0, None)},
    "p1": {"turn1": (1.0, 1.0, 0.5, (L(1.2) + L(3.0)) / 2), "turn2": (0.5, 0.5, 0.0, L(1.5)),
           "best_of_turns": (1.0, 1.0, 0.5, (L(1.5) + L(3.0)) / 2)},
    "p2": {"turn1": (0.5, 0.0, 0.0, None), "turn2": (1.0, 0.5, 0.5, (L(1.6) + L(1.0)) / 2),
           "best_of_turns": (1.0, 0.5, 0.5, (L(1.6) + L(1.0)) / 2)},
}
METRICS = ("correct", "fast_1", "fast_1.5", "geomean_speedup_correct")


def expected(tasks, scope, k):
    xs = [BY_HAND[t][scope][k] for t in tasks]
    if k == 3:
        xs = [x for x in xs if x is not None]
        return math.exp(sum(xs) / len(xs)) if xs else None
    return sum(xs) / len(xs)


def run(*args):
    return run_python(SCRIPT, args, timeout=120)


def report(tmp, name, *args):
    out = os.path.join(tmp, name + ".json")
    r = run("--json", out, *args)
    check(r.returncode == 0, "%s: rc %d (%s)" % (name, r.returncode, r.stderr.strip()))
    try:
        return json.load(open(out))
    except (OSError, ValueError) as e:
        check(False, "%s: no JSON (%s)" % (name, e))
        return {"groups": {}}


def close(a, b):
    return a is not None and b is not None and abs(a - b) < 1e-12


with tempfile.TemporaryDirectory() as tmp:
    # The point estimates, per group, scope and metric; every interval contains its estimate.
    doc = report(tmp, "policy", "--phase", "policy:test", FIXTURE)
    groups = {"all": ["c1", "c2", "p1", "p2"], "c": ["c1", "c2"], "pytorch": ["p1", "p2"]}
    check(sorted(doc["groups"]) == sorted(groups), "groups %s" % sorted(doc["groups"]))
    check(doc.get("phases") == ["eval:policy:test"], "phases %s" % doc.get("phases"))
    for g, tasks in groups.items():
        got = doc["groups"].get(g, {})
        check(got.get("tasks") == len(tasks) and got.get("samples_per_task") == 2 and got.get("turns") == 2,
              "%s: tasks/samples/turns %s" % (g, [got.get(k) for k in ("tasks", "samples_per_task", "turns")]))
        for scope in ("turn1", "turn2", "best_of_turns"):
            for k, m in enumerate(METRICS):
                r = got.get("scopes", {}).get(scope, {}).get(m, {})
                want = expected(tasks, scope, k)
                check(close(r.get("value"), want), "%s %s %s: %s, by hand %s" % (g, scope, m, r.get("value"), want))
                check(r.get("low") is not None and r["low"] - 1e-12 <= want <= r["high"] + 1e-12,
                      "%s %s %s: %s outside [%s, %s]" % (g, scope, m, want, r.get("low"), r.get("high")))
    # A non-trivial interval is not a point (tasks differ), and the seed makes it reproducible.
    corr = doc["groups"]["all"]["scopes"]["turn1"]["correct"]
    check(corr["low"] < corr["value"] < corr["high"], "all turn1 correct interval %s is a point" % corr)
    again = report(tmp, "policy-again", "--phase", "policy:test", FIXTURE)
    check(again["groups"] == doc["groups"], "same seed, different intervals")

    # Every task alike (eval:after:test): every interval is its point.
    same = report(tmp, "after", "--phase", "eval:after:test", FIXTURE)
    want = {"turn1": (0.5, 0.5, 0.5, 2.0), "turn2": (1, 1, 1, 2.0), "best_of_turns": (1, 1, 1, 2.0)}
    for scope, values in want.items():
        for m, v in zip(METRICS, values):
            r = same["groups"]["all"]["scopes"][scope][m]
            check(close(r["value"], v) and close(r["low"], v) and close(r["high"], v), "after %s %s: %s" % (scope, m, r))

    # The label selects all its sets (5 tasks); the held-out-family task alone; .gz reads the same.
    label = report(tmp, "label", "--phase", "policy", FIXTURE)
    check(label["groups"]["all"]["tasks"] == 5, "label policy: %s tasks" % label["groups"]["all"]["tasks"])
    held = report(tmp, "held", "--phase", "policy:held_out_families", FIXTURE)
    h = held["groups"]["all"]["scopes"]["best_of_turns"]
    check(close(h["fast_1"]["value"], 1) and close(h["geomean_speedup_correct"]["value"], 1.1), "held out %s" % h)
    gz = os.path.join(tmp, "candidates.jsonl.gz")
    with open(FIXTURE, "rb") as src, gzip.open(gz, "wb") as dst:
        shutil.copyfileobj(src, dst)
    check(report(tmp, "gz", "--phase", "policy:test", gz)["groups"] == doc["groups"], ".gz differs")

    # --compare: a selection with itself is 0 [0, 0] (geomean ratio 1 [1, 1]); against after:test, B - A by hand.
    cmp_self = report(tmp, "self", "--compare", "policy:test@" + FIXTURE, "policy:test@" + FIXTURE)
    for g, got in cmp_self["groups"].items():
        for scope, ms in got["scopes"].items():
            for m, r in ms.items():
                key, zero = ("ratio", 1.0) if m == "geomean_speedup_correct" else ("difference", 0.0)
                check(close(r.get(key), zero) and close(r["low"], zero) and close(r["high"], zero),
                      "self %s %s %s: %s" % (g, scope, m, r))
    cmp_ab = report(tmp, "ab", "--compare", "policy:test", "after:test", FIXTURE)
    d = cmp_ab["groups"]["all"]["scopes"]["turn2"]
    check(close(d["correct"]["difference"], 1 - expected(groups["all"], "turn2", 0)), "compare turn2 correct %s" % d["correct"])
    # Ratio over tasks correct in both (c1, p1, p2): exp(mean(log 2 - log a_task)).
    ratio = math.exp(sum(L(2.0) - BY_HAND[t]["turn2"][3] for t in ("c1", "p1", "p2")) / 3)
    check(close(d["geomean_speedup_correct"]["ratio"], ratio), "compare turn2 geomean %s, by hand %s" % (d["geomean_speedup_correct"], ratio))

    # Bad input: one line on stderr, exit 2.
    bad = os.path.join(tmp, "bad.jsonl")
    with open(bad, "w") as f:
        f.write(open(FIXTURE).readline() + "{not json\n")
    gap = os.path.join(tmp, "gap.jsonl")
    with open(gap, "w") as f:  # c1's sample 0 without turn 2
        f.writelines(l for i, l in enumerate(open(FIXTURE)) if i != 1)
    for name, args in [("not JSON", [bad]), ("a missing turn", ["--phase", "policy:test", gap]),
                       ("no such file", [os.path.join(tmp, "none.jsonl")]),
                       ("no matching phase", ["--phase", "nothing", FIXTURE]),
                       ("several phases, none named", [FIXTURE]),
                       ("no common task", ["--compare", "policy:test", "policy:held_out_families", FIXTURE])]:
        r = run(*args)
        check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("eval-report: "),
              "%s: rc %d, stderr %r" % (name, r.returncode, r.stderr))

sys.exit(finish())
