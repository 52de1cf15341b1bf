#!/usr/bin/env python3
"""scripts/dataset-report.py (the measured side of docs/dataset.md).

1. Synthetic shards over a small generated dataset (axpy, two tasks), with the speeds chosen here so that every
   figure is worked out by hand below: a stale result superseded by a later shard, an implementation measured
   twice while current (counted once, the newest result; the two runs' agreement), the spread within tasks and the
   `fast` implementations' wins.
2. The stored H200 shards (data/measured/dataset-h200/): docs/dataset.md's report section is what the script makes
   from them now, and so are its two figures (a shard committed without `--write-doc` fails here).
3. Bad input: a missing results file, a line that is not JSON: exit 2 with the file named.

Usage: test_dataset_report.py --dataset-tool build/bin/cudaperf-dataset
"""
import argparse
import hashlib
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from script_checks import ROOT, check, finish, run_python  # noqa: E402
SCRIPT = os.path.join(ROOT, "scripts", "dataset-report.py")


def run(*args):
    return run_python(SCRIPT, args, timeout=300)


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def result(ds, task_dir, task, impl, speed, digest=None):
    """speed: over the baseline at both configurations, or (small, large)."""
    small, large = speed if isinstance(speed, tuple) else (speed, speed)
    return {"dataset_task": task, "dataset_impl": impl, "outcome": "ok",
            "candidate_sha256": digest or sha(os.path.join(ds, task_dir, "impls", impl)),
            "configs": [{"name": "small", "speedup_vs_baseline": small}, {"name": "large", "speedup_vs_baseline": large}],
            "worker": {"seconds": 1.5, "stage_seconds": {"counters": 1.25}}}


def synthetic(tool, tmp):
    ds = os.path.join(tmp, "ds")
    subprocess.run([tool, "generate", "--out", ds, "--families", "axpy", "--limit", "2", "--quiet"], check=True,
                   timeout=120)
    manifest = [json.loads(line) for line in open(os.path.join(ds, "manifest.jsonl"))]
    by_task = {e["task"]: e for e in manifest}
    t0, t1 = by_task["axpy_000"], by_task["axpy_001"]
    names0 = [os.path.basename(i["file"]) for i in t0["implementations"]]
    names1 = [os.path.basename(i["file"]) for i in t1["implementations"]]
    fast0 = [os.path.basename(i["file"]) for i in t0["implementations"] if i["expected"] == "fast"]
    fast1 = [os.path.basename(i["file"]) for i in t1["implementations"] if i["expected"] == "fast"]
    base0 = [os.path.basename(i["file"]) for i in t0["implementations"] if i["baseline"]][0]
    base1 = [os.path.basename(i["file"]) for i in t1["implementations"] if i["baseline"]][0]
    check(len(names0) == 4 and len(names1) == 4 and len(fast0) == 1 and len(fast1) == 1,
          f"the axpy tasks have 4 implementations and one 'fast' each ({names0}, {names1})")
    others0 = [n for n in names0 if n != base0 and n not in fast0]
    others1 = [n for n in names1 if n != base1 and n not in fast1]
    # Shard A: axpy_000 measured (baseline 1, fast 2.0, the others 0.5 and 1.05); one result of axpy_001 of a file
    # the generator no longer makes (stale until shard B measures it again).
    a = {base0: 1.0, fast0[0]: 2.0, others0[0]: 0.5, others0[1]: 1.05}
    # Shard B: axpy_000 again (fast 2.2, the last one 0.95: it and the baseline change order, 5% apart in A);
    # axpy_001 whole and current (baseline 1, fast 0.5 at small and 1.5 at large: slower over both, faster at the
    # largest; the others 0.25 and 1.0).
    b0 = {base0: 1.0, fast0[0]: 2.2, others0[0]: 0.5, others0[1]: 0.95}
    b1 = {base1: 1.0, fast1[0]: (0.5, 1.5), others1[0]: 0.25, others1[1]: 1.0}
    shard_a = [result(ds, t0["dir"], "axpy_000", n, s) for n, s in a.items()]
    shard_a.append(result(ds, t1["dir"], "axpy_001", base1, 1.0, digest="0" * 64))
    shard_b = [result(ds, t0["dir"], "axpy_000", n, s) for n, s in b0.items()]
    shard_b += [result(ds, t1["dir"], "axpy_001", n, s) for n, s in b1.items()]
    paths = []
    for name, rows in (("results-20260101T000000.jsonl", shard_a), ("results-20260102T000000.jsonl", shard_b)):
        paths.append(os.path.join(tmp, name))
        with open(paths[-1], "w") as f:
            f.write("".join(json.dumps(r) + "\n" for r in rows))

    # With only shard A, axpy_001 is stale and left out.
    p = run("--results", paths[0], "--manifest", os.path.join(ds, "manifest.jsonl"))
    check(p.returncode == 0, f"shard A alone: exit {p.returncode}: {p.stderr}")
    check("Stale (left out" in p.stdout and "`axpy_001`" in p.stdout, "shard A alone: axpy_001 named stale")
    check("1 of them as the generator makes them now (4 distinct implementations)" in p.stdout,
          "shard A alone: one current task of 4 implementations")

    figs = os.path.join(tmp, "figures")
    p = run("--results", *paths, "--manifest", os.path.join(ds, "manifest.jsonl"), "--svg-dir", figs)
    check(p.returncode == 0, f"both shards: exit {p.returncode}: {p.stderr}")
    out = p.stdout
    check("2 tasks measured in 2 shards, 13 implementations; 2 of them as the generator makes them now "
          "(8 distinct implementations)" in out, "both shards: 13 stored, 8 distinct current implementations")
    check("Stale (left out" not in out, "both shards: nothing stale")
    check("Measured again after a generator fix: 1 task" in out and "`axpy_001` (older: ok 1)" in out,
          "both shards: axpy_001's old result superseded")
    check("Measured twice: 4 results of 1 tasks" in out, "both shards: axpy_000's four results measured twice")
    # Agreement, by hand: |log(B/A)| = 0, log 1.1, 0, log(1.05/0.95); median of the four = the mean of the middle
    # two, the 90th percentile the largest (index int(0.9 * 4) = 3).
    ratios = sorted([0.0, math.log(1.1), 0.0, math.log(1.05 / 0.95)])
    median, p90 = math.exp((ratios[1] + ratios[2]) / 2), math.exp(ratios[3])
    check(f"within a factor of {median:.3f} at the median and {p90:.3f} at the 90th percentile" in out,
          f"agreement factors {median:.3f} / {p90:.3f}")
    # 6 pairs; only baseline vs the 1.05/0.95 one changes order, and it is the one pair not more than 10% apart.
    check("5 of 6 pairs of implementations in the same order (5 of 5 of the pairs more than 10% apart" in out,
          "pairs in the same order: 5 of 6, 5 of 5 clear")
    check("the fastest the same in 1 of 1 tasks" in out, "fastest the same in 1 of 1")
    # Newest results: axpy_000 best/worst 2.2 / 0.5 = 4.4, axpy_001 1.0 / 0.25 = 4 (the fast one's geometric mean
    # is sqrt(0.75)); median 4.2.
    check("median 4.20x over 2 tasks" in out, "spread: median 4.20x over 2 tasks")
    check("| axpy | 2 | 4.20x |" in out, "spread per family")
    check("in 1 of 2 measurements, and at the task's largest configuration (the last in the manifest) in 2;" in out,
          "the fast implementations: 1 of 2 faster over both configurations, 2 of 2 at the largest (counted once each)")
    # The shard table counts what each shard holds.
    check(re.search(r"\| `results-20260101T000000.jsonl` \| 2 \| 5 \| 1.50 \| 1.25 \|", out) is not None, "shard A row")
    check(re.search(r"\| `results-20260102T000000.jsonl` \| 2 \| 8 \| 1.50 \| 1.25 \|", out) is not None, "shard B row")

    # The figures: one circle per task in the spread plot (and one family row), one per implementation measured
    # twice in the repeat plot; both parse as XML and are linked from the report.
    ns = "{http://www.w3.org/2000/svg}"
    for name, circles in (("dataset-spread.svg", 2), ("dataset-repeat.svg", 4)):
        path = os.path.join(figs, name)
        check(os.path.isfile(path), f"{name} written")
        if os.path.isfile(path):
            found = len(ET.parse(path).getroot().findall(f"{ns}circle"))
            check(found == circles, f"{name}: {found} circles, expected {circles}")
        check(f"]({name})" in out, f"the report links {name}")

    # --measured-tasks (what scripts/gpu/measure-dataset.sh skips): both tasks after both shards; with a third shard
    # whose newest result of one axpy_000 file is not ok, axpy_000 is handed back to be measured again.
    manifest = os.path.join(ds, "manifest.jsonl")
    p = run("--results", *paths, "--manifest", manifest, "--measured-tasks")
    check(p.returncode == 0 and p.stdout.split() == ["axpy_000", "axpy_001"] and not p.stderr,
          f"--measured-tasks: both ({p.returncode} {p.stdout!r} {p.stderr!r})")
    failed = dict(result(ds, t0["dir"], "axpy_000", fast0[0], 1.0), outcome="wrong_answer")
    paths.append(os.path.join(tmp, "results-20260103T000000.jsonl"))
    with open(paths[-1], "w") as f:
        f.write(json.dumps(failed) + "\n")
    p = run("--results", *paths, "--manifest", manifest, "--measured-tasks")
    check(p.returncode == 0 and p.stdout.split() == ["axpy_001"] and "measured again (not ok): axpy_000" in p.stderr,
          f"--measured-tasks: a newest result not ok hands its task back ({p.stdout!r} {p.stderr!r})")
    # A manifest of fewer tasks (generated with --families or --limit): the others are not named stale.
    one = os.path.join(ds, "manifest-one.jsonl")  # beside the task folders its paths are relative to
    with open(one, "w") as f:
        f.write(json.dumps(t1) + "\n")
    p = run("--results", *paths[:2], "--manifest", one, "--measured-tasks")
    check(p.returncode == 0 and p.stdout.split() == ["axpy_001"] and "stale" not in p.stderr
          and "changed" not in p.stderr, f"--measured-tasks, one task's manifest: {p.stdout!r} {p.stderr!r}")
    paths.pop()

    # Bad input.
    p = run("--results", os.path.join(tmp, "missing.jsonl"), "--summary")
    check(p.returncode == 2 and "missing.jsonl: no such results file" in p.stderr, f"missing file: {p.returncode} {p.stderr}")
    bad = os.path.join(tmp, "bad.jsonl")
    with open(bad, "w") as f:
        f.write(json.dumps(shard_a[0]) + "\n{not json\n")
    p = run("--results", bad, "--summary")
    check(p.returncode == 2 and "bad.jsonl:2: not JSON" in p.stderr, f"bad line: {p.returncode} {p.stderr}")


def stored(tool):
    doc = open(os.path.join(ROOT, "docs", "dataset.md")).read()
    begin = doc.index("<!-- BEGIN dataset-report")
    section = doc[doc.index("\n", begin) + 1:doc.index("<!-- END dataset-report -->")]
    with tempfile.TemporaryDirectory(prefix="dataset-report-figures-") as figs:
        p = run("--dataset-tool", tool, "--svg-dir", figs)
        for name in sorted(os.listdir(figs)):
            committed = os.path.join(ROOT, "docs", name)
            check(os.path.isfile(committed) and open(committed).read() == open(os.path.join(figs, name)).read(),
                  f"docs/{name} is what scripts/dataset-report.py makes now: run it with --write-doc")
    check(p.returncode == 0, f"stored shards: exit {p.returncode}: {p.stderr[-500:]}")
    check(p.stdout.rstrip("\n") == section.rstrip("\n"),
          "docs/dataset.md's report section is what scripts/dataset-report.py makes from data/measured/dataset-h200 "
          "now: run scripts/dataset-report.py --write-doc")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset-tool", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="dataset-report-test-") as tmp:
        synthetic(args.dataset_tool, tmp)
    stored(args.dataset_tool)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
