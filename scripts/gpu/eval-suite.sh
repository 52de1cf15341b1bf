#!/usr/bin/env bash
# The GPU validation and throughput run of cudaperf-eval, in one command for the H200 host:
#   1. build the runtime (no LLVM) and run its tests, GPU tests included;
#   2. the bad-candidate suite plus every example implementation, each against its expected outcome;
#   3. 200 candidates in a row, good and bad mixed, in one evaluator process;
#   4. throughput: fresh (never cached) candidates per minute, builds sequential and parallel.
# Usage: scripts/gpu/eval-suite.sh [OUTDIR]   (default $OUT, else /tmp/eval-suite)
# Writes OUTDIR/{eval-suite.log,summary.txt,cmake.log,ctest.log,suite.jsonl,mixed200.jsonl,throughput-*.jsonl}
# (more than the device's 8 returned files: pack OUTDIR into one archive when running it there).
set -uo pipefail
out=${1:-${OUT:-/tmp/eval-suite}}
work=/tmp/eval-suite-work   # scratch; only 8 files come back from the device's $OUT
mkdir -p "$out" "$work"
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
exec > >(tee -a "$out/eval-suite.log") 2>&1
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
now() { date +%s.%N; }
since() { python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 2))" "$1" "$(now)"; }
jobs_par=${EVAL_SUITE_JOBS:-8}
# Steps to run (all by default) and the wall-clock budget they share, so the command ends
# inside the device's per-command limit even when a step is slow.
steps=${EVAL_SUITE_STEPS:-"tests suite throughput mixed"}
deadline=$((SECONDS + ${EVAL_SUITE_SECONDS:-540}))
# cap N: N seconds, or what is left before the deadline if that is less (at least 5).
cap() { local l=$((deadline - SECONDS)); [ "$1" -lt $l ] && l=$1; [ $l -lt 5 ] && l=5; echo $l; }
want() { [[ " $steps " == *" $1 "* ]]; }

note "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee -a "$summary"
note "cores: $(nproc); nvcc: $(nvcc --version | grep -o 'V[0-9][0-9.]*')"

note "== build"
t0=$(now)
cmake -S . -B build-gpu -G Ninja -DCUDAPERF_BUILD_ANALYZER=OFF -DCUDAPERF_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=Release > "$out/cmake.log" 2>&1 \
  && timeout 300 cmake --build build-gpu -j "$(nproc)" --target cudaperf-eval cudaperf-eval-worker >> "$out/cmake.log" 2>&1
rc=$?
# The unit tests need GoogleTest, which the GPU host may lack; the suites below do not.
timeout 120 cmake --build build-gpu -j "$(nproc)" --target cudaperf-runtime-tests >> "$out/cmake.log" 2>&1 \
  || note "unit tests not built (no GoogleTest here?)"
note "build rc=$rc in $(since "$t0") s"
if [ $rc -ne 0 ]; then tail -50 "$out/cmake.log"; exit 1; fi
eval_bin=build-gpu/bin/cudaperf-eval
export CUDAPERF_CACHE_DIR=/tmp/cudaperf-cache

if want tests; then
note "== unit tests (GPU tests included)"
CUDAPERF_TEST_CACHE_DIR=/tmp/cudaperf-test-cache timeout $(cap 120) ctest --test-dir build-gpu -L runtime -R "EvalTool|Subprocess|Reference" -j 8 --output-on-failure > "$out/ctest.log" 2>&1
note "ctest rc=$? $(grep -E 'tests passed|tests failed' "$out/ctest.log")"
grep -E "Skipped|Failed|\*\*\*" "$out/ctest.log" | head -20 | tee -a "$summary"
fi

# Expected outcome per candidate: example implementations are ok; bad ones say what they expect.
expectations() {
  for impl in data/tasks/*/impls/*.cu; do echo "$root/$(dirname "$(dirname "$impl")") $root/$impl ok"; done
  for bad in test/runtime/bad/*.cu; do
    echo "$root/data/tasks/$(sed -n 's|^// cudaperf-task: ||p' "$bad") $root/$bad $(sed -n 's|^// cudaperf-expect: ||p' "$bad")"
  done
}
common=(--stall-timeout 3 --timeout 60 --budget-ms 20 --jsonl --summary)

expectations > "$work/suite.expect"
cut -d' ' -f1,2 "$work/suite.expect" > "$work/suite.batch"
if want suite; then
note "== suite: example implementations + bad candidates"
t0=$(now)
timeout $(cap 150) "$eval_bin" --batch "$work/suite.batch" --jobs "$jobs_par" "${common[@]}" --output "$out/suite.jsonl" 2> "$work/suite.stderr"
note "cudaperf-eval rc=$? in $(since "$t0") s"
python3 scripts/gpu/eval-check.py "$work/suite.expect" "$out/suite.jsonl" | tee -a "$summary"
fi

# Throughput: every candidate is a fresh source (a unique comment), so each is really built.
# The mix: the example tasks' implementations plus quick bad ones (wrong answer, launch error,
# compile error, runtime fault); hangs are left out, they cost the stall limit by design.
make_fresh() { # TAG COUNT DIR
  mkdir -p "$3"
  python3 - "$work/suite.expect" "$1" "$2" "$3" <<'PY'
import sys
tag, count, d = sys.argv[2], int(sys.argv[3]), sys.argv[4]
quick_bad = {"half_output.cu", "zero_size_launch.cu", "syntax_error.cu", "trap.cu", "matmul_k_tail.cu", "all_zeros.cu"}
pool = [l.split() for l in open(sys.argv[1]) if l.strip()]
pool = [p for p in pool if p[2] == "ok" and "/impls/" in p[1]] + [p for p in pool if p[1].split("/")[-1] in quick_bad]
with open(f"{d}/batch", "w") as b, open(f"{d}/expect", "w") as e:
    for i in range(count):
        task, cand, want = pool[i % len(pool)]
        path = f"{d}/{tag}-{i:03d}-{cand.split('/')[-1]}"
        open(path, "w").write(open(cand).read() + f"\n// throughput variant {tag} {i}\n")
        b.write(f"{task} {path}\n")
        e.write(f"{task} {path} {want}\n")
PY
}
# Scopes: every configuration of each task ("all"), or only its smallest ("small": --configs small,
# the screening run of small tasks). Each mode gets its own cold cache (reference and baseline too).
want throughput && for scope in ${EVAL_SUITE_TPUT_SCOPES:-all small}; do for mode in sequential parallel; do
  n=${EVAL_SUITE_TPUT_N:-30}
  j=1; [ $mode = parallel ] && j=$jobs_par
  scope_args=(); [ $scope = small ] && scope_args=(--configs small)
  dir=/tmp/tput-$scope-$mode
  rm -rf "$dir"; make_fresh "$scope-$mode" "$n" "$dir"
  CUDAPERF_CACHE_DIR=/tmp/cudaperf-cache-$scope-$mode
  t0=$(now)
  CUDAPERF_CACHE_DIR=$CUDAPERF_CACHE_DIR timeout $(cap 120) "$eval_bin" --batch "$dir/batch" --jobs $j "${common[@]}" "${scope_args[@]}" --output "$out/throughput-$scope-$mode.jsonl" 2> /dev/null
  rc=$?
  secs=$(since "$t0")
  done_n=$(wc -l < "$out/throughput-$scope-$mode.jsonl")
  note "throughput $scope configs, $mode (--jobs $j): $done_n candidates in $secs s = $(python3 -c "print(round($done_n * 60 / $secs, 1))") per minute (rc=$rc)"
  python3 scripts/gpu/eval-check.py "$dir/expect" "$out/throughput-$scope-$mode.jsonl" | tail -1 | tee -a "$summary"
done; done
if want mixed; then
note "== 200 candidates in a row (good and bad mixed, one evaluator process)"
python3 - "$work/suite.expect" "$work/mixed200.expect" <<'PY'
import random, sys
lines = [l for l in open(sys.argv[1]) if l.strip()]
rng = random.Random(7)
mixed = [rng.choice(lines) for _ in range(200)]
open(sys.argv[2], "w").writelines(mixed)
PY
cut -d' ' -f1,2 "$work/mixed200.expect" > "$work/mixed200.batch"
t0=$(now)
timeout $(cap 600) "$eval_bin" --batch "$work/mixed200.batch" --jobs "$jobs_par" "${common[@]}" --output "$out/mixed200.jsonl" 2> "$work/mixed200.stderr"
rc=$?
note "cudaperf-eval rc=$rc; 200 candidates in $(since "$t0") s (builds cached from the suite run)"
python3 scripts/gpu/eval-check.py "$work/mixed200.expect" "$out/mixed200.jsonl" | tail -3 | tee -a "$summary"
grep FAIL <(python3 scripts/gpu/eval-check.py "$work/mixed200.expect" "$out/mixed200.jsonl") | head -20 | tee -a "$summary"

fi
note "== done"
