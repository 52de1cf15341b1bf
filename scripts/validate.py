#!/usr/bin/env python3
"""cudaperf-validate: the analyzer's static predictions against measured hardware counters.

For every measured kernel of the corpus (data/corpus/*.cu) and of the task implementations
(data/tasks/*/impls/*.cu, data/tasks/pytorch/*/impls/*.cu), compares per feature:

  feature                          measured (Perfworks / Nsight Compute metric names)        predicted (analyzer JSON)
  global ld/st sectors per request l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}.sum /     execution-weighted mean of the
                                   l1tex__t_requests_pipe_lsu_mem_global_op_{ld,st}.sum      accesses' sectors_per_request
  shared ld/st wavefronts per req. l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum execution-weighted mean of
                                   / smsp__inst_executed_op_shared_{ld,st}.sum               bank_conflict_ways
  FLOPs fp32 / fp64 / fp16 / total add + mul + 2 fma thread instructions                     work.sass_fp_instructions
                                   (smsp__sass_thread_inst_executed_op_*_pred_on.sum)
  DRAM bytes read                  dram__bytes_read.sum                                      work.dram_read_bytes_estimate
  registers per thread             launch__registers_per_thread                              resources.registers
  theoretical occupancy (%)        sm__maximum_warps_per_active_cycle_pct                    occupancy.theoretical x 100
  achieved occupancy (%)           sm__warps_active.avg.pct_of_peak_sustained_active         occupancy.theoretical x 100
                                   (reference only: what the theoretical figure bounds)

The per-kernel predictions are those of scripts/corpus/compare-{coalescing,shared,work}.py (imported,
not repeated): kernel-ops with a data-dependent or unanalysable access, and counts the analysis leaves
unknown (a trip count, the grid), are listed as excluded rather than compared.

Per feature: n (kernels compared), exact-match rate, the share within the tolerance the accuracy
tests use, the median absolute percentage error (over measured values != 0) and Spearman's rank
correlation (ties take average ranks). "Exact": ratios and DRAM bytes within 1% of the measurement,
FLOPs equal up to one part in a million (CUPTI's evaluated counters can differ from Nsight Compute's by a
few units in 2^30, e.g. 1,073,741,820 for 2^30 FFMA thread instructions), registers equal, occupancy within 0.1
percentage points.

Measurements (any combination):
  --ncu data/corpus/measured/h200-ncu.json     Nsight Compute, scripts/gpu/measure-corpus.sh
  --corpus-counters DIR                        cudaperf-counters/1 documents, DIR/<corpus file stem>.json
  --task-results FILE.jsonl (repeatable)       cudaperf-eval --counters results; the largest configuration
                                               whose counters are available is used
A kernel launched several times is compared on its first launch (as the corpus comparisons do).

Predictions: run --analyzer (default build/bin/cudaperf-analyze), or read --analysis DIR written by an
earlier --save-analysis DIR. Task implementations go through cudaperf-features (--features, default
beside the analyzer), the code the reward and the ranker use: `cudaperf-analyze --task` evaluates the
entry point at the measured configuration (the C++ host-code interpreter) and analyses every launch it
makes, and lib/Features joins those launches to the measured kernels in launch order; a kernel is
compared with the report of the launch joined to its first measured launch, and a measured kernel
that did not join is not compared (the note says why).

Output: a text table on stdout; --json FILE (summaries and every row); --markdown FILE (tables to paste
into docs/accuracy.md, with date, GPU, driver and command). Exit 0; 2 on set-up errors (nothing
measured, no analyzer). Python 3 standard library only.
"""
import argparse
import concurrent.futures
import datetime
import glob
import importlib.util
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS_SCRIPTS = os.path.join(ROOT, "scripts", "corpus")
sys.path.insert(0, CORPUS_SCRIPTS)
import corpus_compare  # noqa: E402


def _load_script(name):
    """A comparison script with a dash in its name, as a module (its main() is not run)."""
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"), os.path.join(CORPUS_SCRIPTS, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


compare_coalescing = _load_script("compare-coalescing")
compare_shared = _load_script("compare-shared")
compare_work = _load_script("compare-work")

# ----------------------------------------------------------------------------------------------
# Statistics


def average_ranks(values):
    """1-based ranks; tied values share the mean of the ranks they span."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        mean_rank = (i + j) / 2.0 + 1.0
        for k in range(i, j + 1):
            ranks[order[k]] = mean_rank
        i = j + 1
    return ranks


def pearson(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sxy / (sxx * syy) ** 0.5


def spearman(xs, ys):
    """Spearman's rho: Pearson's correlation of the average ranks; None with fewer than 3 pairs or
    when either side is constant (undefined)."""
    if len(xs) != len(ys):
        raise ValueError("spearman: lengths differ")
    if len(xs) < 3:
        return None
    return pearson(average_ranks(xs), average_ranks(ys))


def median_ape(pairs):
    """Median of |predicted - measured| / |measured| in percent, over pairs whose measurement is not 0."""
    errors = [abs(p - m) / abs(m) * 100.0 for p, m in pairs if m != 0]
    return statistics.median(errors) if errors else None


# ----------------------------------------------------------------------------------------------
# Features: how each is measured and predicted, and what counts as agreement.

M_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_%s.sum"
M_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_%s.sum"
M_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_%s.sum"
M_SHARED_INSTS = "smsp__inst_executed_op_shared_%s.sum"
M_DRAM_READ = "dram__bytes_read.sum"
M_REGISTERS = "launch__registers_per_thread"
M_THEORETICAL = "sm__maximum_warps_per_active_cycle_pct"
M_ACHIEVED = "sm__warps_active.avg.pct_of_peak_sustained_active"
DRAM_ABS_FLOOR = 65536  # compare-work.py's --abs-floor: ~3 KB of code and constants show up anyway


def _ratio(m, num, den):
    if num not in m or den not in m:
        return None
    return m[num] / m[den] if m[den] else None  # no such instruction: nothing to compare


def _relative(limit):
    return lambda p, m: abs(p - m) <= limit * abs(m) + 1e-12


def _absolute(limit):
    return lambda p, m: abs(p - m) <= limit + 1e-9


def _access_prediction(predict, op):
    def f(kernel):
        value, status, _ = predict(kernel, op)
        if status in ("ok", "unweighted"):
            return (value, "ok") if value is not None else (None, "no access predicted")
        return None, status
    return f


def _flops_prediction(precision):
    def f(kernel):
        w = kernel.get("work") or {}
        if (w.get("flops") or {}).get("total") is None:
            return None, "FLOPs unknown"
        if precision != "total":
            value = compare_work.predicted_counter_flops(w, precision)
            return (value, "ok") if value is not None else (None, "FLOPs unknown")
        parts = [compare_work.predicted_counter_flops(w, p) for p, *_ in compare_work.PRECISIONS]
        return (None, "FLOPs unknown") if None in parts else (sum(parts), "ok")
    return f


def _flops_measurement(precision):
    precisions = [p for p, *_ in compare_work.PRECISIONS] if precision == "total" else [precision]

    def f(m, predicted):
        names = ["smsp__sass_thread_inst_executed_op_%s_pred_on.sum" % op
                 for p, *ops in compare_work.PRECISIONS if p in precisions for op in ops]
        if not any(n in m for n in names):
            return None
        # compare-work.py's rule: hfma counts of kernels without fp16 arithmetic are HFMA2.MMA
        # constant moves, not FLOPs (docs/accuracy.md).
        has_fp16 = precision in ("fp16", "total") and predicted is not None and \
            (predicted if precision == "fp16" else predicted.get("fp16", 0)) > 0
        return sum(compare_work.measured_flops(m, p) for p in precisions if p != "fp16" or has_fp16)
    return f


def _occupancy_prediction(kernel):
    theoretical = (kernel.get("occupancy") or {}).get("theoretical")
    return (None, "occupancy unknown") if theoretical is None else (100.0 * theoretical, "ok")


def _registers_prediction(kernel):
    regs = (kernel.get("resources") or {}).get("registers")
    return (None, "registers unknown") if regs is None else (regs, "ok")


def _dram_prediction(kernel):
    value = (kernel.get("work") or {}).get("dram_read_bytes_estimate")
    return (None, "DRAM estimate unknown") if value is None else (value, "ok")


def _within_dram(p, m):
    return abs(p - m) <= 0.25 * abs(m) or abs(p - m) <= DRAM_ABS_FLOOR


FEATURES = []


def feature(key, title, measure, predict, exact, exact_text, within, within_text, skip_zero=False, unit=""):
    """measure(metrics, prediction) -> measured value or None (not applicable: no such instruction,
    metric not collected); predict(kernel) -> (value or None, status). skip_zero: kernels where
    both sides are 0 are not counted (FLOPs of precisions a kernel does not use)."""
    FEATURES.append(dict(key=key, title=title, measure=measure, predict=predict, exact=exact,
                         exact_text=exact_text, within=within, within_text=within_text,
                         skip_zero=skip_zero, unit=unit))


for _op, _short in (("load", "ld"), ("store", "st")):
    feature("global_%s_sectors_per_request" % _short, "global %s sectors / request" % _short,
            lambda m, p, s=_short: _ratio(m, M_SECTORS % s, M_REQUESTS % s),
            _access_prediction(compare_coalescing.predict, _op), _relative(0.01), "within 1%",
            _relative(0.10), "10%")
for _op, _short in (("load", "ld"), ("store", "st")):
    feature("shared_%s_wavefronts_per_request" % _short, "shared %s wavefronts / request" % _short,
            lambda m, p, s=_short: _ratio(m, M_WAVEFRONTS % s, M_SHARED_INSTS % s),
            _access_prediction(compare_shared.predict, _op), _relative(0.01), "within 1%",
            _relative(0.10), "10%")
for _prec in ("fp32", "fp64", "fp16"):
    feature("flops_" + _prec, "FLOPs %s" % _prec, _flops_measurement(_prec), _flops_prediction(_prec),
            _relative(1e-6), "equal (1e-6)", _relative(0.02), "2%", skip_zero=True)


def _predict_total_flops(kernel):
    value, status = _flops_prediction("total")(kernel)
    if value is None:
        return None, status
    # The measurement needs to know whether fp16 is predicted (HFMA2.MMA rule), so the prediction
    # carries its fp16 part; Row.predicted is the total.
    return {"total": value, "fp16": compare_work.predicted_counter_flops(kernel["work"], "fp16") or 0}, status


feature("flops_total", "FLOPs total", _flops_measurement("total"), _predict_total_flops,
        _relative(1e-6), "equal (1e-6)", _relative(0.02), "2%", skip_zero=True)
feature("dram_read_bytes", "DRAM bytes read", lambda m, p: m.get(M_DRAM_READ), _dram_prediction,
        _relative(0.01), "within 1%", _within_dram, "25% or 64 KiB")
feature("registers", "registers / thread", lambda m, p: m.get(M_REGISTERS), _registers_prediction,
        _absolute(0), "equal", _absolute(0), "equal")
# launch__registers_per_thread never reads below 16 on the H200 (all 86 corpus kernels for which
# ptxas reports fewer read 16, Nsight Compute 2025.3.1, 2026-11-29): the allocation floor.
REGISTER_FLOOR = 16
feature("registers_allocated", "registers / thread, floor 16", lambda m, p: m.get(M_REGISTERS),
        lambda k: (lambda v, s: (None if v is None else max(v, REGISTER_FLOOR), s))(*_registers_prediction(k)),
        _absolute(0), "equal", _absolute(0), "equal")
feature("theoretical_occupancy", "theoretical occupancy %", lambda m, p: m.get(M_THEORETICAL),
        _occupancy_prediction, _absolute(0.1), "within 0.1 pt", _absolute(0.1), "0.1 pt")
feature("achieved_occupancy", "achieved occupancy % (ref.)", lambda m, p: m.get(M_ACHIEVED),
        _occupancy_prediction, _absolute(0.1), "within 0.1 pt", _absolute(10.0), "10 pt")


def compare_kernel(kernel, metrics):
    """Rows (one per feature that applies) for one analysed kernel and its measured metrics."""
    rows = []
    for f in FEATURES:
        predicted, status = f["predict"](kernel)
        measured = f["measure"](metrics, predicted)
        if isinstance(predicted, dict):
            predicted = predicted["total"]
        if measured is None:
            continue  # not measured, or no such instruction in the kernel
        if f["skip_zero"] and measured == 0 and predicted in (0, None):
            continue
        row = {"feature": f["key"], "predicted": predicted, "measured": measured, "status": status}
        if predicted is not None:
            row["exact"] = bool(f["exact"](predicted, measured))
            row["within"] = bool(f["within"](predicted, measured))
        rows.append(row)
    return rows


def summarize(rows):
    """Per feature: n compared, excluded (by reason), exact and within-tolerance rates, median APE,
    Spearman's rho. A row is compared when it has a prediction."""
    out = []
    for f in FEATURES:
        mine = [r for r in rows if r["feature"] == f["key"]]
        compared = [r for r in mine if r["predicted"] is not None]
        excluded = {}
        for r in mine:
            if r["predicted"] is None:
                excluded[r["status"]] = excluded.get(r["status"], 0) + 1
        pairs = [(r["predicted"], r["measured"]) for r in compared]
        n = len(compared)
        out.append({
            "feature": f["key"], "title": f["title"], "n": n, "excluded": excluded,
            "exact": sum(r["exact"] for r in compared), "within": sum(r["within"] for r in compared),
            "exact_rate": sum(r["exact"] for r in compared) / n if n else None,
            "within_rate": sum(r["within"] for r in compared) / n if n else None,
            "exact_rule": f["exact_text"], "tolerance": f["within_text"],
            "median_ape_pct": median_ape(pairs),
            "spearman": spearman([p for p, _ in pairs], [m for _, m in pairs]) if n else None,
        })
    return out


# ----------------------------------------------------------------------------------------------
# Measurements, in one internal form: {"source", "file" (repository-relative .cu), "mangled",
# "launch", "metrics", "config" (task implementations: {"name", "params"})}.


def read_json(path):
    with open(path) as f:
        return json.load(f)


def _counter_kernels(source, rel, kernels, config=None):
    for k in kernels or []:
        yield {"source": source, "file": rel, "mangled": k.get("name"), "demangled": k.get("demangled"),
               "launch": k.get("launch", 0), "metrics": k.get("metrics") or {}, "config": config}


def load_ncu(path):
    doc = read_json(path)
    info = {"source": "Nsight Compute", "date": doc.get("date"), "gpu": doc.get("gpu"),
            "driver": doc.get("driver"), "tool": doc.get("ncu_version"), "path": path}
    measured = [{"source": "corpus-ncu", "file": r["file"], "mangled": r["mangled"],
                 "demangled": r.get("demangled"), "launch": r.get("launch_id", 0),
                 "metrics": r["metrics"], "config": None} for r in doc["kernels"].values()]
    return measured, info


def load_corpus_counters(directory, notes):
    measured, info = [], {"source": "cudaperf counters (CUPTI)", "path": directory}
    for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        stem = os.path.basename(path)[:-5]
        rel = "data/corpus/%s.cu" % stem
        try:
            doc = read_json(path)
        except (OSError, ValueError) as e:
            notes.append("%s: unreadable (%s)" % (path, e))
            continue
        if not os.path.exists(os.path.join(ROOT, rel)):
            notes.append("%s: no %s" % (path, rel))
            continue
        if doc.get("schema") != "cudaperf-counters/1" or not doc.get("available"):
            notes.append("%s: counters not available: %s" % (stem, doc.get("reason") or doc.get("schema")))
            continue
        if doc.get("dropped_metrics"):
            notes.append("%s: dropped metrics %s" % (stem, ", ".join(sorted(doc["dropped_metrics"]))))
        info.setdefault("gpu", (doc.get("gpu") or {}).get("name"))
        measured.extend(_counter_kernels("corpus-cupti", rel, doc.get("kernels")))
    return measured, info


def repository_path(path):
    """A candidate path of a result (absolute on the machine that ran it) relative to this checkout."""
    path = path or ""
    marker = "/data/tasks/"
    if marker in path:
        return "data/tasks/" + path.rsplit(marker, 1)[1]
    return os.path.relpath(path, ROOT) if os.path.isabs(path) else path


def load_task_results(paths, notes):
    measured, info = [], {"source": "cudaperf-eval --counters (CUPTI)", "path": ", ".join(paths)}
    for path in paths:
        with open(path) as f:
            lines = f.readlines()
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                doc = json.loads(line)
            except ValueError:
                notes.append("%s:%d: not JSON" % (path, number))
                continue
            rel = repository_path(doc.get("candidate"))
            gpu = doc.get("gpu") or {}
            info.setdefault("gpu", gpu.get("name"))
            if (doc.get("tools") or {}).get("driver_version"):
                v = doc["tools"]["driver_version"]
                info.setdefault("driver", "CUDA %d.%d driver API" % (v // 1000, v % 1000 // 10) if isinstance(v, int) else v)
            with_counters = [c for c in doc.get("configs") or [] if (c.get("counters") or {}).get("available")]
            if not with_counters:
                notes.append("%s: %s, no counters" % (rel, doc.get("outcome")))
                continue
            if not os.path.exists(os.path.join(ROOT, rel)):
                notes.append("%s: not in this checkout" % rel)
                continue
            largest = with_counters[-1]  # configurations are listed small to large (docs/task-format.md)
            config = {"name": largest.get("name"), "params": largest.get("params") or {},
                      "task_dir": repository_path(doc.get("task_dir")) or os.path.dirname(os.path.dirname(rel)),
                      "result": doc}
            measured.extend(_counter_kernels("tasks-cupti", rel, largest["counters"].get("kernels"), config))
    return measured, info


def first_launches(measured):
    """One record per (source, file, mangled kernel): its first launch."""
    first = {}
    for rec in measured:
        key = (rec["source"], rec["file"], rec["mangled"])
        if key not in first or rec["launch"] < first[key]["launch"]:
            first[key] = rec
    return list(first.values())


# ----------------------------------------------------------------------------------------------
# Predictions


def analysis_name(rel, config_name=None):
    return rel.replace("/", "__") + ("@" + config_name if config_name else "") + ".json"


def launch_origin(launch):
    """Where the analyzer's launch came from: the entry point evaluated at the configuration, or why not."""
    if launch.get("resolved"):
        return "cudaperf-analyze --task"
    parts = ["%s: %s" % (u.get("part"), u.get("reason")) for u in launch.get("unresolved") or []]
    return "cudaperf-analyze --task, unresolved (%s)" % "; ".join(parts)


def joined_reports(analysis, record, measured_by_mangled):
    """{mangled name: kernel report} for the measured kernels whose compared launch (validate compares a
    kernel's first launch) cudaperf-features joined to one of the analyzer's launches, with the report
    the analyzer made for that launch; and {mangled name: launch origin}."""
    configuration = next(c for c in analysis["configurations"] if c["name"] == record["configuration"])
    launches = configuration["launches"]
    reports, origins = {}, {}
    for joined in record["launches"]:
        measured = joined.get("measured")
        if not measured or measured.get("counters_launch") is None:
            continue
        rec = measured_by_mangled.get(measured["kernel"])
        if rec is None or rec["launch"] != measured["counters_launch"]:
            continue  # a later launch of a kernel compared on its first
        launch = launches[joined["index"]]
        while launch.get("report") is None and launch.get("same_report_as") is not None:
            launch = launches[launch["same_report_as"]]
        if launch.get("report") is not None:
            reports[measured["kernel"]] = launch["report"]
            origins[measured["kernel"]] = launch_origin(launches[joined["index"]])
    return reports, origins


class Analyses:
    def __init__(self, analyzer, features, analysis_dir, save_dir, notes):
        self.analyzer, self.features = analyzer, features
        self.analysis_dir, self.save_dir, self.notes = analysis_dir, save_dir, notes
        self.origins = {}

    def _task(self, rel, config, measured_by_mangled, name, tmp):
        """A task implementation at its measured configuration, through cudaperf-features: the launches of
        `cudaperf-analyze --task` (the entry point evaluated at the configuration's sizes) joined to the
        measured kernels. Returns (analysis document, {mangled: report}, {mangled: origin})."""
        result = os.path.join(tmp, "result.json")
        with open(result, "w") as f:
            json.dump(config["result"], f)
        cmd = [self.features, os.path.join(ROOT, config["task_dir"]), os.path.join(ROOT, rel),
               "--config", config["name"], "--result", result]
        if self.analysis_dir:
            path = os.path.join(self.analysis_dir, name)
            if not os.path.exists(path):
                raise OSError("no precomputed analysis %s" % path)
            cmd += ["--analysis", path]
        else:
            path = os.path.join(self.save_dir or tmp, name)
            cmd += ["--analyzer", self.analyzer, "--save-analysis", path]
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        if p.returncode != 0:
            raise RuntimeError("cudaperf-features: %s" % (p.stderr.strip() or "exit status %d" % p.returncode))
        record = json.loads(p.stdout.splitlines()[0])
        join = record["join"]
        if not join["complete"]:
            why = [u["reason"] for u in join["unjoined_measured"] + join["unjoined_static"]] + \
                [m["what"] for m in join["mismatches"]]
            self.notes.append("%s@%s: join incomplete, %d of %d measured launches joined%s" % (
                rel, config["name"], join["joined"], join["measured_launches"],
                " (%s)" % why[0] if why else ""))
        analysis = read_json(path)
        reports, origins = joined_reports(analysis, record, measured_by_mangled)
        return analysis, reports, origins

    def get(self, rel, config=None, measured_by_mangled=None):
        """{mangled name: kernel report} of one file, or None when it cannot be analysed."""
        name = analysis_name(rel, config and config.get("name"))
        try:
            if config is not None:
                if self.save_dir:
                    os.makedirs(self.save_dir, exist_ok=True)
                with tempfile.TemporaryDirectory(prefix="validate-") as tmp:
                    _, reports, origins = self._task(rel, config, measured_by_mangled or {}, name, tmp)
                self.origins[rel] = origins
                return reports
            if self.analysis_dir:
                path = os.path.join(self.analysis_dir, name)
                if not os.path.exists(path):
                    self.notes.append("%s: no precomputed analysis %s" % (rel, path))
                    return None
                doc = read_json(path)
            else:
                doc = corpus_compare.analyse(self.analyzer, os.path.join(ROOT, rel), [])
                if self.save_dir:
                    os.makedirs(self.save_dir, exist_ok=True)
                    with open(os.path.join(self.save_dir, name), "w") as f:
                        json.dump(doc, f)
        except (RuntimeError, OSError, ValueError, KeyError, IndexError, StopIteration) as e:
            self.notes.append("%s: analysis failed: %s" % (rel, str(e).splitlines()[0][:300] if str(e) else repr(e)))
            return None
        self.origins[rel] = {}
        return {k["mangled_name"]: k for k in doc.get("kernels", [])}


# ----------------------------------------------------------------------------------------------
# Report

SOURCE_TITLES = {"corpus-ncu": "corpus, Nsight Compute", "corpus-cupti": "corpus, cudaperf counters",
                 "tasks-cupti": "task implementations, cudaperf counters",
                 "cupti": "corpus and task implementations, cudaperf counters"}


def fmt(v, digits=2):
    if v is None:
        return "-"
    if isinstance(v, float):
        return "%.*f" % (digits, v)
    return str(v)


def pct(v):
    return "-" if v is None else "%.1f%%" % (100 * v)


def table_rows(summary):
    header = ["feature", "n", "exact", "exact rule", "within tol.", "tol.", "median APE", "Spearman", "excluded"]
    rows = []
    for s in summary:
        excluded = ", ".join("%d %s" % (c, why) for why, c in sorted(s["excluded"].items())) or "-"
        rows.append([s["title"], str(s["n"]), pct(s["exact_rate"]), s["exact_rule"], pct(s["within_rate"]),
                     s["tolerance"], "-" if s["median_ape_pct"] is None else "%.1f%%" % s["median_ape_pct"],
                     fmt(s["spearman"], 3), excluded])
    return header, rows


def text_table(summary):
    header, rows = table_rows(summary)
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header) - 1)]
    lines = []
    for r in [header] + rows:
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
                     + "  " + r[-1])
    return "\n".join(lines)


def markdown_table(summary):
    header, rows = table_rows(summary)
    lines = ["| " + " | ".join(header) + " |",
             "| --- | " + " | ".join("---:" for _ in header[1:-1]) + " | --- |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--analyzer", default=os.path.join(ROOT, "build", "bin", "cudaperf-analyze"))
    p.add_argument("--features", default=None,
                   help="cudaperf-features, which analyses and joins the task implementations (default: beside "
                        "--analyzer, then build/bin, then build-gpu/bin)")
    p.add_argument("--analysis", help="read precomputed analyzer JSON from this directory (see --save-analysis)")
    p.add_argument("--save-analysis", help="write each analyzer JSON used into this directory")
    p.add_argument("--ncu", help="Nsight Compute measurements of the corpus (data/corpus/measured/h200-ncu.json)")
    p.add_argument("--corpus-counters", help="directory of cudaperf-counters/1 documents, <corpus stem>.json")
    p.add_argument("--task-results", action="append", default=[], help="cudaperf-eval --counters JSON lines")
    p.add_argument("--json", help="write summaries and rows here")
    p.add_argument("--markdown", help="write the tables for docs/accuracy.md here")
    p.add_argument("--environment", default="", help="GPU / driver text for the Markdown header")
    p.add_argument("--verbose", action="store_true", help="print every compared row that is not exact")
    p.add_argument("--jobs", type=int, default=2, help="analyzer processes at once")
    args = p.parse_args(argv)

    notes, measured, infos = [], [], []
    if args.ncu:
        m, info = load_ncu(args.ncu)
        measured += m
        infos.append(info)
    if args.corpus_counters:
        m, info = load_corpus_counters(args.corpus_counters, notes)
        measured += m
        infos.append(info)
    if args.task_results:
        m, info = load_task_results(args.task_results, notes)
        measured += m
        infos.append(info)
    measured = first_launches(measured)
    if not measured:
        print("nothing measured: give --ncu, --corpus-counters or --task-results with counters")
        for n in notes:
            print("  " + n)
        return 2
    if not args.analysis and not os.access(args.analyzer, os.X_OK):
        print("no analyzer at %s (give --analyzer or --analysis)" % args.analyzer)
        return 2

    features = args.features or next(
        (f for f in (os.path.join(os.path.dirname(os.path.abspath(args.analyzer)), "cudaperf-features"),
                     os.path.join(ROOT, "build", "bin", "cudaperf-features"),
                     os.path.join(ROOT, "build-gpu", "bin", "cudaperf-features")) if os.access(f, os.X_OK)), None)
    if args.task_results and not features:
        print("no cudaperf-features beside %s or in build/bin, build-gpu/bin (give --features)" % args.analyzer)
        return 2
    analyses = Analyses(args.analyzer, features, args.analysis, args.save_analysis, notes)
    groups = {}
    for rec in measured:
        groups.setdefault((rec["file"], json.dumps(rec["config"], sort_keys=True)), []).append(rec)
    # Analyses run in parallel (each is a separate analyzer process); the comparison is sequential.
    work = {}
    for (rel, _), recs in sorted(groups.items()):
        config = recs[0]["config"]
        work.setdefault((rel, config and config.get("name")), (rel, config, {r["mangled"]: r for r in recs}))
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {key: pool.submit(analyses.get, *job) for key, job in work.items()}
        cache = {key: f.result() for key, f in futures.items()}
    rows, unmatched = [], 0
    for (rel, _), recs in sorted(groups.items()):
        config = recs[0]["config"]
        reports = cache[(rel, config and config.get("name"))]
        if reports is None:
            continue
        for rec in recs:
            kernel = reports.get(rec["mangled"])
            if kernel is None:
                unmatched += 1
                continue
            for row in compare_kernel(kernel, rec["metrics"]):
                row.update(source=rec["source"], file=rel, kernel=kernel["name"], mangled=rec["mangled"],
                           config=config and config.get("name"),
                           grid_origin=analyses.origins.get(rel, {}).get(rec["mangled"]))
                rows.append(row)
    if unmatched:
        notes.append("%d measured kernels have no analysed kernel of that mangled name (library or "
                     "runtime kernels, a failed analysis, or a launch cudaperf-features did not join)" % unmatched)

    sources = sorted({r["source"] for r in rows}, key=lambda s: list(SOURCE_TITLES).index(s))
    groups_out = [(s, [r for r in rows if r["source"] == s]) for s in sources]
    if "corpus-cupti" in sources and "tasks-cupti" in sources:
        groups_out.append(("cupti", [r for r in rows if r["source"].endswith("-cupti")]))
    summaries = {s: summarize(rs) for s, rs in groups_out}

    for s, rs in groups_out:
        print("== %s: %d kernels" % (SOURCE_TITLES[s], len({(r["source"], r["file"], r["mangled"]) for r in rs})))
        print(text_table(summaries[s]))
        print()
    if args.verbose:
        for r in rows:
            if r["predicted"] is not None and not r["exact"]:
                print("%s %s %s: predicted %s measured %s" % (r["source"], r["kernel"], r["feature"],
                                                              fmt(r["predicted"], 3), fmt(r["measured"], 3)))
    for n in notes:
        print("note: " + n)

    command = "scripts/validate.py " + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    today = datetime.date.today().isoformat()
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"schema": "cudaperf-validate/1", "date": today, "command": command, "measurements": infos,
                       "rules": {f["key"]: {"exact": f["exact_text"], "tolerance": f["within_text"]} for f in FEATURES},
                       "summaries": summaries, "rows": rows, "notes": notes}, f, indent=1)
    if args.markdown:
        lines = ["Validation of %s, `%s`." % (today, command), ""]
        for info in infos:
            lines.append("- Source: %s (%s)%s%s%s." % (
                info["source"], info["path"], ", measured %s" % info["date"] if info.get("date") else "",
                ", GPU %s" % info["gpu"] if info.get("gpu") else "",
                ", driver %s" % info["driver"] if info.get("driver") else ""))
        if args.environment:
            lines.append("- Environment: %s." % args.environment)
        lines.append("- n: measured kernels with a prediction (for ratios: kernels that issued such instructions); "
                     "excluded: kernels whose prediction the analysis leaves open, by reason. Median APE over "
                     "measurements != 0; Spearman's rho with average ranks for ties.")
        for s, _ in groups_out:
            lines += ["", "**%s**" % SOURCE_TITLES[s], "", markdown_table(summaries[s])]
        with open(args.markdown, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
