#!/usr/bin/env bash
# The red-team suite (data/redteam, issue 33 item 7) on the GPU host, in one command:
#   1. build the evaluator (build-gpu, no LLVM);
#   2. run every candidate through `cudaperf-eval --batch`, each hostile one followed by an honest one
#      (so "the evaluator answered the next request" is visible in the results), resuming after a
#      candidate that killed the evaluator;
#   3. the same through `cudaperf-eval --serve`, one request at a time, with a ping after each result,
#      and the server restarted (and counted) if it died;
#   4. after each candidate (serve) and each run (batch): processes that do not descend from the
#      evaluator and did not exist before (a candidate's process must not outlive its result), and files
#      written outside scratch (find -newer a marker in $HOME, /tmp, the cache dir and the repository);
#   5. scripts/redteam-check.py on both result files;
#   6. with BASE=<git rev>: the honest candidates through an evaluator built from that revision (git
#      worktree), on the same machine, and the timing comparison (redteam-check.py --compare).
# Usage: [BASE=rev] [REDTEAM_STEPS="build batch serve base"] scripts/gpu/redteam.sh [OUTDIR]
# OUTDIR (default $OUT, else /tmp/redteam) gets summary.txt and redteam.tar.gz (everything else: the
# device machine returns at most 8 files). Candidates whose header says cudaperf-destructive are left
# out (skipped.txt) unless the worker has a --runner mode (the confined runner) or REDTEAM_DESTRUCTIVE=1.
# REDTEAM_ONLY=REGEX keeps the candidates whose file name matches (a short pass: the check then lists the
# others as missing).
set -uo pipefail
out=${1:-${OUT:-/tmp/redteam}}
work=/tmp/redteam-work
rm -rf "$work"
mkdir -p "$out" "$work/files"
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export PATH=/usr/local/cuda/bin:$PATH
exec > >(tee -a "$work/files/redteam.log") 2>&1
summary=$work/files/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
steps=${REDTEAM_STEPS:-"build batch serve base"}
want() { [[ " $steps " == *" $1 "* ]]; }
deadline=$((SECONDS + ${REDTEAM_SECONDS:-530}))
cap() { local l=$((deadline - SECONDS)); [ "$1" -lt $l ] && l=$1; [ $l -lt 5 ] && l=5; echo $l; }
finish() {
  cp "$summary" "$out/summary.txt"
  tar -czf "$out/redteam.tar.gz" -C "$work" files
  exit "${1:-0}"
}

note "== machine: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1); $(nproc) cores; commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (modified)')"
if want build; then
  t0=$SECONDS
  cmake -S . -B build-gpu -G Ninja -DCUDAPERF_BUILD_ANALYZER=OFF -DCMAKE_BUILD_TYPE=Release > "$work/files/cmake.log" 2>&1 \
    && timeout "$(cap 400)" cmake --build build-gpu -j "$(nproc)" --target cudaperf-eval cudaperf-eval-worker >> "$work/files/cmake.log" 2>&1
  rc=$?
  note "build rc=$rc in $((SECONDS - t0)) s"
  [ $rc -eq 0 ] || { tail -40 "$work/files/cmake.log"; finish 1; }
fi
eval_bin=$root/build-gpu/bin/cudaperf-eval
[ -x "$eval_bin" ] || { note "no $eval_bin: run the build step first"; finish 1; }
export CUDAPERF_CACHE_DIR=/tmp/redteam-cache
mkdir -p "$CUDAPERF_CACHE_DIR"
common=(--stall-timeout 5 --timeout 60 --budget-ms 20)

# The run order: hostile and honest alternating, then the remaining honest ones.
confined=0
"$root/build-gpu/bin/cudaperf-eval-worker" --help 2>&1 | grep -q -- '--runner' && confined=1
: > "$work/files/skipped.txt"
for f in data/redteam/hostile/*.cu; do
  if grep -q '^// cudaperf-destructive:' "$f" && [ $confined = 0 ] && [ "${REDTEAM_DESTRUCTIVE:-0}" != 1 ]; then
    echo "$(basename "$f") # $(sed -n 's|^// cudaperf-destructive: ||p' "$f"); no --runner in this worker" >> "$work/files/skipped.txt"
  fi
done
note "worker has a confined runner: $([ $confined = 1 ] && echo yes || echo no); skipped: $(cut -d' ' -f1 "$work/files/skipped.txt" | tr '\n' ' ')"
python3 - "$root" "$work/files/skipped.txt" "$work/order.batch" <<'PY'
import os, re, sys
root, skipped, out = sys.argv[1:4]
skip = {l.split()[0] for l in open(skipped) if l.strip()}
def listing(kind):
    d = os.path.join(root, "data/redteam", kind)
    only = re.compile(os.environ.get("REDTEAM_ONLY") or ".")
    return [os.path.join(d, f) for f in sorted(os.listdir(d))
            if f.endswith(".cu") and f not in skip and only.search(f)]
def task(path):
    for line in open(path):
        if line.startswith("// cudaperf-task:"):
            return os.path.join(root, "data/tasks", line.split(":", 1)[1].strip())
hostile, honest = listing("hostile"), listing("honest")
order = []
for i, h in enumerate(hostile):
    order += [h, honest[i % len(honest)]]
order += honest[len(hostile):] if len(hostile) < len(honest) else []
with open(out, "w") as f:
    for p in order:
        f.write(f"{task(p)} {p}\n")
PY
# Processes and files from before the runs: anything new that does not belong to the evaluator is a leak.
ps -eo pid= > "$work/pids.before"
find "${HOME:-/root}" /root /tmp /dev/shm /var/tmp "$CUDAPERF_CACHE_DIR" -xdev -name 'redteam-*' -not -path "$work/*" \
  -not -path "$root/*" -not -name 'redteam-work' -not -name 'redteam-cache*' -delete 2> /dev/null
touch "$work/marker"
sleep 1

# Files written since the marker outside the evaluator's own output: the candidates' files are named
# redteam-* (the one inside its scratch, redteam-own-scratch-file and its links, are allowed there).
new_files() { # LABEL
  {
    echo "# files newer than the marker after $1 (home, /tmp, /dev/shm, /var/tmp, cache, repository)"
    find "${HOME:-/root}" /root /tmp /dev/shm /var/tmp "$CUDAPERF_CACHE_DIR" "$root" -xdev -newer "$work/marker" \
      -not -path "$work/*" -not -path "$out/*" -not -path "$root/build-gpu/*" -not -path "$root/.git/*" \
      -not -path "$CUDAPERF_CACHE_DIR/build/*" -not -path "$CUDAPERF_CACHE_DIR/data/*" 2> /dev/null | sort -u
  } > "$work/files/files-$1.txt"
  grep -E '/redteam-[^/]*$' "$work/files/files-$1.txt" | grep -vE '/redteam-(own-scratch-file|link|hardlink|cache[^/]*|work)$' \
    > "$work/files/escaped-$1.txt"
  note "files after $1: $(($(wc -l < "$work/files/files-$1.txt") - 1)) new outside the evaluator's output; written by candidates outside scratch: $(wc -l < "$work/files/escaped-$1.txt")$([ -s "$work/files/escaped-$1.txt" ] && echo " ($(head -5 "$work/files/escaped-$1.txt" | tr '\n' ' '))")"
}

# The driver: batch (resumes after the evaluator dies) and serve (ping after each result, restart on
# death); after each result (serve) or run (batch), processes not descending from the evaluator and
# not present before.
cat > "$work/drive.py" <<'PY'
import json, os, select, signal, subprocess, sys, time
mode, eval_bin, order_file, outdir, before_file, seconds = sys.argv[1:7]
common = sys.argv[7:]
deadline = time.time() + float(seconds)
order = [l.split() for l in open(order_file) if l.strip()]
before = {int(p) for p in open(before_file).read().split()}
me = os.getpid()

def processes():
    procs = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            stat = open(f"/proc/{pid}/stat").read()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace").strip()
        except (OSError, IndexError, ValueError):
            continue
        procs[int(pid)] = (ppid, cmd)
    return procs

# What runs beside this driver now (its timeout wrapper, the tee of its output) is not a candidate's.
before |= set(processes())

def strays(evaluator_pid):
    """New processes that do not descend from the evaluator (nor from this driver's own tools)."""
    procs = processes()
    def descends(pid):
        seen = set()
        while pid in procs and pid not in seen:
            if pid in (evaluator_pid, me):
                return True
            seen.add(pid)
            pid = procs[pid][0]
        return False
    return [f"{pid} ppid={procs[pid][0]} {procs[pid][1][:120]}" for pid in procs
            if pid not in before and not descends(pid) and procs[pid][1]]

health = open(os.path.join(outdir, f"{mode}-health.jsonl"), "w")
results_path = os.path.join(outdir, f"{mode}.jsonl")
results = open(results_path, "w")
stats = {"restarts": 0, "unanswered_next": 0, "stray_processes": 0}

def record(**kw):
    health.write(json.dumps(kw) + "\n")
    health.flush()

if mode == "batch":
    i = 0
    while i < len(order) and time.time() < deadline:
        batch = os.path.join(outdir, f"batch-part{stats['restarts']}.txt")
        with open(batch, "w") as f:
            f.writelines(f"{t} {c}\n" for t, c in order[i:])
        part = os.path.join(outdir, f"batch-part{stats['restarts']}.jsonl")
        cmd = [eval_bin, "--batch", batch, "--jsonl", "--output", part] + common
        record(event="start", command=" ".join(cmd), first=os.path.basename(order[i][1]))
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(part + ".stderr", "w"), start_new_session=True)
        try:
            rc = p.wait(timeout=max(5, deadline - time.time()))
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            rc = "killed at the deadline"
        docs = [json.loads(l) for l in open(part) if l.strip()] if os.path.exists(part) else []
        for d in docs:
            results.write(json.dumps(d) + "\n")
        stray = strays(p.pid)
        stats["stray_processes"] += len(stray)
        record(event="end", rc=rc, results=len(docs), strays=stray)
        i += len(docs)
        if i < len(order):
            # The evaluator ended before the batch did: the candidate being run then gets no result.
            stats["restarts"] += 1
            stats["unanswered_next"] += 1
            record(event="evaluator ended early", last_answered=os.path.basename(order[i - 1][1]) if i else None,
                   unanswered=os.path.basename(order[i][1]))
            results.write(json.dumps({"schema": "redteam-missing", "candidate": order[i][1]}) + "\n")
            i += 1
else:
    def start():
        cmd = [eval_bin, "--serve"] + common
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=open(os.path.join(outdir, "serve.stderr"), "a"), start_new_session=True, bufsize=0)
        record(event="start", command=" ".join(cmd), pid=p.pid)
        return p, b""
    def read_message(p, buf, want, timeout):
        end = time.time() + timeout
        while time.time() < end:
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                try:
                    m = json.loads(line)
                except ValueError:
                    continue
                if want(m):
                    return m, buf
            r, _, _ = select.select([p.stdout], [], [], max(0.0, min(1.0, end - time.time())))
            if r:
                chunk = os.read(p.stdout.fileno(), 65536)
                if not chunk:
                    return None, buf
                buf += chunk
        return None, buf
    def send(p, obj):
        try:
            p.stdin.write((json.dumps(obj) + "\n").encode())
            return True
        except (BrokenPipeError, OSError):
            return False
    p, buf = start()
    ready, buf = read_message(p, buf, lambda m: m.get("type") == "ready", 120)
    for n, (task, cand) in enumerate(order):
        if time.time() > deadline:
            record(event="deadline", remaining=len(order) - n)
            break
        name = os.path.basename(cand)
        rid = f"r{n}"
        # Source text, as a trainer sends it (--serve takes no file path without --candidate-root).
        ok = send(p, {"id": rid, "task_dir": task, "source": open(cand).read(), "name": name})
        msg, buf = read_message(p, buf, lambda m: m.get("id") == rid and m.get("type") in ("result", "error"), 150) if ok else (None, buf)
        if msg and msg.get("type") == "result":
            results.write(json.dumps(msg["result"]) + "\n")
        time.sleep(0.5)
        stray = strays(p.pid)
        stats["stray_processes"] += len(stray)
        pong, buf = read_message(p, buf, lambda m: m.get("type") == "pong" and m.get("id") == f"ping{n}", 20) \
            if send(p, {"op": "ping", "id": f"ping{n}"}) else (None, buf)
        alive = p.poll() is None
        record(candidate=name, result=msg.get("outcome") if msg else None, answered_next=bool(pong), server_alive=alive,
               strays=stray)
        if not pong:
            stats["unanswered_next"] += 1
        if not alive or not pong:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            stats["restarts"] += 1
            p, buf = start()
            read_message(p, buf, lambda m: m.get("type") == "ready", 120)
    send(p, {"op": "shutdown", "drain": False})
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
record(event="totals", **stats)
print(f"{mode}: {stats['restarts']} evaluator restarts, {stats['unanswered_next']} requests after a candidate "
      f"unanswered, {stats['stray_processes']} stray processes seen")
PY

check_run() { # MODE
  python3 scripts/redteam-check.py data/redteam "$work/files/$1.jsonl" \
    $(cut -d' ' -f1 "$work/files/skipped.txt" | sed 's/^/--skip /') > "$work/files/check-$1.txt"
  note "check $1 (rc=$?): $(tail -1 "$work/files/check-$1.txt")"
  grep FAIL "$work/files/check-$1.txt" | head -40 | tee -a "$summary"
}
for mode in batch serve; do
  want $mode || continue
  note "== $mode"
  t0=$SECONDS
  timeout "$(cap 300)" python3 "$work/drive.py" $mode "$eval_bin" "$work/order.batch" "$work/files" "$work/pids.before" \
    "$(($(cap 300) - 10))" "${common[@]}" 2>&1 | tee -a "$summary"
  note "$mode: $((SECONDS - t0)) s; command: cudaperf-eval $([ $mode = batch ] && echo "--batch FILE --jsonl" || echo --serve) ${common[*]}"
  new_files $mode
  check_run $mode
  sleep 1
done
# Whatever a candidate left running is ended here, by its process id, after it was recorded.
for f in "$work"/files/*-health.jsonl; do
  [ -e "$f" ] && python3 -c "import json,sys
for l in open(sys.argv[1]):
  for s in json.loads(l).get('strays', []): print(s.split()[0])" "$f"
done | sort -u | while read -r pid; do kill -9 "$pid" 2> /dev/null; done

if want base && [ -n "${BASE:-}" ]; then
  note "== base $BASE: honest candidates through the older evaluator, then here again, same machine"
  git worktree remove --force "$work/base" 2> /dev/null
  if git worktree add --detach "$work/base" "$BASE" > /dev/null 2>&1 \
    && cmake -S "$work/base" -B "$work/base/build-gpu" -G Ninja -DCUDAPERF_BUILD_ANALYZER=OFF -DCMAKE_BUILD_TYPE=Release > "$work/files/cmake-base.log" 2>&1 \
    && timeout "$(cap 300)" cmake --build "$work/base/build-gpu" -j "$(nproc)" --target cudaperf-eval cudaperf-eval-worker >> "$work/files/cmake-base.log" 2>&1; then
    for f in data/redteam/honest/*.cu; do echo "$root/data/tasks/$(sed -n 's|^// cudaperf-task: ||p' "$f") $root/$f"; done > "$work/honest.batch"
    CUDAPERF_CACHE_DIR=/tmp/redteam-cache-base timeout "$(cap 150)" "$work/base/build-gpu/bin/cudaperf-eval" --batch "$work/honest.batch" --jsonl \
      "${common[@]}" --output "$work/files/base-honest.jsonl" 2> /dev/null
    timeout "$(cap 150)" "$eval_bin" --batch "$work/honest.batch" --jsonl "${common[@]}" --output "$work/files/new-honest.jsonl" 2> /dev/null
    python3 scripts/redteam-check.py --compare "$work/files/base-honest.jsonl" "$work/files/new-honest.jsonl" --suite data/redteam \
      | tee "$work/files/compare.txt" | tee -a "$summary"
  else
    note "base $BASE: worktree or build failed (cmake-base.log)"
  fi
  git worktree remove --force "$work/base" 2> /dev/null
fi
note "== done"
finish 0
