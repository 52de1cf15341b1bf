#!/usr/bin/env python3
"""Throughput of `cudaperf-eval --serve` on fresh candidates (every one really built).

usage: serve-bench.py --eval BIN --expect FILE --out DIR [--n 300] [--seconds 150] [--configs small]
                      [--tag T] [-- SERVER_OPTIONS...]

FILE has lines "TASK_DIR CANDIDATE.cu OUTCOME" (scripts/gpu/eval-scale.sh writes it): the pool the
candidates are drawn from, round-robin; each request sends the candidate's source text with a
unique comment, so its build is never cached. Requests are written as fast as the server reads
them (its queue gives back-pressure); results are collected in completion order. Writes
DIR/serve-T.jsonl (every message) and DIR/serve-T.json (the summary: candidates per minute, overall
and after the first tenth of results, outcomes against the expected ones, mean time per stage, the
GPU slot's time per run and the worker's stages, each example's median candidate timing).
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser()
    ap.add_argument("--eval", required=True)
    ap.add_argument("--expect", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seconds", type=float, default=150)
    ap.add_argument("--configs", default="small")
    ap.add_argument("--tag", default="serve")
    args = ap.parse_args(argv)

    pool = [l.split() for l in open(args.expect) if l.strip() and not l.startswith("#")]
    if not pool:
        sys.exit("empty pool")
    requests, expected = [], {}
    for i in range(args.n):
        task, cand, want = pool[i % len(pool)]
        src = open(cand).read() + f"\n// serve-bench {args.tag} {i} {time.time_ns()}\n"
        rid = f"{args.tag}-{i}"
        expected[rid] = (os.path.basename(cand), want)
        requests.append({"id": rid, "task_dir": task, "source": src, "name": os.path.basename(cand),
                         "configs": args.configs.split(",")})

    log = open(os.path.join(args.out, f"serve-{args.tag}.jsonl"), "w")
    err = open(os.path.join(args.out, f"serve-{args.tag}.stderr"), "w")
    t_start = time.time()
    server = subprocess.Popen([args.eval, "--serve"] + extra, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=err, text=True, bufsize=1)
    ready = server.stdout.readline()
    log.write(ready)
    t_ready = time.time()
    try:
        queue_limit = int(json.loads(ready).get("queue_limit", 256))
    except (ValueError, AttributeError):
        queue_limit = 256
    # At most this many requests in flight, so the server always reads the next line and a shutdown
    # is never stuck behind a full queue (docs/eval-serve.md, "Back-pressure").
    in_flight = threading.Semaphore(max(1, queue_limit - 1))
    stop_writing = threading.Event()
    write_lock = threading.Lock()
    results, times, done = {}, [], threading.Event()
    bye = {}

    def reader():
        for line in server.stdout:
            log.write(line)
            try:
                m = json.loads(line)
            except ValueError:
                continue
            # An error with a request's id is that request's answer (it was not taken).
            if m.get("type") in ("result", "cancelled") or (m.get("type") == "error" and m.get("id") in expected):
                results[m["id"]] = m
                in_flight.release()
                if m.get("type") == "result":
                    times.append(time.time())  # throughput counts evaluations only
                if len(results) == len(requests):
                    done.set()
            elif m.get("type") == "bye":
                bye.update(m)
        done.set()

    th = threading.Thread(target=reader, daemon=True)
    th.start()
    t_first = time.time()

    def writer():
        try:
            for r in requests:
                while not in_flight.acquire(timeout=0.5):
                    if stop_writing.is_set():
                        return
                with write_lock:
                    if stop_writing.is_set():
                        return
                    server.stdin.write(json.dumps(r) + "\n")
                    server.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass

    wt = threading.Thread(target=writer, daemon=True)
    wt.start()
    finished = done.wait(args.seconds)
    t_last = times[-1] if times else time.time()
    stop_writing.set()
    with write_lock:
        try:
            server.stdin.write(json.dumps({"op": "shutdown", "drain": False}) + "\n")
            server.stdin.flush()
            server.stdin.close()
        except (BrokenPipeError, ValueError):
            pass
    try:
        server.wait(timeout=60)
    except subprocess.TimeoutExpired:
        server.kill()
    th.join(timeout=5)

    outcomes, mismatches = {}, []
    for rid, m in results.items():
        got = m.get("outcome") if m.get("type") == "result" else m.get("code") or m.get("type")
        outcomes[got] = outcomes.get(got, 0) + 1
        name, want = expected[rid]
        if got != want and got != "cancelled":  # cancelled: not finished in time, counted apart
            mismatches.append({"id": rid, "candidate": name, "expected": want, "got": got,
                               "detail": (m.get("result") or {}).get("detail", "")[:300]})
    # Per run on the GPU: the slot's time, the worker's stages (the context's set-up and how long a
    # job waited for it), and each example's timing, so that runs of other options can be compared.
    slot, worker_stages, timing = [], {}, {}
    for m in results.values():
        r = m.get("result") or {}
        stages = r.get("stage_seconds") or {}
        if isinstance(stages.get("device_slot"), (int, float)):
            slot.append(stages["device_slot"])
        for k, v in ((r.get("worker") or {}).get("stage_seconds") or {}).items():
            if isinstance(v, (int, float)):
                worker_stages.setdefault(k, []).append(v)
        if m.get("outcome") == "ok":
            for c in r.get("configs") or []:
                med = (c.get("candidate") or {}).get("median_ms")
                if isinstance(med, (int, float)):
                    timing.setdefault(f"{r.get('task')}/{r.get('candidate')}/{c.get('name')}", []).append(med)
    median = lambda xs: sorted(xs)[len(xs) // 2]
    n = len(times)
    elapsed = t_last - t_first
    skip = max(1, n // 10)
    steady = (n - skip) * 60 / (times[-1] - times[skip - 1]) if n > skip + 1 and times[-1] > times[skip - 1] else None
    summary = {
        "tag": args.tag, "requested": len(requests), "results": n, "finished_in_time": finished,
        "seconds": elapsed, "startup_seconds": t_ready - t_start,
        "per_minute": n * 60 / elapsed if elapsed > 0 else None,
        "steady_per_minute": steady, "outcomes": outcomes, "unfinished": len(requests) - n, "mismatches": mismatches,
        "server_options": extra, "configs": args.configs,
        "mean_stage_seconds": bye.get("mean_stage_seconds"), "bye": bye,
        "runs_on_device": len(slot), "mean_slot_seconds": sum(slot) / len(slot) if slot else None,
        "mean_worker_stage_seconds": {k: sum(v) / len(v) for k, v in sorted(worker_stages.items())},
        "runs_that_waited_for_a_context": sum(1 for w in worker_stages.get("context_wait", []) if w > 0.005),
        "worker_exit": bye.get("worker_exit"),
        "candidate_median_ms": {k: median(v) for k, v in sorted(timing.items())},
    }
    json.dump(summary, open(os.path.join(args.out, f"serve-{args.tag}.json"), "w"), indent=1)
    print(f"serve {args.tag}: {n}/{len(requests)} results in {elapsed:.1f} s = "
          f"{summary['per_minute'] or 0:.1f}/min (steady {steady or 0:.1f}/min); outcomes {outcomes}; "
          f"{len(mismatches)} not as expected")
    for m in mismatches[:10]:
        print(f"  MISMATCH {m['candidate']}: expected {m['expected']} got {m['got']}: {m['detail'][:160]}")
    if slot:
        ws = summary["mean_worker_stage_seconds"]
        exit_ = bye.get("worker_exit") or {}
        print(f"  GPU slot per run {summary['mean_slot_seconds']:.3f} s over {len(slot)} runs; in the worker: "
              + ", ".join(f"{k} {ws[k]:.3f}" for k in ("context", "context_wait", "inputs_and_reference", "baseline",
                                                         "candidate") if k in ws)
              + f"; {summary['runs_that_waited_for_a_context']} runs waited for a context"
              + (f"; worker exit (beside the next run) mean {exit_.get('mean_seconds', 0):.3f} s, max "
                 f"{exit_.get('max_seconds', 0):.3f} s" if exit_.get("reaped") else ""))
    if bye.get("mean_stage_seconds"):
        print("  mean stage seconds: " + ", ".join(f"{k} {v:.3f}" for k, v in sorted(bye["mean_stage_seconds"].items())))
    return 0 if finished and not mismatches else 1


if __name__ == "__main__":
    sys.exit(main())
