#!/usr/bin/env bash
# Issue 38 on the GPU host, in one command: the Redis work queue against the local evaluator.
#   (a) the same N fresh candidates (every source unique: no build-cache hit; the cache emptied before
#       each run) through one local `cudaperf-eval --serve` and through one `cudaperf-eval --worker
#       redis://...` fed by `cudaperf-eval --submit`: candidates per minute side by side (the issue
#       asks that the queue cost at most 5%), each from its process's start to its last result;
#   (b) two worker processes on the one GPU and a submitter of M fresh candidates; one worker killed
#       with SIGKILL once a third of the results are in: every candidate must have exactly one result
#       (counted per request id), and the killed worker's jobs are reclaimed by the other.
# Time-bounded: QUEUE_SECONDS (240) for (a) and (b) together after the build (QUEUE_BUILD_SECONDS, 300).
#
# Preparing it (the lead, on the CPU machine, before the device call):
#   scripts/pack-deps.sh                # .carry/deps (nlohmann-json, ...), as for the other GPU scripts
#   scripts/gpu/pack-redis.sh           # .carry/redis: redis-server, the shared objects ldd lists for it
#                                       #   (not the C runtime) and hiredis (headers + .so) for the build
#   then run with carry [".carry"] (both folders, about 12 MB for Redis):
#   scripts/gpu/queue-bench.sh "$OUT"
# Environment: QUEUE_SECONDS (240), QUEUE_N (120: candidates of (a), each run), QUEUE_KILL_N (90:
# candidates of (b)), QUEUE_STEPS ("build compare kill"; without build the tools in QUEUE_BUILD_DIR are
# used), QUEUE_BUILD_DIR (build-gpu), QUEUE_EVAL_OPTS (the evaluator options of both paths:
# "--jobs 14 --budget-ms 20 --stall-timeout 5 --timeout 60"), QUEUE_DRY=1 (everything but the GPU:
# --compile-only on every evaluator; for trying the script's plumbing on a CPU machine, e.g.
# QUEUE_DRY=1 QUEUE_STEPS="compare kill" QUEUE_BUILD_DIR=build QUEUE_N=4 QUEUE_KILL_N=6).
# Writes OUTDIR/summary.txt (the figures), OUTDIR/queue-bench.tar.gz (every message, log and status).
# Exit 0 when both parts ran and (b) found exactly one result per candidate; 1 otherwise.
set -uo pipefail
out=${1:-${OUT:-/tmp/queue-bench}}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
work=/tmp/queue-bench-work
rm -rf "$work"
mkdir -p "$out" "$work/results" "$work/redis"
chmod 700 "$work"
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$root/.carry/deps/bin:$PATH
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
steps=${QUEUE_STEPS:-"build compare kill"}
want() { [[ " $steps " == *" $1 "* ]]; }
bdir=${QUEUE_BUILD_DIR:-build-gpu}
read -r -a evopts <<< "${QUEUE_EVAL_OPTS:---jobs 14 --budget-ms 20 --stall-timeout 5 --timeout 60}"
dry=()
[ "${QUEUE_DRY:-0}" = 1 ] && dry=(--compile-only)
n=${QUEUE_N:-120}
kill_n=${QUEUE_KILL_N:-90}
redis_pid=""
pids=()
status=1
finish() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  sleep 1
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  [ -n "$redis_pid" ] && kill -TERM "$redis_pid" 2>/dev/null
  ps -eo pid,ppid,pgid,etimes,args > "$work/ps-after.txt" 2>&1
  cp "$summary" "$work/summary.txt"
  tar -czf "$out/queue-bench.tar.gz" -C "$work" --exclude='cache' --exclude='redis/*.rdb' --exclude='redis/appendonlydir' . 2>/dev/null
  note "== done in $SECONDS s (exit $status); $out/queue-bench.tar.gz"
  exit $status
}
trap finish EXIT

note "== queue-bench $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo ' (modified)')${dry:+ DRY (--compile-only)}"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | tee -a "$summary"
note "cores: $(nproc); evaluator options: ${evopts[*]} ${dry[*]}"

# Redis: the carried copy (scripts/gpu/pack-redis.sh), else the machine's own.
carried=$root/.carry/redis
if [ -x "$carried/bin/redis-server" ]; then
  redis_bin=$carried/bin/redis-server
  redis_env=(env LD_LIBRARY_PATH="$carried/lib")
else
  redis_bin=$(command -v redis-server || true)
  redis_env=()
fi
[ -n "$redis_bin" ] || { note "no redis-server: run scripts/gpu/pack-redis.sh on the CPU machine and carry .carry"; exit 1; }

if want build; then
  note "== build (cudaperf-eval with the queue modes: hiredis from .carry/redis)"
  t0=$SECONDS
  prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)
  timeout "${QUEUE_BUILD_SECONDS:-300}" cmake -S . -B "$bdir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCUDAPERF_BUILD_ANALYZER=OFF -DCUDAPERF_BUILD_TESTS=OFF -DCUDAPERF_DEPS_PREFIX="$root/.carry/deps" \
    -DCUDAPERF_BUILD_TORCH_REFERENCE=ON -DCMAKE_PREFIX_PATH="$prefix;$carried" > "$work/cmake.log" 2>&1 &&
    timeout "${QUEUE_BUILD_SECONDS:-300}" cmake --build "$bdir" -j "$(nproc)" --target cudaperf-eval cudaperf-eval-worker \
      >> "$work/cmake.log" 2>&1
  note "build rc=$? in $((SECONDS - t0)) s"
  grep -q "no hiredis" "$work/cmake.log" && note "hiredis NOT found: the queue modes are not built (carry .carry/redis)"
fi
eval_bin=$root/$bdir/bin/cudaperf-eval
[ -x "$eval_bin" ] || { note "no $eval_bin: stopping"; tail -30 "$work/cmake.log" 2>/dev/null; exit 1; }
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$carried/lib:$root/.carry/deps/lib
export CUDAPERF_CACHE_DIR=$work/cache
deadline=$((SECONDS + ${QUEUE_SECONDS:-240}))
left() { echo $((deadline - SECONDS)); }
lines() { local c; c=$(grep -c . "$1" 2>/dev/null); echo "${c:-0}"; }

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"${redis_env[@]}" "$redis_bin" --port "$port" --bind 127.0.0.1 --dir "$work/redis" --save "" --appendonly no \
  --daemonize no --logfile "$work/redis/redis.log" &
redis_pid=$!
for _ in $(seq 100); do
  python3 -c "import socket,sys; s=socket.create_connection(('127.0.0.1',$port),1); s.sendall(b'PING\r\n'); sys.exit(0 if s.recv(8).startswith(b'+PONG') else 1)" 2>/dev/null && break
  sleep 0.1
done
note "redis: $("${redis_env[@]}" "$redis_bin" --version | cut -c1-40) on 127.0.0.1:$port"

# The pool: every shipped example implementation (all correct), as eval-scale.sh's serve step.
for impl in data/tasks/*/impls/*.cu; do echo "$root/$(dirname "$(dirname "$impl")") $root/$impl"; done > "$work/pool.txt"
rc_a=1 rc_b=1

if want compare; then
  note "== (a) $n fresh candidates: local --serve against one --worker through the queue"
  python3 scripts/gpu/queue-bench.py requests "$work/pool.txt" "$n" a "$work/requests-a.jsonl"
  half=$(( $(left) * 45 / 100 ))
  rm -rf "$CUDAPERF_CACHE_DIR"
  timeout $((half + 30)) python3 scripts/gpu/queue-bench.py serve "$eval_bin" "$work/requests-a.jsonl" \
    "$work/results/local-serve.jsonl" "$half" -- "${evopts[@]}" "${dry[@]}" > "$work/local.json"
  rm -rf "$CUDAPERF_CACHE_DIR"
  url=redis://127.0.0.1:$port/compare
  t0=$(date +%s.%N)
  "$eval_bin" --worker "$url" --worker-name w-compare --queue-in-flight 32 "${evopts[@]}" "${dry[@]}" \
    > "$work/worker-compare.out" 2> "$work/worker-compare.err" &
  wpid=$!
  pids+=("$wpid")
  timeout $((half + 30)) "$eval_bin" --submit "$url" --batch "$work/requests-a.jsonl" --queue-wait "$half" \
    --output "$work/results/queue-compare.jsonl" 2> "$work/submit-compare.err"
  src=$?
  secs=$(python3 -c "import time; print(time.time() - $t0)")
  "$eval_bin" --queue-status "$url" > "$work/status-compare.txt" 2>&1
  kill -TERM "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null
  python3 scripts/gpu/queue-bench.py count "$work/requests-a.jsonl" "$work/results/queue-compare.jsonl" "$secs" \
    "one --worker through the queue" > "$work/queue.json"
  python3 - "$work/local.json" "$work/queue.json" "$src" <<'PY' | tee -a "$summary"
import json, sys
def load(p):
    try:
        return json.loads(open(p).read().strip().splitlines()[-1])
    except Exception as e:
        return {"error": str(e)}
a, b = load(sys.argv[1]), load(sys.argv[2])
print("%-32s %8s %8s %8s %10s  %s" % ("path", "asked", "results", "seconds", "per minute", "outcomes"))
for name, d in (("local --serve", a), ("one --worker (queue)", b)):
    res = d.get("results", d.get("exactly_one"))
    print("%-32s %8s %8s %8s %10s  %s" % (name, d.get("requests"), res, d.get("seconds"), d.get("per_minute"),
                                          d.get("outcomes", d.get("error"))))
if a.get("per_minute") and b.get("per_minute"):
    print("queue / local: %.3f (the issue's bound: at least 0.95); --submit exit %s" % (b["per_minute"] / a["per_minute"], sys.argv[3]))
print("NUMBERS " + json.dumps({"local_serve": a, "queue_worker": b}))
PY
  grep -q '"complete": true' "$work/local.json" && [ "$src" = 0 ] && rc_a=0
fi

if want kill; then
  note "== (b) two workers on the one GPU, $kill_n fresh candidates, one worker killed (SIGKILL) at a third"
  python3 scripts/gpu/queue-bench.py requests "$work/pool.txt" "$kill_n" b "$work/requests-b.jsonl"
  rm -rf "$CUDAPERF_CACHE_DIR"
  url=redis://127.0.0.1:$port/kill
  budget=$(( $(left) - 15 ))
  [ "$budget" -lt 30 ] && budget=30
  qopts=(--queue-in-flight 16 --queue-heartbeat 1 --queue-reclaim-after 10)
  "$eval_bin" --worker "$url" --worker-name w1 "${qopts[@]}" "${evopts[@]}" "${dry[@]}" > "$work/worker-w1.out" 2> "$work/worker-w1.err" &
  w1=$!
  "$eval_bin" --worker "$url" --worker-name w2 "${qopts[@]}" "${evopts[@]}" "${dry[@]}" > "$work/worker-w2.out" 2> "$work/worker-w2.err" &
  w2=$!
  pids+=("$w1" "$w2")
  t0=$(date +%s.%N)
  timeout $((budget + 20)) "$eval_bin" --submit "$url" --batch "$work/requests-b.jsonl" --queue-wait "$budget" \
    --queue-reclaim-after 10 --output "$work/results/queue-kill.jsonl" 2> "$work/submit-kill.err" &
  sub=$!
  killed=no
  while kill -0 "$sub" 2>/dev/null; do
    if [ "$killed" = no ] && [ "$(lines "$work/results/queue-kill.jsonl")" -ge $((kill_n / 3)) ]; then
      "$eval_bin" --queue-status "$url" > "$work/status-before-kill.txt" 2>&1
      kill -KILL "$w1" && killed="yes, after $(lines "$work/results/queue-kill.jsonl") results at $(python3 -c "import time; print(round(time.time() - $t0, 1))") s"
    fi
    sleep 0.2
  done
  wait "$sub"
  src=$?
  secs=$(python3 -c "import time; print(time.time() - $t0)")
  "$eval_bin" --queue-status "$url" > "$work/status-after.txt" 2>&1
  kill -TERM "$w2" 2>/dev/null; wait "$w2" 2>/dev/null
  note "w1 killed: $killed; --submit exit $src"
  python3 scripts/gpu/queue-bench.py count "$work/requests-b.jsonl" "$work/results/queue-kill.jsonl" "$secs" \
    "two workers, one killed" > "$work/kill.json"
  rc_b=$?
  python3 - "$work/kill.json" <<'PY' | tee -a "$summary"
import json, sys
d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
print("requests %(requests)s: exactly one result %(exactly_one)s, none %(none)s, more than one %(more_than_one)s, "
      "stray %(stray)s; %(per_minute)s per minute over %(seconds)s s; outcomes %(outcomes)s" % d)
print("every candidate has exactly one result: %s" % ("YES" if d["every_candidate_one_result"] else "NO"))
print("NUMBERS " + json.dumps({"kill": d}))
PY
  sed 's/^/  status after: /' "$work/status-after.txt" | tee -a "$summary"
fi
[ $rc_a = 0 ] || ! want compare || note "(a) incomplete"
if { ! want compare || [ $rc_a = 0 ]; } && { ! want kill || [ $rc_b = 0 ]; }; then status=0; fi
