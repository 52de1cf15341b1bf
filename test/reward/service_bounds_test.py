#!/usr/bin/env python3
"""Issue 35: cudaperf-reward --serve cuts a slowloris client at its header deadline (--header-timeout),
and serves others meanwhile. A client sends one header byte every 0.3 s, so no per-read timeout ever
fires; with --header-timeout 2 the server must close it within a few seconds. Bounded (~5 s)."""
import argparse, os, socket, subprocess, sys, tempfile, time, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reward", required=True)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="reward-deadline-")
    port_file = os.path.join(work, "port")
    proc = subprocess.Popen([args.reward, "--eval", os.path.join(HERE, "fake-eval.py"), "--analyzer", "none",
                             "--serve", "--port", "0", "--port-file", port_file, "--header-timeout", "2"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    failures = []
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
        while time.time() - start < 6:
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
        ok = cut is not None and 1.5 <= cut <= 4
        print(("ok   " if ok else "FAIL ") + "a client dribbling its headers is cut at the 2 s header deadline (%s)"
              % ("after %.2f s" % cut if cut is not None else "still connected after 6 s"))
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
