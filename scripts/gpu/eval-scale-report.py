#!/usr/bin/env python3
"""The numbers of scripts/gpu/eval-scale.sh, from its result files.

usage: eval-scale-report.py shared QUIET.jsonl SHARED.jsonl EXPECT      outcomes of a quiet and a shared run
       eval-scale-report.py relu RESULTS.jsonl BANDWIDTH_GBPS            KernelBench ReLU: time per candidate
                                                                         beside its lower bound
Each prints a few lines for the summary and writes a JSON object to stdout's last line, prefixed
"NUMBERS ", that the script collects into numbers.json.
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
               "speedup": r.get("speedup"), "task_data": r.get("task_data")}
        out.append(row)
        total = (stages.get("task_data") or 0) + (stages.get("worker") or 0)
        lines.append(f"  {i}: {row['candidate']:28s} {row['outcome']:14s} device {total:7.2f} s (task data "
                     f"{stages.get('task_data', 0):6.2f}, worker {stages.get('worker', 0):6.2f}); lower bound "
                     f"{row['lower_bound_seconds']:.2f} s calls only, {row['lower_bound_with_checks_seconds']:.2f} s "
                     f"with checks ({calls} calls); median {row['median_ms']}")
    additional = [(o["stage_seconds"].get("worker") or 0) + (o["stage_seconds"].get("task_data") or 0)
                  for o in out[1:] if o["outcome"] == "ok"]
    print(f"KernelBench ReLU 4096x393216 fp32: {len(rows)} candidates; bandwidth {bandwidth_gbps} GB/s")
    print("\n".join(lines))
    if additional:
        print(f"  per additional candidate: max {max(additional):.2f} s, mean {sum(additional) / len(additional):.2f} s")
    return {"relu_candidates": out, "relu_additional_max_seconds": max(additional) if additional else None,
            "relu_additional_mean_seconds": sum(additional) / len(additional) if additional else None,
            "bandwidth_gbps": float(bandwidth_gbps)}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cmd, rest = sys.argv[1], sys.argv[2:]
    numbers = {"shared": shared, "relu": relu}[cmd](*rest)
    print("NUMBERS " + json.dumps(numbers))


if __name__ == "__main__":
    main()
