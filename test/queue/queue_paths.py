#!/usr/bin/env python3
"""The queue gives the same rewards as the local evaluator (issue 38; docs/reward.md, "Through the queue").

Starts its own redis-server on a free loopback port and a worker that runs the same per-candidate
evaluator as the local path (fake-queue-worker --exec test/reward/fake-eval.py: no GPU, no nvcc), then:
  - cudaperf-reward --batch on candidates of several outcomes, locally (--eval fake-eval.py) and
    with --queue redis://...: the same total, outcome and reward_components for every id;
    one candidate in the single-candidate mode too;
  - a fixed-seed `cudaperf-train rl` (a policy that always writes a code block, static-only) with
    eval_path fake-eval.py and with --queue: the same per-candidate rewards in candidates.jsonl;
  - the comparison itself fails on a changed reward (so it can fail);
  - bad input: a bad URL (exit 2), an unreachable Redis (exit 1, said, fast), no worker (exit 1 after
    --eval-timeout; in --batch an error record), an evaluator argument that cannot travel, a worker of
    the other mode (static-only run, measured worker): exit 1 with the reason.
Exit 77 (skipped) when redis-server is missing.
Usage: queue_paths.py --reward BIN --fake-worker BIN --source-dir DIR [--train BIN]"""
import argparse, json, os, shutil, signal, socket, subprocess, sys, tempfile, time, urllib.request

FAILS = []
CHILDREN = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILS.append(what)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def ping(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(b"*1\r\n$4\r\nPING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def run(argv, stdin=None, timeout=120, cwd=None):
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=timeout, cwd=cwd)


def spawn(argv, log):
    p = subprocess.Popen(argv, stdout=open(log + ".out", "w"), stderr=open(log + ".err", "w"))
    CHILDREN.append(p)
    return p


def candidate(work, name, marker):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write("// fake: %s\n__global__ void k(float *x) { x[0] = 1.0f; } // %s\n" % (marker, name))
    return path


def records_by_id(text):
    out = {}
    for line in text.splitlines():
        if line.strip():
            r = json.loads(line)
            out[r.get("id")] = r
    return out


def same_rewards(a, b):
    """The differences between two {id: record} maps (total, outcome, reward_components); [] when equal."""
    diffs = []
    if set(a) != set(b):
        diffs.append("ids differ: %s vs %s" % (sorted(a), sorted(b)))
    for k in sorted(set(a) & set(b), key=str):
        ra, rb = a[k], b[k]
        for field in ("total", "outcome", "reward_components"):
            va, vb = ra.get(field), rb.get(field)
            if field == "total" and isinstance(va, float) and isinstance(vb, float):
                equal = abs(va - vb) <= 1e-12
            else:
                equal = va == vb
            if not equal:
                diffs.append("%s: %s %r vs %r" % (k, field, va, vb))
    return diffs


def rl_rewards(out):
    rows = [json.loads(l) for l in open(os.path.join(out, "candidates.jsonl")) if l.strip()]
    return {(r["step"], r["phase"], i): {"total": r["own_reward"], "outcome": r.get("outcome"), "source": r.get("source")}
            for i, r in enumerate(rows)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reward", required=True)
    ap.add_argument("--fake-worker", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--train")
    ap.add_argument("--bench")
    ap.add_argument("--eval")
    ap.add_argument("--redis-server", default=shutil.which("redis-server") or "")
    args = ap.parse_args()
    for k in ("reward", "fake_worker", "train", "bench", "eval"):
        if getattr(args, k):
            setattr(args, k, os.path.abspath(getattr(args, k)))
    if not args.redis_server or not os.access(args.redis_server, os.X_OK):
        print("skip: redis-server not found (apt-get install redis-server)")
        return 77
    src = os.path.abspath(args.source_dir)
    fake_eval = os.path.join(src, "test", "reward", "fake-eval.py")
    task = os.path.join(src, "data", "tasks", "vector_add")
    tmp = tempfile.mkdtemp(prefix="queue-paths-")
    os.chmod(tmp, 0o700)
    port = free_port()
    url = "redis://127.0.0.1:%d/paths" % port
    try:
        spawn([args.redis_server, "--port", str(port), "--bind", "127.0.0.1", "--dir", tmp, "--save", "",
               "--appendonly", "no", "--daemonize", "no", "--logfile", os.path.join(tmp, "redis.log")],
              os.path.join(tmp, "redis"))
        for _ in range(200):
            if ping(port):
                break
            time.sleep(0.025)
        else:
            check(False, "redis-server started")
            return 1

        def worker(name, queue, extra=()):
            wd = os.path.join(tmp, "wd-" + name)
            os.makedirs(wd, mode=0o700)
            return spawn([args.fake_worker, "redis://127.0.0.1:%d/%s" % (port, queue), "--name", name,
                          "--heartbeat", "0.2", "--work-dir", wd, "--exec", fake_eval] + list(extra),
                         os.path.join(tmp, "worker-" + name))

        # ---- scripts/gpu/queue-bench.sh (the lead runs it on the GPU host): its shell parses, and its
        # counter finds a duplicate and a missing result (so its "exactly one" can fail)
        for sh in ("queue-bench.sh", "pack-redis.sh"):
            r = run(["bash", "-n", os.path.join(src, "scripts", "gpu", sh)])
            check(r.returncode == 0, "bash -n scripts/gpu/%s %s" % (sh, r.stderr.strip()[:200]))
        qb = [sys.executable, os.path.join(src, "scripts", "gpu", "queue-bench.py")]
        pool = os.path.join(tmp, "pool.txt")
        with open(pool, "w") as f:
            f.write("%s %s\n" % (task, os.path.join(task, "impls", "baseline.cu")))
        r = run(qb + ["requests", pool, "3", "t", os.path.join(tmp, "req.jsonl")])
        reqs3 = [json.loads(l) for l in open(os.path.join(tmp, "req.jsonl"))]
        check(r.returncode == 0 and len({q["source"] for q in reqs3}) == 3 and [q["id"] for q in reqs3] == ["t-0", "t-1", "t-2"],
              "queue-bench.py requests: 3 requests, each source unique")
        for name, ids, want in (("one each", ["t-0", "t-1", "t-2"], 0), ("a duplicate", ["t-0", "t-1", "t-2", "t-1"], 1),
                                ("one missing", ["t-0", "t-2"], 1)):
            with open(os.path.join(tmp, "msg.jsonl"), "w") as f:
                for i in ids:
                    f.write(json.dumps({"type": "result", "id": i, "result": {"outcome": "ok"}}) + "\n")
            r = run(qb + ["count", os.path.join(tmp, "req.jsonl"), os.path.join(tmp, "msg.jsonl"), "1"])
            check(r.returncode == want, "queue-bench.py count, %s: exit %d (%d)" % (name, want, r.returncode))

        worker("measured", "paths")
        local = [args.reward, "--eval", fake_eval, "--analyzer", "none"]
        queued = [args.reward, "--queue", url, "--analyzer", "none", "--eval-timeout", "60"]

        # ---- cudaperf-reward: the same records through both paths
        markers = {"fast": "ok 4", "slow": "ok 0.5", "even": "ok 1", "broken": "compile_error", "wrong": "wrong_answer"}
        reqs = "".join(json.dumps({"id": k, "task": task, "candidate": candidate(tmp, k + ".cu", m)}) + "\n"
                       for k, m in markers.items())
        cand_root = ["--candidate-root", tmp]
        t0 = time.time()
        a = run(local + ["--batch", "--jobs", "2"] + cand_root, stdin=reqs)
        b = run(queued + ["--batch", "--jobs", "2"] + cand_root, stdin=reqs)
        check(a.returncode == 0 and b.returncode == 0, "reward --batch: both paths exit 0 (%d, %d; %s)" %
              (a.returncode, b.returncode, b.stderr.strip()[-300:]))
        ra, rb = records_by_id(a.stdout), records_by_id(b.stdout)
        totals = sorted({r.get("total") for r in ra.values()}, key=lambda x: (x is None, x or 0))
        check(len(ra) == 5 and len(totals) >= 4, "reward --batch: 5 records of different rewards locally (%s)" % totals)
        diffs = same_rewards(ra, rb)
        check(not diffs, "reward --batch: the queue's total, outcome and reward_components equal the local ones %s"
              % (diffs[:3] if diffs else "(%.1f s for both)" % (time.time() - t0)))
        one_local = run(local + [task, os.path.join(tmp, "fast.cu"), "--format", "jsonl"])
        one_queue = run(queued + [task, os.path.join(tmp, "fast.cu"), "--format", "jsonl"])
        check(one_local.returncode == 0 and one_queue.returncode == 0 and
              not same_rewards({1: json.loads(one_local.stdout)}, {1: json.loads(one_queue.stdout or "{}")}),
              "reward TASK CANDIDATE: the same document's reward through the queue")
        # --serve through the queue: the same records (POST /v1/batches, streamed)
        port_file = os.path.join(tmp, "reward-port")
        srv = spawn(queued + ["--serve", "--port", "0", "--port-file", port_file, "--jobs", "2"] + cand_root,
                    os.path.join(tmp, "reward-serve"))
        for _ in range(400):
            if os.path.exists(port_file) and open(port_file).read().strip() or srv.poll() is not None:
                break
            time.sleep(0.025)
        served = {}
        try:
            body = json.dumps({"requests": [json.loads(l) for l in reqs.splitlines()], "stream": True}).encode()
            req = urllib.request.Request("http://127.0.0.1:%s/v1/batches" % open(port_file).read().strip(), data=body,
                                         method="POST", headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=60) as resp:
                served = records_by_id(resp.read().decode())
        except (OSError, ValueError) as e:
            print("serve: %s" % e)
        srv.send_signal(signal.SIGTERM)
        srv.wait(30)
        diffs = same_rewards(ra, served)
        check(not diffs, "reward --serve --queue: the same records as the local --batch %s" % diffs[:3])
        # The comparison can fail: one component changed.
        changed = json.loads(json.dumps(rb))
        changed["fast"]["total"] += 0.01
        check(len(same_rewards(ra, changed)) == 1, "the comparison finds a changed total")

        # ---- bad input: a defined exit and a message, never a hang
        r = run(queued[:1] + ["--queue", "redis://127.0.0.1:%d/a/b" % port, task, os.path.join(tmp, "fast.cu")])
        check(r.returncode == 2 and "queue" in r.stderr, "a bad queue URL: exit 2 (%d)" % r.returncode)
        r = run(queued[:1] + ["--queue", "redis://user:pw@127.0.0.1:%d/x" % port, task, os.path.join(tmp, "fast.cu")])
        check(r.returncode == 2, "a URL with credentials: exit 2 (%d)" % r.returncode)
        t0 = time.time()
        r = run([args.reward, "--queue", "redis://127.0.0.1:%d/x" % free_port(), "--analyzer", "none", task,
                 os.path.join(tmp, "fast.cu")], timeout=30)
        check(r.returncode == 1 and "cannot connect" in r.stderr and time.time() - t0 < 10,
              "an unreachable Redis: exit 1, said at once (%d, %.1f s: %s)" % (r.returncode, time.time() - t0, r.stderr.strip()[:120]))
        t0 = time.time()
        r = run([args.reward, "--queue", "redis://127.0.0.1:%d/nobody" % port, "--analyzer", "none", "--eval-timeout", "1",
                 task, os.path.join(tmp, "fast.cu")], timeout=30)
        check(r.returncode == 1 and "missing after 1 s" in r.stderr and time.time() - t0 < 15,
              "no worker: exit 1 after --eval-timeout 1 (%d, %.1f s)" % (r.returncode, time.time() - t0))
        r = run([args.reward, "--queue", "redis://127.0.0.1:%d/nobody2" % port, "--analyzer", "none", "--eval-timeout", "1",
                 "--batch"] + cand_root, stdin=reqs.splitlines()[0] + "\n", timeout=30)
        rec = records_by_id(r.stdout).get("fast", {})
        check(r.returncode == 0 and "missing after 1 s" in json.dumps(rec),
              "no worker, --batch: an error record for the request (%s)" % json.dumps(rec)[:160])
        r = run(queued + ["--eval-arg=--budget-ms", "--eval-arg=5", task, os.path.join(tmp, "fast.cu")])
        check(r.returncode == 1 and "cannot travel" in r.stderr, "an evaluator argument that cannot travel: exit 1, named")
        r = run(queued + ["--static-only", task, os.path.join(tmp, "fast.cu")])
        check(r.returncode == 1 and "measured result" in r.stderr, "a static-only run against a measured worker: exit 1, said")

        # ---- cudaperf-bench --queue (through cudaperf-eval --submit): the same report as from the
        # local evaluator's results (the same evaluator run here on each candidate)
        if args.bench and args.eval:
            bd = os.path.join(tmp, "bench")
            for t in ("vector_add", "saxpy"):
                shutil.copytree(os.path.join(src, "data", "tasks", t), os.path.join(bd, "tasks", t))
            with open(os.path.join(bd, "suite.json"), "w") as f:
                json.dump({"schema": "cudaperf-suite/1", "name": "q", "tasks": ["tasks/vector_add", "tasks/saxpy"]}, f)
            cands = os.path.join(bd, "cands")
            for t, marks in (("vector_add", ["ok 4", "wrong_answer", "ok 0.5"]), ("saxpy", ["ok 2", "compile_error"])):
                os.makedirs(os.path.join(cands, t))
                for i, m in enumerate(marks):
                    candidate(os.path.join(cands, t), "%d.cu" % i, m)
            with open(os.path.join(bd, "local.jsonl"), "w") as f:
                for t in ("vector_add", "saxpy"):
                    for c in sorted(os.listdir(os.path.join(cands, t))):
                        r = run([fake_eval, os.path.join(bd, "tasks", t), os.path.join(cands, t, c), "--jsonl"])
                        f.write(r.stdout.strip().splitlines()[-1] + "\n")
            common = ["--suite", os.path.join(bd, "suite.json"), "--candidates", cands, "--resamples", "0"]
            r1 = run([args.bench, "--results", os.path.join(bd, "local.jsonl"), "--out", os.path.join(bd, "o1")] + common)
            r2 = run([args.bench, "--queue", url, "--eval", args.eval, "--out", os.path.join(bd, "o2")] + common)
            check(r1.returncode == 0 and r2.returncode == 0, "bench: local results and --queue both exit 0 (%d, %d: %s)"
                  % (r1.returncode, r2.returncode, r2.stderr.strip()[-300:]))
            if r1.returncode == 0 and r2.returncode == 0:
                d1, d2 = (json.load(open(os.path.join(bd, o, "bench.json"))) for o in ("o1", "o2"))
                f1 = {k: v.get("value") for k, v in d1["summary"]["figures"].items()}
                f2 = {k: v.get("value") for k, v in d2["summary"]["figures"].items()}
                check(f1 == f2 and d1["outcomes"] == d2["outcomes"] and d1["outcomes"].get("ok") == 3,
                      "bench: the same figures and outcomes through the queue (%s; correctness %s)"
                      % (d2["outcomes"], f2.get("correctness")))
            r = run([args.bench, "--queue", "redis://127.0.0.1:%d/bench" % free_port(), "--eval", args.eval, "--out",
                     os.path.join(bd, "o3")] + common, timeout=60)
            check(r.returncode == 1 and "cannot connect" in r.stderr, "bench: an unreachable Redis: exit 1, said (%d)" % r.returncode)
            r = run([args.bench, "--queue", "redis://127.0.0.1:%d/nobody" % port, "--queue-wait", "1", "--eval", args.eval,
                     "--out", os.path.join(bd, "o4")] + common, timeout=60)
            check(r.returncode == 1 and "missing after 1 s" in r.stderr, "bench: no worker: exit 1 after --queue-wait (%d)" % r.returncode)
            r = run([args.bench, "--queue", "http://x", "--out", os.path.join(bd, "o5")] + common)
            check(r.returncode == 2, "bench: a bad --queue: exit 2 (%d)" % r.returncode)
        else:
            print("skip cudaperf-bench --queue (cudaperf-bench or cudaperf-eval not built)")

        # ---- cudaperf-train rl: a fixed-seed run, the same per-candidate rewards through both paths
        if args.train and os.access(args.train, os.X_OK):
            worker("static", "rl", ["--exec-arg", "--compile-only"])
            d = os.path.join(tmp, "rl")
            os.makedirs(d)
            ok = run([sys.executable, os.path.join(src, "test", "learn", "tiny-dataset.py"), src], cwd=d).returncode == 0
            r = run([args.train, "sft", "--dataset", ".", "--device", "cpu", "--dtype", "float32", "--model-config",
                     "shape.json", "--vocab", "384", "--batch-tokens", "3000", "--micro-batch-tokens", "1500",
                     "--max-seq-len", "1500", "--warmup", "1", "--steps", "1", "--out", "sft"], cwd=d, timeout=300)
            ok = ok and r.returncode == 0 and run([sys.executable, os.path.join(src, "test", "learn", "chain-model.py"),
                                                   "sft/checkpoint", "chain"], cwd=d).returncode == 0
            check(ok, "tiny policy for RL (%s)" % r.stderr.strip()[-200:])
            config = {"model": "chain", "dataset": ".", "device": "cpu", "dtype": "float32", "lora_rank": 4,
                      "tasks_per_step": 2, "group_size": 2, "turns": 2, "max_new_tokens": 12, "eval_tasks": 0,
                      "eval_held_out_family_tasks": 0, "analyzer_path": "none", "ranking_checkpoint": "none",
                      "reward_jobs": 2, "steps": 1, "static_only": True, "temperature": 0.01, "kinds": "c", "seed": 7,
                      "eval_path": fake_eval}
            with open(os.path.join(d, "rl.json"), "w") as f:
                json.dump(config, f)
            base = [args.train, "rl", "--config", "rl.json"]
            r1 = run(base + ["--out", "local"], cwd=d, timeout=300)
            r2 = run(base + ["--queue", "redis://127.0.0.1:%d/rl" % port, "--out", "queued"], cwd=d, timeout=300)
            check(r1.returncode == 0 and r2.returncode == 0, "rl: both runs exit 0 (%d, %d; %s)" %
                  (r1.returncode, r2.returncode, r2.stderr.strip()[-300:]))
            if r1.returncode == 0 and r2.returncode == 0:
                qa, qb = rl_rewards(os.path.join(d, "local")), rl_rewards(os.path.join(d, "queued"))
                evaluated = [v for v in qa.values() if v["outcome"] not in (None, "no_code_block")]
                check(len(qa) == 8 and evaluated, "rl: 8 candidates, %d of them evaluated (rewards %s)" %
                      (len(evaluated), sorted({v["total"] for v in qa.values()})))
                diffs = same_rewards(qa, qb)
                check(not diffs, "rl: the queue's per-candidate rewards equal the local evaluator's %s" % diffs[:3])
                cfg = json.load(open(os.path.join(d, "queued", "rl-config.json")))
                check(cfg.get("evaluator") == "queue" and cfg.get("queue_url", "").endswith("/rl"),
                      "rl: rl-config.json records the queue")
            r = run(base + ["--queue", "http://x/y", "--out", "bad"], cwd=d)
            check(r.returncode == 1 and "queue_url" in r.stderr, "rl: a bad --queue URL: exit 1, named (%d)" % r.returncode)
            r = run(base + ["--queue", "redis://127.0.0.1:%d/rl" % free_port(), "--out", "bad2"], cwd=d, timeout=60)
            check(r.returncode == 1 and "cannot connect" in r.stderr, "rl: an unreachable Redis: exit 1 before training (%d)"
                  % r.returncode)
        else:
            print("skip cudaperf-train rl (not built)")
    finally:
        for p in CHILDREN[::-1]:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d failure(s)" % len(FAILS))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
