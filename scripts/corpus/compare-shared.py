#!/usr/bin/env python3
"""Compares cudaperf's predicted shared-memory wavefronts per request with the H200 measurements.

Measured, per kernel and op (ld, st): l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum /
smsp__inst_executed_op_shared_{ld,st}.sum (wavefronts per warp-level shared instruction).
Predicted: the execution-weighted mean of `bank_conflict_ways` over the kernel's shared accesses of
that op in `cudaperf-analyze --format=json` (weights: executions_per_thread; 1 when unknown, marked
"unweighted"). Kernel-ops with a data-dependent or unanalysable shared access are listed but not in
the target population. A kernel-op agrees when |predicted - measured| <= --tolerance x measured.
Exit 1 when the share that agrees is below --min-within; 77 (skipped) without measurements.

Usage: compare-shared.py --analyzer BIN [--corpus DIR] [--measured FILE] [--tolerance 0.10]
       [--min-within 0.95] [--markdown FILE] [--verbose]
"""
import argparse
import json
import os
import subprocess
import sys

SKIP = 77
EXCLUDED = {"data-dependent", "unknown", "parameter-dependent"}


def analyse(analyzer, path):
    out = subprocess.run([analyzer, "--format=json", "--checks=-*", path], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("%s on %s failed (%d): %s" % (analyzer, path, out.returncode, out.stderr[-2000:]))
    return json.loads(out.stdout)


def predict(kernel, op):
    num = den = 0.0
    status, lines = "ok", []
    for a in kernel["accesses"]:
        if a["space"] != "shared" or a["op"] != op:
            continue
        if a["pattern"] in EXCLUDED or a.get("bank_conflict_ways") is None:
            status = a["pattern"]
            continue
        execs = a.get("executions_per_thread")
        if execs is None:
            status = "unweighted" if status == "ok" else status
            execs = 1
        num += a["bank_conflict_ways"] * execs
        den += execs
        lines.append(a["line"])
    return (num / den if den else None), status, lines


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--analyzer", required=True)
    p.add_argument("--corpus", default=os.path.join(root, "data", "corpus"))
    p.add_argument("--measured", default=None)
    p.add_argument("--tolerance", type=float, default=0.10)
    p.add_argument("--min-within", type=float, default=0.95)
    p.add_argument("--markdown", default=None)
    p.add_argument("--verbose", action="store_true")
    args = p.parse_args()

    measured_path = args.measured or os.path.join(args.corpus, "measured", "h200-ncu.json")
    if not os.path.exists(measured_path):
        print("no measurements at %s: skipped" % measured_path)
        return SKIP
    manifest = json.load(open(os.path.join(args.corpus, "manifest.json")))
    measured = json.load(open(measured_path))["kernels"]

    reports = {}
    for rel in sorted({k["file"] for k in manifest["kernels"]}):
        path = rel if os.path.isabs(rel) else os.path.join(root, rel)
        reports[rel] = {k["name"]: k for k in analyse(args.analyzer, path)["kernels"]}

    rows = []
    for mk in manifest["kernels"]:
        key = "%s/%s" % (mk["family"], mk["kernel"])
        meas = measured.get(key)
        if meas is None:
            continue
        m = meas["metrics"]
        for op, short in (("load", "ld"), ("store", "st")):
            insts = m.get("smsp__inst_executed_op_shared_%s.sum" % short, 0)
            if not insts:
                continue
            wf = m.get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_%s.sum" % short, 0) / insts
            pk = reports[mk["file"]].get(mk["kernel"])
            pred, status, lines = predict(pk, op) if pk else (None, "no kernel", [])
            if pred is None and status == "ok":
                status = "no access"
            err = None if pred is None else abs(pred - wf) / wf
            rows.append(dict(kernel=key, op=short, lines=",".join(map(str, sorted(set(lines)))),
                             predicted=pred, measured=wf, status=status, error=err))

    population = [r for r in rows if r["status"] in ("ok", "unweighted", "no access")]
    agree = [r for r in population if r["error"] is not None and r["error"] <= args.tolerance]
    share = len(agree) / len(population) if population else 0.0
    table = ["| kernel | op | lines | predicted | measured | error | |",
             "| --- | --- | --- | ---: | ---: | ---: | --- |"]
    for r in rows:
        pred = "-" if r["predicted"] is None else "%.2f" % r["predicted"]
        err = "-" if r["error"] is None else "%.0f%%" % (100 * r["error"])
        mark = "" if r["status"] == "ok" else r["status"]
        if r in population and r not in agree:
            mark = (mark + " outside").strip()
        table.append("| %s | %s | %s | %s | %.2f | %s | %s |" % (
            r["kernel"], r["op"], r["lines"], pred, r["measured"], err, mark))
    summary = ("%d of %d kernel-level shared load/store wavefront ratios without data-dependent accesses "
               "are within %.0f%% of the H200 measurement (%.1f%%); %d excluded."
               % (len(agree), len(population), 100 * args.tolerance, 100 * share, len(rows) - len(population)))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(summary + "\n\n" + "\n".join(table) + "\n")
    if args.verbose:
        print("\n".join(table))
    else:
        for r in population:
            if r not in agree:
                print("outside: %s %s predicted %s measured %.2f" % (
                    r["kernel"], r["op"], "-" if r["predicted"] is None else "%.2f" % r["predicted"], r["measured"]))
    print(summary)
    if share + 1e-9 < args.min_within:
        print("FAIL: below the required %.1f%%" % (100 * args.min_within))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
