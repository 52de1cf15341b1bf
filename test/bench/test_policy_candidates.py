#!/usr/bin/env python3
"""scripts/policy-candidates.py (ctest bench.policy-candidates): a tiny synthetic candidates.jsonl.gz of
an RL run, written out as cudaperf-bench candidate directories, checked file by file and count by count
against what the records say; the same directories scored by cudaperf-bench through the fake evaluator
(test/bench/fake-eval.py) over a synthetic dataset's test split, figures worked out by hand; and the
bad inputs, each with exit status 1, its message, and nothing written.

    test_policy_candidates.py [--bench build/bin/cudaperf-bench]
"""
import argparse
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "scripts", "policy-candidates.py")
FAKE_EVAL = os.path.join(HERE, "fake-eval.py")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def run(*args):
    p = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def record(phase, task, family, turn, source, step=0, trajectory=0, outcome="ok", n=4):
    """One cudaperf-rl-candidate/1 line as cudaperf-train writes it (the fields the script reads)."""
    r = {"schema": "cudaperf-rl-candidate/1", "phase": phase, "step": step, "task": task, "family": family,
         "group": 0, "trajectory": trajectory, "turn": turn, "outcome": outcome if source else "no_code_block",
         "correct": outcome == "ok" and bool(source), "speedup": None,
         "source_sha256": hashlib.sha256(source.encode()).hexdigest() if source else "", "source": source,
         "reward_document": {"configurations": [{"name": "small", "params": {"n": n}}]}}
    if not source:
        r["completion"] = "```"
    return r


def write_gz(path, records, raw_lines=()):
    with gzip.open(path, "wt") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
        for line in raw_lines:
            f.write(line + "\n")


# The fake evaluator reads each candidate's first line: "// fake: ok MS" (against a 1 ms baseline) or an outcome.
A1, A2_AFTER, B1, B2 = "// fake: ok 0.5\n// a 1\n", "// fake: ok 0.25\n// a 2\n", "// fake: compile_error\n", "// fake: ok 2\n"
RECORDS = [
    record("train", "t_a", "fa", 1, "// fake: ok 9\n", step=1),                    # not an evaluation: ignored
    record("eval:before:train_families", "t_a", "fa", 1, A1),
    record("eval:before:train_families", "t_a", "fa", 2, None),                     # no code block
    record("eval:before:held_out_families", "t_b", "fb", 1, B1, outcome="compile_error"),
    record("eval:before:held_out_families", "t_b", "fb", 2, B2),
    record("eval:before:held_out_families", "t_b", "fb", 2, B2),                    # the same line twice: once
    record("eval:step 10:train_families", "t_a", "fa", 1, A1, step=10),
    record("eval:after:train_families", "t_a", "fa", 1, A1, step=25),
    record("eval:after:train_families", "t_a", "fa", 2, A2_AFTER, step=25),
    record("eval:after:held_out_families", "t_b", "fb", 1, None, step=25),
    record("eval:after:held_out_families", "t_b", "fb", 2, None, step=25),          # no code in any turn
]


def make_dataset(path):
    """A dataset directory: t_a and t_b in the test split, t_c in train; each c-to-cuda with a baseline."""
    lines = []
    for task, family, split in (("t_a", "fa", "test"), ("t_b", "fb", "test"), ("t_c", "fa", "train")):
        d = os.path.join(path, "c", family, task)
        os.makedirs(os.path.join(d, "impls"))
        json.dump({"name": task, "kind": "c-to-cuda", "entry": task, "args": [],
                   "configs": [{"name": "small", "n": 4}]}, open(os.path.join(d, "task.json"), "w"))
        open(os.path.join(d, "impls", "baseline.cu"), "w").write("// baseline\n")
        lines.append({"task": task, "dir": f"c/{family}/{task}", "family": family, "kind": "c", "split": split})
    with open(os.path.join(path, "manifest.jsonl"), "w") as f:
        f.writelines(json.dumps(l) + "\n" for l in lines)


def files_under(d):
    out = []
    for base, _, names in os.walk(d):
        out += [os.path.relpath(os.path.join(base, n), d) for n in names]
    return sorted(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", help="cudaperf-bench, to score the written directories (skipped without it)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = os.path.join(tmp, "run")
        os.makedirs(run_dir)
        write_gz(os.path.join(run_dir, "candidates.jsonl.gz"), RECORDS)
        dataset = os.path.join(tmp, "dataset")
        make_dataset(dataset)

        # 1. A run directory: every label, files exactly as the records say.
        out = os.path.join(tmp, "out")
        rc, so, se = run(run_dir, out, "--dataset", dataset)
        check(rc == 0, f"the synthetic run is written (rc {rc}, stderr {se})")
        check(files_under(out) == sorted([
            "after/t_a/0/turn1.cu", "after/t_a/0/turn2.cu",
            "before/t_a/0/turn1.cu", "before/t_b/0/turn1.cu", "before/t_b/0/turn2.cu",
            "step-10/t_a/0/turn1.cu",
            "policy-candidates.json", "suite-held_out_families.json", "suite-train_families.json"]),
              f"the files written ({files_under(out)})")
        def read(*p):
            try:
                return open(os.path.join(out, *p)).read()
            except OSError:
                return None
        check(read("before", "t_a", "0", "turn1.cu") == A1 and read("after", "t_a", "0", "turn2.cu") == A2_AFTER
              and read("before", "t_b", "0", "turn2.cu") == B2, "each file is its record's source, byte for byte")
        listing = json.load(open(os.path.join(out, "policy-candidates.json")))
        check(listing.get("schema") == "cudaperf-policy-candidates/1", "the listing's schema")
        L = listing.get("labels", {})
        check(sorted(L) == ["after", "before", "step 10"], f"labels {sorted(L)}")
        b, a, s10 = L.get("before", {}), L.get("after", {}), L.get("step 10", {})
        check((b.get("tasks"), b.get("samples"), b.get("turns"), b.get("files"), b.get("files_per_turn"),
               b.get("turns_without_code"), b.get("samples_without_code")) == (2, 2, 2, 3, {"1": 2, "2": 1}, 1, 0),
              f"before: 2 tasks, 2 samples, turns 1..2, 3 files (2 + 1), 1 turn without code ({b})")
        check((a.get("tasks"), a.get("samples"), a.get("files"), a.get("files_per_turn"), a.get("turns_without_code"),
               a.get("samples_without_code")) == (2, 2, 2, {"1": 1, "2": 1}, 2, 1),
              f"after: 2 files, 2 turns without code, t_b's sample without any ({a})")
        check(s10.get("dir") == "step-10" and s10.get("steps") == [10] and s10.get("files") == 1,
              f"label 'step 10' goes to step-10/ ({s10})")
        check(b.get("sets") == {"held_out_families": ["t_b"], "train_families": ["t_a"]},
              f"each task's eval set ({b.get('sets')})")
        tb = [t for t in b.get("task_list", []) if t["task"] == "t_b"]
        check(bool(tb) and tb[0]["dir"] == "c/fb/t_b" and tb[0]["split"] == "test" and tb[0]["configs_match"] is True
              and tb[0]["samples"]["0"]["turns"]["1"]["outcome"] == "compile_error"
              and tb[0]["samples"]["0"]["written"] == [1, 2], f"t_b's entry ({tb})")
        ta_after = [t for t in a.get("task_list", []) if t["task"] == "t_b"]
        check(bool(ta_after) and ta_after[0]["samples"]["0"]["no_code"] == [1, 2]
              and ta_after[0]["samples"]["0"]["turns"]["1"].get("completion") == "```",
              "after: t_b's turns without code are listed with their completion")
        suite = json.load(open(os.path.join(out, "suite-train_families.json")))
        check(suite.get("tasks") == ["c/fa/t_a"] and suite.get("schema") == "cudaperf-suite/1",
              f"the train_families suite lists its task ({suite})")
        check("before: 2 tasks (held_out_families 1, train_families 1), 2 samples, turns 1..2: 3 files" in so,
              f"the summary line ({so})")
        check(listing.get("warnings") == [], f"no warnings ({listing.get('warnings')})")

        # 2. The plain file, labels chosen; no --dataset: no suites.
        out2 = os.path.join(tmp, "out2")
        rc, so, se = run(os.path.join(run_dir, "candidates.jsonl.gz"), out2, "--labels", "after")
        check(rc == 0 and files_under(out2) == ["after/t_a/0/turn1.cu", "after/t_a/0/turn2.cu", "policy-candidates.json"],
              f"--labels after, the file itself (rc {rc}, {files_under(out2)}, {se})")
        rc, so, se = run(run_dir, out2, "--labels", "after")
        check(rc == 1 and "already there" in se, f"an existing label directory is kept without --force ({rc}, {se})")
        rc, so, se = run(run_dir, out2, "--labels", "after", "--force")
        check(rc == 0, f"--force replaces it ({rc}, {se})")

        # 3. cudaperf-bench accepts the directories and scores them as worked out by hand.
        if args.bench:
            suite_file = os.path.join(ROOT, "data", "suites", "dataset-test.json")
            for label, turn1, turn2, fast1 in (("before", 0.5, 1.0, 0.5), ("after", 0.5, 0.5, 0.5)):
                # before: t_a ok at 2x in turn 1; t_b compile error, then ok at 0.5x. after: t_a 2x then 4x; t_b nothing.
                bo = os.path.join(tmp, "bench-" + label)
                p = subprocess.run([args.bench, "--suite", suite_file, "--root", dataset, "--candidates",
                                    os.path.join(out, label), "--turns", "2", "--eval", FAKE_EVAL, "--resamples", "0",
                                    "--out", bo], capture_output=True, text=True, timeout=120)
                check(p.returncode == 0, f"cudaperf-bench on {label} (rc {p.returncode}: {p.stderr[-600:]})")
                if p.returncode != 0:
                    continue
                doc = json.load(open(os.path.join(bo, "bench.json")))
                turns = {t["turn"]: t["figures"] for t in doc.get("turns", [])}
                fig = doc["summary"]["figures"]
                check(doc["suite"]["tasks"] == 2 and doc["candidates"]["turns"] == 2,
                      f"{label}: the test split's 2 tasks, 2 turns ({doc['suite']}, {doc['candidates']})")
                check(turns.get(1, {}).get("correctness", {}).get("value") == turn1 and
                      turns.get(2, {}).get("correctness", {}).get("value") == turn2,
                      f"{label}: correct after turn 1 {turn1}, after turn 2 {turn2} ({turns})")
                check(fig.get("baseline.fast_1", {}).get("value") == fast1,
                      f"{label}: baseline fast_1 {fast1} ({fig.get('baseline.fast_1')})")
            if os.path.exists(os.path.join(tmp, "bench-after", "bench.json")):
                doc = json.load(open(os.path.join(tmp, "bench-after", "bench.json")))
                check(doc.get("outcomes", {}).get("missing") == 1, f"after: t_b is a missing sample ({doc.get('outcomes')})")
                check(doc["summary"]["figures"].get("baseline.best_geomean_speedup", {}).get("value") == 4.0,
                      "after: t_a's best turn is 4x")

        # 4. Bad inputs: exit 1, the reason named, nothing written.
        cases = iter(range(1000))

        def bad(what, expect, *argv):
            target = os.path.join(tmp, f"bad-out-{next(cases)}")
            rc, so, se = run(*argv, target)
            check(rc == 1 and expect in se, f"{what}: exit 1 naming '{expect}' (rc {rc}, stderr {se.strip()})")
            check(not os.path.exists(os.path.join(target, "policy-candidates.json")), f"{what}: nothing written")

        bad("a missing file", "no such file or directory", os.path.join(tmp, "nope.jsonl.gz"))
        empty_dir = os.path.join(tmp, "empty-run")
        os.makedirs(empty_dir)
        bad("a run directory without candidates", "no candidates.jsonl.gz or candidates.jsonl", empty_dir)
        only_train = os.path.join(tmp, "train.jsonl.gz")
        write_gz(only_train, RECORDS[:1])
        bad("a file without evaluation records", "no held-out evaluation records", only_train)
        not_json = os.path.join(tmp, "notjson.jsonl.gz")
        write_gz(not_json, RECORDS[1:3], ["{oops"])
        bad("a line that is not JSON", "notjson.jsonl.gz:3: not a JSON line", not_json)
        not_gzip = os.path.join(tmp, "plain.jsonl.gz")
        open(not_gzip, "w").write(json.dumps(RECORDS[1]) + "\n")
        bad("a .gz that is not gzip", "cannot be read", not_gzip)
        tampered = dict(RECORDS[1], source="// fake: ok 0.1\n")
        sha = os.path.join(tmp, "sha.jsonl.gz")
        write_gz(sha, [tampered])
        bad("a source that is not the recorded one", "is not the recorded source_sha256", sha)
        two = os.path.join(tmp, "two.jsonl.gz")
        write_gz(two, [RECORDS[1], dict(record("eval:before:train_families", "t_a", "fa", 1, "// other\n"))])
        bad("two different candidates for one slot", "a second, different candidate for t_a sample 0 turn 1", two)
        no_turn = os.path.join(tmp, "noturn.jsonl.gz")
        write_gz(no_turn, [dict(RECORDS[1], turn=0)])
        bad("a record without a turn number", "is not a turn number", no_turn)
        rc, so, se = run(run_dir, os.path.join(tmp, "bad-labels"), "--labels", "before,later")
        check(rc == 1 and "no evaluation labelled later" in se and "before, step 10, after" in se,
              f"an unknown label, with the labels there are ({rc}, {se})")
        other = os.path.join(tmp, "other-dataset")
        os.makedirs(other)
        with open(os.path.join(other, "manifest.jsonl"), "w") as f:
            f.write(json.dumps({"task": "t_a", "dir": "c/fa/t_a", "split": "test"}) + "\n")
        rc, so, se = run(run_dir, os.path.join(tmp, "bad-dataset"), "--dataset", other)
        check(rc == 1 and "no task t_b" in se, f"a task missing from the dataset ({rc}, {se})")
        check(not os.path.exists(os.path.join(tmp, "bad-dataset", "before")), "a task missing from the dataset: no label written")
        rc, so, se = run(run_dir, os.path.join(tmp, "bad-manifest"), "--dataset", empty_dir)
        check(rc == 1 and "no manifest.jsonl" in se, f"a dataset without a manifest ({rc}, {se})")
        p = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True, timeout=60)
        check(p.returncode == 2, f"no arguments: usage, exit 2 ({p.returncode})")

    for f in failures:
        print("FAIL:", f)
    print(f"{'FAILED' if failures else 'passed'}: scripts/policy-candidates.py")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
