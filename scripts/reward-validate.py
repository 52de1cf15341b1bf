#!/usr/bin/env python3
"""Validation of the unified reward (docs/reward.md, "Validation") on stored eval results.

For every correct candidate whose file is in the repository (or in --search-root) with the SHA-256
its result records, the script runs `cudaperf-analyze --task` once (cached by content), then
`cudaperf-reward --result --analysis` three ways: with the result as measured (counters where the
run collected them), with the counters removed, and static-only (a compile-only view of the result:
nothing measured is used; the task baseline's analysis gives the predicted speedup). It reports:

  spearman        Spearman correlation between the reward and the measured speedup (the result's
                  geometric mean over configurations), among correct candidates; with and without
                  counters;
  pairs           for two correct candidates of the same task and configuration whose measured
                  medians differ by >= 10%: how often the static-only score of that configuration
                  (cudaperf-reward with that configuration's weight alone) picks the faster, beside
                  the analyzer's roofline time alone and chance (ties count one half);
  bad suite       every result of a bad candidate (--bad-dir, default test/runtime/bad) must score
                  below every honest candidate of its task (the shipped implementations);
  calibration     the measurements the defaults stand on: |ln speedup| of a task's baseline timed
                  against itself over the timing spread (the tie band), the distribution of
                  per-configuration speedups (the cap).

With --manifest (a cudaperf-dataset manifest.jsonl) only candidates of held-out families (and the
`test` split) count for the figures; without it every stored candidate does (then the figures are
in-sample for the shipped tasks, which the defaults were chosen on: docs/reward.md says so).

Exit status: 0 the report was written and every --min-* threshold holds; 1 a threshold failed;
2 bad usage; 77 the analyzer or cudaperf-reward is missing (ctest SKIP).
"""
import argparse
import concurrent.futures
import gzip
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile


def read_results(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        text = f.read()
    try:
        doc = json.loads(text)
        return [doc] if isinstance(doc, dict) else doc
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def locate(path, roots, sha=None):
    """The file `path` names, looked up under each root by dropping leading components."""
    parts = path.strip("/").split("/")
    for root in roots:
        for i in range(len(parts)):
            p = os.path.join(root, *parts[i:])
            if os.path.isfile(p) and (sha is None or sha256_file(p) == sha):
                return os.path.relpath(p, roots[0]) if p.startswith(roots[0]) else p
            if os.path.isdir(p) and sha is None and os.path.isfile(os.path.join(p, "task.json")):
                return os.path.relpath(p, roots[0]) if p.startswith(roots[0]) else p
    return None


def spearman(xs, ys):
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(v):
            j = i
            while j + 1 < len(v) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2.0
            i = j + 1
        return r
    if len(xs) < 3:
        return None
    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    den = math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))
    return num / den if den else None


def percentile(values, q):
    v = sorted(values)
    if not v:
        return None
    return v[min(len(v) - 1, int(q * len(v)))]


class Runner:
    def __init__(self, args, workdir):
        self.args = args
        self.workdir = workdir
        self.analysis_dir = args.cache_dir or os.path.join(workdir, "analyses")
        os.makedirs(self.analysis_dir, exist_ok=True)

    def analysis(self, task_dir, candidate):
        """The --task document of a candidate, cached by the SHA-256 of task.json and the file."""
        key = hashlib.sha256((sha256_file(os.path.join(task_dir, "task.json")) +
                              sha256_file(candidate)).encode()).hexdigest()[:32]
        out = os.path.join(self.analysis_dir, key + ".json")
        if os.path.exists(out):
            return out, None
        r = subprocess.run([self.args.analyzer, "--task", task_dir, "--format=json", candidate],
                           capture_output=True, text=True, timeout=600, cwd=self.args.root)
        if r.returncode != 0:
            return None, (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[0]
        with open(out + ".tmp", "w") as f:
            f.write(r.stdout)
        os.replace(out + ".tmp", out)
        return out, None

    def reward(self, result, analysis, baseline=None, config=None, tag="r"):
        path = os.path.join(self.workdir, "%s-%s.json" % (tag, hashlib.sha256(
            (json.dumps(result, sort_keys=True) + str(analysis) + str(baseline) + str(config)).encode()
        ).hexdigest()[:20]))
        with open(path, "w") as f:
            json.dump(result, f)
        argv = [self.args.reward, "--result", path, "--format", "jsonl"]
        if analysis:
            argv += ["--analysis", analysis]
        if baseline:
            argv += ["--baseline-analysis", baseline]
        if config:
            argv += ["--config", config]
        r = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=self.args.root)
        if r.returncode not in (0, 3):
            raise RuntimeError("cudaperf-reward failed (%d): %s" % (r.returncode, r.stderr.strip()))
        return json.loads(r.stdout)


def without_counters(result):
    r = json.loads(json.dumps(result))
    for c in r.get("configs") or []:
        c.pop("counters", None)
    return r


def compile_only_view(result):
    """What `cudaperf-eval --compile-only` says of a candidate that builds: nothing measured."""
    keep = ("schema", "task", "task_dir", "candidate", "candidate_sha256", "compile", "tools")
    r = {k: result[k] for k in keep if k in result}
    r.update({"outcome": "ok", "detail": "compiled (--compile-only: not run)", "speedup": None,
              "compile_only": True})
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--reward", required=True, help="cudaperf-reward")
    ap.add_argument("--analyzer", required=True, help="cudaperf-analyze")
    ap.add_argument("--results", action="append", required=True, help="eval results (JSON, JSON Lines, .gz)")
    ap.add_argument("--search-root", action="append", default=[], help="more places to find candidates")
    ap.add_argument("--bad-dir", default="test/runtime/bad")
    ap.add_argument("--manifest", help="cudaperf-dataset manifest.jsonl: figures on held-out families only")
    ap.add_argument("--config", help="reward config (default: built-in)")
    ap.add_argument("--cache-dir", help="keep analyses here between runs")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", help="write the report here")
    ap.add_argument("--min-spearman", type=float)
    ap.add_argument("--min-spearman-without-counters", type=float)
    ap.add_argument("--min-pair-accuracy", type=float)
    ap.add_argument("--min-pairs", type=int, default=1)
    ap.add_argument("--require-bad-below-honest", action="store_true")
    args = ap.parse_args()
    for tool in (args.reward, args.analyzer):
        if not (os.path.isfile(tool) and os.access(tool, os.X_OK)):
            print("reward-validate: %s not found (skipped)" % tool)
            return 77
    root = os.path.abspath(args.root)
    roots = [root] + [os.path.abspath(r) for r in args.search_root]
    held_out = None
    if args.manifest:
        held_out = {}
        with open(args.manifest) as f:
            for line in f:
                if line.strip():
                    m = json.loads(line)
                    held_out[m["task"]] = m.get("split") == "test"

    # One result per candidate file (the first with counters, else the first), and every result of
    # the bad suite.
    results, skipped = {}, []
    bad_results = []
    for path in args.results:
        for r in read_results(os.path.join(root, path) if not os.path.isabs(path) else path):
            cand = locate(r.get("candidate", ""), roots, r.get("candidate_sha256"))
            task = locate(r.get("task_dir", ""), roots)
            if not cand or not task:
                skipped.append("%s: file not found or changed since it was evaluated" % r.get("candidate"))
                continue
            r = dict(r, candidate=cand, task_dir=task)
            if args.bad_dir in cand:
                bad_results.append(r)
                continue
            has_counters = any((c.get("counters") or {}).get("available") for c in r.get("configs") or [])
            old = results.get(cand)
            old_counters = old and any((c.get("counters") or {}).get("available") for c in old.get("configs") or [])
            if old is None or (has_counters and not old_counters):
                results[cand] = r

    workdir = tempfile.mkdtemp(prefix="reward-validate-")
    runner = Runner(args, workdir)
    honest = [r for r in results.values() if r["outcome"] == "ok"]
    tasks = sorted({r["task_dir"] for r in honest + bad_results})
    print("reward-validate: %d correct candidates, %d bad-suite results, %d tasks (%d results skipped)"
          % (len(honest), len(bad_results), len(tasks), len(skipped)), flush=True)

    # Analyses (the slow part), in parallel.
    wanted = {(r["task_dir"], r["candidate"]) for r in honest + bad_results}
    wanted |= {(t, os.path.join(t, "impls", "baseline.cu")) for t in tasks
               if os.path.isfile(os.path.join(root, t, "impls", "baseline.cu"))}
    analyses = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(runner.analysis, t, c): (t, c) for t, c in sorted(wanted)}
        for i, fut in enumerate(concurrent.futures.as_completed(futures)):
            analyses[futures[fut]] = fut.result()
            if (i + 1) % 10 == 0:
                print("  analysed %d of %d" % (i + 1, len(futures)), flush=True)
    failed = {k: v[1] for k, v in analyses.items() if v[0] is None}

    def analysis_of(r):
        return analyses.get((r["task_dir"], r["candidate"]), (None, None))[0]

    def baseline_of(task):
        return analyses.get((task, os.path.join(task, "impls", "baseline.cu")), (None, None))[0]

    # Rewards.
    rows = []
    def score(r):
        a = analysis_of(r)
        row = {"task": r["task"], "task_dir": r["task_dir"], "candidate": r["candidate"],
               "speedup": r.get("speedup"), "analysis": bool(a)}
        row["with_counters"] = runner.reward(r, a, config=args.config, tag="full")
        row["without_counters"] = runner.reward(without_counters(r), a, config=args.config, tag="plain")
        row["static_only"] = runner.reward(compile_only_view(r), a, baseline_of(r["task_dir"]),
                                           config=args.config, tag="static")
        # Per configuration: the static-only score with that configuration's weight alone.
        row["static_by_configuration"] = {}
        for c in r.get("configs") or []:
            cfg_path = single_configuration[c["name"]]
            doc = runner.reward(compile_only_view(r), a, baseline_of(r["task_dir"]), config=cfg_path,
                                tag="static-" + c["name"])
            static = next((x.get("static") or {} for x in doc["configurations"] if x["name"] == c["name"]), {})
            row["static_by_configuration"][c["name"]] = {
                "score": doc["total"], "roofline_time_us": static.get("roofline_time_us"),
                "median_ms": (c.get("candidate") or {}).get("median_ms")}
        return row

    base_config = json.loads(subprocess.run(
        [args.reward, "--print-config"] + (["--config", args.config] if args.config else []),
        capture_output=True, text=True, check=True).stdout)
    # A config per configuration name: that configuration's weight alone.
    single_configuration = {}
    for r in honest:
        for c in r.get("configs") or []:
            if c["name"] in single_configuration:
                continue
            cfg = json.loads(json.dumps(base_config))
            cfg["speedup"]["default_configuration_weight"] = 0
            cfg["speedup"]["configuration_weights"] = {c["name"]: 1}
            path = os.path.join(workdir, "config-%d.json" % len(single_configuration))
            with open(path, "w") as f:
                json.dump(cfg, f)
            single_configuration[c["name"]] = path
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(score, honest))
    bad_rows = []
    for r in bad_results:
        a = analysis_of(r)
        bad_rows.append({"task": r["task"], "candidate": r["candidate"], "outcome": r["outcome"],
                         "with_counters": runner.reward(r, a, config=args.config, tag="bad"),
                         "without_counters": runner.reward(without_counters(r), a, config=args.config,
                                                           tag="badplain")})

    def counted(row):
        return held_out is None or held_out.get(row["task"], False)

    report = {"schema": "cudaperf-reward-validation/1", "results": args.results, "manifest": args.manifest,
              "candidates": len(rows), "bad_results": len(bad_rows), "skipped": skipped,
              "analysis_failures": {"%s %s" % k: v for k, v in failed.items()}}

    # Spearman.
    fig = [r for r in rows if counted(r) and r["speedup"]]
    for key in ("with_counters", "without_counters", "static_only"):
        report["spearman_" + key] = spearman([r[key]["total"] for r in fig], [r["speedup"] for r in fig])
    report["spearman_candidates"] = len(fig)
    report["counters_measured"] = sum(1 for r in fig if any(
        t["group"] == "counters" for t in r["with_counters"]["terms"]))

    # How the figure moves with the weight of the non-speed groups and the eager share (totals
    # recomputed from the documents' terms: each contribution is weight x value, or x 0.5 when unknown).
    def retotal(doc, scale, eager_share):
        total = 0.0
        for t in doc["terms"]:
            c = t["contribution"]
            if t["group"] in ("structural", "counters", "penalty"):
                c *= scale
            if t["name"] == "speedup" and t["value"] is not None and "speedup_vs_eager" in t["inputs"]:
                cap = math.log(t["inputs"]["cap"])
                se = math.log(t["inputs"]["speedup_vs_eager"]) / cap
                sb = math.log(t["inputs"].get("speedup_vs_baseline", 1.0)) / cap if "speedup_vs_baseline" in t["inputs"] else se
                c = t["weight"] * (eager_share * se + (1 - eager_share) * sb)
            total += c
        return total
    sweep = []
    for scale in (0.0, 0.25, 0.5, 0.75, 1.0, 1.5):
        for share in (0.5, 0.75, 1.0):
            sweep.append({"structural_and_counter_scale": scale, "eager_share": share,
                          "spearman_with_counters": spearman([retotal(r["with_counters"], scale, share) for r in fig],
                                                             [r["speedup"] for r in fig]),
                          "spearman_without_counters": spearman([retotal(r["without_counters"], scale, share) for r in fig],
                                                                [r["speedup"] for r in fig])})
    report["weight_sweep"] = sweep

    # Pairs.
    pairs = []
    by_task = {}
    for r in rows:
        if counted(r):
            by_task.setdefault(r["task_dir"], []).append(r)
    for task, cands in sorted(by_task.items()):
        for i in range(len(cands)):
            for j in range(i + 1, len(cands)):
                a, b = cands[i], cands[j]
                for name, sa in a["static_by_configuration"].items():
                    sb = b["static_by_configuration"].get(name)
                    if not sb or not sa["median_ms"] or not sb["median_ms"]:
                        continue
                    ta, tb = sa["median_ms"], sb["median_ms"]
                    if max(ta, tb) < 1.1 * min(ta, tb):
                        continue
                    faster_a = ta < tb
                    def pick(x, y, higher_is_faster):
                        if x is None or y is None or abs(x - y) <= 1e-12 * max(abs(x), abs(y), 1e-300):
                            return 0.5
                        return 1.0 if ((x > y) == higher_is_faster) == faster_a else 0.0
                    ra, rb = sa["roofline_time_us"], sb["roofline_time_us"]
                    roof = 0.5 if (ra is None or rb is None or abs(ra - rb) <= 0.01 * max(ra, rb)) else \
                        (1.0 if (ra < rb) == faster_a else 0.0)
                    pairs.append({"task": a["task"], "configuration": name,
                                  "a": a["candidate"], "b": b["candidate"], "a_ms": ta, "b_ms": tb,
                                  "static_score": pick(sa["score"], sb["score"], True), "roofline": roof})
    report["pairs"] = len(pairs)
    if pairs:
        report["pair_accuracy_static"] = sum(p["static_score"] for p in pairs) / len(pairs)
        report["pair_accuracy_roofline"] = sum(p["roofline"] for p in pairs) / len(pairs)
        report["pair_accuracy_chance"] = 0.5
    report["pair_details"] = pairs
    report["candidate_details"] = [
        {"candidate": r["candidate"], "task": r["task"], "speedup": r["speedup"],
         "reward_with_counters": r["with_counters"]["total"], "reward_without_counters": r["without_counters"]["total"],
         "static_only": r["static_only"]["total"]} for r in sorted(rows, key=lambda r: r["speedup"] or 0)]

    # Bad suite below every honest candidate of its task.
    honest_by_task = {}
    for r in rows:
        honest_by_task.setdefault(r["task"], []).append(r)
    violations, compared = [], 0
    for b in bad_rows:
        hs = [h for h in honest_by_task.get(b["task"], []) if "/impls/" in h["candidate"]]
        if not hs:
            continue
        for mode in ("with_counters", "without_counters"):
            bt = b[mode]["total"]
            low = min(h[mode]["total"] for h in hs)
            compared += 1
            if bt is None or not bt < low:
                violations.append("%s (%s, %s): %s not below %s" % (b["candidate"], b["outcome"], mode, bt, low))
    report["bad_compared"] = compared
    report["bad_violations"] = violations
    report["bad_gates"] = sorted({"%s -> %s" % (os.path.basename(b["candidate"]), b["without_counters"]["gate"])
                                  for b in bad_rows})

    # Calibration: a baseline timed against itself; the speedups' spread.
    ties, speedups = [], []
    for path in args.results:
        for r in read_results(os.path.join(root, path) if not os.path.isabs(path) else path):
            if r.get("outcome") != "ok":
                continue
            for c in r.get("configs") or []:
                cand, base = c.get("candidate") or {}, c.get("baseline") or {}
                if c.get("speedup"):
                    speedups.append(c["speedup"])
                if r.get("candidate", "").endswith("impls/baseline.cu") and cand.get("median_ms") and base.get("median_ms"):
                    s = base["median_ms"] / cand["median_ms"]
                    ties.append((abs(math.log(s)), math.hypot(cand.get("spread", 0), base.get("spread", 0))))
    if ties:
        ratios = [t / s for t, s in ties if s > 0]
        report["calibration"] = {
            "baseline_self_timings": len(ties),
            "abs_log_speedup_p50_p95_max": [percentile([t for t, _ in ties], q) for q in (0.5, 0.95, 1.0)],
            "ratio_to_spread_p95_p99_max": [percentile(ratios, q) for q in (0.95, 0.99, 1.0)],
            "ties_at_default_band": sum(1 for t, s in ties if t <= max(base_config["speedup"]["tie_min_log"],
                                                                      base_config["speedup"]["tie_spread_factor"] * s)) / len(ties),
            "configuration_speedups": len(speedups),
            "speedup_p05_p50_p95_max": [percentile(speedups, q) for q in (0.05, 0.5, 0.95, 1.0)],
            "within_cap": sum(1 for s in speedups if 1 / base_config["speedup"]["cap"] <= s <= base_config["speedup"]["cap"]) / max(1, len(speedups)),
        }

    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")

    # Summary table.
    def fmt(v):
        return "-" if v is None else ("%.3f" % v if isinstance(v, float) else str(v))
    scope = "held-out families" if held_out is not None else "every stored candidate (in-sample: shipped tasks)"
    print("\n== reward validation on %s" % scope)
    print("%-52s %s" % ("Spearman(reward, speedup), with counters", fmt(report["spearman_with_counters"])))
    print("%-52s %s" % ("Spearman(reward, speedup), without counters", fmt(report["spearman_without_counters"])))
    print("%-52s %s" % ("Spearman(static-only reward, speedup)", fmt(report["spearman_static_only"])))
    print("%-52s %d (%d with counters)" % ("correct candidates", report["spearman_candidates"], report["counters_measured"]))
    print("%-52s %d" % ("pairs (same task+configuration, times differ >= 10%)", report["pairs"]))
    print("%-52s %s" % ("  static-only score picks the faster", fmt(report.get("pair_accuracy_static"))))
    print("%-52s %s" % ("  roofline time alone", fmt(report.get("pair_accuracy_roofline"))))
    print("%-52s %s" % ("  chance", fmt(report.get("pair_accuracy_chance"))))
    print("%-52s %d comparisons, %d violations" % ("bad suite below every honest candidate", compared, len(violations)))
    for v in violations:
        print("  " + v)
    if "calibration" in report:
        cal = report["calibration"]
        print("%-52s %s" % ("tie band: baseline-vs-itself timings that tie", fmt(cal["ties_at_default_band"])))
        print("%-52s %s" % ("  |ln s| / spread p95, p99, max", ", ".join(fmt(v) for v in cal["ratio_to_spread_p95_p99_max"])))
        print("%-52s %s" % ("per-configuration speedups p5, p50, p95, max", ", ".join(fmt(v) for v in cal["speedup_p05_p50_p95_max"])))
        print("%-52s %s" % ("  within [1/cap, cap]", fmt(cal["within_cap"])))
    print("weight sweep (scale of structural+counter+penalty weights, eager share): Spearman with / without counters")
    for w in sweep:
        print("  scale %-5s share %-5s %s / %s" % (w["structural_and_counter_scale"], w["eager_share"],
                                                 fmt(w["spearman_with_counters"]), fmt(w["spearman_without_counters"])))
    if failed:
        print("analysis failures: %d (static terms missing for them)" % len(failed))

    ok = True
    def need(name, value, minimum):
        nonlocal ok
        if minimum is not None and (value is None or value < minimum):
            print("FAIL: %s = %s < %s" % (name, fmt(value), minimum))
            ok = False
    need("spearman with counters", report["spearman_with_counters"], args.min_spearman)
    need("spearman without counters", report["spearman_without_counters"], args.min_spearman_without_counters)
    if args.min_pair_accuracy is not None:
        if report["pairs"] < args.min_pairs:
            print("FAIL: %d pairs < %d" % (report["pairs"], args.min_pairs))
            ok = False
        need("static pair accuracy", report.get("pair_accuracy_static"), args.min_pair_accuracy)
    if args.require_bad_below_honest and (violations or compared == 0):
        print("FAIL: bad-suite candidates not below every honest candidate (%d compared)" % compared)
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
