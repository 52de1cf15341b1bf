#!/usr/bin/env bash
# Issue 12 on the H200, in one command (<= 9 minutes; every step time-capped, a failing step does
# not lose the others' results):
#   a. the runtime's GPU tests (the device kernels bit for bit against their host references); the
#      bad-candidate suite with every example implementation, each against its expected outcome, is
#      part of b's quiet run (every suite line once, then random draws);
#   b. a mixed good-and-bad run of N (200) candidates alone on the GPU, then the same candidates split
#      over four evaluators at once beside a PyTorch process churning 8 GB and bf16 matmuls
#      (scripts/gpu/gpu-churn.py): every outcome must equal the quiet run's (if the quiet run is cut
#      by its time cap, the shared run takes the candidates it finished);
#   c. KernelBench level-1 ReLU at its own size (4096 x 393216 fp32, imported from
#      scripts/gpu/kernelbench-relu/model.py): time per additional candidate once the reference
#      is on the device, beside the lower bound (bytes moved / measured bandwidth);
#   d. `cudaperf-eval --serve` on the shipped tasks' small configurations with fresh sources
#      (scripts/gpu/serve-bench.py): candidates per minute, time per stage and the GPU slot's time
#      per run, with today's options and with those of 2026-12-01 (--spare-workers 1
#      --wait-worker-exit) in the same run, beside batch mode.
# Only the serve step (about 200 s): EVAL_SCALE_STEPS="build serve" EVAL_SCALE_SECONDS=230.
# Usage (GPU host, repository root): scripts/gpu/eval-scale.sh [OUTDIR]   (default $OUT)
# Needs .carry/deps from scripts/pack-deps.sh (nlohmann-json, GoogleTest). Environment:
# EVAL_SCALE_SECONDS (520), EVAL_SCALE_N (200), EVAL_SCALE_SERVE_N (300), EVAL_SCALE_SERVE_BEFORE_N
# (150), EVAL_SCALE_SERVE_VARIANTS ("now before"; "sparesN" adds a run with --spare-workers N, "connN" one with --max-connections N), EVAL_SCALE_STEPS
# ("build tests relu shared serve"; "suite" adds the suite as a run of its own; without "build" the
# tools already in EVAL_SCALE_BUILD_DIR (build-gpu) are used), EVAL_SCALE_EXTRA (options added to
# every cudaperf-eval: "--compile-only" tries the script's plumbing on a machine without a GPU).
# Each step's time cap leaves the later steps their minimum share (RESERVE below), so a slow step
# never starves the others. Returns 4 files: summary.txt (ends with the table of the issue's figures), numbers.json,
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
deadline=$((SECONDS + ${EVAL_SCALE_SECONDS:-520}))
import_pid=""
steps=${EVAL_SCALE_STEPS:-"build tests relu shared serve"}
bdir=${EVAL_SCALE_BUILD_DIR:-build-gpu}
read -r -a extra <<< "${EVAL_SCALE_EXTRA:-}"
order="build tests suite relu shared serve"
# The least time each step needs to say anything; a step's cap leaves this to every later wanted step.
declare -A RESERVE=([build]=0 [tests]=25 [suite]=50 [relu]=60 [shared]=120 [serve]=60)
current=build
later() {
  local sum=0 after=0 s
  for s in $order; do
    [ $after = 1 ] && [[ " $steps " == *" $s "* ]] && sum=$((sum + RESERVE[$s]))
    [ "$s" = "$current" ] && after=1
  done
  echo $sum
}
# cap N [RESERVE]: N seconds, or what is left before the deadline less what the later steps need
# (and less RESERVE for what this step still does after the capped command), at least 5.
cap() {
  local l=$((deadline - SECONDS - $(later) - ${2:-0}))
  [ "$1" -lt $l ] && l=$1
  [ $l -lt 5 ] && l=5
  echo $l
}
want() {
  [[ " $steps " == *" $1 "* ]] || return 1
  current=$1
  [ $((deadline - SECONDS)) -gt 10 ] || { note "== $1: skipped, no time left"; return 1; }
}
# report CMD...: its lines into the summary, its "NUMBERS {...}" line into numbers.json.
report() {
  "$@" > "$work/report.txt" 2>&1
  grep -v '^NUMBERS ' "$work/report.txt" | tee -a "$summary"
  sed -n 's/^NUMBERS //p' "$work/report.txt" >> "$numbers"
}
# check EXPECT RESULTS KEY: outcomes against the expected ones; what failed and the count to the
# summary, the counts to numbers.json as KEY_*.
check() {
  touch "$2"
  python3 scripts/gpu/eval-check.py "$1" "$2" --numbers "$3" > "$work/check-$3.log" 2>&1
  grep -E "^FAIL|^MISSING|Error" "$work/check-$3.log" | head -20 | tee -a "$summary"
  grep -v '^NUMBERS ' "$work/check-$3.log" | tail -1 | tee -a "$summary"
  sed -n 's/^NUMBERS //p' "$work/check-$3.log" >> "$numbers"
}
pack() {
  [ -n "$import_pid" ] && kill "$import_pid" $(pgrep -P "$import_pid") 2>/dev/null
  tar -czf "$out/results.tar.gz" -C "$work" --exclude='kb' --exclude='mix' --exclude='fresh' . 2>/dev/null
  if [ "$(stat -c %s "$out/results.tar.gz" 2>/dev/null || echo 0)" -gt 15000000 ]; then
    # Over what comes back (16 MiB a file): without the serve transcript (its summary stays).
    tar -cJf "$out/results.tar.gz" -C "$work" --exclude='kb' --exclude='mix' --exclude='fresh' \
      --exclude='serve-serve.jsonl' . 2>/dev/null
    note "results.tar.gz: without results/serve-serve.jsonl (too large)"
  fi
  python3 - "$numbers" "$out/numbers.json" <<'PY'
import json, sys
merged = {}
for line in open(sys.argv[1]):
    if line.strip():
        merged.update(json.loads(line))
json.dump(merged, open(sys.argv[2], "w"), indent=1)
PY
  python3 scripts/gpu/eval-scale-report.py table "$out/numbers.json" | tee -a "$summary"
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
if [[ " $steps " == *" relu "* ]]; then
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
fi

if want build; then
note "== build"
t0=$(now)
prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)
deps=$root/.carry/deps
# One ninja run for the tools and the tests (-k 0: a test that does not compile stops nothing else);
# only what the wanted steps use (the PyTorch reference for relu, the test programs for tests).
targets=(cudaperf-eval cudaperf-eval-worker)
[[ " $steps " == *" relu "* ]] && targets+=(cudaperf-torch-reference)
[[ " $steps " == *" tests "* ]] && targets+=(cudaperf-runtime-tests cudaperf-device-kernel-tests cudaperf-support-tests)
timeout $(cap 90) cmake -S . -B $bdir -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDAPERF_BUILD_ANALYZER=OFF \
  -DCUDAPERF_BUILD_TESTS=ON -DCUDAPERF_DEPS_PREFIX="$deps" -DGTEST_ROOT="$deps" \
  -DCUDAPERF_BUILD_TORCH_REFERENCE=ON -DCMAKE_PREFIX_PATH="$prefix" > "$work/cmake.log" 2>&1 &&
  timeout $(cap 240) cmake --build $bdir -j "$(nproc)" --target "${targets[@]}" -- -k 0 >> "$work/cmake.log" 2>&1
rc=$?
note "build rc=$rc in $(since "$t0") s"
echo "{\"build_rc\": $rc, \"build_seconds\": $(since "$t0")}" >> "$numbers"
grep -E "error|not found|NOT found" "$work/cmake.log" | head -20 | tee -a "$summary"
fi
eval_bin=$root/$bdir/bin/cudaperf-eval
[ -x "$eval_bin" ] || { note "no cudaperf-eval: stopping"; tail -40 "$work/cmake.log" 2>/dev/null; exit 1; }
if [ ${#extra[@]} -gt 0 ]; then # EVAL_SCALE_EXTRA after each command's own options (the last wins)
  printf '#!/bin/sh\nexec %q "$@"%s\n' "$eval_bin" "$(printf ' %q' "${extra[@]}")" > "$work/cudaperf-eval"
  chmod +x "$work/cudaperf-eval"
  eval_bin=$work/cudaperf-eval
fi
export CUDAPERF_CACHE_DIR=/tmp/cudaperf-cache-scale
rm -rf "$CUDAPERF_CACHE_DIR"

if want tests; then
  note "== (a) runtime tests on the GPU (device kernels bit for bit, evaluator end to end)"
  CUDAPERF_TEST_CACHE_DIR=/tmp/cudaperf-test-cache timeout $(cap 100) ctest --test-dir $bdir \
    -R "DeviceKernels|EvalTool|ServeTool|Subprocess|Reference|CounterRng" -j 8 --output-on-failure > "$work/ctest.log" 2>&1
  trc=$?
  note "ctest rc=$trc $(grep -E 'tests passed|tests failed' "$work/ctest.log")"
  grep -E "\*\*\*Failed|Skipped|\(Failed\)|Not Run" "$work/ctest.log" | head -20 | tee -a "$summary"
  python3 - "$work/ctest.log" "$trc" >> "$numbers" <<'PY'
import json, re, sys
text = open(sys.argv[1], errors="replace").read()
m = re.search(r"(\d+)% tests passed, (\d+) tests failed out of (\d+)", text)
print(json.dumps({"gpu_tests_rc": int(sys.argv[2]), "gpu_tests_total": int(m.group(3)) if m else None,
                  "gpu_tests_failed": int(m.group(2)) if m else None,
                  "gpu_tests_skipped": len(re.findall(r"\*\*\*Skipped|Skipped ", text))}))
PY
fi

# Expected outcome per candidate: example implementations are ok; bad ones say what they expect.
for impl in data/tasks/*/impls/*.cu; do echo "$root/$(dirname "$(dirname "$impl")") $root/$impl ok"; done > "$work/suite.expect"
for bad in test/runtime/bad/*.cu; do
  echo "$root/data/tasks/$(sed -n 's|^// cudaperf-task: ||p' "$bad") $root/$bad $(sed -n 's|^// cudaperf-expect: ||p' "$bad")"
done >> "$work/suite.expect"
cut -d' ' -f1,2 "$work/suite.expect" > "$work/suite.batch"
common=(--stall-timeout 5 --timeout 60 --budget-ms 20 --jsonl --summary)

if want suite; then
  note "== (a) bad-candidate suite + example implementations, all configurations"
  t0=$(now)
  timeout $(cap 150 5) "$eval_bin" --batch "$work/suite.batch" --jobs 12 "${common[@]}" \
    --output "$work/results/suite.jsonl" 2> "$work/suite.stderr"
  note "cudaperf-eval rc=$? in $(since "$t0") s"
  check "$work/suite.expect" "$work/results/suite.jsonl" suite
fi

# wait_for PID SECONDS: waits for a background job, ending its children (timeout processes) if it
# takes longer.
wait_for() {
  local pid=$1 end=$((SECONDS + $2))
  while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $end ]; do sleep 1; done
  if kill -0 "$pid" 2>/dev/null; then
    note "  (still running after $2 s: stopped)"
    local kids
    kids=$(pgrep -P "$pid")
    kill -TERM "$pid" $kids 2>/dev/null
    sleep 2
  fi
  wait "$pid" 2>/dev/null
}

if want relu; then
  note "== (c) KernelBench level-1 ReLU, 4096 x 393216 fp32"
  wait_for "$import_pid" "$(cap 150 40)"
  import_pid=""
  note "import rc=$(cat "$work/import.rc" 2>/dev/null) in $(since "$t_import") s (beside the build)"
  tail -5 "$work/import.log" | tee -a "$summary"
  bw=$(sed -n 's/^BANDWIDTH_GBPS //p' "$work/bandwidth.log" 2>/dev/null)
  note "device-to-device bandwidth: ${bw:-?} GB/s (read + write)"
  if [ -f "$kb/task.json" ]; then
    # Four candidates in one evaluator: the first pays for the task's data on the device (inputs
    # generated there, PyTorch's outputs written into the holder's buffers), the others reuse it.
    for i in 1 2 3; do
      { cat data/tasks/pytorch/relu/impls/baseline.cu; echo "// variant $i"; } > "$work/relu-naive-$i.cu"
    done
    cp scripts/gpu/kernelbench-relu/relu_float4.cu "$work/relu-float4.cu"
    t0=$(now)
    timeout $(cap 200 5) "$eval_bin" "$kb" "$work/relu-naive-1.cu" "$work/relu-float4.cu" "$work/relu-naive-2.cu" \
      "$work/relu-naive-3.cu" --jsonl --summary --timeout 300 --stall-timeout 60 --jobs 4 \
      --output "$work/results/relu.jsonl" 2> "$work/relu.stderr"
    note "cudaperf-eval rc=$? in $(since "$t0") s"
    tail -8 "$work/relu.stderr" | tee -a "$summary"
    report python3 scripts/gpu/eval-scale-report.py relu "$work/results/relu.jsonl" "${bw:-4300}"
    if [ $((deadline - SECONDS - $(later))) -gt 45 ]; then
      # KernelBench's own convention: no impls/baseline.cu, PyTorch eager the one reference.
      note "-- the same task without impls/baseline.cu (one candidate)"
      cp -r "$kb" "$work/kb/nobase" && rm -f "$work/kb/nobase/impls/baseline.cu"
      t0=$(now)
      timeout $(cap 90 5) "$eval_bin" "$work/kb/nobase" "$work/relu-float4.cu" --jsonl --timeout 200 --stall-timeout 60 \
        --output "$work/results/relu-nobase.jsonl" 2> "$work/relu-nobase.stderr"
      note "cudaperf-eval rc=$? in $(since "$t0") s"
      report python3 - "$work/results/relu-nobase.jsonl" <<'PY'
import json, sys
try:
    r = json.loads(open(sys.argv[1]).readline())
except (OSError, ValueError):
    r = {}
cfgs = r.get("configs") or [{}]
vs = [c.get("speedup_vs_baseline", "absent") for c in cfgs]
ok = r.get("outcome") == "ok" and isinstance(r.get("speedup"), (int, float)) and all(v is None for v in vs) \
    and not any("baseline" in c for c in cfgs)
print(f"no baseline: outcome {r.get('outcome')}, speedup vs eager {r.get('speedup')}, speedup_vs_baseline {vs}: "
      f"{'as documented' if ok else 'NOT as documented'}; {(r.get('detail') or '')[:200]}")
print("NUMBERS " + json.dumps({"no_baseline_ok": ok, "no_baseline_outcome": r.get("outcome"),
                               "no_baseline_speedup": r.get("speedup")}))
PY
    fi
  else
    note "no task.json: the import failed"
    tail -30 "$work/import.log"
  fi
fi
if [ -n "$import_pid" ]; then wait_for "$import_pid" 5; import_pid=""; fi

if want shared; then
  n=${EVAL_SCALE_N:-200}
  note "== (b) $n mixed candidates: quiet and sequential, then four evaluators beside a churning PyTorch process"
  # Every suite line once (the bad-candidate suite's outcomes, on the small and medium configurations),
  # then random draws; each candidate a file of its own (same source: the build is cached).
  python3 - "$work/suite.expect" "$work/mix" "$n" <<'PY'
import os, random, sys
lines = [l.split() for l in open(sys.argv[1]) if l.strip()]
d, n = sys.argv[2], int(sys.argv[3])
os.makedirs(d, exist_ok=True)
rng = random.Random(12)
picks = rng.sample(lines, len(lines))[:n] + [rng.choice(lines) for _ in range(n - len(lines))]
with open(d + ".expect", "w") as e:
    for i, (task, cand, want) in enumerate(picks):
        path = f"{d}/{i:03d}-{os.path.basename(cand)}"
        open(path, "w").write(open(cand).read())
        e.write(f"{task} {path} {want}\n")
PY
  cut -d' ' -f1,2 "$work/mix.expect" > "$work/mix.batch"
  mixopts=(--configs small,medium --stall-timeout 10 --timeout 60 --budget-ms 20 --jsonl)
  t0=$(now)
  timeout $(cap 160 70) "$eval_bin" --batch "$work/mix.batch" --jobs 12 "${mixopts[@]}" \
    --output "$work/results/quiet.jsonl" 2> "$work/quiet.stderr"
  qrc=$?
  touch "$work/results/quiet.jsonl"
  done_q=$(grep -c . "$work/results/quiet.jsonl")
  note "quiet: rc=$qrc, $done_q of $n in $(since "$t0") s"
  check "$work/mix.expect" "$work/results/quiet.jsonl" quiet
  # The shared run evaluates what the quiet run finished (all of it unless the quiet run was cut).
  head -n "$done_q" "$work/mix.batch" > "$work/shared.batch"
  for k in 0 1 2 3; do awk -v k=$k 'NR % 4 == k' "$work/shared.batch" > "$work/mix-$k.batch"; done
  python3 scripts/gpu/gpu-churn.py --gib 8 --seconds 300 --log "$work/churn.log" &
  churn_pid=$!
  sleep 3
  t0=$(now)
  pids=()
  shared_cap=$(cap 150 10)
  for k in 0 1 2 3; do
    [ -s "$work/mix-$k.batch" ] || continue
    timeout "$shared_cap" "$eval_bin" --batch "$work/mix-$k.batch" --jobs 4 "${mixopts[@]}" \
      --output "$work/results/shared-$k.jsonl" 2> "$work/shared-$k.stderr" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  note "shared: 4 evaluators in $(since "$t0") s; churn: $(tail -1 "$work/churn.log" 2>/dev/null)"
  kill "$churn_pid" 2>/dev/null
  wait "$churn_pid" 2>/dev/null
  cat "$work"/results/shared-?.jsonl > "$work/results/shared.jsonl" 2>/dev/null
  report python3 scripts/gpu/eval-scale-report.py shared "$work/results/quiet.jsonl" "$work/results/shared.jsonl" \
    "$work/mix.expect"
fi

if want serve; then
  note "== (d) --serve on the shipped tasks' small configurations, fresh sources"
  # Pool: the example implementations and the quick bad candidates (no hangs: they cost the stall
  # limit by design).
  grep -E "/impls/| (wrong_answer|launch_error|compile_error|runtime_fault|timing_violation)$" "$work/suite.expect" |
    grep -vE "allocate_all_memory|infinite_loop|print_megabytes|leak_" > "$work/serve.expect"
  # Variants, each cold (every reference, baseline and candidate built): "now" today's defaults
  # (tag serve); "before" the options of the 2026-12-01 run (one spare worker, the slot waiting for
  # each worker's exit), the baseline in the same run; "sparesN" N spare workers; "connN" --max-connections N.
  variants=(${EVAL_SCALE_SERVE_VARIANTS:-now before})
  for ((vi = 0; vi < ${#variants[@]}; vi++)); do
    v=${variants[$vi]}
    case $v in
      now) tag=serve vopts=() vn=${EVAL_SCALE_SERVE_N:-300} ;;
      before) tag=before vopts=(--spare-workers 1 --wait-worker-exit) vn=${EVAL_SCALE_SERVE_BEFORE_N:-150} ;;
      spares[0-9]|spares[0-9][0-9]) tag=$v vopts=(--spare-workers "${v#spares}") vn=${EVAL_SCALE_SERVE_N:-300} ;;
      conn[0-9]|conn[0-9][0-9]) tag=$v vopts=(--max-connections "${v#conn}") vn=${EVAL_SCALE_SERVE_N:-300} ;;
      *) note "unknown serve variant '$v' (now, before, sparesN, connN)"; continue ;;
    esac
    [ $((deadline - SECONDS)) -gt 40 ] || { note "-- $v: skipped, no time left"; continue; }
    rm -rf "$CUDAPERF_CACHE_DIR"
    serve_cap=$(cap 170 $((50 * (${#variants[@]} - vi - 1))))
    note "-- $v: $vn candidates, options: --jobs 14 --budget-ms 20 ${vopts[*]} (cap $serve_cap s)"
    timeout "$serve_cap" python3 scripts/gpu/serve-bench.py --eval "$eval_bin" --expect "$work/serve.expect" \
      --out "$work/results" --n "$vn" --seconds $((serve_cap > 50 ? serve_cap - 25 : 25)) \
      --tag "$tag" -- --jobs 14 --budget-ms 20 --stall-timeout 5 --timeout 60 "${vopts[@]}" | tee -a "$summary"
    key=$([ "$tag" = serve ] && echo serve || echo "serve_$tag")
    report python3 scripts/gpu/eval-scale-report.py serve "$key" "$work/results/serve-$tag.json"
  done
  if [ -f "$work/results/serve-before.json" ] && [ -f "$work/results/serve-serve.json" ]; then
    report python3 scripts/gpu/eval-scale-report.py serve-compare "$work/results/serve-before.json" \
      "$work/results/serve-serve.json"
  fi
  for v in "${variants[@]}"; do  # each connN against today's options: rate, and whether timings moved
    [[ "$v" == conn* ]] && [ -f "$work/results/serve-$v.json" ] && [ -f "$work/results/serve-serve.json" ] &&
      report python3 scripts/gpu/eval-scale-report.py serve-compare "$work/results/serve-serve.json" \
        "$work/results/serve-$v.json" "$v"
  done
  if [ $((deadline - SECONDS)) -gt 45 ]; then
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
    timeout $(cap 90 0) "$eval_bin" --batch "$work/fresh.batch" --jobs 8 --configs small --budget-ms 20 \
      --stall-timeout 5 --timeout 60 --jsonl --output "$work/results/batch.jsonl" 2> "$work/batch.stderr"
    secs=$(since "$t0")
    touch "$work/results/batch.jsonl"
    done_n=$(grep -c . "$work/results/batch.jsonl")
    per_min=$(python3 -c "print(round($done_n * 60 / max($secs, 0.01), 1))")
    note "batch mode (--jobs 8, --configs small): $done_n of 60 fresh candidates in $secs s = $per_min per minute"
    echo "{\"batch_per_minute\": $per_min, \"batch_candidates\": $done_n}" >> "$numbers"
  fi
fi
note "== done in $SECONDS s"
