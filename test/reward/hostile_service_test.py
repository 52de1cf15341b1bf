#!/usr/bin/env python3
"""Issue 35's reproducers against cudaperf-reward --batch and --serve on loopback (fake evaluator, no
GPU): server files, the environment, includes, tokens, batch ids, chunked bodies, JSON limits,
slowloris and a burst of concurrent requests. Bounded: every connection has a timeout."""
import argparse, json, os, re, socket, subprocess, sys, tempfile, threading, time, urllib.request, urllib.error

HERE = os.path.dirname(os.path.abspath(__file__))
FAILURES = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILURES.append(what)


def http(url, method, path, body=None, token=None, timeout=30):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reward", required=True)
    ap.add_argument("--root", required=True)
    args = ap.parse_args()
    task = os.path.join(args.root, "data", "tasks", "vector_add")
    work = tempfile.mkdtemp(prefix="reward-hostile-")
    fake = [args.reward, "--eval", os.path.join(HERE, "fake-eval.py"), "--analyzer", "none"]
    env = dict(os.environ, HF_TOKEN="hf_leak_me_not", WANDB_API_KEY="wandb_leak_me_not")

    # --batch: server paths refused, include of a server file refused with the reason
    lines = [json.dumps({"id": "shadow", "task": task, "candidate": "/etc/shadow"}),
             json.dumps({"id": "environ", "task": task, "candidate": "/proc/self/environ"}),
             json.dumps({"id": "inc", "task": task, "source": "#include \"/etc/passwd\"\n// fake: ok 2\n"}),
             json.dumps({"id": "probe", "task": task, "source": "#if __has_include(\"/root/.env\")\n#error x\n#endif\n"}),
             json.dumps({"id": "env", "task": task, "source": "// fake: env\n"})]
    r = subprocess.run(fake + ["--batch"], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120, env=env)
    recs = {x["id"]: x for x in (json.loads(l) for l in r.stdout.splitlines() if l.strip())}
    check(recs.get("shadow", {}).get("status") == 400 and "root:" not in r.stdout, "batch: a candidate path is refused")
    check(recs.get("environ", {}).get("status") == 400 and "hf_leak" not in r.stdout, "batch: /proc/self/environ is refused")
    inc = recs.get("inc", {})
    check(inc.get("ok") and inc["reward"]["gate"] == "compile_error" and "absolute path" in inc["feedback"]
          and "root:x" not in json.dumps(inc), "batch: #include \"/etc/passwd\" is a compile_error with the reason")
    check(recs.get("probe", {}).get("reward", {}).get("gate") == "compile_error", "batch: __has_include is refused")
    envrec = json.dumps(recs.get("env", {}))
    check(recs.get("env", {}).get("ok") and "hf_leak" not in envrec and "wandb_leak" not in envrec,
          "batch: the evaluator gets no HF_TOKEN / WANDB_API_KEY")
    deep = "[" * 100000 + "]" * 100000
    r = subprocess.run(fake + ["--batch"], input=deep + "\n", capture_output=True, text=True, timeout=60, env=env)
    check(r.returncode == 0 and "nesting deeper" in r.stdout, "batch: 100,000-deep line is an error record, no signal")

    # --serve with two client tokens
    tokens = os.path.join(work, "tokens")
    with open(tokens, "w") as f:
        f.write("client-one-token-0123456789\nclient-two-token-0123456789\n")
    port_file = os.path.join(work, "port")
    proc = subprocess.Popen(fake + ["--serve", "--port", "0", "--port-file", port_file, "--token-file", tokens,
                                    "--jobs", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.time() + 30
        while not os.path.exists(port_file) and time.time() < deadline and proc.poll() is None:
            time.sleep(0.05)
        port = int(open(port_file).read())
        url = "http://127.0.0.1:%d" % port
        one, two = "client-one-token-0123456789", "client-two-token-0123456789"
        status, headers, _ = http(url, "GET", "/v1/health")
        check(status == 401, "serve: no token, 401")
        status, _, _ = http(url, "GET", "/v1/health", token="client-one-token-012345678X")
        check(status == 401, "serve: a wrong token, 401")
        status, _, body = http(url, "POST", "/v1/reward", {"task": task, "candidate": "/etc/shadow"}, token=one)
        check(status == 400 and "root:" not in body, "serve: /etc/shadow as candidate is refused")
        status, _, body = http(url, "POST", "/v1/reward", {"task": task, "source": "#include \"/etc/passwd\"\n"}, token=one)
        rec = json.loads(body)
        check(status == 200 and rec["reward"]["gate"] == "compile_error" and "root:x" not in body,
              "serve: #include of a server file is refused before compiling")
        check("/tmp/" not in body, "serve: no absolute temporary path in the record")
        status, _, body = http(url, "POST", "/v1/batches", {"requests": [{"task": task, "source": "// fake: sleep 1\n"}]}, token=one)
        bid = json.loads(body).get("batch_id", "")
        check(status == 202 and re.fullmatch(r"[0-9a-f]{32}", bid) is not None, "serve: a 128-bit random batch id (%s)" % bid)
        status, _, _ = http(url, "GET", "/v1/batches/" + bid, token=two)
        check(status == 404, "serve: another client cannot read the batch")
        status, _, _ = http(url, "DELETE", "/v1/batches/" + bid, token=two)
        check(status == 404, "serve: another client cannot cancel the batch")
        status, _, _ = http(url, "GET", "/v1/batches/%s?wait=10" % bid, token=one)
        check(status == 200, "serve: its owner reads it")
        status, _, body = http(url, "POST", "/v1/reward", json.loads("[" * 20 + "1" + "]" * 20), token=one)
        check(status == 400 and "nesting" in body, "serve: a deep body is 400 before building a tree")
        # chunked body: refused, not read past the cap
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(("POST /v1/reward HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nTransfer-Encoding: chunked\r\n"
                   "Content-Type: application/json\r\n\r\n10\r\n{\"task\": \"x\",   \r\n" % one).encode())
        answer = s.recv(4096).decode(errors="replace")
        s.close()
        check(" 411 " in answer.split("\r\n")[0], "serve: a chunked body is refused (411): " + answer.split("\r\n")[0])
        # 40 slowloris connections: health still within 1 s
        slow = []
        for _ in range(40):
            c = socket.create_connection(("127.0.0.1", port), timeout=10)
            c.sendall(b"GET /v1/health HTTP/1.1\r\nHo")
            slow.append(c)
        stop = time.time() + 3
        def drip():
            while time.time() < stop:
                for c in slow:
                    try:
                        c.sendall(b"s")
                    except OSError:
                        pass
                time.sleep(0.5)
        t = threading.Thread(target=drip)
        t.start()
        time.sleep(0.5)
        start = time.time()
        status, _, _ = http(url, "GET", "/v1/health", token=one, timeout=10)
        took = time.time() - start
        check(status == 200 and took < 1.0, "serve: health within 1 s beside 40 slowloris (%.3f s)" % took)
        t.join()
        for c in slow:
            c.close()
        # 200 concurrent distinct requests: each answered or refused with 503
        results = []
        lock = threading.Lock()
        def one_request(i):
            try:
                st, h, _ = http(url, "POST", "/v1/reward", {"task": task, "source": "// fake: sleep 0.2\n// %d\n" % i},
                                token=one, timeout=120)
            except Exception as e:  # a reset or a timeout
                st, h = "error: %s" % e, {}
            with lock:
                results.append((st, h.get("Retry-After")))
        threads = [threading.Thread(target=one_request, args=(i,)) for i in range(200)]
        start = time.time()
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        codes = {}
        for st, _ in results:
            codes[st] = codes.get(st, 0) + 1
        ok = all(st == 200 or (st == 503 and ra) for st, ra in results)
        check(ok and len(results) == 200, "serve: 200 concurrent requests answered or 503 (%s, %.1f s)"
              % (codes, time.time() - start))
        # The service's own peak resident memory through all of the above (its evaluators and
        # analyzers are processes of their own): the bound docs/security.md states.
        hwm = None
        try:
            for line in open("/proc/%d/status" % proc.pid):
                if line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
        except OSError:
            pass
        check(hwm is not None and hwm < 256 * 1024,
              "serve: peak resident memory %s KiB after the burst (bound 256 MiB)" % hwm)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
