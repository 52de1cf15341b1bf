#!/usr/bin/env python3
"""Issue 33, item 6, with the real analyzer and `cudaperf-eval --compile-only` (nvcc, no GPU): the
two static-only reproducers on data/tasks/transpose, before (the provisional term's
`uncapped_total`) and after, and completions through --batch.

  static_only_test.py --reward build/bin/cudaperf-reward --eval build/bin/cudaperf-eval \
      --analyzer build/bin/cudaperf-analyze --root .

Exit 0 all checks passed, 1 a check failed, 77 skipped (no nvcc)."""
import argparse
import json
import os
import shutil
import subprocess
import sys

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reward", required=True)
    ap.add_argument("--eval", required=True)
    ap.add_argument("--analyzer", required=True)
    ap.add_argument("--root", required=True)
    args = ap.parse_args()
    if not shutil.which("nvcc", path=os.environ.get("PATH", "") + ":/usr/local/cuda/bin"):
        print("skipped: no nvcc")
        return 77
    task = os.path.join(args.root, "data", "tasks", "transpose")
    here = os.path.join(args.root, "test", "reward", "static-only")
    base = [args.reward, "--static-only", "--eval", args.eval, "--analyzer", args.analyzer]
    config = json.loads(subprocess.run([args.reward, "--print-config"], capture_output=True, text=True,
                                       check=True).stdout)
    s = config["structural"]
    lowest_correct = (config["correct"] - config["speedup"]["weight"] - s["divergent_barrier_penalty"]
                      - s["missing_barrier_penalty"] - config["learned"]["weight"])

    def reward(path):
        r = subprocess.run(base + ["--format", "jsonl", task, path], capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            raise SystemExit("cudaperf-reward failed on %s: %s" % (path, r.stderr))
        return json.loads(r.stdout)

    docs = {name: reward(path) for name, path in [
        ("tiled", os.path.join(task, "impls", "tiled.cu")), ("baseline", os.path.join(task, "impls", "baseline.cu")),
        ("copy_wrong", os.path.join(here, "copy_wrong.cu")), ("empty", os.path.join(here, "empty.cu")),
        ("returns_early", os.path.join(here, "returns_early.cu")), ("shared_only", os.path.join(here, "shared_only.cu"))]}
    print("%-14s %-8s %-12s %s" % ("candidate", "gate", "before", "after (provisional)"))
    for name, d in docs.items():
        before = next((t["inputs"]["uncapped_total"] for t in d["terms"] if t["name"] == "provisional"), None)
        print("%-14s %-8s %-12s %.4f %s" % (name, d["gate"], "%.4f" % before if before is not None else "-",
                                             d["total"], d.get("provisional")))
    for name in ("tiled", "baseline", "copy_wrong"):
        d = docs[name]
        check(d["gate"] is None and d["provisional"] is True and d["total"] < lowest_correct,
              "%s: provisional, %.4f below the lowest correct total %.4f" % (name, d["total"], lowest_correct))
    for name in ("empty", "returns_early", "shared_only"):
        check(docs[name]["gate"] == "no_work", "%s: gate no_work (%s)" % (name, docs[name].get("gate_reason")))
    check(docs["empty"]["total"] < docs["baseline"]["total"], "the empty entry point below the correct baseline")

    # Completions through --batch: prose and a ```cuda block; none at all.
    tiled = open(os.path.join(task, "impls", "tiled.cu")).read()
    lines = [json.dumps({"id": "block", "task": task,
                         "completion": "Tiling fixes the strided writes.\n```cuda\n" + tiled + "```\nDone."}),
             json.dumps({"id": "prose", "task": task, "completion": "I would tile it."})]
    r = subprocess.run(base + ["--batch"], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=600)
    records = {rec["id"]: rec for rec in map(json.loads, r.stdout.splitlines())}
    check(records.get("block", {}).get("total") == docs["tiled"]["total"],
          "--batch: a completion's code block gets the reward of the same file (%s)" % records.get("block"))
    check(records.get("prose", {}).get("reward", {}).get("gate") == "no_code_block",
          "--batch: a completion without a block is no_code_block")
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
