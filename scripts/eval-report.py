#!/usr/bin/env python3
"""The held-out evaluation of issue 34 with intervals: reads the eval lines of candidates.jsonl (cudaperf-train rl
and eval-policy; phase "eval:LABEL:SET") and reports, per kind and for all, per turn and best of T:

  correct     share of samples correct
  fast_1      share of samples correct with speedup > 1   (fast_1.5: > 1.5)
  geomean     geometric-mean speedup of the correct samples that have a measured speedup

Each is a per-task figure first (a task's share over its samples; for geomean the mean log speedup of its
correct samples), then the mean over tasks (geomean: exp of the mean over the tasks that have one), so a task
weighs the same whatever its sample count. Best of T is per sample: correct if any turn was, its best correct
speedup. Intervals: 95% percentile bootstrap over tasks (tasks resampled with replacement, --resamples times,
random.Random(--seed)); a resample without a task that has a correct answer gives no geomean and is left out.

    scripts/eval-report.py [--phase SEL] [--json OUT] [--seed 0] [--resamples 2000] FILE...
    scripts/eval-report.py --compare A B [--json OUT] [FILE...]

FILE: candidates.jsonl or .jsonl.gz. SEL: a phase ("eval:after:test"), LABEL:SET ("after:test") or a label
("policy": all its sets); SEL@FILE reads only that file (then FILE need not be listed), e.g. to compare two arms'
"after:test". Without --phase, the files' only eval phase. --compare prints B - A per metric over the tasks both
have, with a paired bootstrap interval (the same task resample for both); for geomean the ratio B / A of the
per-task geometric means (tasks with a correct answer in both). Standard library only (CI has no numpy).
Exit 0, or 2 with a one-line message on bad usage or input.
"""
import argparse
import gzip
import json
import math
import random
import sys

METRICS = ("correct", "fast_1", "fast_1.5", "geomean_speedup_correct")
LABELS = {"geomean_speedup_correct": "geomean"}  # printed names (JSON keeps the full ones)


class BadInput(Exception):
    pass


def read_lines(path):
    try:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            text = f.read()
    except (OSError, EOFError, UnicodeDecodeError) as e:
        raise BadInput("cannot read %s: %s" % (path, e))
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            j = json.loads(line)
        except ValueError as e:
            raise BadInput("%s:%d: not JSON (%s)" % (path, n, e))
        if not isinstance(j, dict):
            raise BadInput("%s:%d: not a JSON object" % (path, n))
        out.append((path, n, j))
    return out


def matches(phase, sel):
    return phase == sel or phase == "eval:" + sel or phase.startswith("eval:" + sel + ":")


def select(lines_by_file, listed, sel):
    """The eval lines a selector names: {task: {"kind", "samples": {(phase, trajectory): {turn: (correct, speedup)}}}},
    the phases matched and T. lines_by_file caches files read; listed: the FILE arguments."""
    sel, _, only = sel.partition("@")
    files = [only] if only else listed
    for p in files:
        if p not in lines_by_file:
            lines_by_file[p] = read_lines(p)
    tasks, phases = {}, set()
    for p in files:
        for path, n, j in lines_by_file[p]:
            phase = j.get("phase")
            if not isinstance(phase, str) or not phase.startswith("eval:") or not matches(phase, sel):
                continue
            where = "%s:%d" % (path, n)
            task, traj, turn = j.get("task"), j.get("trajectory"), j.get("turn")
            if not isinstance(task, str) or not isinstance(traj, int) or not isinstance(turn, int) or turn < 1:
                raise BadInput("%s: an eval line needs task (string), trajectory and turn (integers, turn >= 1)" % where)
            speedup = j.get("speedup")
            if speedup is not None and (not isinstance(speedup, (int, float)) or speedup <= 0):
                raise BadInput("%s: speedup %r is not a positive number" % (where, speedup))
            if not isinstance(j.get("correct"), bool):
                raise BadInput("%s: correct must be true or false" % where)
            phases.add(phase)
            t = tasks.setdefault(task, {"kind": j.get("kind") or "unknown", "samples": {}})
            turns = t["samples"].setdefault((phase, traj), {})
            if turn in turns:
                raise BadInput("%s: task %s trajectory %d turn %d seen twice (two runs pooled? name one with SEL@FILE)"
                               % (where, task, traj, turn))
            turns[turn] = (j["correct"], speedup)
    if not tasks:
        raise BadInput("no eval line matches %r in %s" % (sel, ", ".join(files) or "no file"))
    turn_counts = {len(s) for t in tasks.values() for s in t["samples"].values()}
    T = max(turn_counts)
    for name, t in tasks.items():
        for (phase, traj), s in t["samples"].items():
            if sorted(s) != list(range(1, T + 1)):
                raise BadInput("task %s trajectory %d of %s has turns %s, expected 1..%d" % (name, traj, phase, sorted(s), T))
    return tasks, sorted(phases), T


def sample_scopes(turns, T):
    """A sample's (correct, speedup) per scope: turn1..turnT, then best_of_turns."""
    out = {"turn%d" % t: turns[t] for t in range(1, T + 1)}
    good = [sp for c, sp in turns.values() if c]
    measured = [sp for sp in good if sp is not None]
    out["best_of_turns"] = (bool(good), max(measured) if measured else None)
    return out


def task_values(task, T):
    """Per scope and metric, the task's figure (shares over its samples; mean log speedup or None)."""
    samples = [sample_scopes(s, T) for s in task["samples"].values()]
    values = {}
    for scope in samples[0]:
        got = [s[scope] for s in samples]
        logs = [math.log(sp) for c, sp in got if c and sp is not None]
        values[scope] = {
            "correct": sum(c for c, _ in got) / len(got),
            "fast_1": sum(bool(c and sp is not None and sp > 1) for c, sp in got) / len(got),
            "fast_1.5": sum(bool(c and sp is not None and sp > 1.5) for c, sp in got) / len(got),
            "geomean_speedup_correct": sum(logs) / len(logs) if logs else None,
        }
    return values


def aggregate(metric, xs):
    """Over tasks: the mean of shares; exp of the mean log speedup over the tasks that have one (or None)."""
    if metric == "geomean_speedup_correct":
        xs = [x for x in xs if x is not None]
        return math.exp(sum(xs) / len(xs)) if xs else None
    return sum(xs) / len(xs)


def percentile(sorted_xs, p):
    """Linear interpolation between closest ranks (numpy's default)."""
    pos = p * (len(sorted_xs) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(sorted_xs) - 1)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (pos - lo)


def bootstrap(per_task, stat, resamples, seed):
    """95% percentile interval of stat over task resamples; per_task: a list (one entry per task)."""
    rng = random.Random(seed)
    n = len(per_task)
    got = []
    for _ in range(resamples):
        v = stat([per_task[rng.randrange(n)] for _ in range(n)])
        if v is not None:
            got.append(v)
    if not got:
        return None, None
    got.sort()
    return percentile(got, 0.025), percentile(got, 0.975)


def groups_of(kinds_by_task):
    """("all", every task) and one group per kind."""
    names = sorted(kinds_by_task)
    out = [("all", names)]
    for kind in sorted(set(kinds_by_task.values())):
        out.append((kind, [t for t in names if kinds_by_task[t] == kind]))
    return out


def report(tasks, T, args):
    values = {name: task_values(t, T) for name, t in tasks.items()}
    result = {}
    for group, names in groups_of({n: t["kind"] for n, t in tasks.items()}):
        counts = sorted({len(tasks[n]["samples"]) for n in names})
        g = {"tasks": len(names), "samples_per_task": counts[0] if len(counts) == 1 else counts, "turns": T, "scopes": {}}
        for scope in values[names[0]]:
            g["scopes"][scope] = {}
            for m in METRICS:
                xs = [values[n][scope][m] for n in names]
                low, high = bootstrap(xs, lambda s, m=m: aggregate(m, s), args.resamples, args.seed)
                g["scopes"][scope][m] = {"value": aggregate(m, xs), "low": low, "high": high}
        result[group] = g
    return result


def compare(a, b, T, args):
    va = {name: task_values(t, T) for name, t in a.items()}
    vb = {name: task_values(t, T) for name, t in b.items()}
    common = {n: a[n]["kind"] for n in a if n in b}
    if not common:
        raise BadInput("the two selections have no task in common")
    result = {}
    for group, names in groups_of(common):
        g = {"tasks": len(names), "scopes": {}}
        for scope in va[names[0]]:
            g["scopes"][scope] = {}
            for m in METRICS:
                pairs = [(va[n][scope][m], vb[n][scope][m]) for n in names]
                if m == "geomean_speedup_correct":
                    # ratio of geometric means over tasks correct in both: exp(mean(log b - log a))
                    diffs = [None if x is None or y is None else y - x for x, y in pairs]
                    stat = lambda s: aggregate(m, s)
                    key = "ratio"
                else:
                    diffs = [y - x for x, y in pairs]
                    stat = lambda s: sum(s) / len(s)
                    key = "difference"
                low, high = bootstrap(diffs, stat, args.resamples, args.seed)
                g["scopes"][scope][m] = {key: stat(diffs), "low": low, "high": high,
                                         "a": aggregate(m, [x for x, _ in pairs]), "b": aggregate(m, [y for _, y in pairs])}
        result[group] = g
    return result


def fmt(v, m, signed=False):
    if v is None:
        return "n/a"
    if m == "geomean_speedup_correct":
        return "x%.3f" % v
    return ("%+.1f%%" if signed else "%.1f%%") % (100 * v)


def print_groups(groups, compared):
    for group, g in groups.items():
        head = "%s: %d tasks" % (group, g["tasks"])
        if not compared:
            head += ", %s samples per task, %d turns" % (g["samples_per_task"], g["turns"])
        print(head + (" in both (B - A; geomean: B / A)" if compared else ""))
        for scope, ms in g["scopes"].items():
            cells = []
            for m in METRICS:
                r = ms[m]
                v = r.get("difference", r.get("ratio", r.get("value")))
                signed = compared and m != "geomean_speedup_correct"
                cells.append("%s %s [%s, %s]" % (LABELS.get(m, m), fmt(v, m, signed), fmt(r["low"], m, signed), fmt(r["high"], m, signed)))
            print("  %-14s %s" % (scope, "  ".join(cells)))


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("files", nargs="*")
    p.add_argument("--phase", help="phase, LABEL:SET or label, optionally @FILE")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"))
    p.add_argument("--json", metavar="OUT")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--resamples", type=int, default=2000)
    args = p.parse_args(argv)
    if args.resamples < 1:
        raise BadInput("--resamples must be at least 1")
    lines_by_file = {f: read_lines(f) for f in args.files}
    meta = {"seed": args.seed, "resamples": args.resamples, "interval": "95% percentile bootstrap over tasks"}
    if args.compare:
        if args.phase:
            raise BadInput("--phase and --compare exclude each other")
        (a, pa, ta), (b, pb, tb) = (select(lines_by_file, args.files, s) for s in args.compare)
        if ta != tb:
            raise BadInput("A has %d turns, B %d" % (ta, tb))
        out = dict(schema="cudaperf-eval-compare/1", a=args.compare[0], b=args.compare[1], a_phases=pa, b_phases=pb,
                   groups=compare(a, b, ta, args), **meta)
        print("B = %s (%s) - A = %s (%s)" % (args.compare[1], ", ".join(pb), args.compare[0], ", ".join(pa)))
    else:
        sel = args.phase
        if not sel:
            found = sorted({j.get("phase") for ls in lines_by_file.values() for _, _, j in ls
                            if isinstance(j.get("phase"), str) and j["phase"].startswith("eval:")})
            if len(found) != 1:
                raise BadInput("name a phase with --phase: the files have %s" % (", ".join(found) or "no eval line"))
            sel = found[0]
        tasks, phases, T = select(lines_by_file, args.files, sel)
        out = dict(schema="cudaperf-eval-report/1", selection=sel, phases=phases, groups=report(tasks, T, args), **meta)
        print("%s (%s)" % (sel, ", ".join(phases)))
    print_groups(out["groups"], bool(args.compare))
    if args.json:
        try:
            with open(args.json, "w") as f:
                json.dump(out, f, indent=1)
                f.write("\n")
        except OSError as e:
            raise BadInput("cannot write %s: %s" % (args.json, e))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BadInput as e:
        print("eval-report: %s" % e, file=sys.stderr)
        sys.exit(2)
