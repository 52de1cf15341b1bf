#!/usr/bin/env python3
"""Helpers of scripts/gpu/queue-bench.sh (issue 38): fresh requests, a local --serve run, the counts.

  queue-bench.py requests POOL N TAG OUT.jsonl   N --serve requests drawn round-robin from POOL (lines
                                                  "TASK_DIR CANDIDATE.cu"), each source with a unique
                                                  comment (never a build-cache hit), configs small
  queue-bench.py serve EVAL REQUESTS OUT.jsonl SECONDS -- SERVER_OPTIONS...
                                                  the requests through one local `EVAL --serve`; every
                                                  message to OUT.jsonl; prints one JSON summary line
  queue-bench.py count REQUESTS MESSAGES.jsonl SECONDS [LABEL]
                                                  per request id: how many messages came back (each must
                                                  be exactly one); prints one JSON summary line
"""
import json, os, subprocess, sys, threading, time


def requests(pool_path, n, tag, out):
    pool = [l.split()[:2] for l in open(pool_path) if l.strip() and not l.startswith("#")]
    if not pool:
        sys.exit("queue-bench.py: empty pool " + pool_path)
    with open(out, "w") as f:
        for i in range(n):
            task, cand = pool[i % len(pool)]
            src = open(cand).read() + "\n// queue-bench %s %d %d\n" % (tag, i, time.time_ns())
            f.write(json.dumps({"id": "%s-%d" % (tag, i), "task_dir": task, "source": src,
                                "name": os.path.basename(cand), "configs": ["small"]}) + "\n")
    return 0


def outcomes(messages):
    out = {}
    for m in messages:
        key = m.get("result", {}).get("outcome") if m.get("type") == "result" else "error:" + str(m.get("code"))
        out[key] = out.get(key, 0) + 1
    return out


def serve(eval_bin, reqs_path, out, seconds, extra):
    reqs = [l for l in open(reqs_path) if l.strip()]
    ids = {json.loads(l)["id"] for l in reqs}
    t0 = time.time()
    p = subprocess.Popen([eval_bin, "--serve"] + extra, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=open(out + ".stderr", "w"), text=True, bufsize=1)
    ready = p.stdout.readline()

    def feed():
        try:
            for l in reqs:
                p.stdin.write(l)
            p.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass
    threading.Thread(target=feed, daemon=True).start()
    got, messages = set(), []
    timer = threading.Timer(seconds, p.kill)
    timer.start()
    with open(out, "w") as log:
        log.write(ready)
        for line in p.stdout:
            log.write(line)
            try:
                m = json.loads(line)
            except ValueError:
                continue
            if m.get("type") in ("result", "error", "cancelled") and m.get("id") in ids:
                messages.append(m)
                got.add(m["id"])
                if len(got) == len(ids):
                    break
    t1 = time.time()
    timer.cancel()
    try:
        p.stdin.write('{"op": "shutdown", "drain": false}\n')
        p.stdin.close()
    except (BrokenPipeError, ValueError):
        pass
    try:
        p.wait(20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    secs = t1 - t0
    print(json.dumps({"label": "local --serve", "requests": len(ids), "results": len(got), "seconds": round(secs, 2),
                      "per_minute": round(len(got) * 60 / max(secs, 1e-9), 1), "outcomes": outcomes(messages),
                      "complete": len(got) == len(ids)}))
    return 0 if len(got) == len(ids) else 1


def count(reqs_path, messages_path, seconds, label):
    ids = [json.loads(l)["id"] for l in open(reqs_path) if l.strip()]
    per = {i: 0 for i in ids}
    messages, stray = [], 0
    if os.path.exists(messages_path):
        for line in open(messages_path):
            try:
                m = json.loads(line)
            except ValueError:
                continue
            if m.get("id") in per:
                per[m["id"]] += 1
                messages.append(m)
            else:
                stray += 1
    exactly_one = sum(1 for v in per.values() if v == 1)
    summary = {"label": label, "requests": len(ids), "exactly_one": exactly_one,
               "none": sum(1 for v in per.values() if v == 0), "more_than_one": sum(1 for v in per.values() if v > 1),
               "stray": stray, "seconds": round(seconds, 2),
               "per_minute": round(len(messages) * 60 / max(seconds, 1e-9), 1), "outcomes": outcomes(messages)}
    summary["every_candidate_one_result"] = exactly_one == len(ids) and stray == 0
    print(json.dumps(summary))
    return 0 if summary["every_candidate_one_result"] else 1


def main(argv):
    if len(argv) >= 5 and argv[0] == "requests":
        return requests(argv[1], int(argv[2]), argv[3], argv[4])
    if len(argv) >= 5 and argv[0] == "serve":
        extra = argv[argv.index("--") + 1:] if "--" in argv else []
        return serve(argv[1], argv[2], argv[3], float(argv[4]), extra)
    if len(argv) >= 4 and argv[0] == "count":
        return count(argv[1], argv[2], float(argv[3]), argv[4] if len(argv) > 4 else "queue")
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
