#!/usr/bin/env python3
"""Fault tests of the Redis work queue (docs/eval-serve.md, "Many hosts: the Redis queue").

Starts its own redis-server on a free loopback port in a temporary directory (append-only file on),
workers (the test double fake-queue-worker, and the real `cudaperf-eval --worker redis://...
--compile-only` with --real-worker) and `cudaperf-eval --submit`, and checks: a worker killed with
SIGKILL mid-job (its job completes on the other, one result each), Redis killed and restarted
(nothing lost), a stalled slow worker (its late result never reaches the submitter), a flood of
10,000 requests (back-pressure holds the queue under its bound; Redis's memory stays small).
Exit 77 (skipped) when redis-server is missing."""
import argparse, json, os, shutil, signal, socket, subprocess, sys, tempfile, time

ARGS = None
TMP = None
PORT = None
REDIS = None
QUEUE = "faults"
CHILDREN = []


def url():
    return f"redis://127.0.0.1:{PORT}/{QUEUE}"


def fail(msg):
    print("FAIL: " + msg, flush=True)
    sys.exit(1)


# A minimal RESP client for the test's own look-ups.
def redis(*args, timeout=5.0):
    s = socket.create_connection(("127.0.0.1", PORT), timeout=timeout)
    try:
        out = b"*%d\r\n" % len(args)
        for a in args:
            a = str(a).encode()
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        s.sendall(out)
        f = s.makefile("rb")
        return read_reply(f)
    finally:
        s.close()


def read_reply(f):
    line = f.readline()
    if not line:
        raise ConnectionError("closed")
    kind, rest = line[:1], line[1:-2]
    if kind == b"+":
        return rest.decode()
    if kind == b"-":
        raise RuntimeError(rest.decode())
    if kind == b":":
        return int(rest)
    if kind == b"$":
        n = int(rest)
        if n < 0:
            return None
        data = f.read(n + 2)[:-2]
        return data.decode()
    if kind == b"*":
        n = int(rest)
        return None if n < 0 else [read_reply(f) for _ in range(n)]
    raise RuntimeError("bad reply " + repr(line))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_redis():
    global REDIS
    data = os.path.join(TMP, "redis")
    os.makedirs(data, exist_ok=True)
    REDIS = subprocess.Popen([ARGS.redis_server, "--port", str(PORT), "--bind", "127.0.0.1", "--dir", data,
                              "--save", "", "--appendonly", "yes", "--appendfsync", "always",
                              "--daemonize", "no", "--logfile", os.path.join(TMP, "redis.log")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            if redis("PING") == "PONG":
                return
        except (OSError, RuntimeError):  # not listening yet, or LOADING its append-only file
            pass
        time.sleep(0.025)
    fail("redis-server did not start (see %s)" % os.path.join(TMP, "redis.log"))


def stop_redis(sig=signal.SIGTERM):
    REDIS.send_signal(sig)
    REDIS.wait(10)


def spawn(argv, log):
    p = subprocess.Popen(argv, stdout=open(os.path.join(TMP, log + ".out"), "w"),
                         stderr=open(os.path.join(TMP, log + ".err"), "w"))
    CHILDREN.append(p)
    return p


def fake_worker(name, job_ms, in_flight=1, reclaim=1.0):
    return spawn([ARGS.fake_worker, url(), "--name", name, "--job-ms", str(job_ms), "--in-flight", str(in_flight),
                  "--reclaim-after", str(reclaim), "--heartbeat", "0.2", "--work-dir", os.path.join(TMP, "w-" + name)],
                 "worker-" + name)


def host(name):
    flat = redis("HGETALL", f"cudaperf:{QUEUE}:host:{name}") or []
    return dict(zip(flat[0::2], flat[1::2]))


def wait_for(what, cond, seconds):
    end = time.time() + seconds
    while time.time() < end:
        if cond():
            return
        time.sleep(0.02)
    fail("timed out waiting for " + what)


def make_task():
    d = os.path.join(TMP, "task")
    os.makedirs(os.path.join(d, "impls"), exist_ok=True)
    with open(os.path.join(d, "task.json"), "w") as f:
        f.write('{"name": "fake"}\n')
    with open(os.path.join(d, "impls", "baseline.cu"), "w") as f:
        f.write("__global__ void k() {}\n")
    return d


def write_batch(name, n, task, prefix):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        for i in range(n):
            f.write(json.dumps({"id": f"{prefix}{i}", "task_dir": task, "source": f"// {prefix} {i}\n"}) + "\n")
    return path


def submit(batch, log, extra=()):
    return spawn([ARGS.eval, "--submit", url(), "--batch", batch, "--queue-wait", "60", *extra], log)


def results_of(log, ids):
    got = {}
    with open(os.path.join(TMP, log + ".out")) as f:
        for line in f:
            m = json.loads(line)
            if m["id"] in got:
                fail(f"{log}: a second result for {m['id']}")
            got[m["id"]] = m
    if set(got) != set(ids):
        fail(f"{log}: results for {len(got)} ids, expected {len(ids)}: missing {sorted(set(ids) - set(got))[:5]}")
    return got


def finish(p, log, seconds=30):
    try:
        rc = p.wait(seconds)
    except subprocess.TimeoutExpired:
        fail(f"{log} did not finish in {seconds} s; stderr: " + open(os.path.join(TMP, log + ".err")).read()[-2000:])
    if rc != 0:
        fail(f"{log} exited {rc}; stderr: " + open(os.path.join(TMP, log + ".err")).read()[-2000:])


def kill(p, sig=signal.SIGTERM):
    if p.poll() is None:
        p.send_signal(sig)
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def leftovers():
    return len(redis("KEYS", f"cudaperf:{QUEUE}:result:*")) + len(redis("KEYS", f"cudaperf:{QUEUE}:reply:*"))


def test_killed_worker(task):
    global QUEUE
    QUEUE = "killed"
    a = fake_worker("A", 3000)
    wait_for("worker A's heartbeat", lambda: host("A"), 5)
    sub = submit(write_batch("killed.jsonl", 4, task, "k"), "killed-submit")
    wait_for("worker A holding a job", lambda: host("A").get("in_flight") == "1", 5)
    a.send_signal(signal.SIGKILL)
    a.wait()
    b = fake_worker("B", 50)
    finish(sub, "killed-submit")
    got = results_of("killed-submit", [f"k{i}" for i in range(4)])
    pids = {m["result"]["evaluated_by"] for m in got.values()}
    if pids != {b.pid}:
        fail(f"results from {pids}, expected only worker B ({b.pid})")
    if any(m["outcome"] != "ok" for m in got.values()):
        fail("a job's outcome is not ok: " + json.dumps(got)[:500])
    wait_for("B's counters", lambda: int(host("B").get("reclaimed", 0)) >= 1, 3)
    status = subprocess.run([ARGS.eval, "--queue-status", url()], capture_output=True, text=True)
    if status.returncode != 0 or "B alive" not in status.stdout or "A gone" not in status.stdout:
        fail("--queue-status: " + status.stdout + status.stderr)
    kill(b)
    print("ok: a worker killed mid-job: its job completed on the other, 4 results, one each", flush=True)


def test_slow_worker(task):
    global QUEUE
    QUEUE = "slow"
    s = fake_worker("S", 1500)
    wait_for("worker S's heartbeat", lambda: host("S"), 5)
    sub = submit(write_batch("slow.jsonl", 1, task, "s"), "slow-submit")
    wait_for("worker S holding the job", lambda: host("S").get("in_flight") == "1", 5)
    s.send_signal(signal.SIGSTOP)  # alive but silent: no renewal, so the job is claimed again
    f = fake_worker("F", 50)
    finish(sub, "slow-submit")
    got = results_of("slow-submit", ["s0"])
    if got["s0"]["result"]["evaluated_by"] != f.pid:
        fail("the result should come from the fast worker")
    s.send_signal(signal.SIGCONT)  # S finishes the same job late
    wait_for("the slow worker's late result dropped", lambda: host("S").get("duplicates") == "1", 8)
    if leftovers():
        fail("a late result or notification was stored for the submitter")
    kill(s)
    kill(f)
    print("ok: a slow worker's late result was dropped (duplicates=1), one result reached the submitter", flush=True)


def test_redis_restart(task):
    global QUEUE
    QUEUE = "restart"
    n = 20
    sub = submit(write_batch("restart.jsonl", n, task, "r"), "restart-submit")
    wait_for("20 jobs in the stream", lambda: redis("XLEN", f"cudaperf:{QUEUE}:jobs") == n, 10)
    stop_redis(signal.SIGKILL)  # no shutdown save: only the append-only file keeps the jobs
    time.sleep(0.3)
    start_redis()
    if redis("XLEN", f"cudaperf:{QUEUE}:jobs") != n:
        fail("jobs lost in the restart")
    w1 = fake_worker("R1", 20, in_flight=4)
    w2 = fake_worker("R2", 20, in_flight=4)
    finish(sub, "restart-submit")
    results_of("restart-submit", [f"r{i}" for i in range(n)])
    kill(w1)
    kill(w2)
    print(f"ok: Redis killed and restarted with its append-only file: {n} of {n} results", flush=True)


def test_flood(task):
    global QUEUE
    QUEUE = "flood"
    n, bound = ARGS.flood, 500
    workers = [fake_worker(f"F{i}", 0, in_flight=32, reclaim=30) for i in range(2)]
    start = time.time()
    sub = submit(write_batch("flood.jsonl", n, task, "f"), "flood-submit", ["--queue-max", str(bound)])
    finish(sub, "flood-submit", 90)
    seconds = time.time() - start
    got = results_of("flood-submit", [f"f{i}" for i in range(n)])
    if any(m["outcome"] != "ok" for m in got.values()):
        fail("a flood job failed")
    summary = open(os.path.join(TMP, "flood-submit.err")).read()
    longest = int(summary.split("longest queue ")[1].split(",")[0])
    full = int(summary.split("queue full ")[1].split(" ")[0])
    if longest > bound or full == 0:
        fail(f"back-pressure: longest queue {longest} (bound {bound}), full {full} times")
    info = redis("INFO", "memory")
    peak = int([l for l in info.split("\r\n") if l.startswith("used_memory_peak:")][0].split(":")[1])
    if peak > 64 << 20:
        fail(f"Redis used {peak} bytes at its peak")
    if leftovers() or redis("XLEN", f"cudaperf:{QUEUE}:jobs") != 0:
        fail("the flood left results or jobs behind")
    for w in workers:
        kill(w)
    print(f"ok: flood of {n}: {seconds:.1f} s ({n / seconds:.0f} jobs/s), longest queue {longest} <= {bound}, "
          f"queue full {full} times, Redis peak memory {peak / 1048576:.1f} MiB", flush=True)


def test_cli():
    def run(*argv):
        r = subprocess.run([ARGS.eval, *argv], capture_output=True, text=True)
        return r.returncode, r.stderr
    for argv, rc, text in [(["--queue-status", "redis://h:1"], 2, "no /QUEUE"),
                           (["--queue-status", "redis://u:p@h:1/q"], 2, "passwords"),
                           (["--worker", "redis:/x"], 2, "must start with redis://"),
                           (["--submit", url()], 2, "needs --batch"),
                           (["--queue-status", f"redis://127.0.0.1:{free_port()}/q"], 1, "cannot connect")]:
        got_rc, err = run(*argv)
        if got_rc != rc or text not in err:
            fail(f"{argv}: exit {got_rc}, stderr {err!r}; expected exit {rc} and {text!r}")
    print("ok: bad queue URLs and usage: exit 2 with the reason; no Redis: exit 1", flush=True)


def test_hostile_jobs():
    global QUEUE
    QUEUE = "hostile"
    stream = f"cudaperf:{QUEUE}:jobs"
    work = os.path.join(TMP, "w-H")
    jobs = {
        "a" * 64: '{"protocol": "cudaperf-queue/1", "request": {"source": "x"}, "task_files": {"../escape": "x"}}',
        "b" * 64: "not json",
        "c" * 64: '{"protocol": "cudaperf-queue/1", "request": {"source": "x", "task_dir": "/etc"}}',
        "d" * 64: '{"protocol": "cudaperf-queue/1", "request": {"source": "x"}, "task_files": {"task.json": 7}}',
        "e" * 64: '{"protocol": "cudaperf-queue/9", "request": {}}',
    }
    for key, body in jobs.items():
        redis("XADD", stream, "*", "key", key, "reply_to", "tok", "job", body)
    redis("XADD", stream, "*", "key", "../../x", "reply_to", "tok", "job", "{}")  # no valid key: dropped
    w = fake_worker("H", 0, in_flight=4)
    wait_for("the hostile jobs finished", lambda: redis("XLEN", stream) == 0, 10)
    for key in jobs:
        m = json.loads(redis("GET", f"cudaperf:{QUEUE}:result:{key}") or "null")
        if not m or m.get("type") != "error" or m.get("code") != "bad_request":
            fail(f"hostile job {key[:4]}: {m}")
    if os.path.exists(os.path.join(TMP, "escape")) or os.path.exists(os.path.join(work, "escape")):
        fail("a task file escaped the work directory")
    wait_for("the failed counter at %d" % (len(jobs) + 1), lambda: host("H").get("failed") == str(len(jobs) + 1), 3)
    kill(w)
    print(f"ok: {len(jobs) + 1} hostile jobs: each an error result (bad_request) or dropped, nothing written outside",
          flush=True)


def test_real_worker():
    global QUEUE
    QUEUE = "real"
    src = ARGS.source_dir
    task = os.path.join(src, "data/tasks/vector_add")
    baseline = open(os.path.join(task, "impls/baseline.cu")).read()
    batch = os.path.join(TMP, "real.jsonl")
    with open(batch, "w") as f:
        f.write(json.dumps({"id": "good", "task_dir": task, "source": baseline + "\n// queue test\n"}) + "\n")
        f.write(json.dumps({"id": "broken", "task_dir": task, "source": "int main( {"}) + "\n")
    w = spawn([ARGS.eval, "--worker", url(), "--compile-only", "--arch", "sm_90", "--jobs", "2",
               "--cache-dir", os.path.join(TMP, "cache"), "--queue-work-dir", os.path.join(TMP, "w-real"),
               "--queue-heartbeat", "0.5"], "worker-real")
    sub = submit(batch, "real-submit")
    finish(sub, "real-submit", 60)
    got = results_of("real-submit", ["good", "broken"])
    if got["good"]["outcome"] != "ok" or got["broken"]["outcome"] != "compile_error":
        fail("outcomes: " + json.dumps({k: v["outcome"] for k, v in got.items()}))
    kill(w)
    print("ok: cudaperf-eval --worker redis:// --compile-only: ok and compile_error as --serve gives", flush=True)


def main():
    global ARGS, TMP, PORT
    ap = argparse.ArgumentParser()
    ap.add_argument("--fake-worker", required=True)
    ap.add_argument("--eval", required=True)
    ap.add_argument("--source-dir")
    ap.add_argument("--real-worker", action="store_true")
    ap.add_argument("--redis-server", default=shutil.which("redis-server") or "/usr/bin/redis-server")
    ap.add_argument("--flood", type=int, default=10000)
    ap.add_argument("--only", default="")
    ARGS = ap.parse_args()
    if not os.access(ARGS.redis_server, os.X_OK):
        print("SKIP: redis-server not found (Debian redis-server; scripts/install-deps.sh)")
        return 77
    TMP = tempfile.mkdtemp(prefix="queue-faults-")
    PORT = free_port()
    try:
        start_redis()
        task = make_task()
        tests = {"cli": test_cli, "hostile": test_hostile_jobs, "killed": lambda: test_killed_worker(task), "slow": lambda: test_slow_worker(task),
                 "restart": lambda: test_redis_restart(task), "flood": lambda: test_flood(task)}
        if ARGS.real_worker:
            tests["real"] = test_real_worker
        for name, t in tests.items():
            if not ARGS.only or name in ARGS.only.split(","):
                t0 = time.time()
                t()
                print(f"   ({name}: {time.time() - t0:.1f} s)", flush=True)
    finally:
        for p in CHILDREN:
            if p.poll() is None:
                p.send_signal(signal.SIGCONT)
                p.kill()
                p.wait()
        if REDIS and REDIS.poll() is None:
            REDIS.kill()
            REDIS.wait()
        shutil.rmtree(TMP, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
