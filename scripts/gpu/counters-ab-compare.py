#!/usr/bin/env python3
"""Compares cudaperf-eval --counters results of two counters modes (docs/counters.md, "Counters mode").

scripts/gpu/counters-ab.sh evaluates the same candidates three times with --counters: with a base mode, with a
new mode, and with the base mode again (the repeat: how much the counters of one mode vary from run to run).
The first A/B (2026-12-02) had base per-config (labelled "default": the evaluator's default until that A/B made
it shared) and new shared, the defaults of --base-mode and --new-mode, and the labels below; the second has base
shared and new joint (labels "shared", "joint", "repeat"). This script reads the three JSON Lines result files
and writes

  - per candidate: the worker's counters stage seconds in each run, whether every counter value of the shared
    run equals the default run's, and whether each value that differs lies within the default mode's own
    spread (it is no further from one of the two default runs than they are from each other);
  - per metric: value pairs compared, exactly equal (default vs shared, default vs repeat), within the
    spread, largest relative differences;
  - per run: results, ok, median and total counters stage, wall seconds and candidates per minute (wall from
    the runs file), medians of the profiler's phases (profiler_seconds) per configuration position;
  - whether each run's documents record the mode as expected ("counters_mode" absent in the default mode,
    "shared" in the shared one).

Usage: counters-ab-compare.py --base A.jsonl --new B.jsonl --repeat C.jsonl [--runs runs.tsv]
                              [--json compare.json] [--base-mode per-config] [--new-mode shared] [--new-label L]
(--default and --shared are the first A/B's names of --base and --new.) The labels: the base mode's name
("default" for per-config), the new mode's name, "repeat".
runs.tsv: one line per run, tab-separated: label (as above), wall seconds, exit status.
       counters-ab-compare.py --verdict compare.json
prints the mode to use: the new one where the A/B says it is as good and faster (judge() below), else the base
one; the reasons go to stderr. --verdict-label prints the winning run's label instead (base or NEW_LABEL), for an
A/B of options within one mode, where both runs have the same mode. (scripts/gpu/measure-dataset.sh runs after an
A/B in the same device call can take their --counters-mode, or --counters-ranges, from it.)
The text goes to stdout; --json writes the same as a document. Exit status 0, or 2 on unreadable input.
"""
import argparse
import json
import statistics
import sys

MODES = ("per-config", "shared", "joint")


def run_labels(base_mode, new_mode, new_label=None):
    """The three runs' labels, in the order base, new, repeat (new_label: the new run's, when it differs from the
    base in options rather than mode, e.g. --counters-ranges)."""
    return ("default" if base_mode == "per-config" else base_mode, new_label or new_mode, "repeat")


def recorded(mode):
    """What a document of that mode has as counters_mode ("(absent)": no key)."""
    return "(absent)" if mode == "per-config" else mode

# The profiler phases worth a median per configuration position (docs/counters.md, "profiler_seconds").
PHASES = ("begin_total", "profiler_initialize", "counter_availability", "host_initialize", "host_add_metrics",
          "config_image", "range_profiler_enable", "counter_data_image", "set_config", "passes", "pass_start",
          "pass_stop", "end_total", "decode", "evaluate", "range_profiler_disable", "host_deinitialize")


def load(path):
    out = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError as e:  # a ValueError: main's exit 2, with the place
                raise ValueError(f"{path}:{n}: {e}") from None
            out[(r.get("task", ""), r.get("candidate", ""))] = r
    return out


def counters_stage(r):
    v = ((r.get("worker") or {}).get("stage_seconds") or {}).get("counters")
    return v if isinstance(v, (int, float)) else None


def counter_docs(r):
    """Configuration name -> its counters document (only configurations that have one), in order."""
    return {c.get("name", str(i)): c["counters"] for i, c in enumerate(r.get("configs") or [])
            if isinstance(c.get("counters"), dict)}


def rel(a, b):
    if a == b:
        return 0.0
    return abs(a - b) / max(abs(a), abs(b))


def within_spread(d, s, r):
    if s == d:
        return True
    width = abs(d - r)
    return abs(s - d) <= width or abs(s - r) <= width


def median(xs):
    return statistics.median(xs) if xs else None


def fmt(v, digits=3):
    return "-" if v is None else f"{v:.{digits}f}"


def compare(runs, walls, labels):
    base, new, repeat = labels
    candidates, metrics = [], {}
    keys = sorted(set(runs[base]) | set(runs[new]) | set(runs[repeat]))
    for key in keys:
        rs = {m: runs[m].get(key) for m in labels}
        row = {"task": key[0], "candidate": key[1],
               "outcome": {m: (rs[m] or {}).get("outcome") for m in labels},
               "counters_seconds": {m: counters_stage(rs[m]) if rs[m] else None for m in labels},
               "compared_values": 0, "equal": None, "repeat_equal": None, "within_spread": None, "differing_metrics": [], "problems": []}
        candidates.append(row)
        if any(rs[m] is None for m in labels):
            row["problems"].append("missing from " + ", ".join(m for m in labels if rs[m] is None))
            continue
        docs = {m: counter_docs(rs[m]) for m in labels}
        configs = [c for c in docs[base] if c in docs[new] and c in docs[repeat]]
        for m in labels:
            extra = set(docs[m]) - set(configs)
            if extra:
                row["problems"].append(f"{m}: counters of {sorted(extra)} not in every run")
        equal, repeat_equal, spread, differing = True, True, True, set()
        for cfg in configs:
            d, s, r = docs[base][cfg], docs[new][cfg], docs[repeat][cfg]
            if not (d.get("available") and s.get("available") and r.get("available")):
                row["problems"].append(f"{cfg}: counters unavailable in " +
                                       ", ".join(m for m, x in zip(labels, (d, s, r)) if not x.get("available")))
                equal = spread = repeat_equal = False
                continue
            shape = [[(k.get("name"), k.get("launch")) for k in x.get("kernels", [])] for x in (d, s, r)]
            if not (shape[0] == shape[1] == shape[2]):
                row["problems"].append(f"{cfg}: different kernels ({base} {shape[0]}, {new} {shape[1]}, "
                                       f"{repeat} {shape[2]})")
                equal = spread = repeat_equal = False
                continue
            for kd, ks, kr in zip(d["kernels"], s["kernels"], r["kernels"]):
                md, ms, mr = kd.get("metrics", {}), ks.get("metrics", {}), kr.get("metrics", {})
                for name in sorted(set(md) | set(ms) | set(mr)):
                    # (The keys are the first A/B's: "shared" is the new mode, "repeat" the base repeated.)
                    st = metrics.setdefault(name, {"pairs": 0, "equal_shared": 0, "equal_repeat": 0,
                                                   "within_spread": 0, "missing": 0, "max_rel_shared": 0.0,
                                                   "max_rel_repeat": 0.0})
                    if name not in md or name not in ms or name not in mr:
                        st["missing"] += 1
                        row["problems"].append(f"{cfg}: {name} missing in " +
                                               ", ".join(m for m, x in zip(labels, (md, ms, mr)) if name not in x))
                        equal = spread = repeat_equal = False
                        continue
                    a, b, c = md[name], ms[name], mr[name]
                    row["compared_values"] += 1
                    st["pairs"] += 1
                    st["equal_shared"] += a == b
                    st["equal_repeat"] += a == c
                    inside = within_spread(a, b, c)
                    st["within_spread"] += inside
                    st["max_rel_shared"] = max(st["max_rel_shared"], rel(a, b))
                    st["max_rel_repeat"] = max(st["max_rel_repeat"], rel(a, c))
                    repeat_equal = repeat_equal and a == c
                    if a != b:
                        equal = False
                        differing.add(name)
                    if not inside:
                        spread = False
        row["equal"], row["repeat_equal"], row["within_spread"] = equal, repeat_equal, spread
        row["differing_metrics"] = sorted(differing)

    per_run = {}
    for m in labels:
        rs = list(runs[m].values())
        secs = [counters_stage(r) for r in rs if r.get("outcome") == "ok" and counters_stage(r) is not None]
        wall = walls.get(m, {}).get("seconds")
        modes, phases = {}, {}
        for r in rs:
            for pos, doc in enumerate(counter_docs(r).values()):
                mode = doc.get("counters_mode", "(absent)")
                modes[mode] = modes.get(mode, 0) + 1
                for ph in PHASES:
                    v = (doc.get("profiler_seconds") or {}).get(ph)
                    if isinstance(v, (int, float)):
                        phases.setdefault(ph, {}).setdefault(str(pos), []).append(v)
        per_run[m] = {
            "results": len(rs), "ok": sum(r.get("outcome") == "ok" for r in rs),
            "counters_seconds_median": median(secs), "counters_seconds_total": sum(secs) if secs else None,
            "wall_seconds": wall, "exit_status": walls.get(m, {}).get("rc"),
            "candidates_per_minute": (60.0 * len(rs) / wall) if wall else None,
            "counters_mode_recorded": modes,
            "profiler_seconds_median": {ph: {pos: median(v) for pos, v in sorted(by.items())}
                                        for ph, by in phases.items()},
        }
    return candidates, metrics, per_run


def mode_check(per_run, labels, modes):
    problems = []
    base, new, repeat = labels
    for m, want in ((base, recorded(modes[0])), (repeat, recorded(modes[0])), (new, recorded(modes[1]))):
        got = per_run[m]["counters_mode_recorded"]
        if got and set(got) != {want}:
            problems.append(f"{m}: counters_mode {got}, expected only {want}")
    return problems


def report(candidates, metrics, per_run, labels, modes):
    base, new, repeat = labels
    out = []
    w = out.append
    base_name = "per-config (default)" if modes[0] == "per-config" else modes[0]
    again = "the default" if base == "default" else base
    w(f"Counters mode A/B: {base_name} vs {new}, and {again} repeated (run-to-run spread)")
    w("")
    w("run      results  ok  counters stage median  total   wall s  candidates/min  exit")
    for m in labels:
        p = per_run[m]
        w(f"{m:8} {p['results']:7} {p['ok']:3}  {fmt(p['counters_seconds_median']):>21}  "
          f"{fmt(p['counters_seconds_total'], 1):>6}  {fmt(p['wall_seconds'], 1):>7}  "
          f"{fmt(p['candidates_per_minute'], 1):>14}  {p['exit_status'] if p['exit_status'] is not None else '-'}")
    w("")
    compared = [c for c in candidates if c["compared_values"]]
    w(f"candidates compared: {len(compared)} of {len(candidates)}; every counter equal ({new} = {base}): "
      f"{sum(bool(c['equal']) for c in compared)}; all within the {base}'s own spread: "
      f"{sum(bool(c['within_spread']) for c in compared)}; every counter equal in the {base}'s repeat: "
      f"{sum(bool(c['repeat_equal']) for c in compared)}")
    for problem in mode_check(per_run, labels, modes):
        w(f"MODE NOT RECORDED AS EXPECTED: {problem}")
    w("")
    w(f"per candidate: counters stage seconds ({base} / {new} / {repeat}), equal, within spread, differing metrics")
    for c in candidates:
        s = c["counters_seconds"]
        name = f"{c['task']} {c['candidate'].rsplit('/', 1)[-1]}"
        w(f"  {name:48} {fmt(s[base])} / {fmt(s[new])} / {fmt(s[repeat])}  "
          f"equal={'-' if c['equal'] is None else ('yes' if c['equal'] else 'no')} "
          f"spread={'-' if c['within_spread'] is None else ('yes' if c['within_spread'] else 'NO')}"
          + (f"  differ: {', '.join(c['differing_metrics'])}" if c["differing_metrics"] else "")
          + (f"  [{'; '.join(c['problems'])}]" if c["problems"] else ""))
    w("")
    w(f"per metric: pairs, {new} = {base}, {repeat} = {base}, {new} within spread, max rel. diff {new}, {repeat}")
    for name in sorted(metrics):
        st = metrics[name]
        w(f"  {name:58} {st['pairs']:4} {st['equal_shared']:4} {st['equal_repeat']:4} {st['within_spread']:4}"
          f"  {st['max_rel_shared']:.3g}  {st['max_rel_repeat']:.3g}" + (f"  missing {st['missing']}" if st["missing"] else ""))
    w("")
    w(f"profiler_seconds medians per configuration position (0 = first): {base} | {new} | {repeat}")
    for ph in PHASES:
        cells = []
        for m in labels:
            by = per_run[m]["profiler_seconds_median"].get(ph, {})
            cells.append(" ".join(f"{pos}:{fmt(v)}" for pos, v in sorted(by.items())) or "-")
        w(f"  {ph:24} {' | '.join(cells)}")
    return "\n".join(out) + "\n"


def judge(d):
    """(new_won, reasons): True where every run has all its results ok and exit status 0, the documents record
    the modes as expected, every deterministic metric (equal in all pairs of the base run and its repeat) is equal
    in all pairs of the new run too, and the new run has more candidates per minute than both base runs; else False,
    with what failed."""
    base, new, repeat = d["labels"]
    runs, why = d["runs"], []
    for label in (base, new, repeat):
        r = runs.get(label) or {}
        if not r.get("results") or r.get("ok") != r.get("results") or r.get("exit_status") not in (0, None):
            why.append(f"{label}: {r.get('ok')} of {r.get('results')} ok, exit {r.get('exit_status')}")
    why += [f"mode: {p}" for p in d.get("mode_problems", [])]
    deterministic = [m for m, st in d["metrics"].items() if st["pairs"] > 0 and st["equal_repeat"] == st["pairs"]]
    if not deterministic:
        why.append("no deterministic metric to compare")
    for m in deterministic:
        st = d["metrics"][m]
        if st["equal_shared"] != st["pairs"]:
            why.append(f"{m}: {new} equal to {base} in {st['equal_shared']} of {st['pairs']} pairs")
    speed = {label: (runs.get(label) or {}).get("candidates_per_minute") for label in (base, new, repeat)}
    if any(v is None for v in speed.values()):
        why.append(f"candidates per minute unknown: {speed}")
    elif not speed[new] > max(speed[base], speed[repeat]):
        why.append(f"{new} not faster: {speed[new]:.1f} candidates per minute against {speed[base]:.1f} and "
                   f"{speed[repeat]:.1f}")
    if why:
        return False, why
    return True, [f"{new}: {len(deterministic)} deterministic metrics equal, {speed[new]:.1f} candidates per "
                      f"minute against {speed[base]:.1f} and {speed[repeat]:.1f}"]


def verdict(d):
    """(mode, reasons): the new run's mode where judge() says it won, else the base run's."""
    won, why = judge(d)
    return d["modes"]["new" if won else "base"], why


def verdict_label(d):
    """(label, reasons): the winning run's label (an A/B of options within one mode, NEW_LABEL=ranges-auto with
    BASE=NEW=shared, has the same mode in both runs; the label tells them apart)."""
    won, why = judge(d)
    return d["labels"][1 if won else 0], why


def main():
    if len(sys.argv) == 3 and sys.argv[1] in ("--verdict", "--verdict-label"):
        try:
            with open(sys.argv[2]) as f:
                d = json.load(f)
            answer, reasons = (verdict_label if sys.argv[1] == "--verdict-label" else verdict)(d)
        except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
            print(f"counters-ab-compare: {sys.argv[1]} {sys.argv[2]}: {e}", file=sys.stderr)
            return 2
        for r in reasons:
            print(f"counters-ab-compare: {r}", file=sys.stderr)
        print(answer)
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", "--default", dest="base", required=True, help="the base mode's results")
    ap.add_argument("--new", "--shared", dest="new", required=True, help="the new mode's results")
    ap.add_argument("--repeat", required=True, help="the base mode's results again")
    ap.add_argument("--base-mode", choices=MODES, default="per-config")
    ap.add_argument("--new-mode", choices=MODES, default="shared")
    ap.add_argument("--new-label", help="the new run's label (default: its mode's name)")
    ap.add_argument("--runs", help="label<TAB>wall seconds<TAB>exit status, one line per run")
    ap.add_argument("--json", help="also write the comparison here")
    a = ap.parse_args()
    modes = (a.base_mode, a.new_mode)
    labels = run_labels(*modes, a.new_label)
    if len(set(labels)) != 3:
        print(f"counters-ab-compare: the three runs need distinct labels (got {', '.join(labels)}): give the new run "
              f"--new-label when its mode is the base's", file=sys.stderr)
        return 2
    try:
        runs = dict(zip(labels, (load(a.base), load(a.new), load(a.repeat))))
        walls = {}
        if a.runs:
            for line in open(a.runs):
                parts = line.rstrip("\n").split("\t")
                if len(parts) >= 3 and parts[0] in labels:
                    walls[parts[0]] = {"seconds": float(parts[1]), "rc": int(parts[2])}
    except (OSError, ValueError) as e:
        print(f"counters-ab-compare: {e}", file=sys.stderr)
        return 2
    candidates, metrics, per_run = compare(runs, walls, labels)
    sys.stdout.write(report(candidates, metrics, per_run, labels, modes))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"runs": per_run, "modes": {"base": modes[0], "new": modes[1]}, "labels": list(labels),
                       "mode_problems": mode_check(per_run, labels, modes), "metrics": metrics,
                       "candidates": candidates}, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
