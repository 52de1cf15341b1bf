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
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_compare  # noqa: E402

EXCLUDED_PATTERNS = {"data-dependent", "unknown"}


def predict(kernel, op):
    """Weighted sectors per request of a kernel's global accesses of one op, with its status."""
    return corpus_compare.weighted_mean(
        kernel, ("global", "generic"), op, "sectors_per_request", EXCLUDED_PATTERNS,
        lambda pattern: "data-dependent" if pattern == "data-dependent" else "unknown")


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p = corpus_compare.parser(__doc__, root)
    p.add_argument("analyzer_args", nargs="*", help="extra arguments for cudaperf-analyze")
    args = p.parse_args()

    loaded = corpus_compare.load(args.corpus, args.measured)
    if loaded is None:
        return corpus_compare.SKIP
    manifest, measured = loaded
    reports = corpus_compare.analyse_corpus(args.analyzer, root, manifest, args.analyzer_args)

    rows = []
    for mk in manifest["kernels"]:
        key = "%s/%s" % (mk["family"], mk["kernel"])
        meas = measured.get(key)
        pk = reports[mk["file"]].get(mk["kernel"])
        if meas is None:
            continue
        for op, short in (("load", "ld"), ("store", "st")):
            requests = meas["metrics"].get("l1tex__t_requests_pipe_lsu_mem_global_op_%s.sum" % short, 0)
            if not requests:
                continue
            m = meas["derived"]["global_%s_sectors_per_request" % short]
            pred, status, lines = predict(pk, op) if pk else (None, "no kernel", [])
            rows.append(corpus_compare.row(key, short, lines, pred, m, status))
    return corpus_compare.finish(rows, args.tolerance, args.min_within, "global load/store ratios",
                                 args.markdown, args.verbose)


if __name__ == "__main__":
    sys.exit(main())
