#!/usr/bin/env python3
"""cudaperf-reward end to end (docs/reward.md): exit codes, documents mode, --batch (errors as
records, completion order, trajectories), and the HTTP service on loopback -- streamed and polled
batches, one-shot requests, 4xx with messages, a full queue (503 with Retry-After), an evaluator
that crashes on a candidate while the service stays up, and the Python client example of
docs/reward.md driven against it. The evaluator is test/reward/fake-eval.py (no nvcc, no GPU);
with --eval-real and nvcc present, a static-only service with the real cudaperf-eval must give the
CLI's numbers.

Usage: reward_tool_test.py --reward BIN [--eval-real BIN] [--analyzer BIN] [--root DIR]
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
FAILURES = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILURES.append(what)


def run(argv, stdin=None, timeout=120):
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=timeout)


class Server:
    def __init__(self, argv, workdir):
        self.port_file = os.path.join(workdir, "port-%d" % time.time_ns())
        self.proc = subprocess.Popen(argv + ["--serve", "--port", "0", "--port-file", self.port_file],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 30
        while not os.path.exists(self.port_file):
            if self.proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("the server did not start: " + self.proc.stderr.read())
            time.sleep(0.05)
        self.url = "http://127.0.0.1:%s" % open(self.port_file).read().strip()

    def request(self, method, path, body=None, raw=None):
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                return r.status, dict(r.headers), r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read().decode()

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return None


def candidate(workdir, name, marker):
    path = os.path.join(workdir, name)
    with open(path, "w") as f:
        f.write("// fake: %s\nextern \"C\" void f() {}\n" % marker)
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reward", required=True)
    ap.add_argument("--eval-real")
    ap.add_argument("--analyzer")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(HERE)))
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    task = os.path.join(root, "data", "tasks", "vector_add")
    work = tempfile.mkdtemp(prefix="reward-tool-test-")
    fake = [args.reward, "--eval", os.path.join(HERE, "fake-eval.py"), "--analyzer", "none"]
    try:
        # ---- exit codes and documents mode
        check(run([args.reward]).returncode == 2, "no arguments: exit 2")
        r = run([args.reward, "--frobnicate"])
        check(r.returncode == 2 and "unknown option" in r.stderr, "unknown option: exit 2 with the message")
        check(run([args.reward, "--analysis", "a.json"]).returncode == 2, "--analysis without --result: exit 2")
        r = run([args.reward, "--result", os.path.join(work, "missing.json")])
        check(r.returncode == 1 and "missing.json" in r.stderr, "unreadable --result: exit 1 naming the file")
        golden = os.path.join(HERE, "golden")
        r = run([args.reward, "--result", os.path.join(golden, "ok_counters", "result.json"),
                 "--analysis", os.path.join(golden, "ok_counters", "analysis.json"), "--format", "jsonl"])
        doc = json.loads(r.stdout) if r.returncode == 0 else {}
        expected = json.load(open(os.path.join(golden, "ok_counters", "expected-reward.json")))
        check(r.returncode == 0 and abs(doc.get("total", 0) - expected["total"]) < 1e-6,
              "documents mode: the golden case's total (%s)" % doc.get("total"))
        check(doc.get("schema") == "cudaperf-reward/1" and doc.get("feedback", "").startswith("Outcome: ok"),
              "documents mode: schema and feedback in the document")
        r = run([args.reward, "--result", os.path.join(golden, "internal_error", "result.json")])
        check(r.returncode == 3 and json.loads(r.stdout)["total"] is None, "internal_error: exit 3, total null")
        r = run([args.reward, "--result", os.path.join(golden, "compile_error", "result.json"), "--format", "text"])
        check(r.returncode == 0 and r.stdout.startswith("Outcome: compile_error"), "--format text prints the feedback")
        bad_config = os.path.join(work, "bad-config.json")
        with open(bad_config, "w") as f:
            json.dump({"gates": {"timing_violation": 0}}, f)
        r = run([args.reward, "--config", bad_config, "--print-config"])
        check(r.returncode == 1 and "gates.timing_violation" in r.stderr, "a config breaking the order: exit 1, named")

        # ---- one candidate through the pipeline (fake evaluator)
        fast = candidate(work, "fast.cu", "ok 4")
        r = run(fake + [task, fast, "--format", "jsonl"])
        one = json.loads(r.stdout) if r.returncode == 0 else {}
        check(r.returncode == 0 and one.get("outcome") == "ok" and one["total"] > 1.5,
              "TASK_DIR CANDIDATE: a 4x candidate (total %s)" % one.get("total"))
        crash = candidate(work, "crash.cu", "crash")
        r = run(fake + [task, crash])
        check(r.returncode == 1 and "no result document" in r.stderr, "an evaluator that dies: exit 1 with why")

        # ---- --batch
        lines = [json.dumps({"id": "a", "task": task, "candidate": fast}),
                 "{not json",
                 json.dumps({"id": "c", "task": task, "candidate": fast, "colour": "red"}),
                 json.dumps({"id": "d", "task": os.path.join(work, "nowhere"), "candidate": fast}),
                 json.dumps({"id": 5, "task": task, "source": "// fake: wrong_answer\n",
                             "turns": [{"candidate": fast}]}),
                 json.dumps({"id": "f", "task": task, "candidate": crash})]
        r = run(fake + ["--batch", "--jobs", "2", "--candidate-root", work], stdin="\n".join(lines) + "\n")
        records = [json.loads(l) for l in r.stdout.splitlines() if l.strip()]
        by_id = {json.dumps(x["id"]): x for x in records}
        check(r.returncode == 0 and len(records) == 6, "--batch: one record per line (%d)" % len(records))
        check(by_id.get('"a"', {}).get("ok") is True, "--batch: a good request")
        rec_a = by_id.get('"a"', {})
        comps = rec_a.get("reward_components") or {}
        terms = (rec_a.get("reward") or {}).get("terms") or []
        check(comps and set(comps) == {t["name"] for t in terms}
              and abs(sum(comps.values()) - rec_a["reward"]["total"]) < 1e-9,
              "--batch: reward_components name every term and sum to the document's total (%s)" % comps)
        check(any(x["id"] is None and x["status"] == 400 and "stdin:2" in x["error"] for x in records),
              "--batch: malformed JSON is an error record naming the line")
        check(by_id.get('"c"', {}).get("status") == 400 and "colour" in by_id['"c"']["error"],
              "--batch: an unknown key is named")
        check(by_id.get('"d"', {}).get("status") == 422 and "task.json" in by_id['"d"']["error"],
              "--batch: a task that does not exist is 422")
        rec5 = by_id.get("5", {})
        traj = (rec5.get("trajectory") or {}).get("turns", [])
        check(rec5.get("ok") and len(traj) == 2 and traj[1]["rule"] == "regression"
              and abs(traj[0]["return"] - (traj[0]["reward"] + 0.4 * traj[1]["reward"])) < 1e-9,
              "--batch: a trajectory with its returns and the regression rule")
        check(by_id.get('"f"', {}).get("status") == 500, "--batch: a crashing evaluator is a 500 record")
        # ---- --devices: candidates spread over the GPUs of the list, --gpu-slots each
        slow = candidate(work, "slow.cu", "sleep 0.3")
        lines = [json.dumps({"id": i, "task": task, "source": "// fake: sleep 0.3\n// %d\n" % i}) for i in range(4)]
        r = run(fake + ["--batch", "--jobs", "2", "--devices", "0,1", "--records-with-results"], stdin="\n".join(lines) + "\n")
        used = sorted((json.loads(l).get("result") or {}).get("fake_devices", "-") for l in r.stdout.splitlines() if l.strip())
        check(r.returncode == 0 and used == ["0", "0", "1", "1"], "--devices 0,1: two candidates on each GPU (%s)" % used)
        r = run(fake + [task, slow, "--devices", "1,x"])
        check(r.returncode == 2 and "--devices" in r.stderr, "--devices with a bad item: usage error")
        lines = [json.dumps({"id": 1, "task": "vector_add", "candidate": fast}),
                 json.dumps({"id": 2, "task": "../vector_add", "candidate": fast}),
                 json.dumps({"id": 3, "task": task, "candidate": fast})]
        r = run(fake + ["--batch", "--candidate-root", work, "--task-root", os.path.join(root, "data", "tasks")], stdin="\n".join(lines) + "\n")
        recs = {x["id"]: x for x in (json.loads(l) for l in r.stdout.splitlines() if l.strip())}
        check(recs.get(1, {}).get("ok") and recs.get(2, {}).get("status") == 400 and recs.get(3, {}).get("status") == 400,
              "--task-root: relative tasks inside it only")

        # ---- the service
        slow = candidate(work, "slow.cu", "sleep 2")
        srv = Server(fake + ["--jobs", "1", "--queue", "2", "--candidate-root", work], work)
        try:
            status, _, body = srv.request("GET", "/v1/health")
            check(status == 200 and json.loads(body)["status"] == "ok", "serve: health")
            status, headers, body = srv.request("POST", "/v1/batches", {
                "stream": True, "requests": [{"task": task, "candidate": fast}, {"task": task, "source": "// fake: timeout\n"}]})
            recs = [json.loads(l) for l in body.splitlines() if l.strip()]
            check(status == 200 and len(recs) == 2 and {r["id"] for r in recs} == {0, 1}
                  and "X-Batch-Id" in headers, "serve: a streamed batch, ids defaulting to positions")
            gate = [r for r in recs if r["id"] == 1][0]["reward"]["gate"]
            check(gate == "timeout", "serve: the timeout candidate's gate")
            same = [r for r in recs if r["id"] == 0][0]["total"]
            check(abs(same - one["total"]) < 1e-12, "serve: the same numbers as the command line")
            status, _, body = srv.request("POST", "/v1/batches", {"requests": [{"task": task, "candidate": fast}]})
            bid = json.loads(body)["batch_id"] if status == 202 else ""
            status, _, body = srv.request("GET", "/v1/batches/%s?wait=30" % bid)
            snap = json.loads(body) if status == 200 else {}
            check(snap.get("complete") and snap["results"][0]["ok"], "serve: a polled batch")
            status, _, body = srv.request("POST", "/v1/reward", {"task": task, "candidate": fast})
            check(status == 200 and json.loads(body)["ok"], "serve: /v1/reward")
            status, _, body = srv.request("POST", "/v1/reward", {"task": task, "candidate": crash})
            check(status == 500 and "no result document" in json.loads(body)["error"] and srv.alive(),
                  "serve: an evaluator crash is a 500 and the service stays up")
            status, _, body = srv.request("POST", "/v1/batches", raw=b"{oops")
            check(status == 400 and "request body" in json.loads(body)["error"], "serve: malformed body 400")
            status, _, body = srv.request("POST", "/v1/batches", {"requests": [{"task": task}]})
            check(status == 400 and "requests[0]" in json.loads(body)["error"], "serve: a bad request is 400, located")
            status, _, body = srv.request("GET", "/v1/nothing")
            check(status == 404 and "no endpoint" in json.loads(body)["error"], "serve: unknown endpoint 404")
            status, _, body = srv.request("GET", "/v1/batches/b999")
            check(status == 404, "serve: unknown batch 404")
            # Fill the queue: one running, two waiting (limit 2); the next batch is refused.
            status, _, _ = srv.request("POST", "/v1/batches", {"requests": [{"task": task, "candidate": slow}]})
            time.sleep(0.5)
            s2, _, b2 = srv.request("POST", "/v1/batches", {"requests": [
                {"task": task, "source": "// fake: sleep 1.5\n"}, {"task": task, "source": "// fake: sleep 1.6\n"}]})
            status, headers, body = srv.request("POST", "/v1/batches", {"requests": [{"task": task, "candidate": fast}]})
            check(status == 503 and headers.get("Retry-After") and "queue is full" in body,
                  "serve: a full queue is 503 with Retry-After")
            if s2 == 202:
                status, _, body = srv.request("DELETE", "/v1/batches/" + json.loads(b2)["batch_id"])
                check(status == 200 and json.loads(body)["cancelled"] >= 1, "serve: cancelling what has not started")
            status, _, body = srv.request("POST", "/v1/batches", {"requests": [{"task": task, "candidate": fast}] * 3})
            check(status == 413, "serve: a batch larger than the queue is 413")

            # The Python client of docs/reward.md, as a user would paste it.
            docs = open(os.path.join(root, "docs", "reward.md")).read()
            m = re.search(r"<!-- client-example -->\s*```python\n(.*?)```", docs, re.S)
            check(bool(m), "docs/reward.md has the client example")
            if m:
                client = os.path.join(work, "client.py")
                with open(client, "w") as f:
                    f.write(m.group(1))
                driver = ("import sys; sys.path.insert(0, %r); import client\n"
                          "rewards, feedback = client.cudaperf_rewards([%r, %r], [%r, %r], histories=[[], [%r]])\n"
                          "print(rewards); print(client.trl_reward([[{'content': %r}]], task=[%r]))\n"
                          % (work, task, task, "// fake: ok 2\n", "// fake: compile_error\n", "// fake: ok 2\n",
                             "Here it is:\n```cuda\n// fake: ok 2\n```\n", task))
                r = subprocess.run([sys.executable, "-c", driver], capture_output=True, text=True, timeout=120,
                                   env=dict(os.environ, CUDAPERF_REWARD_URL=srv.url))
                out = r.stdout.splitlines()
                ok = r.returncode == 0 and len(out) == 2
                if ok:
                    rewards, trl = json.loads(out[0].replace("None", "null")), json.loads(out[1].replace("None", "null"))
                    ok = rewards[0] > 1.0 and abs(rewards[1] + 0.9) < 1e-9 and abs(trl[0] - rewards[0]) < 1e-12
                check(ok, "docs client: rewards of a batch (compile error after a correct turn: -0.9), TRL wrapper"
                      + ("" if ok else ": " + r.stdout + r.stderr))
        finally:
            code = srv.stop()
            check(code == 0, "serve: SIGTERM stops it with exit 0 (%s)" % code)

        # ---- the real evaluator, static-only (nvcc needed, no GPU)
        if args.eval_real and shutil.which("nvcc", path=os.environ.get("PATH", "") + ":/usr/local/cuda/bin"):
            real = [args.reward, "--static-only", "--eval", args.eval_real] + (
                ["--analyzer", args.analyzer] if args.analyzer else ["--analyzer", "none"])
            tiled = os.path.join(root, "data", "tasks", "transpose", "impls", "tiled.cu")
            ttask = os.path.join(root, "data", "tasks", "transpose")
            r = run(real + [ttask, tiled, "--format", "jsonl"], timeout=600)
            cli = json.loads(r.stdout) if r.returncode == 0 else {}
            check(cli.get("mode") == "static-only" and cli.get("gate") is None,
                  "static-only CLI with the real cudaperf-eval" + ("" if r.returncode == 0 else ": " + r.stderr[-500:]))
            srv = Server(real, work)
            try:
                status, _, body = srv.request("POST", "/v1/reward", {"task": ttask, "source": open(tiled).read()})
                rec = json.loads(body)
                check(status == 200 and abs(rec["total"] - cli.get("total", 1e9)) < 1e-12,
                      "static-only service: the CLI's numbers (%s vs %s)" % (rec.get("total"), cli.get("total")))
                status, _, body = srv.request("POST", "/v1/reward", {"task": ttask, "source": "this is not CUDA"})
                rec = json.loads(body)
                check(status == 200 and rec["reward"]["gate"] == "compile_error", "static-only service: a compile error")
            finally:
                srv.stop()
        else:
            print("skip the real evaluator (no --eval-real or no nvcc)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
