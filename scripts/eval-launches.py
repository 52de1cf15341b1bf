#!/usr/bin/env python3
"""Turns cudaperf-eval results (JSON Lines, cudaperf-eval-result/1) into a cudaperf-launches/1 document:
the launches the evaluator's interposer recorded during each configuration's audit call (kernel by mangled
name, grid, block, dynamic shared memory, in order), for implementations inside the repository (matched
by the SHA-256 of the candidate file, so results made from copies of the files count too).

This is the same ground truth as Nsight Compute's launch__ metrics (scripts/gpu/task-launches.sh) at a
fraction of the cost: one timed evaluation per implementation instead of a profiled replay per launch.

usage: eval-launches.py RESULTS.jsonl [...] --out launches.json [--root DIR] [--command TEXT]
Exit: 0 written, 1 no usable result, 2 bad usage.
"""
import argparse
import glob
import hashlib
import json
import os
import sys


def shipped_by_sha(root):
    files = glob.glob(os.path.join(root, "data/tasks/*/impls/*.cu")) + \
        glob.glob(os.path.join(root, "data/tasks/pytorch/*/impls/*.cu"))
    out = {}
    for f in files:
        with open(f, "rb") as fh:
            out[hashlib.sha256(fh.read()).hexdigest()] = os.path.relpath(f, root)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--command", default="cudaperf-eval --batch (scripts/gpu/shipped-launches.sh)")
    args = ap.parse_args()
    known = shipped_by_sha(args.root)
    impls, environment, skipped = {}, None, []
    for path in args.results:
        try:
            lines = open(path).read().splitlines()
        except OSError as e:
            sys.exit("%s: %s" % (path, e.strerror))
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError as e:
                print("%s:%d: not JSON (%s), skipped" % (path, n, e), file=sys.stderr)
                continue
            candidate = known.get(r.get("candidate_sha256", ""))
            if candidate is None:
                continue
            configs = [{"name": c["name"], "launches": [
                {k: l[k] for k in ("kernel", "grid", "block", "dynamic_smem_bytes")} for l in c["launches"]]}
                for c in r.get("configs", []) if "launches" in c and not c.get("launches_truncated")]
            if r.get("outcome") != "ok" or not configs:
                skipped.append("%s: outcome %s, %d configurations with launches" % (candidate, r.get("outcome"), len(configs)))
                continue
            task = os.path.dirname(os.path.dirname(candidate))
            impls[candidate] = {"task": task, "candidate": candidate, "configs": configs}
            gpu, tools = r.get("gpu", {}), r.get("tools", {})
            environment = "%s driver %s, CUDA runtime %s, nvcc %s" % (
                gpu.get("name"), tools.get("driver_version"), tools.get("cuda_runtime_version"), tools.get("nvcc"))
    for s in skipped:
        print("skipped " + s, file=sys.stderr)
    if not impls:
        print("no result of a repository implementation with recorded launches", file=sys.stderr)
        return 1
    doc = {"schema": "cudaperf-launches/1",
           "source": "measured: launches recorded by cudaperf-eval's interposer during the audit call",
           "command": args.command, "environment": environment,
           "implementations": [impls[k] for k in sorted(impls)]}
    with open(args.out, "w") as fh:
        json.dump(doc, fh, indent=1)
    print("%d implementations, %d launches -> %s" % (len(impls), sum(
        len(c["launches"]) for i in impls.values() for c in i["configs"]), args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
