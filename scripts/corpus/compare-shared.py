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
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_compare  # noqa: E402

EXCLUDED = {"data-dependent", "unknown", "parameter-dependent"}


def predict(kernel, op):
    return corpus_compare.weighted_mean(kernel, ("shared",), op, "bank_conflict_ways", EXCLUDED,
                                        lambda pattern: pattern)


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p = corpus_compare.parser(__doc__, root)
    args = p.parse_args()

    loaded = corpus_compare.load(args.corpus, args.measured)
    if loaded is None:
        return corpus_compare.SKIP
    manifest, measured = loaded
    reports = corpus_compare.analyse_corpus(args.analyzer, root, manifest)

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
            wavefronts = m.get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_%s.sum" % short, 0) / insts
            pk = reports[mk["file"]].get(mk["kernel"])
            pred, status, lines = predict(pk, op) if pk else (None, "no kernel", [])
            rows.append(corpus_compare.row(key, short, lines, pred, wavefronts, status))
    return corpus_compare.finish(rows, args.tolerance, args.min_within, "shared load/store wavefront ratios",
                                 args.markdown, args.verbose)


if __name__ == "__main__":
    sys.exit(main())
