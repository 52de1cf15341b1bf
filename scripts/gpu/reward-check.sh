#!/usr/bin/env bash
# The reward on the GPU host in one call (docs/reward.md):
#   1. build cudaperf-eval, its worker and cudaperf-reward (no analyzer: the GPU host has no LLVM);
#   2. calibrate: scripts/gpu/reward-calibrate.cu measures what the static model's defaults stand on
#      (occupancy needed for copy bandwidth and for FMA throughput, the launch overhead as the evaluator
#      times a call, same-address atomics);
#   3. cudaperf-reward --batch --counters over every C task implementation and the bad-candidate suite
#      (test/runtime/bad, each with its task), records with their eval results, so the analysis can be
#      joined here afterwards (scripts/reward-validate.py reads the records);
#   4. the HTTP service with the real GPU evaluator (when cpp-httplib was found): one good and one
#      crashing candidate through POST /v1/reward, then SIGTERM;
#   5. a summary table (outcome, gate and total per candidate; the calibration).
# Usage (repository root, GPU host; carry .carry/deps from scripts/pack-deps.sh):
#   scripts/gpu/reward-check.sh [OUTDIR]   (default $OUT, else /tmp/reward-check). About 6 minutes.
#   REWARD_CHECK_BUILD_DIR=DIR (build-gpu) and REWARD_CHECK_SKIP_BUILD=1 reuse a build.
# Writes OUTDIR/{reward-check.log, summary.txt, reward-calibration.json, reward-batch.jsonl.gz,
# serve.jsonl, logs.tar.gz}. Commit summary.txt, reward-calibration.json and reward-batch.jsonl.gz as
# data/eval-runs/<date>-h200-reward/ (docs/reward.md says what to update from them).
set -uo pipefail
out=${1:-${OUT:-/tmp/reward-check}}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
mkdir -p "$out" && out=$(cd "$out" && pwd)
logs=$out/logs && mkdir -p "$logs"
export PATH=/usr/local/cuda/bin:/opt/torch/.venv/bin:$PATH
exec > >(tee -a "$out/reward-check.log") 2>&1
log() { echo "[${SECONDS}s] $*"; }
status=()

log "== machine: $(nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader 2>&1 | head -1); $(nproc) cores"

build=${REWARD_CHECK_BUILD_DIR:-build-gpu}
log "== 1. build ($build)"
if [ -n "${REWARD_CHECK_SKIP_BUILD:-}" ]; then
  cp "$build/CMakeCache.txt" "$logs/configure.log" 2>/dev/null
  grep -q 'CUDAPERF_httplib_h_DIR:PATH=/' "$logs/configure.log" && echo "cudaperf: httplib found" >> "$logs/configure.log"
  echo "skipped (REWARD_CHECK_SKIP_BUILD)" > "$logs/build.log"
  true
else
timeout 150 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDAPERF_BUILD_ANALYZER=OFF \
  -DCUDAPERF_BUILD_TESTS=OFF > "$logs/configure.log" 2>&1 &&
  timeout 240 cmake --build "$build" -j "$(nproc)" --target cudaperf-eval cudaperf-eval-worker cudaperf-reward \
    > "$logs/build.log" 2>&1
fi
rc=$?
status+=("build rc=$rc")
log "build rc=$rc ($(grep -c 'httplib found' "$logs/configure.log") httplib; $(tail -1 "$logs/build.log"))"
reward=$build/bin/cudaperf-reward

log "== 2. calibrate"
timeout 60 nvcc -O3 -arch=sm_90 -o /tmp/reward-calibrate scripts/gpu/reward-calibrate.cu > "$logs/calibrate-build.log" 2>&1 &&
  timeout 120 /tmp/reward-calibrate > "$out/reward-calibration.json" 2> "$logs/calibrate.log"
rc=$?
status+=("calibrate rc=$rc")
log "calibrate rc=$rc"

log "== 3. cudaperf-reward --batch --counters (C implementations and the bad suite)"
python3 - "$root" > /tmp/reward-requests.jsonl <<'PY'
import glob, json, os, re, sys
root = sys.argv[1]
n = 0
for impl in sorted(glob.glob(root + "/data/tasks/*/impls/*.cu")):
    task = os.path.dirname(os.path.dirname(impl))
    print(json.dumps({"id": "impl/" + os.path.relpath(impl, root + "/data/tasks"), "task": task, "candidate": impl}))
for bad in sorted(glob.glob(root + "/test/runtime/bad/*.cu")):
    m = re.search(r"^// cudaperf-task: (\S+)", open(bad).read(), re.M)
    if m:
        print(json.dumps({"id": "bad/" + os.path.basename(bad), "task": root + "/data/tasks/" + m.group(1),
                          "candidate": bad}))
PY
log "$(wc -l < /tmp/reward-requests.jsonl) requests"
if [ -x "$reward" ]; then
  timeout 300 "$reward" --batch --counters --analyzer none --jobs 3 --records-with-results \
    --eval-arg=--timeout --eval-arg=60 --eval-arg=--stall-timeout --eval-arg=5 --eval-arg=--budget-ms --eval-arg=30 \
    < /tmp/reward-requests.jsonl > "$out/reward-batch.jsonl" 2> "$logs/batch.log"
  rc=$?
else
  rc=127
fi
status+=("batch rc=$rc ($(wc -l < "$out/reward-batch.jsonl" 2>/dev/null || echo 0) records)")
log "batch rc=$rc"

log "== 4. the service with the GPU evaluator"
rc=skipped
if [ -x "$reward" ] && grep -q 'cudaperf: httplib found' "$logs/configure.log"; then
  rm -f /tmp/reward-port
  "$reward" --serve --port 0 --port-file /tmp/reward-port --counters --analyzer none --jobs 2 \
    --eval-arg=--timeout --eval-arg=60 > "$logs/serve.log" 2>&1 &
  serve_pid=$!
  timeout 120 python3 - "$root" "$out/serve.jsonl" <<'PY'
import json, os, sys, time, urllib.request, urllib.error
root, path = sys.argv[1], sys.argv[2]
deadline = time.time() + 20
while not os.path.exists("/tmp/reward-port") and time.time() < deadline:
    time.sleep(0.2)
url = "http://127.0.0.1:" + open("/tmp/reward-port").read().strip()
out = open(path, "w")
for cand in ("data/tasks/vector_add/impls/vectorized.cu", "test/runtime/bad/host_segfault.cu"):
    body = json.dumps({"task": root + "/data/tasks/vector_add", "source": open(os.path.join(root, cand)).read()}).encode()
    req = urllib.request.Request(url + "/v1/reward", data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=100) as r:
            rec = json.loads(r.read())
    except urllib.error.HTTPError as e:
        rec = json.loads(e.read())
    out.write(json.dumps(rec) + "\n")
    print(cand, rec.get("ok"), rec.get("total"), (rec.get("reward") or {}).get("gate"))
with urllib.request.urlopen(url + "/v1/health", timeout=10) as r:
    print("health", json.loads(r.read())["status"])
PY
  rc=$?
  kill -TERM "$serve_pid" 2> /dev/null
  wait "$serve_pid" 2> /dev/null
  log "service exit $?"
fi
status+=("serve rc=$rc")

log "== 5. summary"
timeout 60 python3 - "$out" > "$out/summary.txt" <<'PY'
import json, os, sys
out = sys.argv[1]
print("reward-check on %s" % os.popen("nvidia-smi --query-gpu=name --format=csv,noheader").read().strip())
path = os.path.join(out, "reward-batch.jsonl")
rows = [json.loads(l) for l in open(path)] if os.path.exists(path) else []
print("%-48s %-16s %-16s %8s %8s" % ("candidate", "outcome", "gate", "total", "speedup"))
for r in sorted(rows, key=lambda r: str(r.get("id"))):
    if not r.get("ok"):
        print("%-48s error %s: %s" % (r.get("id"), r.get("status"), r.get("error", "")[:80]))
        continue
    d = r["reward"]
    sp = next((t["inputs"].get("speedup_vs_baseline") for t in d["terms"] if t["name"] == "speedup"), None)
    print("%-48s %-16s %-16s %8s %8s" % (r["id"], d["outcome"], d["gate"] or "-",
                                         "%.3f" % r["total"] if r["total"] is not None else "null",
                                         "%.2f" % sp if sp else "-"))
honest = [r["total"] for r in rows if r.get("ok") and str(r["id"]).startswith("impl/") and r["total"] is not None]
bad = [r["total"] for r in rows if r.get("ok") and str(r["id"]).startswith("bad/") and r["total"] is not None]
if honest and bad:
    print("lowest honest %.3f, highest bad %.3f (bad candidates are checked per task by reward-validate.py)"
          % (min(honest), max(bad)))
cal = os.path.join(out, "reward-calibration.json")
if os.path.exists(cal):
    try:
        c = json.load(open(cal))
        for k in ("occupancy_memory_4B", "occupancy_memory_16B", "occupancy_compute"):
            v = c[k]
            print("%-22s best %.3f %s; 90%% at occupancy %.3f, 95%% at %.3f" % (k, v["best"], v["unit"],
                                                                          v["occupancy_at_90pct"], v["occupancy_at_95pct"]))
        print("launch overhead %.2f us (one launch), +%.2f us per extra launch" % (
            c["launch_overhead"]["one_launch_us"], c["launch_overhead"]["per_extra_launch_us"]))
        print("same-address atomics %.3f ns per thread, %.3f ns per lane-0 atomic" % (
            c["atomics"]["same_address_ns_per_thread"], c["atomics"]["lane0_ns_per_atomic"]))
    except Exception as e:
        print("calibration unreadable: %s" % e)
PY
[ -f "$out/reward-batch.jsonl" ] && gzip -f "$out/reward-batch.jsonl"
tar -C "$out" -czf "$out/logs.tar.gz" logs && rm -rf "$logs"
printf '%s\n' "${status[@]}" >> "$out/summary.txt"
cat "$out/summary.txt"
