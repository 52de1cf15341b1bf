#!/usr/bin/env python3
"""Checks cudaperf-eval results of the red-team suite (data/redteam) against what each candidate must get.

  redteam-check.py SUITE_DIR RESULTS.jsonl [RESULTS.jsonl ...] [--skip NAME ...]
      every candidate of SUITE_DIR/{hostile,honest}/*.cu must have a result (matched on the candidate
      path's basename; the last result of a name wins) with an allowed outcome, and where its header
      gives one, a speedup no larger than its bound. Prints a table and "N passed, M failed"; exit 1 on
      any failure or missing result. --skip NAME leaves a candidate out (listed as skipped).
  redteam-check.py --headers SUITE_DIR [--write-suite FILE]
      checks the headers only (well formed, >= 40 hostile and >= 40 honest, tasks exist) and can write
      the suite listing (suite.json) generated from them.
  redteam-check.py --compare OLD.jsonl NEW.jsonl [--suite SUITE_DIR] [--limit 0.03]
      honest candidates' timing, new over old: per configuration, the median over candidates of
      candidate median_ms new / old; exit 1 when any configuration's median ratio exceeds 1 + limit.

Header lines (at the top of each .cu file):
  // cudaperf-task: TASK                    a directory under data/tasks
  // cudaperf-class: CLASS                  hack class id (honest: "honest")
  // cudaperf-source: TEXT                  where the class was published
  // cudaperf-expect: OUTCOME[,OUTCOME...]   outcomes allowed
  // cudaperf-expect-max-speedup: X          optional: if ok, the top-level speedup must be <= X
  // cudaperf-expect-max-config-speedup: X   optional: if ok, every configuration's speedup must be <= X
  // cudaperf-destructive: TEXT             optional: harmful when run without the sandbox (redteam.sh skips it there)
"""
import argparse
import json
import os
import statistics
import sys

OUTCOMES = {"ok", "compile_error", "launch_error", "runtime_fault", "timeout", "wrong_answer", "timing_violation",
            "internal_error"}
REQUIRED = ("task", "class", "source", "expect")
KNOWN = set(REQUIRED) | {"expect-max-speedup", "expect-max-config-speedup", "destructive"}
MIN_PER_KIND = 40


class HeaderError(Exception):
    pass


def read_header(path):
    """The cudaperf-* keys of the file's leading comment block."""
    fields = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("//"):
                break
            text = line[2:].strip()
            if not text.startswith("cudaperf-"):
                continue
            key, sep, value = text[len("cudaperf-"):].partition(":")
            if not sep:
                raise HeaderError(f"{path}: '{line.strip()}' has no ':'")
            key, value = key.strip(), value.strip()
            if key not in KNOWN:
                raise HeaderError(f"{path}: unknown header key cudaperf-{key}")
            if key in fields:
                raise HeaderError(f"{path}: cudaperf-{key} given twice")
            fields[key] = value
    missing = [k for k in REQUIRED if not fields.get(k)]
    if missing:
        raise HeaderError(f"{path}: missing " + ", ".join("cudaperf-" + k for k in missing))
    expect = [o.strip() for o in fields["expect"].split(",")]
    bad = [o for o in expect if o not in OUTCOMES]
    if bad:
        raise HeaderError(f"{path}: unknown outcome(s) {', '.join(bad)} in cudaperf-expect")
    entry = {"name": os.path.basename(path), "path": path, "task": fields["task"], "class": fields["class"],
             "source": fields["source"], "expect": expect}
    for key, out in (("expect-max-speedup", "max_speedup"), ("expect-max-config-speedup", "max_config_speedup")):
        if key in fields:
            try:
                entry[out] = float(fields[key])
            except ValueError:
                raise HeaderError(f"{path}: cudaperf-{key} is not a number: {fields[key]}")
            if "ok" not in expect:
                raise HeaderError(f"{path}: cudaperf-{key} given but ok is not an allowed outcome")
    if "destructive" in fields:
        entry["destructive"] = fields["destructive"]
    return entry


def load_suite(suite_dir, tasks_dir=None):
    """Every candidate of SUITE_DIR/hostile and SUITE_DIR/honest with its header; raises HeaderError."""
    entries, problems = [], []
    for kind in ("hostile", "honest"):
        d = os.path.join(suite_dir, kind)
        if not os.path.isdir(d):
            problems.append(f"{d}: no such directory")
            continue
        for name in sorted(os.listdir(d)):
            if not name.endswith(".cu"):
                continue
            try:
                e = read_header(os.path.join(d, name))
            except HeaderError as err:
                problems.append(str(err))
                continue
            e["kind"] = kind
            e["path"] = os.path.join(kind, name)
            if kind == "honest" and (e["expect"] != ["ok"] or e["class"] != "honest"):
                problems.append(f"{kind}/{name}: an honest candidate must have class honest and expect exactly ok")
            if kind == "hostile" and e["class"] == "honest":
                problems.append(f"{kind}/{name}: a hostile candidate needs a hack class")
            if tasks_dir and not os.path.isfile(os.path.join(tasks_dir, e["task"], "task.json")):
                problems.append(f"{kind}/{name}: task {e['task']} not found under {tasks_dir}")
            entries.append(e)
    names = [e["name"] for e in entries]
    for n in sorted({n for n in names if names.count(n) > 1}):
        problems.append(f"{n}: the same file name in hostile/ and honest/ (results are matched on the basename)")
    for kind in ("hostile", "honest"):
        count = sum(e["kind"] == kind for e in entries)
        if count < MIN_PER_KIND:
            problems.append(f"{kind}: {count} candidates, at least {MIN_PER_KIND} required")
    if problems:
        raise HeaderError("\n".join(problems))
    return entries


def load_results(paths):
    """basename -> the last result document with that candidate basename, over all files."""
    by_name = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    doc = json.loads(line)
                except json.JSONDecodeError as err:
                    raise SystemExit(f"{path}:{number}: not JSON ({err})")
                if doc.get("type") == "result" and "result" in doc:  # a --serve message
                    doc = doc["result"]
                if doc.get("schema") != "cudaperf-eval-result/1":
                    continue
                by_name[os.path.basename(doc.get("candidate", ""))] = doc
    return by_name


def judge(entry, doc):
    """(passed, what it got, why) for one candidate."""
    if doc is None:
        return False, "missing", "no result"
    outcome = doc.get("outcome", "?")
    speedup = doc.get("speedup")
    got = outcome if speedup is None else f"{outcome} {speedup:.2f}x"
    if outcome not in entry["expect"]:
        detail = (doc.get("detail") or "").replace("\n", " ")[:80]
        return False, got, f"expected {','.join(entry['expect'])}" + (f": {detail}" if detail else "")
    if outcome == "ok":
        if "max_speedup" in entry and (speedup is None or speedup > entry["max_speedup"]):
            return False, got, f"ok, but speedup above {entry['max_speedup']}: the hack gained"
        if "max_config_speedup" in entry:
            for c in doc.get("configs", []):
                s = c.get("speedup")
                if s is not None and s > entry["max_config_speedup"]:
                    return False, got, f"config {c.get('name')} speedup {s:.2f} above {entry['max_config_speedup']}"
    return True, got, ""


def check(args):
    entries = load_suite(args.suite_dir)
    results = load_results(args.results)
    skip = set(args.skip or [])
    passed = failed = skipped = 0
    print(f"{'kind':8s} {'candidate':44s} {'task':11s} {'expected':38s} {'got':24s} verdict")
    for e in entries:
        expected = ",".join(e["expect"]) + (f" <= {e['max_speedup']}x" if "max_speedup" in e else "")
        if e["name"] in skip:
            skipped += 1
            print(f"{e['kind']:8s} {e['name']:44s} {e['task']:11s} {expected:38s} {'-':24s} skipped")
            continue
        ok, got, why = judge(e, results.get(e["name"]))
        passed += ok
        failed += not ok
        print(f"{e['kind']:8s} {e['name']:44s} {e['task']:11s} {expected:38s} {got:24s} "
              + ("pass" if ok else f"FAIL ({why})"))
    extra = sorted(set(results) - {e["name"] for e in entries})
    if extra:
        print(f"note: {len(extra)} result(s) for files not in the suite: {', '.join(extra[:5])}")
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed else 0


def headers(args):
    tasks = args.tasks_dir or os.path.join(os.path.dirname(os.path.abspath(args.suite_dir.rstrip("/"))), "tasks")
    entries = load_suite(args.suite_dir, tasks if os.path.isdir(tasks) else None)
    classes = {}
    for e in entries:
        if e["kind"] == "hostile":
            classes[e["class"]] = classes.get(e["class"], 0) + 1
    per_task = {}
    for e in entries:
        if e["kind"] == "honest":
            per_task[e["task"]] = per_task.get(e["task"], 0) + 1
    print(f"{sum(e['kind'] == 'hostile' for e in entries)} hostile in {len(classes)} classes, "
          f"{sum(e['kind'] == 'honest' for e in entries)} honest")
    for c in sorted(classes):
        print(f"  {c}: {classes[c]}")
    print("honest per task: " + ", ".join(f"{t} {n}" for t, n in sorted(per_task.items())))
    if args.write_suite:
        doc = {"schema": "cudaperf-redteam-suite/1", "generated_by": "scripts/redteam-check.py --headers",
               "candidates": [{k: v for k, v in e.items() if k != "name"} for e in entries]}
        with open(args.write_suite, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    return 0


def compare(args):
    old, new = load_results([args.compare[0]]), load_results([args.compare[1]])
    honest = None
    if args.suite:
        honest = {e["name"] for e in load_suite(args.suite) if e["kind"] == "honest"}
    ratios = {}
    for name, doc in new.items():
        if honest is not None and name not in honest:
            continue
        before = old.get(name)
        if not before or doc.get("outcome") != "ok" or before.get("outcome") != "ok":
            continue
        was = {c["name"]: c for c in before.get("configs", [])}
        for c in doc.get("configs", []):
            b = was.get(c["name"])
            try:
                r = c["candidate"]["median_ms"] / b["candidate"]["median_ms"]
            except (KeyError, TypeError, ZeroDivisionError):
                continue
            ratios.setdefault(c["name"], []).append(r)
    if not ratios:
        print("no candidate is ok in both files: nothing to compare")
        return 1
    worst = 0.0
    print(f"{'config':10s} {'candidates':>10s} {'median new/old':>15s} {'min':>7s} {'max':>7s}")
    for cfg in sorted(ratios):
        rs = ratios[cfg]
        med = statistics.median(rs)
        worst = max(worst, med)
        print(f"{cfg:10s} {len(rs):10d} {med:15.4f} {min(rs):7.3f} {max(rs):7.3f}")
    within = worst <= 1 + args.limit
    print(f"largest median ratio {worst:.4f}: " + ("within" if within else "above") + f" {1 + args.limit:.2f}")
    return 0 if within else 1


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("suite_dir", nargs="?")
    p.add_argument("results", nargs="*")
    p.add_argument("--skip", action="append", metavar="NAME", help="leave this candidate (basename) out")
    p.add_argument("--headers", action="store_true", help="check the headers only")
    p.add_argument("--tasks-dir", help="with --headers: where the tasks are (default SUITE_DIR/../tasks)")
    p.add_argument("--write-suite", metavar="FILE", help="with --headers: write the suite listing here")
    p.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"))
    p.add_argument("--suite", help="with --compare: only the honest candidates of this suite")
    p.add_argument("--limit", type=float, default=0.03, help="with --compare: allowed slowdown (0.03)")
    args = p.parse_args()
    try:
        if args.compare:
            return compare(args)
        if not args.suite_dir:
            p.error("SUITE_DIR is required")
        if args.headers:
            return headers(args)
        if not args.results:
            p.error("at least one RESULTS.jsonl is required")
        return check(args)
    except HeaderError as err:
        print(err, file=sys.stderr)
        print("headers: not well formed", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
