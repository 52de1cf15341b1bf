#!/usr/bin/env python3
"""Issue 35: cudaperf-reward --serve cuts a slowloris client at its header deadline (--header-timeout),
and serves others meanwhile. A client sends one header byte every 0.3 s, so no per-read timeout ever
fires; with --header-timeout 2 the server must close it within a few seconds. The batches it keeps
for polling are bounded (--max-batches): 60 instant batches past a bound of 20 leave 20, the oldest
forgotten. The work directory keeps no source after its request is done (--batch, 8 distinct
sources). Bounded (~10 s)."""
import argparse, json, os, socket, subprocess, sys, tempfile, time, urllib.request, urllib.error

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reward", required=True)
    ap.add_argument("--root", required=True)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="reward-bounds-")
    failures = []
    task = os.path.join(args.root, "data", "tasks", "vector_add")
    workdir = os.path.join(work, "candidates")
    lines = "".join(json.dumps({"id": i, "task": task, "source": "// fake: ok 1\n// %d\n" % i}) + "\n" for i in range(8))
    r = subprocess.run([args.reward, "--eval", os.path.join(HERE, "fake-eval.py"), "--analyzer", "none", "--batch",
                        "--work-dir", workdir], input=lines, capture_output=True, text=True, timeout=120)
    records = [json.loads(l) for l in r.stdout.splitlines() if l.strip()]
    left = sorted(os.listdir(workdir)) if os.path.isdir(workdir) else []
    ok = r.returncode == 0 and len(records) == 8 and all(x.get("ok") for x in records) and not left
    print(("ok   " if ok else "FAIL ") + "--batch: 8 sources rewarded, %d file(s) left in the work directory %s"
          % (len(left), left[:3]))
    if not ok:
        failures.append("workdir")
        print(r.stderr[-2000:])
    port_file = os.path.join(work, "port")
    proc = subprocess.Popen([args.reward, "--eval", os.path.join(HERE, "fake-eval.py"), "--analyzer", "none",
                             "--serve", "--port", "0", "--port-file", port_file, "--header-timeout", "2", "--max-batches", "20"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 30
        while not os.path.exists(port_file) and time.time() < deadline and proc.poll() is None:
            time.sleep(0.05)
        port = int(open(port_file).read())
        slow = socket.create_connection(("127.0.0.1", port), timeout=10)
        slow.sendall(b"GET /v1/health HTTP/1.1\r\nHo")
        start = time.time()
        cut = None
        health = None
        while time.time() - start < 8:
            try:
                slow.sendall(b"s")
                slow.settimeout(0.3)
                data = slow.recv(4096)  # the server answers an error and/or closes: either ends the dribble
                cut = time.time() - start
                break
            except socket.timeout:
                pass
            except OSError:
                cut = time.time() - start
                break
            if health is None and time.time() - start > 0.5:
                t0 = time.time()
                with urllib.request.urlopen("http://127.0.0.1:%d/v1/health" % port, timeout=5) as r:
                    health = (r.status, time.time() - t0)
        slow.close()
        ok = cut is not None and 1.5 <= cut <= 6  # slack for a loaded machine; never cut without the deadline
        print(("ok   " if ok else "FAIL ") + "a client dribbling its headers is cut at the 2 s header deadline (%s)"
              % ("after %.2f s" % cut if cut is not None else "still connected after 8 s"))
        if not ok:
            failures.append("cut")
        ok = health is not None and health[0] == 200 and health[1] < 1
        print(("ok   " if ok else "FAIL ") + "health answered meanwhile (%s)" % (health,))
        if not ok:
            failures.append("health")
        # A client that sends its headers in time is not cut by the deadline.
        fast = socket.create_connection(("127.0.0.1", port), timeout=10)
        fast.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = fast.recv(4096).decode(errors="replace")
        fast.close()
        ok = answer.startswith("HTTP/1.1 200")
        print(("ok   " if ok else "FAIL ") + "a prompt client is served: " + answer.split("\r\n")[0])
        if not ok:
            failures.append("prompt")
        # Batches past --max-batches: the longest-finished are forgotten (404), the newest kept.
        ids = []
        for i in range(60):
            body = json.dumps({"requests": [{"task": task, "completion": "no code block %d" % i}]}).encode()
            req = urllib.request.Request("http://127.0.0.1:%d/v1/batches" % port, data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=10) as r:
                ids.append(json.loads(r.read())["batch_id"])
            if i == 0:  # the first one finished before the others come
                urllib.request.urlopen("http://127.0.0.1:%d/v1/batches/%s?wait=5" % (port, ids[0]), timeout=10).read()
        def status(bid):
            try:
                return urllib.request.urlopen("http://127.0.0.1:%d/v1/batches/%s?wait=5" % (port, bid), timeout=10).status
            except urllib.error.HTTPError as e:
                return e.code
        last = status(ids[-1])
        with urllib.request.urlopen("http://127.0.0.1:%d/v1/health" % port, timeout=10) as r:
            known = json.loads(r.read())["batches"]
        first = status(ids[0])
        ok = known <= 20 and first == 404 and last == 200
        print(("ok   " if ok else "FAIL ") + "60 batches past --max-batches 20: %d known, the first %d, the last %d"
              % (known, first, last))
        if not ok:
            failures.append("batches")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
