#!/usr/bin/env python3
"""Compares the work analysis (FLOPs, DRAM traffic) with Nsight Compute measurements of the corpus.

Runs `cudaperf-analyze --format=json` on every data/corpus/*.cu file, matches kernels to
data/corpus/measured/h200-ncu.json by mangled name, and compares:
  FLOPs       fadd + fmul + 2*ffma (and d*, h*) thread-level SASS counters against the same
              formula over `work.sass_fp_instructions` (a packed HFMA2 is one instruction; h*
              counters of kernels without fp16 arithmetic are HFMA2.MMA constant moves and are left
              out: see docs/accuracy.md);
  DRAM reads  dram__bytes_read.sum against work.dram_read_bytes_estimate;
  writes      lts__t_sectors_srcunit_tex_op_write.sum * 32 against work.dram_write_bytes_estimate.
Exits 1 when a fraction falls below its --min-* threshold (what ctest asserts), 2 on set-up errors.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

PRECISIONS = (("fp32", "fadd", "fmul", "ffma"), ("fp64", "dadd", "dmul", "dfma"),
              ("fp16", "hadd", "hmul", "hfma"))


def measured_flops(m, prec):
    """FLOP from the SASS counters: add + mul + 2 * fma thread instructions."""
    for p, a, mu, f in PRECISIONS:
        if p == prec:
            g = lambda n: m.get("smsp__sass_thread_inst_executed_op_%s_pred_on.sum" % n) or 0
            return g(a) + g(mu) + 2 * g(f)
    return 0


def predicted_counter_flops(work, prec):
    """The analysis's prediction of the same counter formula (packed fp16 = one instruction)."""
    s = work.get("sass_fp_instructions") or {}
    for p, a, mu, f in PRECISIONS:
        if p == prec:
            vals = [s.get(a), s.get(mu), s.get(f)]
            if all(v is None for v in vals):
                return 0
            if any(v is None for v in vals):
                return None
            return vals[0] + vals[1] + 2 * vals[2]
    return 0


def rel_err(pred, meas):
    if pred is None or meas is None:
        return None
    if meas == 0:
        return 0.0 if pred == 0 else float("inf")
    return (pred - meas) / meas


def analyse(analyzer, path, root):
    out = subprocess.run([analyzer, "--format=json", path], capture_output=True, text=True, cwd=root)
    if out.returncode not in (0, 1) or not out.stdout.strip():
        raise RuntimeError("%s failed on %s: %s" % (analyzer, path, out.stderr[-2000:]))
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--analyzer", required=True)
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    ap.add_argument("--measured", default="data/corpus/measured/h200-ncu.json")
    ap.add_argument("--flop-tolerance", type=float, default=0.02)
    ap.add_argument("--dram-tolerance", type=float, default=0.25)
    ap.add_argument("--abs-floor", type=float, default=65536,
                    help="byte differences below this count as agreement (a kernel reading 32 B "
                         "still shows ~3 KB of DRAM reads: code, parameters, constant banks)")
    ap.add_argument("--min-flop-fraction", type=float, default=0.0,
                    help="fail when fewer FLOP-carrying kernels with known counts are within tolerance")
    ap.add_argument("--min-dram-fraction", type=float, default=0.0,
                    help="fail when fewer kernels have DRAM reads within tolerance")
    ap.add_argument("--min-write-fraction", type=float, default=0.0)
    ap.add_argument("--markdown", help="write the per-kernel table here")
    ap.add_argument("--json", help="write the per-kernel comparison here")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    measured_path = os.path.join(root, args.measured)
    if not os.path.exists(measured_path):
        print("no measurements at %s" % measured_path)
        return 2
    measured = json.load(open(measured_path))["kernels"]
    by_mangled = {}
    for key, rec in measured.items():
        by_mangled.setdefault((rec["file"], rec["mangled"]), rec)

    rows = []
    for path in sorted(glob.glob(os.path.join(root, "data", "corpus", "*.cu"))):
        rel = os.path.relpath(path, root)
        doc = analyse(args.analyzer, rel, root)
        for k in doc["kernels"]:
            rec = by_mangled.get((rel, k["mangled_name"]))
            if rec is None:
                continue
            w, m = k.get("work") or {}, rec["metrics"]
            row = {"kernel": "%s/%s" % (os.path.basename(rel)[:-3], k["name"])}
            flops = w.get("flops") or {}
            row["flops_known"] = flops.get("total") is not None
            row["flops_pred"] = sum((predicted_counter_flops(w, p) or 0) for p, *_ in PRECISIONS) \
                if row["flops_known"] else None
            # nvcc materializes constants with HFMA2.MMA (Rd = -RZ * RZ + imm), which the hfma
            # counter counts: in a kernel without fp16 arithmetic those are moves, not FLOPs.
            has_fp16 = (predicted_counter_flops(w, "fp16") or 0) > 0
            row["flops_meas"] = sum(measured_flops(m, p) for p, *_ in PRECISIONS
                                    if p != "fp16" or has_fp16)
            row["hfma_moves"] = 0 if has_fp16 else measured_flops(m, "fp16") // 2
            row["flops_err"] = rel_err(row["flops_pred"], row["flops_meas"])
            row["dram_read_pred"] = w.get("dram_read_bytes_estimate")
            row["dram_read_meas"] = m.get("dram__bytes_read.sum")
            row["dram_read_err"] = rel_err(row["dram_read_pred"], row["dram_read_meas"])
            wp, wa = w.get("dram_write_bytes_estimate"), w.get("dram_write_bytes_estimate_atomic") or 0
            # The L2 write-sector counter sees stores, not atomics (those are op_atom / op_red).
            row["write_pred"] = None if wp is None else wp - wa
            row["store_sectors_pred"] = w.get("global_store_sectors")
            ws = m.get("lts__t_sectors_srcunit_tex_op_write.sum")
            row["write_meas"] = None if ws is None else ws * 32
            row["write_err"] = rel_err(row["write_pred"], row["write_meas"])
            row["dram_write_meas"] = m.get("dram__bytes_write.sum")
            rows.append(row)

    def agrees(r, key, tol):
        if r[key] is None:
            return False
        if abs(r[key]) <= tol:
            return True
        p, m = {"dram_read_err": ("dram_read_pred", "dram_read_meas"),
                "write_err": ("write_pred", "write_meas")}.get(key, (None, None))
        return p is not None and abs(r[p] - r[m]) <= args.abs_floor

    def frac(pred, key, tol):
        sel = [r for r in rows if pred(r)]
        ok = [r for r in sel if agrees(r, key, tol)]
        return len(ok), len(sel)

    flop_ok, flop_n = frac(lambda r: r["flops_meas"] > 0 and r["flops_known"], "flops_err", args.flop_tolerance)
    flop_unknown = sum(1 for r in rows if r["flops_meas"] > 0 and not r["flops_known"])
    zero_ok, zero_n = frac(lambda r: r["flops_meas"] == 0 and r["flops_known"], "flops_err", 0.0)
    dram_ok, dram_n = frac(lambda r: r["dram_read_meas"] is not None, "dram_read_err", args.dram_tolerance)
    wr_ok, wr_n = frac(lambda r: r["write_meas"] is not None, "write_err", args.dram_tolerance)
    for r in rows:
        sp = r["store_sectors_pred"]
        r["store_sectors_err"] = rel_err(None if sp is None else sp * 32, r["write_meas"])
    ss_ok, ss_n = frac(lambda r: r["write_meas"] is not None, "store_sectors_err", args.dram_tolerance)

    fmt = lambda v: "-" if v is None else ("%.0f" % v if abs(v) >= 1 or v == 0 else "%.3g" % v)
    pct = lambda e: "-" if e is None else ("inf" if e == float("inf") else "%+.1f%%" % (100 * e))
    lines = ["| kernel | FLOP predicted | FLOP measured | err | DRAM read predicted | measured | err | "
             "L2 writes predicted | measured | err |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["kernel"], fmt(r["flops_pred"]), fmt(r["flops_meas"]), pct(r["flops_err"]),
            fmt(r["dram_read_pred"]), fmt(r["dram_read_meas"]), pct(r["dram_read_err"]),
            fmt(r["write_pred"]), fmt(r["write_meas"]), pct(r["write_err"])))
    table = "\n".join(lines)
    if args.markdown:
        open(args.markdown, "w").write(table + "\n")
    if args.json:
        json.dump(rows, open(args.json, "w"), indent=1)
    print(table)
    print()
    print("kernels compared: %d" % len(rows))
    print("FLOPs within %.0f%%: %d of %d kernels with FP work and known trip counts (%d more with "
          "unknown trip counts); %d of %d kernels without FP work predicted 0"
          % (100 * args.flop_tolerance, flop_ok, flop_n, flop_unknown, zero_ok, zero_n))
    print("DRAM reads within %.0f%%: %d of %d" % (100 * args.dram_tolerance, dram_ok, dram_n))
    print("L2 writes from L1 (lts__t_sectors_srcunit_tex_op_write x 32) against the distinct-sector "
          "write estimate within %.0f%%: %d of %d; against store sectors moved: %d of %d"
          % (100 * args.dram_tolerance, wr_ok, wr_n, ss_ok, ss_n))
    print("(differences below %d bytes count as agreement)" % args.abs_floor)
    failed = []
    if flop_n and flop_ok / flop_n < args.min_flop_fraction:
        failed.append("FLOP fraction %.3f < %.3f" % (flop_ok / flop_n, args.min_flop_fraction))
    if dram_n and dram_ok / dram_n < args.min_dram_fraction:
        failed.append("DRAM read fraction %.3f < %.3f" % (dram_ok / dram_n, args.min_dram_fraction))
    if wr_n and wr_ok / wr_n < args.min_write_fraction:
        failed.append("write fraction %.3f < %.3f" % (wr_ok / wr_n, args.min_write_fraction))
    if failed:
        print("FAILED: " + "; ".join(failed))
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
