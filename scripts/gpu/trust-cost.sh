#!/usr/bin/env bash
# The cost of the trust split (issue 33), side by side with the evaluator before it, in one device
# call on one machine:
#   1. build this tree's evaluator (build-gpu) and BASE's (default a1f14b0, a git worktree), each
#      with the PyTorch reference program, while KernelBench level-1 ReLU (4096 x 393216 fp32) is
#      imported beside the builds;
#   2. the honest red-team candidates (data/redteam/honest) in batch mode through both evaluators,
#      base first, then this tree's: outcomes and each candidate's median timing compared
#      (scripts/redteam-check.py --compare; the bar: medians within 3%);
#   3. `--serve` throughput on fresh sources of the same candidates (scripts/gpu/serve-bench.py),
#      base, this tree, base, this tree (alternating, so drift shows): candidates per minute;
#   4. KernelBench ReLU: four candidates through each evaluator; seconds per additional candidate
#      (scripts/gpu/eval-scale-report.py relu; the bar: under 1 s).
#   With COST_RELU_REUSE=N, step 4 runs this tree's evaluator a second time with --baseline-reuse N
#   (0: the baseline timed again in every worker, batch mode's default before d822d1c; 20 is the default now).
# Usage: [BASE=rev] [BASE_REPO=a git checkout holding rev | BASE_DIR=its tree] [COST_SECONDS=560] [COST_SERVE_N=60]
#        [COST_STEPS="batch serve relu"] [COST_RELU_REUSE=N] scripts/gpu/trust-cost.sh [OUTDIR]
# OUTDIR (default $OUT) gets summary.txt and trust-cost.tar.gz.
set -uo pipefail
out=${1:-${OUT:-/tmp/trust-cost}}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
work=/tmp/trust-cost-work
rm -rf "$work"
mkdir -p "$out" "$work/files"
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
exec > >(tee -a "$work/files/trust-cost.log") 2>&1
summary=$work/files/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
base=${BASE:-a1f14b0}
steps=${COST_STEPS:-"batch serve relu"}
want() { [[ " $steps " == *" $1 "* ]]; }
deadline=$((SECONDS + ${COST_SECONDS:-560}))
cap() { local l=$((deadline - SECONDS - ${2:-0})); [ "$1" -lt $l ] && l=$1; [ $l -lt 5 ] && l=5; echo $l; }
finish() {
  cp "$summary" "$out/summary.txt"
  git -C "${BASE_REPO:-$root}" worktree remove --force "$work/base" 2> /dev/null
  tar -czf "$out/trust-cost.tar.gz" -C "$work" files
  exit 0
}
trap finish EXIT
note "== machine: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); $(nproc) cores; commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (modified)'); base $base"

# KernelBench ReLU's import (PyTorch, 6.4 GB tensors) beside the builds.
kb=$work/kb/relu
bash scripts/gpu/kernelbench-relu/import.sh "$kb" "$work/files/import.log" 240 &
import_pid=$!

prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2> /dev/null)
build() { # SOURCE_DIR BUILD_DIR LOG
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDAPERF_BUILD_ANALYZER=OFF \
    -DCUDAPERF_BUILD_TORCH_REFERENCE=ON -DCMAKE_PREFIX_PATH="$prefix" > "$3" 2>&1 \
    && timeout "$(cap 200)" cmake --build "$2" -j "$(nproc)" --target cudaperf-eval cudaperf-eval-worker >> "$3" 2>&1 \
    && { timeout "$(cap 120)" cmake --build "$2" -j "$(nproc)" --target cudaperf-torch-reference >> "$3" 2>&1 \
         || echo "torch reference not built" >> "$3"; true; }
}
t0=$SECONDS
build "$root" "$root/build-gpu" "$work/files/cmake-new.log"
note "build (this tree) rc=$? in $((SECONDS - t0)) s"
t0=$SECONDS
if [ -n "${BASE_DIR:-}" ]; then # the base as a tree (git archive BASE unpacked), where the copy has no git history
  cp -r "$BASE_DIR" "$work/base" && build "$work/base" "$work/base/build-gpu" "$work/files/cmake-base.log"
else
  git -C "${BASE_REPO:-$root}" worktree add --detach "$work/base" "$base" > /dev/null 2>&1 && build "$work/base" "$work/base/build-gpu" "$work/files/cmake-base.log"
fi
note "build (base $base) rc=$? in $((SECONDS - t0)) s"
new_bin=$root/build-gpu/bin/cudaperf-eval
base_bin=$work/base/build-gpu/bin/cudaperf-eval
[ -x "$new_bin" ] && [ -x "$base_bin" ] || { note "an evaluator is missing"; exit 0; }
common=(--stall-timeout 5 --timeout 60 --budget-ms 20)

if want batch; then
note "== honest candidates in batch mode: base, then this tree"
for f in data/redteam/honest/*.cu; do echo "$root/data/tasks/$(sed -n 's|^// cudaperf-task: ||p' "$f") $root/$f"; done > "$work/honest.batch"
for side in base new; do
  bin=$new_bin; [ $side = base ] && bin=$base_bin
  t0=$SECONDS
  CUDAPERF_CACHE_DIR=/tmp/trust-cost-cache-$side timeout "$(cap 120 200)" "$bin" --batch "$work/honest.batch" --jsonl \
    "${common[@]}" --output "$work/files/batch-$side.jsonl" 2> "$work/files/batch-$side.stderr"
  note "batch $side: rc=$? in $((SECONDS - t0)) s, $(grep -c . "$work/files/batch-$side.jsonl" 2> /dev/null) results"
done
python3 scripts/redteam-check.py --compare "$work/files/batch-base.jsonl" "$work/files/batch-new.jsonl" --suite data/redteam \
  > "$work/files/compare.txt" 2>&1
tail -25 "$work/files/compare.txt" | tee -a "$summary"
fi

if want serve; then
note "== --serve on fresh sources of the honest candidates (small configuration), alternating"
for f in data/redteam/honest/*.cu; do echo "$root/data/tasks/$(sed -n 's|^// cudaperf-task: ||p' "$f") $root/$f ok"; done > "$work/serve.expect"
for round in 1 2; do
  for side in base new; do
    bin=$new_bin; [ $side = base ] && bin=$base_bin
    [ $((deadline - SECONDS)) -gt 100 ] || { note "serve $side round $round: skipped, no time left"; continue; }
    CUDAPERF_CACHE_DIR=/tmp/trust-cost-serve-$side-$round timeout "$(cap 90 60)" python3 scripts/gpu/serve-bench.py \
      --eval "$bin" --expect "$work/serve.expect" --out "$work/files" --n "${COST_SERVE_N:-60}" --seconds 70 \
      --tag "$side-$round" -- "${common[@]}" > "$work/files/serve-$side-$round.out" 2>&1
    note "serve $side round $round: rc=$? $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print({k: d.get(k) for k in ('per_minute','steady_per_minute','results','unfinished') if k in d} | {'mismatches': len(d.get('mismatches') or [])})" "$work/files/serve-$side-$round.json" 2>&1 | tail -1)"
  done
done
fi

want relu || exit 0
note "== KernelBench level-1 ReLU, 4096 x 393216 fp32: four candidates per evaluator"
wait "$import_pid"
note "import rc=$(cat "$kb/import.rc" 2> /dev/null)"
if [ -f "$kb/task.json" ]; then
  for i in 1 2 3; do { cat data/tasks/pytorch/relu/impls/baseline.cu; echo "// variant $i"; } > "$work/relu-naive-$i.cu"; done
  cp scripts/gpu/kernelbench-relu/relu_float4.cu "$work/relu-float4.cu"
  sides="base new"; [ -n "${COST_RELU_REUSE:-}" ] && sides="$sides new-reuse$COST_RELU_REUSE"
  for side in $sides; do
    bin=$new_bin; [ $side = base ] && bin=$base_bin
    reuse=(); [ $side = "new-reuse${COST_RELU_REUSE:-}" ] && reuse=(--baseline-reuse "$COST_RELU_REUSE")
    t0=$SECONDS
    CUDAPERF_CACHE_DIR=/tmp/trust-cost-relu-$side timeout "$(cap 120 5)" "$bin" "$kb" "$work/relu-naive-1.cu" "$work/relu-float4.cu" \
      "$work/relu-naive-2.cu" "$work/relu-naive-3.cu" --jsonl --timeout 300 --stall-timeout 60 --jobs 4 "${reuse[@]}" \
      --output "$work/files/relu-$side.jsonl" 2> "$work/files/relu-$side.stderr"
    note "relu $side: rc=$? in $((SECONDS - t0)) s"
    python3 scripts/gpu/eval-scale-report.py relu "$work/files/relu-$side.jsonl" 4300 2>&1 | grep -v '^NUMBERS' | tee -a "$summary"
  done
else
  note "no task.json: the import failed"; tail -20 "$work/files/import.log" | tee -a "$summary"
fi
note "== done in $SECONDS s"
