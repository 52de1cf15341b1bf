#!/usr/bin/env python3
"""The analyzer's predicted global sectors per request against the H200's counters, on the generated dataset.

docs/accuracy.md, "Global memory coalescing", makes this comparison on the corpus (262 of 262 kernel-level ratios
within 10 %). This script makes the same comparison, by the same rule, on the measured dataset
(data/measured/dataset-h200, docs/dataset.md): for every measured launch of every `ok` implementation at every
configuration, the prediction is the execution-weighted mean of sectors per request over the launch's global
loads (stores) in `cudaperf-analyze --task TASK --config all` (scripts/corpus/corpus_compare.weighted_mean, the
corpus comparison's own function: atomics and reductions are not loads or stores; a load/store set containing a
data-dependent or unknown access is reported but not part of the population), and the measurement is the
launch's l1tex__t_sectors / l1tex__t_requests_pipe_lsu_mem_global_op_{ld,st}.sum from the counter pass.

Two steps, so that the CPU test can replay the second from committed data:

  extract --analysis DIR --results R.jsonl.zst... --out ROWS.tsv
      DIR: the analysis documents `make rank` caches (build/rank/analysis: one JSON per implementation and
      analyzer, every configuration); a (task, implementation) measured twice counts once, its newest result
      (the files in the order given). One row per launch and op with requests: task, family, implementation,
      configuration, launch, kernel, op, predicted, measured, status (ok, unweighted, data-dependent, unknown,
      no access, unmatched: the analysis has no launch of that index and mangled name).
  report --rows ROWS.tsv [--tolerance 0.10] [--markdown FILE]
      the share within tolerance overall, by status, per family (worst first), and the largest errors.

Exit status 0, or 2 on unreadable input. Python 3 standard library only.
"""
import argparse
import collections
import glob
import importlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "corpus")]
import corpus_compare  # noqa: E402

dataset_report = importlib.import_module("dataset-report")  # its reader of the result files

EXCLUDED_PATTERNS = {"data-dependent", "unknown"}
IN_POPULATION = ("ok", "unweighted")
FIELDS = ("task", "family", "implementation", "configuration", "launch", "kernel", "op", "predicted", "measured",
          "status")


def load_results(paths):
    """(task, implementation) -> the newest result (later files win), read by dataset-report.py's read_results."""
    try:
        results = dataset_report.read_results(paths)
    except dataset_report.InputError as e:
        raise ValueError(str(e)) from None
    return {(r["dataset_task"], r["dataset_impl"]): r for r in results
            if r.get("dataset_task") and r.get("dataset_impl")}


def load_analyses(directory):
    """(task, implementation file name) -> analysis document."""
    out = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        try:
            d = json.load(open(path))
        except (OSError, json.JSONDecodeError) as e:
            raise ValueError(f"{path}: {e}") from None
        files = d.get("files") or []
        task = (d.get("task") or {}).get("name")
        if task and files:
            out[(task, os.path.basename(files[0].get("file", "")))] = d
    return out


def family_of(task):
    return task.rsplit("_", 1)[0]


def extract(analyses, results):
    rows = []
    for (task, impl), r in sorted(results.items()):
        if r.get("outcome") != "ok":
            continue
        doc = analyses.get((task, impl))
        configs = {c.get("name"): c for c in (doc or {}).get("configurations", [])}
        for cfg in r.get("configs") or []:
            counters = cfg.get("counters") or {}
            if not counters.get("available"):
                continue
            launches = {l.get("index"): l for l in (configs.get(cfg.get("name")) or {}).get("launches", [])}
            for k in counters.get("kernels", []):
                m = k.get("metrics", {})
                launch = launches.get(k.get("launch"))
                report = launch.get("report") if launch else None
                matched = report is not None and launch.get("mangled_name") == k.get("name")
                for op, short in (("load", "ld"), ("store", "st")):
                    requests = m.get(f"l1tex__t_requests_pipe_lsu_mem_global_op_{short}.sum", 0)
                    if not requests:
                        continue
                    measured = m.get(f"l1tex__t_sectors_pipe_lsu_mem_global_op_{short}.sum", 0) / requests
                    if matched:
                        pred, status, _ = corpus_compare.weighted_mean(
                            report, ("global", "generic"), op, "sectors_per_request", EXCLUDED_PATTERNS,
                            lambda p: "data-dependent" if p == "data-dependent" else "unknown")
                        if pred is None and status == "ok":
                            status = "no access"
                    else:
                        pred, status = None, "unmatched"
                    rows.append({"task": task, "family": family_of(task), "implementation": impl,
                                 "configuration": cfg.get("name"), "launch": k.get("launch"),
                                 "kernel": k.get("demangled") or k.get("name"), "op": short,
                                 "predicted": pred, "measured": measured, "status": status})
    return rows


def write_rows(rows, path):
    with open(path, "w") as f:
        f.write("\t".join(FIELDS) + "\n")
        for r in rows:
            f.write("\t".join("" if r[k] is None else (f"{r[k]:.6g}" if isinstance(r[k], float) else str(r[k]))
                              for k in FIELDS) + "\n")


def read_rows(path):
    try:
        text = subprocess.run(["zstd", "-qdc", path], capture_output=True, check=True).stdout.decode() \
            if path.endswith(".zst") else open(path).read()
    except (OSError, subprocess.CalledProcessError) as e:
        raise ValueError(f"{path}: {e}") from None
    lines = text.splitlines()
    if not lines or tuple(lines[0].split("\t")) != FIELDS:
        raise ValueError(f"{path}: not a rows file (header {lines[:1]})")
    rows = []
    for n, line in enumerate(lines[1:], 2):
        parts = line.split("\t")
        if len(parts) != len(FIELDS):
            raise ValueError(f"{path}:{n}: {len(parts)} fields, expected {len(FIELDS)}")
        r = dict(zip(FIELDS, parts))
        r["predicted"] = float(r["predicted"]) if r["predicted"] else None
        r["measured"] = float(r["measured"])
        rows.append(r)
    return rows


def error(r):
    return None if r["predicted"] is None else abs(r["predicted"] - r["measured"]) / r["measured"]


def summarize(rows, tolerance):
    population = [r for r in rows if r["status"] in IN_POPULATION]
    within = [r for r in population if error(r) is not None and error(r) <= tolerance]
    by_status = collections.Counter(r["status"] for r in rows)
    fam = collections.defaultdict(lambda: [0, 0])
    for r in population:
        fam[r["family"]][1] += 1
        fam[r["family"]][0] += error(r) <= tolerance
    by_config = collections.defaultdict(lambda: [0, 0])
    for r in population:
        by_config[r["configuration"]][1] += 1
        by_config[r["configuration"]][0] += error(r) <= tolerance
    outside = [r for r in population if error(r) > tolerance]
    tasks = {(r["task"], r["implementation"]) for r in rows}
    return {"rows": len(rows), "implementations": len(tasks), "tasks": len({t for t, _ in tasks}),
            "population": len(population), "within": len(within), "by_status": dict(sorted(by_status.items())),
            "families": {f: {"within": w, "of": n} for f, (w, n) in sorted(fam.items())},
            "configurations": {c: {"within": w, "of": n} for c, (w, n) in sorted(by_config.items())},
            "outside_over": sum(r["predicted"] > r["measured"] for r in outside), "outside": len(outside),
            "worst": sorted(population, key=lambda r: -(error(r) or 0))[:10]}


def report(s, tolerance):
    out = []
    w = out.append
    share = s["within"] / s["population"] if s["population"] else 0.0
    w(f"{s['within']} of {s['population']} launch-level global load/store ratios within {tolerance:.0%} of the H200 "
      f"measurement ({share:.1%}); {s['rows']} ratios of {s['implementations']} implementations of {s['tasks']} "
      f"tasks, by status: " + ", ".join(f"{k} {v}" for k, v in s["by_status"].items()) + ".")
    w("")
    w("By configuration: " + "; ".join(f"{c} {v['within']} of {v['of']} ({v['within'] / v['of']:.1%})"
                                       for c, v in s["configurations"].items()) +
      f". Outside the tolerance: {s['outside_over']} of {s['outside']} predicted more sectors than measured.")
    w("")
    w("| family | within | of | share |")
    w("| --- | ---: | ---: | ---: |")
    for f, v in sorted(s["families"].items(), key=lambda kv: (kv[1]["within"] / kv[1]["of"], kv[0])):
        w(f"| {f} | {v['within']} | {v['of']} | {v['within'] / v['of']:.0%} |")
    w("")
    w("Largest errors:")
    w("")
    w("| task | implementation | configuration | kernel | op | predicted | measured |")
    w("| --- | --- | --- | --- | --- | ---: | ---: |")
    for r in s["worst"]:
        w(f"| {r['task']} | {r['implementation']} | {r['configuration']} | `{r['kernel'].split('(')[0]}` | {r['op']} | "
          f"{r['predicted']:.2f} | {r['measured']:.2f} |")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    e = sub.add_parser("extract")
    e.add_argument("--analysis", required=True)
    e.add_argument("--results", nargs="+", required=True)
    e.add_argument("--out", required=True)
    r = sub.add_parser("report")
    r.add_argument("--rows", required=True)
    r.add_argument("--tolerance", type=float, default=0.10)
    r.add_argument("--markdown")
    a = ap.parse_args()
    try:
        if a.command == "extract":
            analyses = load_analyses(a.analysis)
            if not analyses:
                raise ValueError(f"{a.analysis}: no analysis documents (run make rank first)")
            rows = extract(analyses, load_results(a.results))
            write_rows(rows, a.out)
            print(f"dataset-coalescing: {len(rows)} rows into {a.out}", file=sys.stderr)
            return 0
        text = report(summarize(read_rows(a.rows), a.tolerance), a.tolerance)
    except ValueError as err:
        print(f"dataset-coalescing: {err}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    if a.markdown:
        open(a.markdown, "w").write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
