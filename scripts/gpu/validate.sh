#!/usr/bin/env bash
# cudaperf-validate on the GPU host, in one command: measure with the CUPTI counters, predict with the
# carried analyzer, compare (scripts/validate.py; docs/accuracy.md, "Validation against measured counters").
#   1. unpack the analyzer packed by scripts/pack-analyzer.sh (.carry/analyzer: the host has no LLVM);
#   2. build the evaluator and the counters injection library (no LLVM), and every data/corpus/*.cu
#      (nvcc -O3 -arch=sm_90 -lineinfo), side by side;
#   3. run each corpus program under the injection library: one cudaperf-counters/1 document per file;
#   4. cudaperf-eval --counters over every task implementation (data/tasks/*/impls/*.cu, and
#      data/tasks/pytorch/*/impls/*.cu: `make tasks` writes their task.json and exported modules during the
#      builds, and cudaperf-torch-reference is built; as scripts/gpu/tasks-eval.sh does);
#   5. scripts/validate.py over both, beside the stored Nsight Compute measurements of the corpus.
# Usage (repository root, GPU host; run tool with carry [".carry/analyzer"]):
#   scripts/gpu/validate.sh [OUTDIR]          (default $OUT, else /tmp/validate-out)
# Writes OUTDIR/{validate.log,validation.md,validation.json,task-results.jsonl,corpus-counters.tar.gz,
# analysis.tar.gz,logs.tar.gz}: 7 files, within the device's 8 that come back.
# Environment: ANALYZER_PACK (default .carry/analyzer), VALIDATE_SECONDS (default 470: every GPU and build
# step is capped so that the whole ends inside the device's 10-minute command limit; the last
# VALIDATE_RESERVE seconds, default 90, are kept for the comparison), VALIDATE_PYTORCH (default 1; 0 leaves
# the PyTorch problems out).
set -uo pipefail
out=${1:-${OUT:-/tmp/validate-out}}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
work=/tmp/cudaperf-validate
rm -rf "$work"
mkdir -p "$out" "$work"/{bin,build-logs,corpus-counters,analysis,run-logs}
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
exec > >(tee -a "$out/validate.log") 2>&1
deadline=$((SECONDS + ${VALIDATE_SECONDS:-470}))
reserve=${VALIDATE_RESERVE:-90}
# cap N: N seconds, or what is left before the deadline if that is less (at least 5); capm N: the same
# before the comparison's reserve, for the measurements.
cap() { local l=$((deadline - SECONDS)); [ "$1" -lt $l ] && l=$1; [ $l -lt 5 ] && l=5; echo $l; }
capm() { local l=$((deadline - reserve - SECONDS)); [ "$1" -lt $l ] && l=$1; [ $l -lt 5 ] && l=5; echo $l; }
log() { echo "[${SECONDS}s] $*"; }
jobs=$(nproc)

log "== machine"
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)
environment="$(echo "$gpu" | sed 's/, / driver /'), CUDA $(nvcc --version | grep -o 'V[0-9][0-9.]*' | tr -d V), $(date -u +%Y-%m-%d)"
log "$environment; $jobs cores"

# --- 1. the analyzer ------------------------------------------------------------------------------
pack=${ANALYZER_PACK:-.carry/analyzer}
adir=/tmp/cudaperf-analyzer
. scripts/gpu/unpack-analyzer.sh
log "== 1. analyzer from $pack"
[ -f "$pack/MANIFEST" ] && head -3 "$pack/MANIFEST"
unpack_analyzer "$pack" "$adir" > "$work/build-logs/analyzer-unpack.log" 2>&1
analyzer_rc=$?
cat "$work/build-logs/analyzer-unpack.log"
[ $analyzer_rc -eq 0 ] || log "analyzer unusable (rc=$analyzer_rc): the comparison at step 5 is skipped"

# --- 2. builds --------------------------------------------------------------------------------------
log "== 2. build: runtime + counters injection library (+ torch reference), corpus programs (+ make tasks)"
pytorch=${VALIDATE_PYTORCH:-1}
torch_flags=()
if [ "$pytorch" = 1 ]; then
  prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)
  [ -n "$prefix" ] && torch_flags=(-DCUDAPERF_BUILD_TORCH_REFERENCE=ON -DCMAKE_PREFIX_PATH="$prefix")
  # task.json and exported modules of the PyTorch problems (uses the GPU briefly; nothing is profiled yet).
  (timeout "$(capm 110)" make tasks > "$work/build-logs/make-tasks.log" 2>&1; echo "make tasks rc=$?" >> "$work/build-logs/make-tasks.log") &
  tasks_pid=$!
fi
(
  timeout "$(capm 120)" cmake -S . -B build-gpu -G Ninja -DCUDAPERF_BUILD_ANALYZER=OFF -DCUDAPERF_BUILD_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=Release "${torch_flags[@]}" > "$work/build-logs/cmake.log" 2>&1 &&
  timeout "$(capm 240)" cmake --build build-gpu -j "$jobs" --target cudaperf-eval cudaperf-eval-worker cudaperf-features >> "$work/build-logs/cmake.log" 2>&1
  echo "eval rc=$?" >> "$work/build-logs/cmake.log"
  # Separate builds so that a missing or failing target leaves the others built.
  timeout "$(capm 240)" cmake --build build-gpu -j "$jobs" --target cudaperf-counters-inject >> "$work/build-logs/cmake.log" 2>&1
  echo "inject rc=$?" >> "$work/build-logs/cmake.log"
  if [ ${#torch_flags[@]} -gt 0 ]; then
    timeout "$(capm 240)" cmake --build build-gpu -j "$jobs" --target cudaperf-torch-reference >> "$work/build-logs/cmake.log" 2>&1
    echo "torch reference rc=$?" >> "$work/build-logs/cmake.log"
  fi
) &
cmake_pid=$!
stems=$(cd data/corpus && ls *.cu | sed 's/\.cu$//')
echo "$stems" | timeout "$(capm 200)" xargs -P "$jobs" -I{} sh -c \
  "nvcc -O3 -arch=sm_90 -lineinfo -o $work/bin/{} data/corpus/{}.cu > $work/build-logs/nvcc-{}.log 2>&1 || echo 'nvcc failed: {}'"
wait $cmake_pid
grep -E "^(eval|inject|torch reference) rc=" "$work/build-logs/cmake.log"
[ -n "${tasks_pid:-}" ] && wait "$tasks_pid" && tail -3 "$work/build-logs/make-tasks.log"
inject=$(find build-gpu -name 'libcudaperf-counters-inject.so*' -type f 2>/dev/null | head -1)
eval_bin=build-gpu/bin/cudaperf-eval
log "injection library: ${inject:-not built}; evaluator: $([ -x $eval_bin ] && echo $eval_bin || echo 'not built')"
[ -n "$inject" ] || tail -30 "$work/build-logs/cmake.log"

# --- 3. corpus under the injection library ---------------------------------------------------------
corpus_args=()
if [ -n "$inject" ]; then
  log "== 3. corpus programs under the counters injection library"
  for stem in $stems; do
    [ -x "$work/bin/$stem" ] || { log "$stem: not built"; continue; }
    [ $((deadline - reserve - SECONDS)) -gt 100 ] || { log "$stem: skipped, time is short"; continue; }
    t0=$SECONDS
    (cd "$work/run-logs" && CUDA_INJECTION64_PATH="$root/$inject" CUDAPERF_COUNTERS_OUT="$work/corpus-counters/$stem.json" \
      timeout "$(capm 60)" "$work/bin/$stem" > "$stem.log" 2>&1)
    rc=$?
    log "$stem: rc=$rc in $((SECONDS - t0)) s, $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d.get("kernels",[])), "kernels, available", d.get("available"), d.get("reason",""))' "$work/corpus-counters/$stem.json" 2>&1 | tail -1)"
  done
  corpus_args=(--corpus-counters "$work/corpus-counters")
  tar -C "$work" -czf "$out/corpus-counters.tar.gz" corpus-counters
fi

# --- 4. task implementations with cudaperf-eval --counters -----------------------------------------
task_args=()
: > "$out/task-results.jsonl"
if [ -x "$eval_bin" ] && "$eval_bin" --help 2>&1 | grep -q -- "--counters"; then
  log "== 4. cudaperf-eval --counters over the task implementations"
  : > "$work/tasks.batch"
  no_task_json=0
  for impl in data/tasks/*/impls/*.cu data/tasks/pytorch/*/impls/*.cu; do
    [ -f "$impl" ] || continue
    task=$(dirname "$(dirname "$impl")")
    if [ -f "$task/task.json" ]; then echo "$root/$task $root/$impl" >> "$work/tasks.batch"
    else no_task_json=$((no_task_json + 1)); fi
  done
  log "$(wc -l < "$work/tasks.batch") implementations; $no_task_json left out for want of a task.json (PyTorch problems before make tasks)"
  CUDAPERF_CACHE_DIR=/tmp/cudaperf-cache timeout "$(capm 240)" "$eval_bin" --batch "$work/tasks.batch" --counters --no-timing --jsonl \
    --jobs 8 --sets 1 --budget-ms 20 --timeout 60 --stall-timeout 20 --summary --output "$out/task-results.jsonl" \
    2> "$work/run-logs/cudaperf-eval.stderr"
  log "cudaperf-eval rc=$?: $(wc -l < "$out/task-results.jsonl") results"
  tail -60 "$work/run-logs/cudaperf-eval.stderr"
  task_args=(--task-results "$out/task-results.jsonl")
else
  log "== 4. skipped: no cudaperf-eval with --counters"
fi

# --- 5. compare ------------------------------------------------------------------------------------
if [ $analyzer_rc -eq 0 ]; then
  log "== 5. scripts/validate.py"
  ncu_args=()
  [ -f data/corpus/measured/h200-ncu.json ] && ncu_args=(--ncu data/corpus/measured/h200-ncu.json)
  PYTHONUNBUFFERED=1 timeout "$(cap 240)" python3 scripts/validate.py --analyzer "$adir/cudaperf-analyze" --jobs "$jobs" \
    "${ncu_args[@]}" "${corpus_args[@]}" "${task_args[@]}" --save-analysis "$work/analysis" \
    --json "$out/validation.json" --markdown "$out/validation.md" --environment "$environment"
  log "validate.py rc=$?"
  tar -C "$work" -czf "$out/analysis.tar.gz" analysis
fi
tar -C "$work" -czf "$out/logs.tar.gz" build-logs run-logs
log "== done"
