#!/usr/bin/env python3
"""scripts/dataset-coalescing.py (docs/accuracy.md, "Global memory coalescing on the generated dataset"):

1. extract on hand-made inputs: one analysis document and one result with three launches, whose rows are worked
   out by hand (an execution-weighted prediction, a data-dependent load set, a launch whose mangled name differs
   from the analysis's: unmatched; a store without requests: no row; a failed implementation: no rows; a result
   measured twice: the newer one);
2. report on the committed rows (data/measured/accuracy/dataset-coalescing-rows.tsv.zst): docs/accuracy.md holds
   its summary lines as they come out now, and the rows it rests on are the stored shards' (every row's task
   measured in data/measured/dataset-h200)."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from script_checks import ROOT, check, finish, run_python  # noqa: E402
SCRIPT = os.path.join(ROOT, "scripts", "dataset-coalescing.py")
ROWS = os.path.join(ROOT, "data", "measured", "accuracy", "dataset-coalescing-rows.tsv.zst")


def run(*args):
    return run_python(SCRIPT, args, timeout=300)


def access(op, pattern, sectors, execs, line):
    return {"space": "global", "op": op, "pattern": pattern, "sectors_per_request": sectors,
            "executions_per_thread": execs, "line": line}


def metrics(ld_req, ld_sec, st_req, st_sec):
    return {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": ld_req,
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": ld_sec,
            "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": st_req,
            "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": st_sec}


def synthetic(tmp):
    analysis = os.path.join(tmp, "analysis")
    os.makedirs(analysis)
    doc = {"task": {"name": "toy_000"}, "files": [{"file": "x/toy_000/impls/tiled.cu"}], "configurations": [{
        "name": "small", "launches": [
            # loads: (4 x 3 + 32 x 1) / 4 = 11 sectors per request; the store 4
            {"index": 0, "mangled_name": "_Z1av", "report": {"accesses": [
                access("load", "coalesced", 4, 3, 10), access("load", "strided", 32, 1, 11),
                access("store", "coalesced", 4, 1, 12), access("atomic", "coalesced", 1, 1, 13)]}},
            {"index": 1, "mangled_name": "_Z1bv", "report": {"accesses": [
                access("load", "data-dependent", None, 1, 20), access("load", "coalesced", 4, 1, 21)]}},
            {"index": 2, "mangled_name": "_Z1cv", "report": {"accesses": [access("load", "coalesced", 4, 1, 30)]}},
            # a partial last warp: the launch's average (launch_sectors_per_request) is what is compared
            {"index": 3, "mangled_name": "_Z1dv", "report": {"accesses": [
                dict(access("load", "strided", 32, 1, 40), launch_sectors_per_request=16.5)]}}]}]}
    json.dump(doc, open(os.path.join(analysis, "a.json"), "w"))

    def result(outcome, ld_sectors):
        return {"dataset_task": "toy_000", "dataset_impl": "tiled.cu", "outcome": outcome, "configs": [{
            "name": "small", "counters": {"available": True, "kernels": [
                {"launch": 0, "name": "_Z1av", "demangled": "a()", "metrics": metrics(100, ld_sectors, 50, 200)},
                {"launch": 1, "name": "_Z1bv", "demangled": "b()", "metrics": metrics(10, 40, 0, 0)},
                {"launch": 2, "name": "_Z1zv", "demangled": "z()", "metrics": metrics(10, 40, 0, 0)},
                {"launch": 3, "name": "_Z1dv", "demangled": "d()", "metrics": metrics(2, 33, 0, 0)}]}}]}

    older = os.path.join(tmp, "older.jsonl")
    with open(older, "w") as f:
        f.write(json.dumps(result("ok", 999)) + "\n")
        f.write(json.dumps({"dataset_task": "toy_001", "dataset_impl": "tiled.cu", "outcome": "wrong_answer",
                            "configs": []}) + "\n")
    newer = os.path.join(tmp, "newer.jsonl")
    with open(newer, "w") as f:
        f.write(json.dumps(result("ok", 900)) + "\n")
    out = os.path.join(tmp, "rows.tsv")
    p = run("extract", "--analysis", analysis, "--results", older, newer, "--out", out)
    check(p.returncode == 0, f"extract exit {p.returncode}: {p.stderr}")
    lines = open(out).read().splitlines()
    got = [tuple(line.split("\t")[i] for i in (4, 6, 7, 8, 9)) for line in lines[1:]]
    want = [("0", "ld", "11", "9", "ok"),            # 11 predicted, 900 / 100 measured (the newer result): 22% off
            ("0", "st", "4", "4", "ok"),             # 200 / 50
            ("1", "ld", "4", "4", "data-dependent"),  # the coalesced load is averaged; the set is not judged
            ("2", "ld", "", "4", "unmatched"),       # _Z1zv where the analysis has _Z1cv
            ("3", "ld", "16.5", "16.5", "ok")]       # (32 + 1) / 2 measured; the launch's 16.5, not the warp's 32
    check(got == want, f"extract rows {got}, expected {want}")
    p = run("report", "--rows", out)
    check(p.returncode == 0 and p.stdout.startswith(
        "2 of 3 launch-level global load/store ratios within 10% of the H200 measurement (66.7%); 5 ratios of 1 "
        "implementations of 1 tasks, by status: data-dependent 1, ok 3, unmatched 1."),
          f"report of the synthetic rows: {p.returncode} {p.stdout[:200]!r} {p.stderr}")
    check("Outside the tolerance: 1 of 1 predicted more sectors than measured." in p.stdout, "over-prediction count")
    bad = run("report", "--rows", os.path.join(tmp, "missing.tsv"))
    check(bad.returncode == 2 and "missing.tsv" in bad.stderr, f"a missing rows file: {bad.returncode} {bad.stderr}")
    empty = os.path.join(tmp, "empty")
    os.makedirs(empty)
    bad = run("extract", "--analysis", empty, "--results", newer, "--out", os.path.join(tmp, "x.tsv"))
    check(bad.returncode == 2 and "make rank" in bad.stderr, f"no analyses: {bad.returncode} {bad.stderr}")


def committed():
    p = run("report", "--rows", ROWS)
    check(p.returncode == 0, f"report on the committed rows: exit {p.returncode}: {p.stderr}")
    doc = open(os.path.join(ROOT, "docs", "accuracy.md")).read()
    summary = p.stdout.split("\n\n")[:2]
    for para in summary:
        check(para.strip() in doc, f"docs/accuracy.md holds the current summary: {para.strip()[:120]}...")
    # Every row's task was measured in a stored shard.
    measured = set()
    shards = os.path.join(ROOT, "data", "measured", "dataset-h200")
    for name in sorted(os.listdir(shards)):
        if name.endswith(".jsonl.zst"):
            text = subprocess.run(["zstd", "-qdc", os.path.join(shards, name)], capture_output=True,
                                  check=True).stdout.decode()
            measured |= {json.loads(line)["dataset_task"] for line in text.splitlines() if line.strip()}
    rows = subprocess.run(["zstd", "-qdc", ROWS], capture_output=True, check=True).stdout.decode().splitlines()[1:]
    tasks = {line.split("\t")[0] for line in rows}
    check(tasks and tasks <= measured, f"rows of unmeasured tasks: {sorted(tasks - measured)[:5]}")


def main():
    with tempfile.TemporaryDirectory(prefix="dataset-coalescing-test-") as tmp:
        synthetic(tmp)
    committed()
    return finish()


if __name__ == "__main__":
    sys.exit(main())
