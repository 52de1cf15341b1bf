#!/usr/bin/env python3
"""Replays the stored H200 runs of scripts/gpu/bench.sh (data/eval-runs/*-h200-bench*/):

- the shipped implementations' results (shipped-results.jsonl) scored again with cudaperf-bench --results
  must give the figures the GPU host wrote (bench.json), and every KernelBench problem must be imported or
  refused with a reason;
- the step policy's results (policy-<label>-results.jsonl: the SFT and RL policies' candidates) scored again
  over each eval set's suite (policy/suite-<set>.json in bench-outputs.tar.gz, on a dataset generated here
  with cudaperf-dataset, as the GPU host did) must give the figures of the GPU host's
  policy-<label>-<set>/bench.json, every figure and every turn; their correctness must be the RL run's own
  evaluation's (its eval.jsonl, where that run is stored); and where docs/benchmarks.md names the run, its
  table rows (policy_rows below; --print-policy-rows prints them) must be there verbatim.

Exits 77 (skipped) while no run is stored.

    replay_stored_runs.py --bench build/bin/cudaperf-bench --root REPO [--dataset-tool build/bin/cudaperf-dataset]
"""
import argparse
import glob
import json
import math
import os
import subprocess
import sys
import tarfile
import tempfile

POLICY_LABELS = {"before": "SFT (before RL)", "after": "after RL"}
# The columns of docs/benchmarks.md's policy tables: figure key, digits (as cudaperf-bench's bench.md), interval.
POLICY_COLUMNS = [("correctness", 3, True), ("baseline.fast_0", 2, True), ("baseline.fast_1", 2, True),
                  ("baseline.fast_1.2", 2, True), ("baseline.fast_1.5", 2, True), ("baseline.fast_2", 2, True),
                  ("baseline.fast_1.strict", 2, False), ("baseline.geomean_speedup", 2, True),
                  ("baseline.median_speedup", 2, True)]
POLICY_HEADER = ("| policy | eval set (tasks) | turns | correct | fast_0 | fast_1 | fast_1.2 | fast_1.5 | fast_2 | "
                 "fast_1 strict | geomean speedup | median speedup |\n"
                 "|---|---|---|---|---|---|---|---|---|---|---|---|")


def same(a, b):
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def compare_figures(now, then, where, failures):
    for key, fig in then.items():
        if key not in now:
            failures.append(f"{where}: figure {key} is no longer computed")
        elif not same(now[key]["value"], fig["value"]) or not all(map(same, now[key]["ci"], fig["ci"])):
            failures.append(f"{where}: {key} = {now[key]} now, {fig} on the GPU host")
    return len(then)


def cell(fig, digits, interval):
    """A figure as cudaperf-bench's bench.md writes it: "0.25 [0.08, 0.50]", "–" without a value."""
    v = fig["value"] if fig else None
    if v is None or not math.isfinite(v):
        return "–"
    s = f"{v:.{digits}f}"
    lo, hi = fig["ci"]
    if interval and lo is not None and math.isfinite(lo):
        s += f" [{lo:.{digits}f}, {hi:.{digits}f}]"
    return s


def policy_rows(label, eval_set, report):
    """docs/benchmarks.md's rows of one label and eval set: turn 1 alone and the best of turns 1..T."""
    tasks = report["summary"]["tasks"]
    who = POLICY_LABELS.get(label, label)
    parts = [("1", report["turns"][0]["figures"])] if report["turns"] else []
    last = report["candidates"]["turns"]
    parts.append((f"best of 1–{last}" if last > 1 else "1", report["summary"]["figures"]))
    rows = []
    for turns, figs in parts:
        cells = [cell(figs.get(k), d, ci) for k, d, ci in POLICY_COLUMNS]
        rows.append(f"| {who} | {eval_set} ({tasks}) | {turns} | " + " | ".join(cells) + " |")
    return rows


def extract(archive, wanted, into):
    """The members of a tar.gz whose name `wanted` accepts, written under into (no other member, no path
    outside it); their names."""
    got = []
    with tarfile.open(archive) as tar:
        for m in tar.getmembers():
            if m.isfile() and wanted(m.name) and ".." not in m.name.split("/") and not m.name.startswith("/"):
                dest = os.path.join(into, m.name)
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                with tar.extractfile(m) as src, open(dest, "wb") as out:
                    out.write(src.read())
                got.append(m.name)
    return got


def replay_policy(run, args, failures, docs, rows_out):
    archive = os.path.join(run, "bench-outputs.tar.gz")
    if not os.path.exists(archive):
        failures.append(f"{run}: policy results without bench-outputs.tar.gz (the suites and the GPU host's bench.json)")
        return
    def wanted(n):
        return (n == "policy/policy-candidates.json" or (n.startswith("policy/suite-") and n.endswith(".json")) or
                (n.startswith("policy-") and n.endswith("/bench.json")))
    with tempfile.TemporaryDirectory() as tmp:
        extract(archive, wanted, tmp)
        listing_path = os.path.join(tmp, "policy", "policy-candidates.json")
        if not os.path.exists(listing_path):
            failures.append(f"{run}: bench-outputs.tar.gz has no policy/policy-candidates.json")
            return
        listing = json.load(open(listing_path))
        suites = sorted(glob.glob(os.path.join(tmp, "policy", "suite-*.json")))
        if not suites:
            failures.append(f"{run}: bench-outputs.tar.gz has no policy/suite-*.json")
            return
        # The suites' root is the dataset beside policy/ (policy-candidates.py --dataset); only their families.
        families = set()
        for s in suites:
            for t in json.load(open(s))["tasks"]:
                families.add((t["dir"] if isinstance(t, dict) else t).split("/")[1])
        if not args.dataset_tool:
            print(f"{run}: no cudaperf-dataset (--dataset-tool): the policy results are not replayed")
            return
        gen = subprocess.run([args.dataset_tool, "generate", "--out", os.path.join(tmp, "dataset"), "--quiet",
                              "--families", ",".join(sorted(families))], capture_output=True, text=True, timeout=120)
        if gen.returncode != 0:
            failures.append(f"{run}: cudaperf-dataset generate exited {gen.returncode}: {gen.stderr[-500:]}")
            return
        # The RL run's own evaluation, where that run is stored: label -> {set: summary}.
        rl_run = os.path.basename(os.path.dirname(listing["input"])) if listing["input"].endswith(".gz") or \
            listing["input"].endswith(".jsonl") else os.path.basename(listing["input"])
        rl_eval_path = os.path.join(args.root, "data", "eval-runs", rl_run, "eval.jsonl")
        rl_eval = {}
        if os.path.exists(rl_eval_path):
            for line in open(rl_eval_path):
                doc = json.loads(line)
                rl_eval.setdefault(doc["label"], doc["sets"])
        else:
            print(f"{run}: {rl_eval_path} not stored: correctness not compared with the RL run's evaluation")
        documented = os.path.basename(run) in docs
        replayed = 0
        for label, L in listing["labels"].items():
            results = os.path.join(run, f"policy-{label}-results.jsonl")
            if not os.path.exists(results):
                failures.append(f"{run}: label {label} has candidates but no policy-{label}-results.jsonl")
                continue
            for suite in suites:
                eval_set = os.path.basename(suite)[len("suite-"):-len(".json")]
                stored = os.path.join(tmp, f"policy-{label}-{eval_set}", "bench.json")
                where = f"{run}: policy {label}, {eval_set}"
                if not os.path.exists(stored):
                    failures.append(f"{where}: no policy-{label}-{eval_set}/bench.json in bench-outputs.tar.gz")
                    continue
                out = os.path.join(tmp, f"replay-{label}-{eval_set}")
                cmd = [args.bench, "--results", results, "--suite", suite, "--turns", str(L["turns"]), "--out", out]
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
                if p.returncode != 0:
                    failures.append(f"{where}: cudaperf-bench exited {p.returncode}: {p.stderr[-500:]}")
                    continue
                now = json.load(open(os.path.join(out, "bench.json")))
                then = json.load(open(stored))
                replayed += compare_figures(now["summary"]["figures"], then["summary"]["figures"], where, failures)
                if len(now["turns"]) != len(then["turns"]):
                    failures.append(f"{where}: {len(now['turns'])} turns now, {len(then['turns'])} on the GPU host")
                for a, b in zip(now["turns"], then["turns"]):
                    replayed += compare_figures(a["figures"], b["figures"], f"{where}, turn {b['turn']}", failures)
                if now["outcomes"] != then["outcomes"]:
                    failures.append(f"{where}: outcomes {now['outcomes']} now, {then['outcomes']} on the GPU host")
                # The RL run's evaluator counted correctness per task from the same candidates: turn 1 and best of T.
                rl = rl_eval.get(label, {}).get(eval_set)
                if rl:
                    pairs = [("tasks", now["summary"]["tasks"], rl["tasks"]),
                             ("turn 1 correct", now["turns"][0]["figures"]["correctness"]["value"], rl["turn1"]["correct"]),
                             ("best-of-turns correct", now["summary"]["figures"]["correctness"]["value"],
                              rl["best_of_turns"]["correct"])]
                    for what, mine, theirs in pairs:
                        if not same(float(mine), float(theirs)):
                            failures.append(f"{where}: {what} {mine} here, {theirs} in {rl_eval_path}")
                rows = policy_rows(label, eval_set, now)
                rows_out.extend(rows)
                if documented:
                    for row in rows:
                        if row not in docs:
                            failures.append(f"{where}: docs/benchmarks.md names {os.path.basename(run)} but lacks "
                                            f"the row\n  {row}")
        print(f"{run}: {replayed} policy figures replayed over {len(suites)} eval sets"
              + (", docs/benchmarks.md rows checked" if documented else ", not named in docs/benchmarks.md"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--dataset-tool", default="", help="cudaperf-dataset, for the policy runs' tasks")
    ap.add_argument("--print-policy-rows", action="store_true", help="print the policy tables' rows")
    args = ap.parse_args()
    runs = sorted(glob.glob(os.path.join(args.root, "data", "eval-runs", "*-h200-bench*")))
    if not runs:
        print("no stored cudaperf-bench run (data/eval-runs/*-h200-bench*): skipped")
        return 77
    docs_path = os.path.join(args.root, "docs", "benchmarks.md")
    docs = open(docs_path).read() if os.path.exists(docs_path) else ""
    failures, rows = [], []
    for run in runs:
        results = os.path.join(run, "shipped-results.jsonl")
        stored = os.path.join(run, "bench.json")
        if os.path.exists(results) and os.path.exists(stored):
            cmd = [args.bench, "--results", results, "--suite", os.path.join(args.root, "data/suites/shipped.json")]
            timings = os.path.join(run, "torch-timings.jsonl")
            if os.path.exists(timings) and os.path.getsize(timings):
                cmd += ["--torch-timings", timings]
            with tempfile.TemporaryDirectory() as out:
                p = subprocess.run(cmd + ["--out", out], capture_output=True, text=True, timeout=300)
                if p.returncode != 0:
                    failures.append(f"{run}: cudaperf-bench exited {p.returncode}: {p.stderr[-500:]}")
                    continue
                now = json.load(open(os.path.join(out, "bench.json")))["summary"]["figures"]
            then = json.load(open(stored))["summary"]["figures"]
            compare_figures(now, then, run, failures)
            print(f"{run}: {len(then)} figures replayed")
        report = os.path.join(run, "kernelbench-import.json")
        if os.path.exists(report):
            kb = json.load(open(report))
            for p in kb["problems"]:
                if p["outcome"] != "imported" and not p["reason"].strip():
                    failures.append(f"{run}: {p['task']} refused without a reason")
            print(f"{run}: {sum(p['outcome'] == 'imported' for p in kb['problems'])} of {len(kb['problems'])} "
                  "KernelBench problems imported, every refusal with its reason")
        if glob.glob(os.path.join(run, "policy-*-results.jsonl")):
            replay_policy(run, args, failures, docs, rows)
    if args.print_policy_rows and rows:
        print(POLICY_HEADER)
        print("\n".join(rows))
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
