#!/usr/bin/env python3
"""Compares cudaperf's CUPTI counters (cudaperf-counters/1 documents from libcudaperf-counters-inject.so) with
Nsight Compute's numbers for the same binaries (docs/counters.md, "Cross-check against Nsight Compute").

Usage:
  compare-counters.py --dir OUT [--json OUT/compare.json]
      pairs OUT/counters-F.json with OUT/ncu-F.csv (`ncu --csv --page raw --print-units base
      --print-kernel-base mangled ...` output; program output mixed in is skipped) for every F found.
  compare-counters.py --list-metrics [--docs docs/counters.md] [--exclude NAME ...]
      prints the metric names of the docs table, comma-separated (the list given to ncu).

Kernels are matched launch by launch (the i-th profiled launch of one run with the i-th of the other); a name
mismatch is reported and the pair skipped. Prints, per kernel and metric: ours, ncu, relative difference
|ours - ncu| / |ncu| (0 when both are 0), then how many kernel x metric pairs are equal exactly and within 1 %,
overall and per metric.
"""
import argparse
import importlib.util
import json
import os
import re
import sys

# The raw-CSV reader of ncu-to-json.py (one reader of ncu's CSV for the project).
_spec = importlib.util.spec_from_file_location(
    "ncu_to_json", os.path.join(os.path.dirname(os.path.abspath(__file__)), "ncu-to-json.py"))
NCU_TO_JSON = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(NCU_TO_JSON)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def docs_metrics(docs_path):
    names = []
    inside = False
    rows = 0
    with open(docs_path) as f:
        for line in f:
            if "<!-- metric-table:begin" in line:
                inside = True
                continue
            if "<!-- metric-table:end" in line:
                break
            if inside and line.strip().startswith("|"):
                rows += 1
                if rows <= 2:
                    continue
                names.append(line.strip().strip("|").split("|")[0].strip().strip("`"))
    return names


def parse_number(text):
    text = text.strip().replace(",", "")
    if text in ("", "n/a", "N/A"):
        return None
    try:
        return float(text)
    except ValueError:
        return None


def relative_difference(ours, ncu):
    if ours == ncu:
        return 0.0
    if ncu == 0:
        return float("inf")
    return abs(ours - ncu) / abs(ncu)


def short_name(demangled):
    return re.sub(r"\(.*", "", demangled).replace("void ", "")


def compare_stem(stem, ours_doc, ncu_rows, out_rows, problems):
    if not ours_doc.get("available", False):
        problems.append(f"{stem}: our collection unavailable: {ours_doc.get('reason', '')}")
    for metric, why in sorted(ours_doc.get("dropped_metrics", {}).items()):
        problems.append(f"{stem}: we dropped {metric}: {why}")
    for note in ours_doc.get("notes", []):
        problems.append(f"{stem}: note: {note}")
    ours_kernels = ours_doc.get("kernels", [])
    if len(ours_kernels) != len(ncu_rows):
        problems.append(f"{stem}: {len(ours_kernels)} launches profiled by us, {len(ncu_rows)} by ncu")
    for i, (ours, ncu) in enumerate(zip(ours_kernels, ncu_rows)):
        ncu_name = ncu.get("Kernel Name", "")
        if ncu_name and ours["name"] != ncu_name:
            problems.append(f"{stem}: launch {i}: we saw {ours['name']}, ncu {ncu_name}: pair skipped")
            continue
        for metric, ours_value in ours["metrics"].items():
            if metric not in ncu:
                continue
            ncu_value = parse_number(ncu[metric])
            if ncu_value is None:
                continue
            out_rows.append({
                "file": stem,
                "launch": i,
                "kernel": ours["name"],
                "demangled": ours.get("demangled", ours["name"]),
                "metric": metric,
                "ours": ours_value,
                "ncu": ncu_value,
                "relative_difference": relative_difference(ours_value, ncu_value),
            })


def fmt(value):
    if value == float("inf"):
        return "inf"
    if abs(value) >= 1e6 or (value != 0 and abs(value) < 1e-3):
        return f"{value:.6g}"
    return f"{value:.4f}".rstrip("0").rstrip(".")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir")
    parser.add_argument("--json")
    parser.add_argument("--list-metrics", action="store_true")
    parser.add_argument("--docs", default=os.path.join(ROOT, "docs", "counters.md"))
    parser.add_argument("--exclude", nargs="*", default=[])
    args = parser.parse_args()

    if args.list_metrics:
        print(",".join(m for m in docs_metrics(args.docs) if m not in args.exclude))
        return 0
    if not args.dir:
        parser.error("--dir or --list-metrics")

    stems = sorted(name[len("counters-"):-len(".json")] for name in os.listdir(args.dir)
                   if name.startswith("counters-") and name.endswith(".json"))
    rows, problems = [], []
    for stem in stems:
        ncu_path = os.path.join(args.dir, f"ncu-{stem}.csv")
        try:
            with open(os.path.join(args.dir, f"counters-{stem}.json")) as f:
                ours_doc = json.load(f)
        except (OSError, ValueError) as e:
            problems.append(f"{stem}: our document unreadable: {e}")
            continue
        ncu_rows = NCU_TO_JSON.read_raw_csv(ncu_path) if os.path.exists(ncu_path) else []
        if not ncu_rows:
            problems.append(f"{stem}: no ncu rows in {ncu_path}")
        compare_stem(stem, ours_doc, ncu_rows, rows, problems)

    print(f"{'file/launch kernel':48} {'metric':58} {'ours':>14} {'ncu':>14} {'rel.diff':>9}")
    for r in rows:
        label = f"{r['file']}/{r['launch']} {short_name(r['demangled'])}"[:48]
        print(f"{label:48} {r['metric']:58} {fmt(r['ours']):>14} {fmt(r['ncu']):>14} "
              f"{fmt(r['relative_difference']):>9}")

    per_metric = {}
    for r in rows:
        m = per_metric.setdefault(r["metric"], {"pairs": 0, "exact": 0, "within_1pct": 0, "max_relative_difference": 0.0})
        m["pairs"] += 1
        m["exact"] += r["ours"] == r["ncu"]
        m["within_1pct"] += r["relative_difference"] <= 0.01
        m["max_relative_difference"] = max(m["max_relative_difference"], r["relative_difference"])
    total = len(rows)
    exact = sum(m["exact"] for m in per_metric.values())
    within = sum(m["within_1pct"] for m in per_metric.values())
    kernels = len({(r["file"], r["launch"]) for r in rows})

    print()
    print(f"{'metric':58} {'pairs':>6} {'exact':>6} {'<=1%':>6} {'max rel.diff':>13}")
    for name, m in sorted(per_metric.items()):
        print(f"{name:58} {m['pairs']:6} {m['exact']:6} {m['within_1pct']:6} {fmt(m['max_relative_difference']):>13}")
    print()
    for p in problems:
        print("problem: " + p)
    print(f"SUMMARY: {kernels} kernel launches in {len(stems)} files, {total} kernel x metric pairs: "
          f"{exact} equal exactly ({100.0 * exact / max(total, 1):.1f} %), "
          f"{within} within 1 % ({100.0 * within / max(total, 1):.1f} %)")

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"pairs": total, "exact": exact, "within_1pct": within, "kernels": kernels,
                       "per_metric": per_metric, "problems": problems,
                       "rows": [dict(r, relative_difference=None if r["relative_difference"] == float("inf")
                                     else r["relative_difference"]) for r in rows]}, f, indent=1)
    return 0 if total else 1


if __name__ == "__main__":
    sys.exit(main())
