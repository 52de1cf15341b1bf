#!/usr/bin/env python3
"""The numbers of scripts/gpu/eval-scale.sh, from its result files.

usage: eval-scale-report.py shared QUIET.jsonl SHARED.jsonl EXPECT      outcomes of a quiet and a shared run
       eval-scale-report.py relu RESULTS.jsonl BANDWIDTH_GBPS            KernelBench ReLU: time per candidate
                                                                         beside its lower bound
       eval-scale-report.py serve TAG SUMMARY.json                       a serve-bench summary as numbers (TAG:
                                                                         serve = today's options, serve_before = ...)
       eval-scale-report.py serve-compare BEFORE.json NOW.json [LABEL]          two serve-bench runs of the same run: rates,
                                                                         GPU slot per run, each example's timing
       eval-scale-report.py table NUMBERS.json                            the issue's figures, one row each
Each but table prints a few lines for the summary and writes a JSON object to stdout's last
line, prefixed "NUMBERS ", that the script collects into numbers.json; table prints the summary's
last lines from numbers.json (a figure whose step did not run is "-").
"""
import json
import sys


def load(path):
    out = []
    for line in open(path):
        line = line.strip()
        if line:
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def shared(quiet_path, shared_path, expect_path):
    """Candidate by candidate (matched by path): the shared run's outcome against the quiet one's."""
    quiet = {r["candidate"]: r for r in load(quiet_path)}
    shared_rows = load(shared_path)
    expect = {l.split()[1]: l.split()[2] for l in open(expect_path) if l.strip()}
    differ, false_faults, gpu_shared, wrong_vs_expect = [], 0, 0, 0
    for r in shared_rows:
        q = quiet.get(r["candidate"])
        if r.get("gpu_shared"):
            gpu_shared += 1
        if expect.get(r["candidate"]) not in (None, r["outcome"]):
            wrong_vs_expect += 1
        if q is None:
            continue
        if q["outcome"] != r["outcome"]:
            differ.append((r["candidate"], q["outcome"], r["outcome"], (r.get("detail") or "")[:200]))
            if q["outcome"] == "ok":
                false_faults += 1
    spreads = [max((c.get("candidate") or {}).get("spread", 0) for c in r.get("configs") or [{}])
               for r in shared_rows if r["outcome"] == "ok"]
    qspreads = [max((c.get("candidate") or {}).get("spread", 0) for c in q.get("configs") or [{}])
                for q in quiet.values() if q["outcome"] == "ok"]
    med = lambda v: sorted(v)[len(v) // 2] if v else None
    print(f"shared GPU: {len(shared_rows)} results, {len(shared_rows) - len(differ)} outcomes equal to the quiet "
          f"run's, {len(differ)} differ ({false_faults} false faults: ok when quiet); {gpu_shared} marked gpu_shared; "
          f"{wrong_vs_expect} not the expected outcome; median timing spread quiet {med(qspreads)} shared {med(spreads)}")
    for c, a, b, d in differ[:20]:
        print(f"  DIFFER {c.split('/')[-1]}: quiet {a}, shared {b}: {d}")
    return {"shared_results": len(shared_rows), "quiet_results": len(quiet), "outcomes_differ": len(differ),
            "false_faults": false_faults, "marked_gpu_shared": gpu_shared,
            "not_expected_outcome": wrong_vs_expect, "median_spread_quiet": med(qspreads),
            "median_spread_shared": med(spreads)}


def relu(results_path, bandwidth_gbps):
    """Per candidate: evaluation time, the worker's stages, and the lower bound of its data movement.

    A call of the 4096 x 393216 fp32 ReLU reads x and writes out: 2 x 6.44 GB. The lower bound of
    one candidate is its calls alone (correctness sets, the audit, warm-up, timed runs, the call after
    timing) at the measured device bandwidth; the check bound adds what every check must move once
    per checked call (inputs copied in, outputs poisoned, input compared, output compared)."""
    rows = load(results_path)
    bw = float(bandwidth_gbps) * 1e9
    tensor = 4096 * 393216 * 4
    out, lines = [], []
    for i, r in enumerate(rows):
        cfgs = r.get("configs") or []
        runs = sum(((c.get("candidate") or {}).get("runs") or 0) for c in cfgs)
        base_runs = 0 if r.get("baseline_cached") else sum(((c.get("baseline") or {}).get("runs") or 0) for c in cfgs)
        sets = r.get("sets") or 3
        warmup = 3
        impls = 1 if r.get("baseline_cached") else 2
        calls = runs + base_runs + impls * (sets + 1 + warmup + 1)
        checked = impls * (sets + 1)
        call_bytes = calls * 2 * tensor
        check_bytes = checked * (3 + 4) * tensor + impls * 3 * tensor
        stages = r.get("stage_seconds") or {}
        wstages = (r.get("worker") or {}).get("stage_seconds") or {}
        row = {"candidate": r["candidate"].split("/")[-1], "outcome": r["outcome"],
               "evaluation_seconds": r.get("evaluation_seconds"), "stage_seconds": stages,
               "worker_stage_seconds": wstages, "timed_runs": runs, "baseline_runs": base_runs, "calls": calls,
               "lower_bound_seconds": call_bytes / bw, "lower_bound_with_checks_seconds": (call_bytes + check_bytes) / bw,
               "median_ms": [(c.get("candidate") or {}).get("median_ms") for c in cfgs],
               "speedup": r.get("speedup"), "task_data": r.get("task_data"),
               "phase_seconds": (r.get("worker") or {}).get("phase_seconds"),
               "loop_seconds": [((c.get("candidate") or {}).get("integrity") or {}).get("loop_seconds") for c in cfgs]}
        out.append(row)
        total = (stages.get("task_data") or 0) + (stages.get("worker") or 0)
        lines.append(f"  {i}: {row['candidate']:28s} {row['outcome']:14s} device {total:7.2f} s (task data "
                     f"{stages.get('task_data', 0):6.2f}, worker {stages.get('worker', 0):6.2f}); lower bound "
                     f"{row['lower_bound_seconds']:.2f} s calls only, {row['lower_bound_with_checks_seconds']:.2f} s "
                     f"with checks ({calls} calls); median {row['median_ms']}")
        if row["phase_seconds"]:
            lines.append("     phases: " + ", ".join(f"{k} {v:.3f}" for k, v in
                                                    sorted(row["phase_seconds"].items(), key=lambda kv: -kv[1])))
        for loop in row["loop_seconds"]:
            if loop:  # the timed-call loop's split (since the worker writes it)
                lines.append("     timed-call loop: " + ", ".join(f"{k} {v:.3f}" for k, v in loop.items()))
    # "Additional": every candidate but the one that prepared the task's data (the first to reach the
    # device, not necessarily the first listed: with --jobs the builds finish in any order).
    payer = next((i for i, o in enumerate(out) if not (o.get("task_data") or {}).get("cached")), 0)
    additional = [(o["stage_seconds"].get("worker") or 0) + (o["stage_seconds"].get("task_data") or 0)
                  for i, o in enumerate(out) if i != payer and o["outcome"] == "ok"]
    print(f"KernelBench ReLU 4096x393216 fp32: {len(rows)} candidates; bandwidth {bandwidth_gbps} GB/s")
    print("\n".join(lines))
    if additional:
        print(f"  per additional candidate: max {max(additional):.2f} s, mean {sum(additional) / len(additional):.2f} s")
    return {"relu_candidates": out, "relu_additional_max_seconds": max(additional) if additional else None,
            "relu_additional_mean_seconds": sum(additional) / len(additional) if additional else None,
            "bandwidth_gbps": float(bandwidth_gbps)}

SERVE_KEYS = ("results", "unfinished", "seconds", "per_minute", "steady_per_minute", "outcomes", "mean_stage_seconds",
              "runs_on_device", "mean_slot_seconds", "mean_worker_stage_seconds", "runs_that_waited_for_a_context",
              "worker_exit", "server_options")


def serve(tag, summary_path):
    """The figures of one serve-bench summary, under TAG in numbers.json."""
    try:
        d = json.load(open(summary_path))
    except (OSError, ValueError):
        print(f"{tag}: no summary ({summary_path})")
        return {tag: None}
    return {tag: {k: d.get(k) for k in SERVE_KEYS}, f"{tag}_mismatches": len(d.get("mismatches") or [])}


def serve_compare(before_path, now_path, label=""):
    """Today's options against the earlier ones (--spare-workers 1 --wait-worker-exit) in the same run,
    or a variant (LABEL, e.g. conn1) against today's options: candidates per minute, the GPU slot's
    time per run, and whether timings moved (each example implementation's median candidate time,
    now / before)."""
    try:
        b, n = json.load(open(before_path)), json.load(open(now_path))
    except (OSError, ValueError) as e:
        print(f"serve comparison: {e}")
        return {}
    ratios = []
    for key, ms in (n.get("candidate_median_ms") or {}).items():
        old = (b.get("candidate_median_ms") or {}).get(key)
        if old and ms:
            ratios.append(ms / old)
    ratios.sort()
    q = lambda f: ratios[min(len(ratios) - 1, int(f * len(ratios)))] if ratios else None
    rate = (n.get("per_minute") or 0) / b["per_minute"] if b.get("per_minute") else None
    names = (label, "now") if label else ("now", "before")
    print(f"serve {names[0]} / {names[1]}: {n.get('per_minute') or 0:.0f} / {b.get('per_minute') or 0:.0f} per minute"
          + (f" = {rate:.2f}x" if rate else "") + f"; GPU slot per run {n.get('mean_slot_seconds') or 0:.3f} / "
          f"{b.get('mean_slot_seconds') or 0:.3f} s")
    if ratios:
        print(f"  timing of the {len(ratios)} example implementations x configs in both: {names[0]} / {names[1]} median "
              f"{q(0.5):.3f} (p10 {q(0.1):.3f}, p90 {q(0.9):.3f})")
    prefix = f"serve_{label}" if label else "serve"
    return {f"{prefix}_rate_ratio": rate, f"{prefix}_timing_ratio": {"pairs": len(ratios), "median": q(0.5),
                                                              "p10": q(0.1), "p90": q(0.9)}}


def table(numbers_path):
    """One row per figure of issue 12's "done when": measured, goal, verdict."""
    try:
        n = json.load(open(numbers_path))
    except (OSError, ValueError):
        n = {}
    g = n.get
    rows = []

    def row(what, measured, goal, ok):
        verdict = "-" if ok is None else ("yes" if ok else "NO")
        rows.append((what, "-" if measured is None else str(measured), goal, verdict))

    row("build (rc)", g("build_rc"), "0", None if g("build_rc") is None else g("build_rc") == 0)
    if g("gpu_tests_total") is not None:
        row("GPU tests failed / total (skipped)", f"{g('gpu_tests_failed')} / {g('gpu_tests_total')} "
            f"({g('gpu_tests_skipped')})", "0 failed, 0 skipped", g("gpu_tests_failed") == 0 and not g("gpu_tests_skipped"))
    else:
        row("GPU tests", None, "0 failed", None)
    for key, what in (("suite", "suite run: outcomes as expected"), ("quiet", "quiet mixed run (suite inside): as expected")):
        if g(f"{key}_expected") is not None:
            failed = g(f"{key}_failed_candidates") or []
            row(what, f"{g(key + '_as_expected')}/{g(key + '_expected')}" + (f" (not: {', '.join(f[:24] for f in failed[:3])}{' …' if len(failed) > 3 else ''})" if failed else ""),
                "all", g(key + "_as_expected") == g(key + "_expected"))
    if g("shared_results") is not None:
        row("shared GPU: outcomes equal to quiet", f"{g('shared_results') - g('outcomes_differ')}/{g('shared_results')} "
            f"of {g('quiet_results')} quiet", "all", g("outcomes_differ") == 0 and g("shared_results") == g("quiet_results"))
        row("shared GPU: false faults", g("false_faults"), "0", g("false_faults") == 0)
        row("shared GPU: results marked gpu_shared", g("marked_gpu_shared"), "> 0 (the churn ran)", (g("marked_gpu_shared") or 0) > 0)
        row("timing spread, median quiet / shared", f"{g('median_spread_quiet')} / {g('median_spread_shared')}", "recorded", None)
    else:
        row("shared GPU: outcomes equal to quiet", None, "all", None)
    add = g("relu_additional_max_seconds")
    bound = calls = None
    for c in (g("relu_candidates") or [])[1:]:
        if c.get("outcome") == "ok":
            bound = max(bound or 0, c.get("lower_bound_with_checks_seconds") or 0)
            calls = max(calls or 0, c.get("lower_bound_seconds") or 0)
    row("KernelBench ReLU: s per additional candidate (max)", None if add is None else round(add, 2), "<= 5 s",
        None if add is None else add <= 5)
    row("  its lower bound: with checks (calls only)", None if bound is None else f"{bound:.2f} ({calls:.2f})",
        "beside it", None)
    if g("no_baseline_ok") is not None:
        row("task without baseline.cu: ok, speedup vs eager, vs baseline null", f"{g('no_baseline_outcome')}, "
            f"{g('no_baseline_speedup')}", "ok, number, null", g("no_baseline_ok"))
    serve = g("serve") or {}
    pm = serve.get("per_minute")
    row("--serve candidates per minute (steady)", None if pm is None else
        f"{pm:.0f} ({(serve.get('steady_per_minute') or 0):.0f})", ">= 300", None if pm is None else pm >= 300)
    if serve:
        row("--serve results not as expected / unfinished", f"{g('serve_mismatches')} / {serve.get('unfinished')}", "0 / 0",
            g("serve_mismatches") == 0 and not serve.get("unfinished"))
    if serve.get("mean_slot_seconds") is not None:
        ws = serve.get("mean_worker_stage_seconds") or {}
        row("--serve GPU slot per run, s (context wait)", f"{serve['mean_slot_seconds']:.3f} "
            f"({ws.get('context_wait', 0):.3f})", "<= 0.2 (300/min)", serve["mean_slot_seconds"] <= 0.2)
    before = g("serve_before") or {}
    if before.get("per_minute") is not None:
        row("--serve before (--spare-workers 1 --wait-worker-exit): per min, slot s",
            f"{before['per_minute']:.0f}, {(before.get('mean_slot_seconds') or 0):.3f}", "baseline, same run", None)
    tr = g("serve_timing_ratio") or {}
    if tr.get("median") is not None:
        row("--serve timings now / before: median (p10, p90)", f"{tr['median']:.3f} ({tr['p10']:.3f}, {tr['p90']:.3f})"
            f" of {tr['pairs']}", "about 1", None)
    row("batch mode per minute (--jobs 8)", g("batch_per_minute"), "beside --serve", None)
    w = [max(len(r[i]) for r in rows + [("figure", "measured", "goal", "met")]) for i in range(4)]
    line = lambda r: "  ".join(r[i].ljust(w[i]) for i in range(4)).rstrip()
    print("== summary (issue 12)")
    print(line(("figure", "measured", "goal", "met")))
    for r in rows:
        print(line(r))
    return None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cmd, rest = sys.argv[1], sys.argv[2:]
    numbers = {"shared": shared, "relu": relu, "serve": serve, "serve-compare": serve_compare,
               "table": table}[cmd](*rest)
    if numbers is not None:
        print("NUMBERS " + json.dumps(numbers))


if __name__ == "__main__":
    main()
