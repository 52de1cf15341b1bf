#!/usr/bin/env python3
"""An experiment arm run in chunks (scripts/gpu/arm.sh, one folder chunk-N per device call): joins the chunks'
rl-log.jsonl step lines, checks that the steps run 1..n without a gap or a repeat (a chunk's steps past the state the next chunk
resumed from, per its train.log, are the next chunk's: see kept_until) and that every chunk has the
same config apart from the run-local keys (paths, max_seconds, evaluations, workers), and prints the training curve in windows of W steps: mean reward,
share correct (all turns), turn-1 and turn-2 share correct, step seconds (generate, reward wait); where the step lines have them, the evaluator's stage
seconds per evaluated candidate in the same windows.
These are training-split figures of the tasks each step drew, not the held-out evaluation.
With --by-kind PARTS, also per kind from the chunks' candidates (see by_kind); with --pairs, the trajectories by
their two turns' outcomes (see pairs); with --wait-fit, where a step's reward wait goes (see wait_fit).
Usage: scripts/arm-progress.py ARM_DIR [--window W] [--by-kind PARTS] [--pairs] [--wait-fit]   exit 1 on a gap, repeat or config difference, 2 on bad input
"""
import argparse
import glob
import gzip
import json
import math
import os
import re
import sys

# The run-local keys of lib/Learn/RlConfig.cpp (rlConfigRunLocalKeys), which `cudaperf-train rl --resume` also
# lets change between chunks; every other key must be the same in every chunk. A copy, because this script runs
# where nothing is built; RlConfig.ArmProgressIgnoresExactlyTheRunLocalKeys keeps the two equal.
IGNORED_CONFIG = {"model", "dataset", "device", "steps", "max_seconds", "save_every", "generation_batch",
                  "submit_as_finished", "reward_config", "evaluator", "queue_url", "eval_path", "analyzer_path",
                  "reward_jobs", "eval_timeout", "eval_split", "eval_tasks", "eval_held_out_family_tasks", "eval_every",
                  "eval_temperature", "eval_samples", "out"}
STAGES = ["queued", "build", "wait_for_device", "task_data", "worker", "worker.context", "worker.inputs_and_reference",
          "worker.baseline", "worker.candidate"]
# The same with the stages that only a candidate on the GPU has (the device slot; the worker's start and CUDA
# context, made in a spare before the candidate needs it).
GPU_STAGES = ["build", "wait_for_device", "device_slot", "task_data", "worker", "worker.inputs_and_reference",
              "worker.baseline", "worker.candidate", "worker.start_and_context"]


RESUMED = re.compile(r"resumed .* at RL step (\d+)")


def resumed_at(chunk):
    """The step whose saved state a chunk resumed from (its train.log's "resumed ... at RL step N"), or None."""
    try:
        with open(os.path.join(chunk, "train.log"), errors="replace") as f:
            for line in f:
                m = RESUMED.search(line)
                if m:
                    return int(m.group(1))
    except OSError:
        pass
    return None


def kept_until(chunks):
    """Per chunk, the last step of it that the arm kept: a chunk's steps after the state the next chunk resumed
    from were logged but never saved (the trainer saves every save_every steps; a call that ends between two
    saves loses the steps after the last one), and the next chunk ran them again from that state, as
    `cudaperf-train rl --resume` drops them from its own log. None: no later chunk says where it resumed."""
    until = {}
    for c, nxt in zip(chunks, chunks[1:]):
        until[c] = resumed_at(nxt)
    return until


def train_candidates(chunks, until=None):
    """The training candidates of every chunk (chunk-N/candidates.jsonl.gz) up to its kept step (kept_until), or
    None (said on stderr) when one cannot be read."""
    rows = []
    for c in chunks:
        last = (until or {}).get(c)
        try:
            with gzip.open(os.path.join(c, "candidates.jsonl.gz"), "rt") as f:
                rows += [r for r in map(json.loads, f)
                         if r.get("phase") == "train" and (last is None or r.get("step", 0) <= last)]
        except (OSError, ValueError) as e:
            print(f"arm-progress: {c}: {e}", file=sys.stderr)
            return None
    return rows


def answers_by_turn(rows):
    """Every answer by (step, group, trajectory, turn), so that a turn-1 answer finds its turn 2."""
    return {(r["step"], r["group"], r["trajectory"], r["turn"]): r for r in rows}


def by_kind(rows, turn, last_step, parts):
    """Per kind and span of steps, from the training candidates: turn-1 and turn-2 share correct, turn-1 share of
    compile errors, geometric-mean speedup of the correct answers with a speedup, share correct and faster than
    the baseline (fast_1); then how many correct turn-1 answers became compile errors at turn 2, and how many of
    those no longer define the entry point (the evaluator's shim cannot call it); then, where the records have
    them, the evaluator's stage seconds per kind of the answers that reached the GPU."""
    span = max(1, -(-last_step // parts))
    print(f"per kind, training candidates ({len(rows)}), spans of {span} steps")
    print("kind     steps      turn1 ok  turn2 ok  turn1 CE  geomean  fast_1")
    share = lambda xs, f: sum(1 for x in xs if f(x)) / len(xs) if xs else float("nan")
    for kind in sorted({r["kind"] for r in rows}):
        for lo in range(1, last_step + 1, span):
            hi = min(last_step, lo + span - 1)
            sel = [r for r in rows if r["kind"] == kind and lo <= r["step"] <= hi]
            t1, t2 = [r for r in sel if r["turn"] == 1], [r for r in sel if r["turn"] == 2]
            sp = [r["speedup"] for r in sel if r["outcome"] == "ok" and r.get("speedup")]
            geo = math.exp(sum(map(math.log, sp)) / len(sp)) if sp else float("nan")
            print(f"{kind:8} {lo:>4}-{hi:<4}  {share(t1, lambda r: r['outcome'] == 'ok'):8.1%}  "
                  f"{share(t2, lambda r: r['outcome'] == 'ok'):8.1%}  {share(t1, lambda r: r['outcome'] == 'compile_error'):8.1%}"
                  f"  x{geo:5.2f}  {share(sel, lambda r: r['outcome'] == 'ok' and (r.get('speedup') or 0) > 1):6.1%}")
    lost = renamed = 0
    for (step, g, t, n), r in turn.items():
        nxt = turn.get((step, g, t, n + 1))
        if n == 1 and r["outcome"] == "ok" and nxt and nxt["outcome"] == "compile_error":
            lost += 1
            detail = (nxt.get("reward_document") or {}).get("detail") or ""
            renamed += "shim.cu" in detail and "is undefined" in detail
    ok1 = sum(1 for r in rows if r["turn"] == 1 and r["outcome"] == "ok")
    print(f"turn 2: {lost} of {ok1} correct turn-1 answers became compile errors, {renamed} of them without the entry point")
    # Where the evaluator's time went for the answers that reached the GPU (evaluated here, not reused; every
    # outcome but compile_error and no_code_block), per kind: the candidate records' evaluator_stages.
    gpu = [r for r in rows if r.get("evaluator_stages") and not r.get("cached")
           and r["outcome"] not in ("compile_error", "no_code_block")]
    if gpu:
        keys = [k for k in GPU_STAGES if any(k in r["evaluator_stages"] for r in gpu)]
        print("evaluator seconds per candidate that reached the GPU")
        print("kind     cands  " + "  ".join(f"{k.replace('worker.', 'w.'):>10}" for k in keys))
        for kind in sorted({r["kind"] for r in gpu}):
            sel = [r["evaluator_stages"] for r in gpu if r["kind"] == kind]
            print(f"{kind:8} {len(sel):5d}  " + "  ".join(f"{sum(x.get(k, 0) for x in sel) / len(sel):10.2f}" for k in keys))


def pairs(turn):
    """The trajectories by their turn-1 and turn-2 outcomes, most frequent first: how many, and the means of the
    turn-1 answer's reward, return (its reward plus gamma times the next turn's return) and advantage, and of the
    turn-2 answer's reward. Says how turn 2 reaches back into what turn 1 learns: a correct turn-1 answer whose
    turn 2 broke it gets a lower return than one whose turn 2 kept it."""
    by = {}
    for (step, g, t, n), r in turn.items():
        if n == 1:
            nxt = turn.get((step, g, t, 2))
            by.setdefault((r["outcome"], nxt["outcome"] if nxt else "-"), []).append((r, nxt))
    print("trajectories by turn-1 -> turn-2 outcome: count, mean turn-1 reward, return, advantage; mean turn-2 reward")
    mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")
    for (o1, o2), v in sorted(by.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"{o1 + ' -> ' + o2:34} {len(v):6d}  {mean([r.get('reward') or 0 for r, _ in v]):+7.3f}"
              f"  {mean([r.get('return') or 0 for r, _ in v]):+7.3f}  {mean([r.get('advantage') or 0 for r, _ in v]):+7.3f}"
              f"  {mean([n.get('reward') or 0 for _, n in v if n]):+7.3f}")


def solve(rows, ys):
    """Least squares: the x minimizing |A x - y| for the rows of A, by the normal equations (3 unknowns here;
    numpy is not on every host this runs on). None when they are singular."""
    m = len(rows[0])
    a = [[sum(r[i] * r[j] for r in rows) for j in range(m)] + [sum(r[i] * y for r, y in zip(rows, ys))] for i in range(m)]
    for i in range(m):
        p = max(range(i, m), key=lambda k: abs(a[k][i]))
        if abs(a[p][i]) < 1e-12:
            return None
        a[i], a[p] = a[p], a[i]
        for k in range(m):
            if k != i:
                f = a[k][i] / a[i][i]
                a[k] = [x - f * y for x, y in zip(a[k], a[i])]
    return [a[i][m] / a[i][i] for i in range(m)]


def wait_fit(rows, steps):
    """The steps' reward wait against what they sent to the evaluator: per step, the unique candidates not served
    from the cache that ran on the GPU (every outcome but compile_error and no_code_block) and those that stopped
    at the build (compile_error); the least-squares fit wait = a + b * ran + c * built_only says how many seconds
    one more GPU run adds (b: the device slot, one candidate at a time) and what a step waits regardless (a)."""
    ran, built, seen = {}, {}, set()
    for r in rows:
        key = (r["step"], r["source_sha256"])
        if r.get("cached") or key in seen or r["outcome"] == "no_code_block":
            continue
        seen.add(key)
        into = built if r["outcome"] == "compile_error" else ran
        into[r["step"]] = into.get(r["step"], 0) + 1
    per_step = [(ran.get(l["step"], 0), built.get(l["step"], 0), l["seconds"]["reward_wait"]) for _, l in steps]
    fit = solve([(1.0, r, b) for r, b, _ in per_step], [w for *_, w in per_step]) if len(per_step) >= 3 else None
    n = max(1, len(per_step))
    print(f"reward wait over {len(per_step)} steps: mean {sum(w for *_, w in per_step) / n:.2f} s, "
          f"{sum(r for r, _, _ in per_step) / n:.1f} GPU runs and {sum(b for _, b, _ in per_step) / n:.1f} "
          "compile errors a step (unique, not cached)")
    if fit:
        print(f"fit: wait = {fit[0]:.2f} s {fit[1]:+.3f} s per GPU run {fit[2]:+.3f} s per compile error")
    else:
        print("fit: too few steps or no variation")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("arm_dir")
    ap.add_argument("--window", type=int, default=10)
    ap.add_argument("--by-kind", type=int, default=0, metavar="PARTS",
                    help="also the candidates per kind in PARTS equal spans of steps (chunk-N/candidates.jsonl.gz)")
    ap.add_argument("--pairs", action="store_true",
                    help="also the trajectories by turn-1 -> turn-2 outcome with their rewards, returns and advantages")
    ap.add_argument("--wait-fit", action="store_true",
                    help="also the reward wait fitted on the GPU runs and compile errors a step (chunk-N/candidates.jsonl.gz)")
    a = ap.parse_args()
    chunks = sorted(glob.glob(os.path.join(a.arm_dir, "chunk-*")), key=lambda p: int(p.rsplit("-", 1)[1]))
    if not chunks:
        print(f"arm-progress: no chunk-N folders in {a.arm_dir}", file=sys.stderr)
        return 2
    steps, configs, problems, notes = [], [], [], []
    until = kept_until(chunks)
    for c in chunks:
        try:
            with open(os.path.join(c, "rl-log.jsonl")) as f:
                lines = [json.loads(l) for l in f if l.strip()]
            with open(os.path.join(c, "rl-config.json")) as f:
                cfg = json.load(f)
        except (OSError, ValueError) as e:
            print(f"arm-progress: {c}: {e}", file=sys.stderr)
            return 2
        configs.append((c, {k: v for k, v in cfg.items() if k not in IGNORED_CONFIG}))
        last = until.get(c)
        dropped = [l["step"] for l in lines if "step" in l and last is not None and l["step"] > last]
        if dropped:
            notes.append(f"{os.path.basename(c)}: step{'s' if len(dropped) > 1 else ''} {', '.join(map(str, dropped))} "
                         f"logged but not saved; the next chunk resumed from step {last}'s state and ran "
                         f"{'them' if len(dropped) > 1 else 'it'} again (that run is the arm's)")
        steps += [(os.path.basename(c), l) for l in lines if "step" in l and (last is None or l["step"] <= last)]
    for c, cfg in configs[1:]:
        if cfg != configs[0][1]:
            diff = sorted(k for k in set(cfg) | set(configs[0][1]) if cfg.get(k) != configs[0][1].get(k))
            problems.append(f"{c}: config differs from {configs[0][0]} in {', '.join(diff)}")
    numbers = [l["step"] for _, l in steps]
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append(f"steps are not 1..{len(numbers)} in order: {numbers[:5]}...{numbers[-5:]}")
    w = max(1, a.window)
    print(f"{len(steps)} steps in {len(chunks)} chunks; window {w}")
    print("steps      reward  correct  turn1   turn2   step_s  generate_s  reward_wait_s")
    for i in range(0, len(steps), w):
        win = [l for _, l in steps[i:i + w]]
        mean = lambda f: sum(f(l) for l in win) / len(win)
        by_turn = lambda t: mean(lambda l: (l.get("correct_by_turn") or [0, 0])[t] if len(l.get("correct_by_turn") or []) > t else 0)
        print(f"{win[0]['step']:>4}-{win[-1]['step']:<4}  {mean(lambda l: l['reward_mean']):+.3f}  {mean(lambda l: l['correct_rate']):6.1%}"
              f"  {by_turn(0):6.1%}  {by_turn(1):6.1%}  {mean(lambda l: l['seconds']['step']):6.1f}"
              f"  {mean(lambda l: l['seconds']['generate']):10.1f}  {mean(lambda l: l['seconds']['reward_wait']):13.1f}")
    staged = [l for _, l in steps if (l.get("evaluator_stages") or {}).get("candidates")]
    if staged:  # steps logged by code that records where the evaluator's time went (evaluator_stages)
        keys = [k for k in STAGES if any(k in l["evaluator_stages"] for l in staged)]
        print("evaluator seconds per evaluated candidate (mean of the steps' means)")
        print("steps      cands  " + "  ".join(f"{k.replace('worker.', 'w.'):>10}" for k in keys))
        for i in range(0, len(staged), w):
            win = [l["evaluator_stages"] for l in staged[i:i + w]]
            mean = lambda k: sum(x.get(k, 0) for x in win) / len(win)
            print(f"{staged[i]['step']:>4}-{staged[min(i + w, len(staged)) - 1]['step']:<4}  {mean('candidates'):5.1f}  "
                  + "  ".join(f"{mean(k):10.2f}" for k in keys))
    rows = train_candidates(chunks, until) if a.by_kind or a.wait_fit or a.pairs else None  # read once for all
    turns = answers_by_turn(rows) if rows is not None and (a.by_kind or a.pairs) else None
    if rows is not None and a.by_kind:
        by_kind(rows, turns, numbers[-1] if numbers else 0, a.by_kind)
    if rows is not None and a.pairs:
        pairs(turns)
    if rows is not None and a.wait_fit:
        wait_fit(rows, steps)
    for n in notes:
        print("NOTE:", n)
    for p in problems:
        print("PROBLEM:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
