#!/usr/bin/env bash
# The launches of every shipped implementation (data/tasks/*/impls, data/tasks/pytorch/*/impls) at every
# configuration, as the H200 ran them: one cudaperf-eval --batch over all of them (timed briefly: the launches
# are recorded during the audit call that precedes timing), then scripts/eval-launches.py -> launches.json
# (cudaperf-launches/1), which scripts/check-task-launches.py --expected auto replays on the CPU.
# Cheaper than scripts/gpu/task-launches.sh (Nsight Compute, ~5 s per implementation): ~1-2 s each.
# Usage: scripts/gpu/shipped-launches.sh [OUTDIR]   Carry: .carry/deps.  Environment: SHIPPED_LAUNCHES_SECONDS (240).
# Writes OUTDIR/{summary.txt,launches.json,results.jsonl.gz,eval.log}. Commit launches.json and summary.txt to
# data/eval-runs/<date>-h200-launches/ (with command.txt). Exit 1 if a step failed.
set -uo pipefail
out=${1:-${OUT:-/tmp/shipped-launches}}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
export PATH=$PWD/.carry/deps/bin:/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
mkdir -p "$out"
work=/tmp/cudaperf-shipped-launches
rm -rf "$work" && mkdir -p "$work"
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
deadline=$(( $(date +%s) + ${SHIPPED_LAUNCHES_SECONDS:-240} ))
cap() { local want=$1 l; l=$(( deadline - $(date +%s) - 10 )); [ "$l" -lt "$want" ] && want=$l; [ "$want" -lt 1 ] && want=1; echo "$want"; }
note "machine: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
bin=$root/build-gpu/bin
# Incremental when another script of the call built build-gpu already; the PyTorch tasks' references
# need cudaperf-torch-reference.
SECONDS=0
. scripts/gpu/build-gpu.sh
gpu_build "$work/build.log" 60 150 cudaperf-eval cudaperf-eval-worker cudaperf-torch-reference
note "build rc=$? in ${SECONDS} s"
[ -x "$bin/cudaperf-eval" ] || { tail -20 "$work/build.log" >> "$summary"; note "RESULT: FAILED (no cudaperf-eval)"; exit 1; }
# The PyTorch tasks' exported modules (`make tasks`; git ignores them): without them their baselines are
# internal_error ("exported/small.pt: missing").
SECONDS=0
timeout "$(cap 90)" python3 scripts/import-pytorch-task.py --jobs 8 data/tasks/pytorch/*/model.py > "$work/tasks.log" 2>&1
note "make tasks (import-pytorch-task.py) rc=$? in ${SECONDS} s"
for f in data/tasks/*/impls/*.cu data/tasks/pytorch/*/impls/*.cu; do
  echo "$root/$(dirname "$(dirname "$f")") $root/$f"
done > "$work/batch.txt"
note "implementations: $(wc -l < "$work/batch.txt")"
SECONDS=0
CUDAPERF_CACHE_DIR=$work/cache timeout "$(cap 200)" "$bin/cudaperf-eval" --batch "$work/batch.txt" --jobs 8 --sets 1 \
  --budget-ms 20 --timeout 60 --jsonl --output "$work/results.jsonl" > "$out/eval.log" 2>&1
note "cudaperf-eval rc=$? in ${SECONDS} s: $(wc -l < "$work/results.jsonl" 2>/dev/null || echo 0) results"
python3 -c "
import collections, json, sys
c = collections.Counter(json.loads(l)['outcome'] for l in open(sys.argv[1]) if l.strip())
print('outcomes:', dict(c))" "$work/results.jsonl" 2>&1 | tee -a "$summary"
python3 scripts/eval-launches.py "$work/results.jsonl" --out "$out/launches.json" \
  --command "scripts/gpu/shipped-launches.sh (cudaperf-eval --batch --jobs 8 --sets 1 --budget-ms 20)" 2>&1 | tee -a "$summary"
rc=${PIPESTATUS[0]}
gzip -c "$work/results.jsonl" > "$out/results.jsonl.gz" 2>/dev/null
if [ "$rc" -eq 0 ]; then note "RESULT: ok"; else note "RESULT: FAILED (launches.json)"; exit 1; fi
