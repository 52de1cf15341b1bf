#!/usr/bin/env python3
"""Compares cudaperf's predicted global sectors per request with the H200 measurements.

For every kernel of data/corpus/manifest.json that issued global loads (or stores) on the GPU, the
prediction is the execution-weighted mean over the kernel's global loads (stores) in
`cudaperf-analyze --format=json`: sum(sectors_per_request x executions_per_thread) / sum(executions),
which is what Nsight Compute's kernel-level sectors / requests measures when every thread runs the
same accesses. Atomics and reductions are excluded (ncu counts them separately). A kernel-op whose
accesses include a data-dependent (or unknown) one is reported but not part of the target
population. Accuracy = share of the remaining kernel-ops within --tolerance (relative) of the
measurement; the script fails (exit 1) when it is below --min-within.

Usage: compare-coalescing.py --analyzer BIN [--corpus DIR] [--measured FILE] [--tolerance 0.10]
       [--min-within 0.95] [--markdown FILE] [--verbose]
Exit 77 (skipped) when the measurement file is missing. Python 3 standard library only.
"""
import argparse
import json
import os
import subprocess
import sys

SKIP = 77
EXCLUDED_PATTERNS = {"data-dependent", "unknown"}


def analyse(analyzer, path, extra):
    cmd = [analyzer, "--format=json", path] + extra
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode not in (0, 1):  # 1: findings reported
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), out.returncode, out.stderr[-2000:]))
    return json.loads(out.stdout)


def predict(kernel, op):
    """Weighted sectors per request of a kernel's global accesses of one op, with its status."""
    num = den = 0.0
    status = "ok"
    lines = []
    for a in kernel["accesses"]:
        if a["space"] not in ("global", "generic") or a["op"] != op:
            continue
        if a["pattern"] in EXCLUDED_PATTERNS or a.get("sectors_per_request") is None:
            status = "data-dependent" if a["pattern"] == "data-dependent" else "unknown"
            continue
        execs = a.get("executions_per_thread")
        if execs is None:
            if status == "ok":
                status = "unweighted"
            execs = 1
        num += a["sectors_per_request"] * execs
        den += execs
        lines.append(a["line"])
    if den == 0:
        return None, status, lines
    return num / den, status, lines


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--analyzer", required=True)
    p.add_argument("--corpus", default=os.path.join(root, "data", "corpus"))
    p.add_argument("--measured", default=None)
    p.add_argument("--tolerance", type=float, default=0.10)
    p.add_argument("--min-within", type=float, default=0.95)
    p.add_argument("--markdown", default=None, help="write the comparison table here")
    p.add_argument("--verbose", action="store_true")
    p.add_argument("analyzer_args", nargs="*", help="extra arguments for cudaperf-analyze")
    args = p.parse_args()

    measured_path = args.measured or os.path.join(args.corpus, "measured", "h200-ncu.json")
    if not os.path.exists(measured_path):
        print("no measurements at %s: skipped" % measured_path)
        return SKIP
    with open(os.path.join(args.corpus, "manifest.json")) as f:
        manifest = json.load(f)
    with open(measured_path) as f:
        measured = json.load(f)

    files = sorted({k["file"] for k in manifest["kernels"]})
    reports = {}
    for rel in files:
        path = rel if os.path.isabs(rel) else os.path.join(root, rel)
        reports[rel] = {k["name"]: k for k in analyse(args.analyzer, path, args.analyzer_args)["kernels"]}

    rows = []
    for mk in manifest["kernels"]:
        key = "%s/%s" % (mk["family"], mk["kernel"])
        meas = measured["kernels"].get(key)
        pk = reports[mk["file"]].get(mk["kernel"])
        if meas is None:
            continue
        for op, short in (("load", "ld"), ("store", "st")):
            requests = meas["metrics"].get("l1tex__t_requests_pipe_lsu_mem_global_op_%s.sum" % short, 0)
            if not requests:
                continue
            m = meas["derived"]["global_%s_sectors_per_request" % short]
            pred, status, lines = predict(pk, op) if pk else (None, "no kernel", [])
            if pred is None and status == "ok":
                status = "no access"
            err = None if pred is None else abs(pred - m) / m
            rows.append({"kernel": key, "op": short, "line": ",".join(str(l) for l in sorted(set(lines))),
                         "predicted": pred, "measured": m, "status": status, "error": err})

    population = [r for r in rows if r["status"] in ("ok", "unweighted", "no access")]
    within = [r for r in population if r["error"] is not None and r["error"] <= args.tolerance]
    share = len(within) / len(population) if population else 0.0

    lines = ["| kernel | op | lines | predicted | measured | error | |", "| --- | --- | --- | ---: | ---: | ---: | --- |"]
    for r in rows:
        excluded = r["status"] not in ("ok", "unweighted")
        pred = "-" if r["predicted"] is None or excluded else "%.2f" % r["predicted"]
        err = "-" if r["error"] is None or excluded else "%.0f%%" % (100 * r["error"])
        mark = r["status"] if r["status"] != "ok" else ("" if r["error"] <= args.tolerance else "outside")
        if r["status"] in ("ok", "unweighted") and r["error"] is not None and r["error"] > args.tolerance:
            mark = (mark + " outside").strip() if r["status"] != "ok" else "outside"
        lines.append("| %s | %s | %s | %s | %.2f | %s | %s |" % (r["kernel"], r["op"], r["line"], pred, r["measured"], err, mark))
    summary = ("%d of %d kernel-level global load/store ratios without data-dependent accesses are within "
               "%.0f%% of the H200 measurement (%.1f%%); %d data-dependent or unanalysable ones excluded."
               % (len(within), len(population), 100 * args.tolerance, 100 * share, len(rows) - len(population)))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(summary + "\n\n" + "\n".join(lines) + "\n")
    if args.verbose:
        print("\n".join(lines))
    else:
        for r in population:
            if r not in within:
                print("outside: %s %s predicted %s measured %.2f" % (
                    r["kernel"], r["op"], "-" if r["predicted"] is None else "%.2f" % r["predicted"], r["measured"]))
    print(summary)
    if share + 1e-9 < args.min_within:
        print("FAIL: below the required %.1f%%" % (100 * args.min_within))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
