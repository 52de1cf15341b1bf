#!/usr/bin/env python3
"""cudaperf-bench as a program (docs/bench.md): scoring the stored H200 results of the shipped
implementations (figures recomputed here independently from the JSON Lines), a run through a fake
evaluator with K samples and turns, and the exit codes of bad input.

    bench_cli_test.py --bench build/bin/cudaperf-bench --root REPO
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print(f"FAIL: {what}", file=sys.stderr)


def run(bench, *args):
    p = subprocess.run([bench, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def near(a, b, tol=1e-9):
    return a is not None and b is not None and abs(a - b) <= tol * max(1.0, abs(b))


def independent_figures(results_path, suite_path, root):
    """fast_1 against the baseline and eager, strict and spread-aware, and correctness, from the raw results."""
    suite = json.load(open(suite_path))
    tasks = {}
    for d in suite["tasks"]:
        t = json.load(open(os.path.join(root, d, "task.json")))
        tasks[t["name"]] = {"kind": t["kind"], "samples": {}}
    for line in open(results_path):
        r = json.loads(line)
        name = os.path.splitext(os.path.basename(r["candidate"]))[0]
        tasks[r["task"]]["samples"][name] = r
    def speedup(r, key):
        logs, margins = [], []
        for c in r["configs"]:
            ref, cand = c.get(key), c["candidate"]
            if not ref:
                return None
            spread = lambda t: (t["p90_ms"] - t["p10_ms"]) / t["median_ms"]
            logs.append(math.log(ref["median_ms"] / cand["median_ms"]))
            margins.append((spread(ref) + spread(cand)) / 2)
        return math.exp(sum(logs) / len(logs)), sum(margins) / len(margins)
    fig = {}
    correct = []
    for ref, key in (("baseline", "baseline"), ("eager", "pytorch_eager")):
        fast, strict, logs = [], [], []
        for t in tasks.values():
            if key == "pytorch_eager" and t["kind"] != "pytorch-to-cuda":
                continue
            n = max(1, len(t["samples"]))  # a task without results is one missing sample
            f = s = 0
            for r in t["samples"].values():
                if r["outcome"] != "ok":
                    continue
                v, m = speedup(r, key)
                f += v > 1 * (1 + m)
                s += v > 1
                logs.append(math.log(v))
            fast.append(f / n)
            strict.append(s / n)
        fig[f"{ref}.fast_1"] = sum(fast) / len(fast)
        fig[f"{ref}.fast_1.strict"] = sum(strict) / len(strict)
        fig[f"{ref}.geomean_speedup"] = math.exp(sum(logs) / len(logs))
    for t in tasks.values():
        n = max(1, len(t["samples"]))
        correct.append(sum(r["outcome"] == "ok" for r in t["samples"].values()) / n)
    fig["correctness"] = sum(correct) / len(correct)
    return fig


def test_stored_results(bench, root, tmp):
    results = os.path.join(root, "data/eval-runs/2026-11-29-h200-tasks/tasks-eval.jsonl")
    suite = os.path.join(root, "data/suites/shipped.json")
    out = os.path.join(tmp, "stored")
    rc, stdout, stderr = run(bench, "--results", results, "--suite", suite, "--out", out, "--resamples", "200")
    check(rc == 0, f"--results on stored results: rc {rc}: {stderr}")
    if rc != 0:
        return
    doc = json.load(open(os.path.join(out, "bench.json")))
    check(doc["schema"] == "cudaperf-bench/1", "bench.json schema")
    figures = doc["summary"]["figures"]
    for key, value in independent_figures(results, suite, root).items():
        got = figures[key]["value"]
        check(near(got, value), f"stored results: {key} = {got}, recomputed {value}")
        lo, hi = figures[key]["ci"]
        check(lo is not None and lo <= got + 1e-12 and got <= hi + 1e-12, f"{key}: interval [{lo}, {hi}] around {got}")
    # Identical code against itself: every baseline.cu is a near-tie with its own baseline timing.
    ties = [c for t in doc["tasks"] for c in t["candidates"] if c["sample"] == "baseline" and c["correct"]]
    check(len(ties) == 27, f"27 baselines scored as their own candidates, got {len(ties)}")
    check(all(not c["speedups"]["baseline"]["faster_at"] for c in ties), "no baseline is faster than itself")
    check(sum(c["speedups"]["baseline"]["value"] > 1 for c in ties) >= 5,
          "a strict speedup > 1 would have counted several baselines as faster than themselves")
    check(doc["timing_conventions"]["candidate_and_baseline"]["ok_results_audited_in_every_config"] == 35,
          "every stored ok result carries its audit")
    for name in ("bench.md", "fast_p.svg", "speedups.svg"):
        text = open(os.path.join(out, name)).read()
        check(len(text) > 500, f"{name} written")
    check("| baseline | 35 |" in stdout, "the speedup table on stdout")
    # The same seed gives the same intervals.
    rc2, _, _ = run(bench, "--results", results, "--suite", suite, "--out", out + "2", "--resamples", "200")
    doc2 = json.load(open(os.path.join(out + "2", "bench.json")))
    check(doc2["summary"] == doc["summary"], "a second run with the same seed gives the same figures")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def task_json(name):
    return json.dumps({"name": name, "kind": "c-to-cuda", "entry": name, "args": [],
                       "configs": [{"name": "small"}, {"name": "large"}]})


def test_fake_run(bench, root, tmp):
    """Two tasks, --samples 3, turns: hand-computed figures from the fake evaluator's answers."""
    d = os.path.join(tmp, "fake")
    for t in ("a", "b"):
        write(f"{d}/tasks/{t}/task.json", task_json(t))
        write(f"{d}/tasks/{t}/impls/baseline.cu", "")
    write(f"{d}/suite.json", json.dumps({"schema": "cudaperf-suite/1", "name": "fake", "tasks": ["tasks/a", "tasks/b"],
                                        "disallowed_libraries": ["cublas"]}))
    c = f"{d}/cands"
    write(f"{c}/a/0/turn1.cu", "// fake: wrong_answer\n")
    write(f"{c}/a/0/turn2.cu", "// fake: ok 0.5\n")         # 2x at turn 2
    write(f"{c}/a/1.cu", "// fake: ok 1.0\n")               # a tie
    write(f"{c}/a/2.cu", "// fake: ok 0.25\n#include <cublas_v2.h>\n")  # 4x, but disallowed
    write(f"{c}/b/0.cu", "// fake: timing_violation\n")
    write(f"{c}/b/1.cu", "// fake: ok 0.8\n")               # 1.25x; sample 2 missing
    out = f"{d}/out"
    rc, stdout, stderr = run(bench, "--suite", f"{d}/suite.json", "--candidates", c, "--samples", "3",
                             "--eval", os.path.join(root, "test/bench/fake-eval.py"), "--out", out,
                             "--eval-arg=--configs=small,large", "--jobs", "3", "--resamples", "0")
    check(rc == 0, f"fake run: rc {rc}: {stderr}")
    if rc != 0:
        return
    argv = json.load(open(f"{out}/results.jsonl.argv"))
    check("--configs=small,large" in argv and argv[argv.index("--jobs") + 1] == "3", f"evaluator argv {argv}")
    doc = json.load(open(f"{out}/bench.json"))
    f = doc["summary"]["figures"]
    # a: samples 0 (ok at turn 2), 1 (ok, tie), 2 (disallowed) -> 2 of 3; b: 1 of 3.
    check(near(f["correctness"]["value"], (2 / 3 + 1 / 3) / 2), f"correctness {f['correctness']}")
    check(near(f["baseline.fast_1"]["value"], (1 / 3 + 1 / 3) / 2), f"fast_1 {f['baseline.fast_1']}")
    check(near(f["baseline.fast_1.5"]["value"], (1 / 3 + 0) / 2), f"fast_1.5 {f['baseline.fast_1.5']}")
    check(near(f["pass@3"]["value"], 1.0), "pass@3")
    check(near(f["pass@2"]["value"], (1 + (1 - 1 / 3)) / 2), f"pass@2 {f['pass@2']}")
    turn1 = doc["turns"][0]["figures"]
    check(near(turn1["correctness"]["value"], (1 / 3 + 1 / 3) / 2), f"turn 1 correctness {turn1['correctness']}")
    check(doc["outcomes"] == {"disallowed_library": 1, "missing": 1, "ok": 3, "timing_violation": 1,
                              "wrong_answer": 1}, f"outcomes {doc['outcomes']}")
    md = open(f"{out}/bench.md").read()
    check("## Per turn" in md, "per-turn table for two turns")


def test_bad_input(bench, root, tmp):
    d = os.path.join(tmp, "bad")
    write(f"{d}/tasks/a/task.json", task_json("a"))
    write(f"{d}/suite.json", json.dumps({"schema": "cudaperf-suite/1", "name": "s", "tasks": ["tasks/a"]}))
    write(f"{d}/missing.json", json.dumps({"schema": "cudaperf-suite/1", "name": "s", "tasks": ["tasks/a", "tasks/gone"]}))
    write(f"{d}/unknown/zzz.cu", "")
    os.makedirs(f"{d}/empty", exist_ok=True)
    write(f"{d}/bad.jsonl", "not json\n")
    write(f"{d}/a.cu", "")
    cases = [
        ((), 2, "give --suite"),
        (("--suite", f"{d}/suite.json", "--candidates", f"{d}/empty", "--bogus"), 2, "unknown option '--bogus'"),
        (("--suite", f"{d}/suite.json", "--candidates", f"{d}/empty", "--samples", "0"), 2, "--samples"),
        (("--suite", f"{d}/missing.json", "--candidates", f"{d}/unknown"), 3, "no such task directory"),
        (("--suite", f"{d}/suite.json", "--candidates", f"{d}/unknown"), 4, "a candidate for \"zzz\""),
        (("--suite", f"{d}/suite.json", "--candidates", f"{d}/empty"), 4, "no candidates"),
        (("--suite", f"{d}/suite.json", "--candidates", f"{d}/nowhere"), 4, "no such candidate directory"),
        (("--results", f"{d}/bad.jsonl", "--suite", f"{d}/suite.json"), 5, "bad.jsonl:1:2: not JSON"),
        (("--suite", f"{d}/suite.json", "--candidates", f"{d}/only", "--eval", "/nonexistent/eval",
          "--out", f"{d}/o"), 1, "cannot be run"),
    ]
    write(f"{d}/only/a.cu", "")
    for args, want, text in cases:
        rc, _, stderr = run(bench, *args)
        check(rc == want, f"{' '.join(args) or '(no arguments)'}: exit {rc}, expected {want}: {stderr.strip()[:200]}")
        check(text in stderr, f"{' '.join(args) or '(no arguments)'}: stderr lacks {text!r}: {stderr.strip()[:200]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--root", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        test_stored_results(args.bench, args.root, tmp)
        test_fake_run(args.bench, args.root, tmp)
        test_bad_input(args.bench, args.root, tmp)
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        return 1
    print("all cudaperf-bench command-line checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
