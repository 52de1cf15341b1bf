#!/usr/bin/env bash
# The launches of every shipped task implementation, as the H200 records them: the ground truth of
# `cudaperf-analyze --task` (issue 13; ctest task-launches-replay replays it on the CPU).
#   1. scripts/gpu/launch-harness.py generate: per implementation a main() that calls its entry point
#      once per configuration of its task (zero-filled buffers of the task's sizes), a marker launch
#      before each call;
#   2. nvcc -O3 -arch=sm_90 each harness with its implementation (16 at a time);
#   3. each binary under Nsight Compute with only the launch__ metrics (grid and block dimensions,
#      dynamic shared memory): one ncu run per implementation, each capped;
#   4. scripts/gpu/launch-harness.py collect: one cudaperf-launches/1 document.
# No LLVM, no cudaperf build and no PyTorch are needed: nvcc, ncu and python3 only.
# Usage (repository root, GPU host): scripts/gpu/task-launches.sh [OUTDIR]   (default $OUT, else /tmp/task-launches)
# Writes OUTDIR/{task-launches.log,summary.txt,launches.json,logs.tar.gz}. Commit launches.json (and
# summary.txt) as data/eval-runs/<date>-h200-launches/. Environment: TASK_LAUNCHES_SECONDS (default
# 420) bounds the whole run, TASK_LAUNCHES_ONLY (a substring of the candidate path) selects.
set -uo pipefail
out=${1:-${OUT:-/tmp/task-launches}}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
work=/tmp/cudaperf-task-launches
rm -rf "$work"
mkdir -p "$out" "$work"/{bin,build-logs,ncu}
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
exec > >(tee -a "$out/task-launches.log") 2>&1
deadline=$((SECONDS + ${TASK_LAUNCHES_SECONDS:-420}))
cap() { local l=$((deadline - SECONDS)); [ "$1" -lt $l ] && l=$1; [ $l -lt 5 ] && l=5; echo $l; }
log() { echo "[${SECONDS}s] $*"; }
jobs=$(nproc)
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)

log "== machine"
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)
environment="$(echo "$gpu" | sed 's/, / driver /'), CUDA $(nvcc --version | grep -o 'V[0-9][0-9.]*' | tr -d V), $("$NCU" --version 2>/dev/null | tail -1), $(date -u +%Y-%m-%d)"
log "$environment; $jobs cores"

log "== 1. harnesses"
python3 scripts/gpu/launch-harness.py generate --root "$root" --work "$work" ${TASK_LAUNCHES_ONLY:+--only "$TASK_LAUNCHES_ONLY"} \
  > "$work/implementations.txt" || { log "generate failed"; exit 1; }
log "$(wc -l < "$work/implementations.txt") implementations"

log "== 2. nvcc (${jobs} at a time)"
build_one() { # ID CANDIDATE FLAGS...
  local id=$1 cand=$2
  shift 2
  timeout 120 nvcc -O3 -arch=sm_90 "$@" -o "$work/bin/$id" "$work/harness/$id.cu" "$cand" > "$work/build-logs/$id.log" 2>&1 ||
    echo "build failed: $id (rc=$?)"
}
export -f build_one
export work
python3 -c '
import json, shlex, sys
for m in json.load(open(sys.argv[1])):
    print(" ".join(shlex.quote(x) for x in [m["id"], m["candidate"]] + m["flags"]))' "$work/manifest.json" |
  timeout "$(cap 200)" xargs -P "$jobs" -L 1 bash -c 'build_one "$@"' _
log "$(ls "$work/bin" | wc -l) binaries built"

log "== 3. ncu, launch metrics only"
dims=launch__grid_dim_x,launch__grid_dim_y,launch__grid_dim_z,launch__block_dim_x,launch__block_dim_y,launch__block_dim_z
sizes=launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic
metrics=$dims,$sizes
run_ncu() { # ID -> rc
  timeout "$(cap 90)" "$NCU" --clock-control none --metrics "$metrics" --csv --page raw --print-units base \
    --print-kernel-base mangled "$work/bin/$1" > "$work/ncu/$1.csv" 2> "$work/ncu/$1.err"
}
rows() { local n; n=$(grep -c '^"[0-9]' "$work/ncu/$1.csv" 2>/dev/null); echo "${n:-0}"; }
first=1
for id in $(cut -d' ' -f1 "$work/implementations.txt"); do
  [ -x "$work/bin/$id" ] || { log "$id: no binary"; continue; }
  [ $((deadline - SECONDS)) -gt 40 ] || { log "$id: skipped, time is short"; continue; }
  run_ncu "$id"
  rc=$?
  if [ $first = 1 ] && [ "$(rows "$id")" -eq 0 ]; then
    # A metric name this ncu does not know stops the run: keep the products, which ncu certainly has.
    log "$id: no rows with the dimension metrics (rc=$rc): $(grep -i error "$work/ncu/$id.err" "$work/ncu/$id.csv" | head -2)"
    metrics=$sizes
    run_ncu "$id"
    rc=$?
  fi
  first=0
  log "$id: ncu rc=$rc, $(rows "$id") launches; $(grep -h '^config ' "$work/ncu/$id.csv" | tr '\n' ' ')"
done
echo "$metrics" > "$work/metrics.txt"

log "== 4. collect"
python3 scripts/gpu/launch-harness.py collect --work "$work" --output "$out/launches.json" \
  --environment "$environment" \
  --command "scripts/gpu/task-launches.sh (ncu --clock-control none --metrics $metrics --csv --page raw --print-units base --print-kernel-base mangled)" \
  > "$work/collect.txt" 2>&1
collect_rc=$?
tar -C "$work" -czf "$out/logs.tar.gz" build-logs ncu harness manifest.json metrics.txt implementations.txt collect.txt 2>/dev/null
{
  echo "task launches on the GPU: $environment"
  echo "metrics: $metrics"
  grep -h "build failed" "$out/task-launches.log" || true
  cat "$work/collect.txt"
} > "$out/summary.txt"
log "collect rc=$collect_rc; done in ${SECONDS}s"
cat "$out/summary.txt"
