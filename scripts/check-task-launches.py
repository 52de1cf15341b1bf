#!/usr/bin/env python3
"""Compares the launches `cudaperf-analyze --task` predicts for task implementations with a
cudaperf-launches/1 document: measured on a GPU (scripts/gpu/task-launches.sh stores one under
data/eval-runs/<date>-h200-launches/launches.json) or hand-derived (test/Task/Inputs/shipped_launches.py).

Each configuration's launches are compared in execution order. A launch is exact when its kernel
(mangled name, or source name where the document has only that), grid, block and dynamic shared
memory all equal the expected ones (--expected auto: every data/eval-runs/*-h200-launches/launches*.json,
the hand-derived launches for implementations none of them covers); a document that has only products (grid_size, block_size, as
ncu's launch__grid_size) is compared on the products. Launches the analyzer misses or adds count as
not exact. Every launch that is not exact is listed with the analyzer's reason.

usage: check-task-launches.py --analyzer BIN (--expected FILE|auto | --hand-derived) [--min-exact F]
                              [--root DIR] [--jobs N] [--all-shipped] [--only SUBSTRING]
Exit: 0 when the exact share reaches --min-exact, 1 when it does not (or an analysis fails), 2 bad usage.
"""
import argparse
import concurrent.futures
import glob
import importlib.util
import json
import os
import subprocess
import sys


def load_hand_derived(root):
    path = os.path.join(root, "test", "Task", "Inputs", "shipped_launches.py")
    spec = importlib.util.spec_from_file_location("shipped_launches", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.derive(root)


def analyze(analyzer, root, task, candidate, extra):
    cmd = [analyzer, "--format=json", "--task", os.path.join(root, task), os.path.join(root, candidate)] + extra
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        return None, "exit %d: %s" % (proc.returncode, proc.stderr.strip()[-500:])
    return json.loads(proc.stdout), ""


def product(d):
    return None if d is None else d[0] * d[1] * d[2]


def compare(expected, predicted):
    """(exact, what differs) of one launch pair; either may be None (missing)."""
    if predicted is None:
        return False, "not predicted (the analyzer found fewer launches)"
    if expected is None:
        return False, "predicted but not expected (the analyzer found more launches)"
    diffs = []
    if "kernel" in expected:
        if expected["kernel"] != predicted["mangled_name"]:
            diffs.append("kernel %s, predicted %s" % (expected["kernel"], predicted["mangled_name"] or "?"))
    elif expected.get("kernel_name") != predicted["kernel"]:
        diffs.append("kernel %s, predicted %s" % (expected.get("kernel_name"), predicted["kernel"] or "?"))
    for part, size in (("grid", "grid_size"), ("block", "block_size")):
        if part in expected:
            if expected[part] != predicted[part]:
                diffs.append("%s %s, predicted %s" % (part, expected[part], predicted[part]))
        elif size in expected and expected[size] != product(predicted[part]):
            diffs.append("%s %s, predicted %s" % (size, expected[size], product(predicted[part])))
    if "dynamic_smem_bytes" in expected and expected["dynamic_smem_bytes"] != predicted["dynamic_smem_bytes"]:
        diffs.append("dynamic smem %s, predicted %s" % (expected["dynamic_smem_bytes"], predicted["dynamic_smem_bytes"]))
    return not diffs, "; ".join(diffs)


def reason_of(predicted, config):
    if predicted is None:
        return config.get("reason", "") if config else "no configuration"
    parts = ["%s: %s" % (u["part"], u["reason"]) for u in predicted.get("unresolved", [])]
    return "; ".join(parts) or "resolved, but to other values"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--analyzer", required=True)
    ap.add_argument("--expected", help="a cudaperf-launches/1 document, or 'auto'")
    ap.add_argument("--hand-derived", action="store_true", help="use test/Task/Inputs/shipped_launches.py")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--min-exact", type=float, default=0.95)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--all-shipped", action="store_true",
                    help="fail when a shipped implementation has no expectation")
    ap.add_argument("--only", help="check only implementations whose path contains this")
    ap.add_argument("--analyzer-arg", action="append", default=[], help="extra analyzer argument")
    args = ap.parse_args()
    if bool(args.expected) == bool(args.hand_derived):
        ap.error("give exactly one of --expected and --hand-derived")
    if not os.path.exists(args.analyzer):
        ap.error("no analyzer at %s" % args.analyzer)
    auto = args.expected == "auto"
    if auto:
        # Every measured document (Nsight Compute's launch__ metrics, or the evaluator's recorded launches,
        # scripts/gpu/shipped-launches.sh), a later file winning for an implementation both cover; the
        # implementations none covers are checked against the hand-derived launches.
        measured = sorted(glob.glob(os.path.join(args.root, "data/eval-runs/*-h200-launches/launches*.json")))
        args.hand_derived = not measured
        by_candidate, sources = {}, []
        for path in measured:
            d = json.load(open(path))
            if d.get("schema") != "cudaperf-launches/1":
                sys.exit("%s: schema %r, expected cudaperf-launches/1" % (path, d.get("schema")))
            for i in d["implementations"]:
                by_candidate[i["candidate"]] = i
            sources.append(os.path.relpath(path, args.root))
        args.expected = ", ".join(sources)
        doc = {"schema": "cudaperf-launches/1", "source": "measured (%s)" % args.expected,
               "implementations": [by_candidate[k] for k in sorted(by_candidate)]} if measured else load_hand_derived(args.root)
    else:
        doc = load_hand_derived(args.root) if args.hand_derived else json.load(open(args.expected))
    if doc.get("schema") != "cudaperf-launches/1":
        sys.exit("%s: schema %r, expected cudaperf-launches/1" % (args.expected, doc.get("schema")))
    if auto and not args.hand_derived:
        have = {i["candidate"] for i in doc["implementations"]}
        rest = [i for i in load_hand_derived(args.root)["implementations"] if i["candidate"] not in have]
        if rest:
            doc = dict(doc, implementations=doc["implementations"] + rest,
                       source="%s for %d implementations, hand-derived for %d" % (doc["source"], len(have), len(rest)))
    impls = [i for i in doc["implementations"] if not args.only or args.only in i["candidate"]]

    problems = []
    if args.all_shipped:
        shipped = sorted(os.path.relpath(p, args.root) for p in
                         glob.glob(os.path.join(args.root, "data/tasks/*/impls/*.cu")) +
                         glob.glob(os.path.join(args.root, "data/tasks/pytorch/*/impls/*.cu")))
        covered = {i["candidate"] for i in doc["implementations"]}
        problems += ["%s: no expected launches" % s for s in shipped if s not in covered]

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda i: analyze(args.analyzer, args.root, i["task"], i["candidate"],
                                                  args.analyzer_arg), impls))
    total = exact = 0
    misses = []
    for impl, (report, err) in zip(impls, results):
        if report is None:
            problems.append("%s: the analyzer failed: %s" % (impl["candidate"], err))
            continue
        predicted_configs = {c["name"]: c for c in report["configurations"]}
        for config in impl["configs"]:
            pc = predicted_configs.get(config["name"])
            predicted = pc["launches"] if pc else []
            expected = config["launches"]
            for i in range(max(len(expected), len(predicted))):
                e = expected[i] if i < len(expected) else None
                p = predicted[i] if i < len(predicted) else None
                ok, diff = compare(e, p)
                total += 1
                exact += ok
                if not ok:
                    misses.append("%s %s #%d: %s (%s)" % (impl["candidate"], config["name"], i, diff, reason_of(p, pc)))
    share = exact / total if total else 0.0
    print("launches of %d implementations (%s): %d of %d exact (%.1f%%), at least %.1f%% required"
          % (len(impls), doc.get("source", args.expected), exact, total, 100 * share, 100 * args.min_exact))
    for m in misses:
        print("  not exact: " + m)
    for p in problems:
        print("  problem: " + p)
    return 0 if share >= args.min_exact and not problems and total else 1


if __name__ == "__main__":
    sys.exit(main())
