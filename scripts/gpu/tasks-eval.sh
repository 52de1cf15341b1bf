#!/usr/bin/env bash
# On the GPU host: builds cudaperf-eval with its worker (CUPTI counters) and cudaperf-torch-reference
# (the GPU host's LibTorch), then evaluates every implementation of every task (data/tasks/*/impls and
# data/tasks/pytorch/*/impls) with --counters, in one evaluator process.
# pytorch-to-cuda tasks need their task.json and exported modules: run `make tasks` first
# (scripts/gpu/pytorch-tasks.sh does).
# Usage: scripts/gpu/tasks-eval.sh [OUTDIR]   (default $OUT, else /tmp/tasks-eval)
# Writes OUTDIR/{tasks-eval.log,summary.txt,build.log,tasks-eval.jsonl}. Environment: TASKS_EVAL_SECONDS
# (default 300) bounds the evaluation; TASKS_EVAL_FILTER (a regex on the candidate path) selects.
set -uo pipefail
out=${1:-${OUT:-/tmp/tasks-eval}}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
mkdir -p "$out"
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
exec > >(tee -a "$out/tasks-eval.log") 2>&1
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }

note "== build (runtime, worker with CUPTI, torch reference)"
SECONDS=0
prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)
timeout 200 cmake -S . -B build-gpu -G Ninja -DCUDAPERF_BUILD_ANALYZER=OFF -DCUDAPERF_BUILD_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=Release -DCUDAPERF_BUILD_TORCH_REFERENCE=ON -DCMAKE_PREFIX_PATH="$prefix" > "$out/build.log" 2>&1 &&
  timeout 300 cmake --build build-gpu -j "$(nproc)" --target cudaperf-eval cudaperf-eval-worker \
    cudaperf-torch-reference >> "$out/build.log" 2>&1
rc=$?
note "build rc=$rc in ${SECONDS} s"
grep -E "error|LibTorch not found" "$out/build.log" | head -20 | tee -a "$summary"
[ -x build-gpu/bin/cudaperf-eval ] || exit 1

batch=/tmp/tasks-eval.batch
: > "$batch"
for impl in data/tasks/*/impls/*.cu data/tasks/pytorch/*/impls/*.cu; do
  task=$(dirname "$(dirname "$impl")")
  [ -f "$task/task.json" ] || { note "no task.json: $task"; continue; }
  [[ -n "${TASKS_EVAL_FILTER:-}" && ! "$impl" =~ ${TASKS_EVAL_FILTER} ]] && continue
  echo "$root/$task $root/$impl" >> "$batch"
done
note "== evaluate $(wc -l < "$batch") implementations with --counters"
SECONDS=0
CUDAPERF_CACHE_DIR=/tmp/cudaperf-cache timeout "${TASKS_EVAL_SECONDS:-300}" build-gpu/bin/cudaperf-eval \
  --batch "$batch" --jobs 8 --counters --stall-timeout 20 --timeout 120 --budget-ms 20 --jsonl --summary \
  --output "$out/tasks-eval.jsonl" 2> "$out/tasks-eval.stderr"
note "cudaperf-eval rc=$? in ${SECONDS} s"
tail -60 "$out/tasks-eval.stderr" | tee -a "$summary" > /dev/null
python3 - "$out/tasks-eval.jsonl" <<'PY' | tee -a "$summary"
import collections, json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
outcomes = collections.Counter(r["outcome"] for r in rows)
print("results: %d; outcomes: %s" % (len(rows), dict(outcomes)))
for r in rows:
    cfgs = r.get("configs") or []
    ctr = [c.get("counters") for c in cfgs if c.get("counters")]
    avail = sum(1 for c in ctr if c.get("available"))
    kernels = sum(len(c.get("kernels") or []) for c in ctr if c.get("available"))
    reason = next((c.get("reason") for c in ctr if not c.get("available")), "")
    sp = r.get("speedup")
    print("%-12s %-28s %-24s speedup %-7s counters %d/%d configs, %d kernels %s %s" % (
        r["outcome"], r.get("task", "?"), r["candidate"].split("/")[-1], "%.2f" % sp if sp else "-",
        avail, len(cfgs), kernels, reason[:80], ("| " + r.get("detail", "")[:150]) if r["outcome"] != "ok" else ""))
PY
