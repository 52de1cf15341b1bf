#!/usr/bin/env bash
# Issue 12 on the H200, in one command (<= 9 minutes; every step time-capped, a failing step does
# not lose the others' results):
#   a. the runtime's GPU tests (the device kernels bit for bit against their host references) and
#      the bad-candidate suite with every example implementation, each against its expected outcome;
#   b. a mixed good-and-bad run of N (200) candidates alone on the GPU, then the same candidates split
#      over four evaluators at once beside a PyTorch process churning 8 GB and bf16 matmuls
#      (scripts/gpu/gpu-churn.py): every outcome must equal the quiet run's;
#   c. KernelBench level-1 ReLU at its own size (4096 x 393216 fp32, imported from
#      scripts/gpu/kernelbench-relu/model.py): time per additional candidate once the reference
#      is on the device, beside the lower bound (bytes moved / measured bandwidth);
#   d. `cudaperf-eval --serve` on the shipped tasks' small configurations with fresh sources
#      (scripts/gpu/serve-bench.py): candidates per minute and time per stage, beside batch mode.
# Usage (GPU host, repository root): scripts/gpu/eval-scale.sh [OUTDIR]   (default $OUT)
# Needs .carry/deps from scripts/pack-deps.sh (nlohmann-json, GoogleTest). Environment:
# EVAL_SCALE_SECONDS (525), EVAL_SCALE_N (200), EVAL_SCALE_SERVE_N (300), EVAL_SCALE_STEPS
# ("tests suite relu shared serve"). Returns at most 8 files: summary.txt, numbers.json,
# eval-scale.log, results.tar.gz (every JSON Lines result and log).
set -uo pipefail
out=${1:-${OUT:-/tmp/eval-scale}}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
work=/tmp/eval-scale-work
rm -rf "$work"
mkdir -p "$out" "$work/results"
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
exec > >(tee -a "$out/eval-scale.log") 2>&1
summary=$out/summary.txt
: > "$summary"
numbers=$work/numbers.jsonl
: > "$numbers"
note() { echo "$*" | tee -a "$summary"; }
now() { date +%s.%N; }
since() { python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 2))" "$1" "$(now)"; }
deadline=$((SECONDS + ${EVAL_SCALE_SECONDS:-525}))
# cap N: N seconds, or what is left before the deadline if that is less (at least 5).
cap() { local l=$((deadline - SECONDS)); [ "$1" -lt $l ] && l=$1; [ $l -lt 5 ] && l=5; echo $l; }
import_pid=""
steps=${EVAL_SCALE_STEPS:-"tests suite relu shared serve"}
want() { [[ " $steps " == *" $1 "* ]] && [ $((deadline - SECONDS)) -gt 10 ]; }
# report CMD...: its lines into the summary, its "NUMBERS {...}" line into numbers.json.
report() {
  "$@" > "$work/report.txt" 2>&1
  grep -v '^NUMBERS ' "$work/report.txt" | tee -a "$summary"
  sed -n 's/^NUMBERS //p' "$work/report.txt" >> "$numbers"
}
pack() {
  [ -n "$import_pid" ] && kill "$import_pid" 2>/dev/null
  tar -czf "$out/results.tar.gz" -C "$work" --exclude='kb' --exclude='mix' --exclude='fresh' . 2>/dev/null
  python3 - "$numbers" "$out/numbers.json" <<'PY'
import json, sys
merged = {}
for line in open(sys.argv[1]):
    if line.strip():
        merged.update(json.loads(line))
json.dump(merged, open(sys.argv[2], "w"), indent=1)
PY
}
trap pack EXIT

note "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee -a "$summary"
note "cores: $(nproc); nvcc: $(nvcc --version | grep -o 'V[0-9][0-9.]*'); commit: $(git rev-parse --short HEAD 2>/dev/null)"

# The KernelBench ReLU import (PyTorch, 6.4 GB tensors) runs beside the build.
kb=$work/kb/relu
mkdir -p "$kb/impls"
cp scripts/gpu/kernelbench-relu/model.py "$kb/model.py"
cp data/tasks/pytorch/relu/impls/baseline.cu "$kb/impls/baseline.cu"
t_import=$(now)
( timeout 240 python3 scripts/import-pytorch-task.py "$kb/model.py" --out "$kb" > "$work/import.log" 2>&1
  echo $? > "$work/import.rc"
  # Device-to-device copy bandwidth (bytes read + written per second), for the lower bound.
  timeout 60 python3 - > "$work/bandwidth.log" 2>&1 <<'PY'
import torch
x = torch.empty(4096 * 393216, device="cuda")
y = torch.empty_like(x)
for _ in range(3):
    y.copy_(x)
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
s.record()
for _ in range(10):
    y.copy_(x)
e.record()
torch.cuda.synchronize()
print("BANDWIDTH_GBPS %.1f" % (2 * x.numel() * 4 * 10 / (s.elapsed_time(e) / 1000) / 1e9))
PY
) &
import_pid=$!

note "== build"
t0=$(now)
prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)
deps=$root/.carry/deps
timeout $(cap 120) cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDAPERF_BUILD_ANALYZER=OFF \
  -DCUDAPERF_BUILD_TESTS=ON -DCUDAPERF_DEPS_PREFIX="$deps" -DGTEST_ROOT="$deps" \
  -DCUDAPERF_BUILD_TORCH_REFERENCE=ON -DCMAKE_PREFIX_PATH="$prefix" > "$work/cmake.log" 2>&1 &&
  timeout $(cap 240) cmake --build build-gpu -j "$(nproc)" --target cudaperf-eval cudaperf-eval-worker \
    cudaperf-torch-reference >> "$work/cmake.log" 2>&1
rc=$?
timeout $(cap 120) cmake --build build-gpu -j "$(nproc)" --target cudaperf-runtime-tests \
  cudaperf-device-kernel-tests cudaperf-support-tests >> "$work/cmake.log" 2>&1 || note "unit tests not built"
note "build rc=$rc in $(since "$t0") s"
grep -E "error|not found|NOT found" "$work/cmake.log" | head -20 | tee -a "$summary"
eval_bin=$root/build-gpu/bin/cudaperf-eval
[ -x "$eval_bin" ] || { note "no cudaperf-eval: stopping"; tail -40 "$work/cmake.log"; exit 1; }
export CUDAPERF_CACHE_DIR=/tmp/cudaperf-cache-scale
rm -rf "$CUDAPERF_CACHE_DIR"

if want tests; then
  note "== (a) runtime tests on the GPU (device kernels bit for bit, evaluator end to end)"
  CUDAPERF_TEST_CACHE_DIR=/tmp/cudaperf-test-cache timeout $(cap 100) ctest --test-dir build-gpu \
    -R "DeviceKernels|EvalTool|ServeTool|Subprocess|Reference|CounterRng" -j 8 --output-on-failure > "$work/ctest.log" 2>&1
  note "ctest rc=$? $(grep -E 'tests passed|tests failed' "$work/ctest.log")"
  grep -E "\*\*\*Failed|Skipped|\(Failed\)" "$work/ctest.log" | head -20 | tee -a "$summary"
fi

# Expected outcome per candidate: example implementations are ok; bad ones say what they expect.
for impl in data/tasks/*/impls/*.cu; do echo "$root/$(dirname "$(dirname "$impl")") $root/$impl ok"; done > "$work/suite.expect"
for bad in test/runtime/bad/*.cu; do
  echo "$root/data/tasks/$(sed -n 's|^// cudaperf-task: ||p' "$bad") $root/$bad $(sed -n 's|^// cudaperf-expect: ||p' "$bad")"
done >> "$work/suite.expect"
cut -d' ' -f1,2 "$work/suite.expect" > "$work/suite.batch"
common=(--stall-timeout 5 --timeout 60 --budget-ms 20 --jsonl --summary)

if want suite; then
  note "== (a) bad-candidate suite + example implementations"
  t0=$(now)
  timeout $(cap 150) "$eval_bin" --batch "$work/suite.batch" --jobs 12 "${common[@]}" \
    --output "$work/results/suite.jsonl" 2> "$work/suite.stderr"
  note "cudaperf-eval rc=$? in $(since "$t0") s"
  python3 scripts/gpu/eval-check.py "$work/suite.expect" "$work/results/suite.jsonl" > "$work/suite-check.log"
  grep -E "^FAIL|MISSING" "$work/suite-check.log" | head -20 | tee -a "$summary"
  tail -1 "$work/suite-check.log" | tee -a "$summary"
fi

if want relu; then
  note "== (c) KernelBench level-1 ReLU, 4096 x 393216 fp32"
  wait $import_pid
  note "import rc=$(cat "$work/import.rc" 2>/dev/null) in $(since "$t_import") s (beside the build)"
  tail -5 "$work/import.log" | tee -a "$summary"
  bw=$(sed -n 's/^BANDWIDTH_GBPS //p' "$work/bandwidth.log")
  note "device-to-device bandwidth: ${bw:-?} GB/s (read + write)"
  if [ -f "$kb/task.json" ]; then
    # Four candidates in one evaluator: the first pays for the task's data on the device (inputs
    # generated there, PyTorch's outputs written into the holder's buffers), the others reuse it.
    for i in 1 2 3; do
      { cat data/tasks/pytorch/relu/impls/baseline.cu; echo "// variant $i"; } > "$work/relu-naive-$i.cu"
    done
    cp scripts/gpu/kernelbench-relu/relu_float4.cu "$work/relu-float4.cu"
    t0=$(now)
    timeout $(cap 200) "$eval_bin" "$kb" "$work/relu-naive-1.cu" "$work/relu-float4.cu" "$work/relu-naive-2.cu" \
      "$work/relu-naive-3.cu" --jsonl --summary --timeout 300 --stall-timeout 60 --jobs 4 \
      --output "$work/results/relu.jsonl" 2> "$work/relu.stderr"
    note "cudaperf-eval rc=$? in $(since "$t0") s"
    tail -8 "$work/relu.stderr" | tee -a "$summary"
    report python3 scripts/gpu/eval-scale-report.py relu "$work/results/relu.jsonl" "${bw:-4300}"
  else
    note "no task.json: the import failed"
  fi
fi

if want shared; then
  n=${EVAL_SCALE_N:-200}
  note "== (b) $n mixed candidates: quiet and sequential, then four evaluators beside a churning PyTorch process"
  python3 - "$work/suite.expect" "$work/mix" "$n" <<'PY'
import os, random, sys
lines = [l.split() for l in open(sys.argv[1]) if l.strip()]
d, n = sys.argv[2], int(sys.argv[3])
os.makedirs(d, exist_ok=True)
rng = random.Random(12)
with open(d + ".expect", "w") as e:
    for i in range(n):
        task, cand, want = rng.choice(lines)
        path = f"{d}/{i:03d}-{os.path.basename(cand)}"
        open(path, "w").write(open(cand).read())  # same source: the build is cached, the path unique
        e.write(f"{task} {path} {want}\n")
PY
  cut -d' ' -f1,2 "$work/mix.expect" > "$work/mix.batch"
  mixopts=(--configs small,medium --stall-timeout 10 --timeout 60 --budget-ms 20 --jsonl)
  t0=$(now)
  timeout $(cap 150) "$eval_bin" --batch "$work/mix.batch" --jobs 12 "${mixopts[@]}" \
    --output "$work/results/quiet.jsonl" 2> "$work/quiet.stderr"
  note "quiet: rc=$? in $(since "$t0") s"
  python3 scripts/gpu/eval-check.py "$work/mix.expect" "$work/results/quiet.jsonl" | tail -1 | tee -a "$summary"
  for k in 0 1 2 3; do awk -v k=$k 'NR % 4 == k' "$work/mix.batch" > "$work/mix-$k.batch"; done
  python3 scripts/gpu/gpu-churn.py --gib 8 --seconds 300 --log "$work/churn.log" &
  churn_pid=$!
  sleep 3
  t0=$(now)
  pids=()
  for k in 0 1 2 3; do
    timeout $(cap 120) "$eval_bin" --batch "$work/mix-$k.batch" --jobs 4 "${mixopts[@]}" \
      --output "$work/results/shared-$k.jsonl" 2> "$work/shared-$k.stderr" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  note "shared: 4 evaluators in $(since "$t0") s; churn: $(tail -1 "$work/churn.log")"
  kill "$churn_pid" 2>/dev/null
  wait "$churn_pid" 2>/dev/null
  cat "$work"/results/shared-?.jsonl > "$work/results/shared.jsonl"
  report python3 scripts/gpu/eval-scale-report.py shared "$work/results/quiet.jsonl" "$work/results/shared.jsonl" \
    "$work/mix.expect"
fi

if want serve; then
  note "== (d) --serve on the shipped tasks' small configurations, fresh sources"
  # Pool: the example implementations and the quick bad candidates (no hangs: they cost the stall
  # limit by design).
  grep -E "/impls/| (wrong_answer|launch_error|compile_error|runtime_fault|timing_violation)$" "$work/suite.expect" |
    grep -vE "allocate_all_memory|infinite_loop|print_megabytes|leak_" > "$work/serve.expect"
  rm -rf "$CUDAPERF_CACHE_DIR" # cold: every reference, baseline and candidate is built
  timeout $(cap 200) python3 scripts/gpu/serve-bench.py --eval "$eval_bin" --expect "$work/serve.expect" \
    --out "$work/results" --n "${EVAL_SCALE_SERVE_N:-300}" --seconds $(( $(cap 200) - 20 )) --tag serve \
    -- --jobs 14 --budget-ms 20 --stall-timeout 5 --timeout 60 | tee -a "$summary"
  report python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('NUMBERS '+json.dumps({'serve': {k: d[k] for k in ('results','seconds','per_minute','steady_per_minute','outcomes','mean_stage_seconds')}, 'serve_mismatches': len(d['mismatches'])}))" \
    "$work/results/serve-serve.json"
  if [ $((deadline - SECONDS)) -gt 60 ]; then
    # The same kind of candidates through batch mode, as the 114/min of 2026-11-29 were measured.
    rm -rf "$CUDAPERF_CACHE_DIR"
    python3 - "$work/serve.expect" "$work/fresh" 60 <<'PY'
import os, sys, time
pool = [l.split() for l in open(sys.argv[1]) if l.strip()]
d, n = sys.argv[2], int(sys.argv[3])
os.makedirs(d, exist_ok=True)
with open(d + ".batch", "w") as b:
    for i in range(n):
        task, cand, _ = pool[i % len(pool)]
        path = f"{d}/{i:03d}-{os.path.basename(cand)}"
        open(path, "w").write(open(cand).read() + f"\n// batch {i} {time.time_ns()}\n")
        b.write(f"{task} {path}\n")
PY
    t0=$(now)
    timeout $(cap 120) "$eval_bin" --batch "$work/fresh.batch" --jobs 8 --configs small --budget-ms 20 \
      --stall-timeout 5 --timeout 60 --jsonl --output "$work/results/batch.jsonl" 2> "$work/batch.stderr"
    secs=$(since "$t0")
    done_n=$(wc -l < "$work/results/batch.jsonl")
    note "batch mode (--jobs 8, --configs small): $done_n fresh candidates in $secs s = $(python3 -c "print(round($done_n * 60 / $secs, 1))") per minute"
    echo "{\"batch_per_minute\": $(python3 -c "print(round($done_n * 60 / $secs, 1))"), \"batch_candidates\": $done_n}" >> "$numbers"
  fi
fi
note "== done in $SECONDS s"
