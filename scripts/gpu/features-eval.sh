#!/usr/bin/env bash
# The measured side of cudaperf-features (docs/features.md) on the GPU host, in one command: every
# task implementation (data/tasks/*/impls, data/tasks/pytorch/*/impls) evaluated with --counters, so
# that each has a stored result to join the analyzer's --task launches with (ctest features-shipped).
#   1. `make tasks`: the PyTorch problems' exported modules (cudaperf-torch-reference needs them);
#   2. scripts/gpu/tasks-eval.sh: builds cudaperf-eval, its worker (CUPTI) and the torch reference,
#      and evaluates every implementation in one evaluator process;
#   3. a summary: implementations without a result, configurations with counters and with the
#      worker's launch list (configs[].launches, where the worker records it).
# Usage (repository root, GPU host; nothing to carry): scripts/gpu/features-eval.sh [OUTDIR]
#   (default $OUT, else /tmp/features-eval). About 6 minutes; every step is time-capped.
# Writes OUTDIR/{features-eval.log,summary.txt,tasks-eval.jsonl,tasks-eval.log,build.log,make-tasks.log}.
# Commit tasks-eval.jsonl and summary.txt as data/eval-runs/<date>-h200-features/.
set -uo pipefail
out=${1:-${OUT:-/tmp/features-eval}}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
mkdir -p "$out"
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
exec > >(tee -a "$out/features-eval.log") 2>&1
log() { echo "[${SECONDS}s] $*"; }

log "== machine"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1

log "== 1. make tasks (exported PyTorch modules)"
timeout 110 make tasks > "$out/make-tasks.log" 2>&1
log "make tasks rc=$?"

log "== 2. evaluate every implementation with --counters"
# tasks-eval.sh writes tasks-eval.jsonl, tasks-eval.log, build.log and its summary.txt into $out.
TASKS_EVAL_SECONDS=${FEATURES_EVAL_SECONDS:-270} timeout 420 scripts/gpu/tasks-eval.sh "$out" > /dev/null 2>&1
log "tasks-eval.sh rc=$?"

log "== 3. summary"
timeout 60 python3 - "$out/tasks-eval.jsonl" "$root" <<'PY' | tee -a "$out/summary.txt"
import glob, json, os, sys
path, root = sys.argv[1], sys.argv[2]
rows = [json.loads(l) for l in open(path) if l.strip()] if os.path.exists(path) else []
have = {"data/tasks/" + r["candidate"].split("/data/tasks/")[1] for r in rows if "/data/tasks/" in r["candidate"]}
impls = sorted(os.path.relpath(p, root) for p in glob.glob(root + "/data/tasks/*/impls/*.cu") +
               glob.glob(root + "/data/tasks/pytorch/*/impls/*.cu"))
configs = [c for r in rows for c in r.get("configs") or []]
counters = sum(1 for c in configs if (c.get("counters") or {}).get("available"))
launches = sum(1 for c in configs if "launches" in c)
print("features-eval: %d of %d implementations with a result; %d configurations, %d with counters, "
      "%d with a launch list" % (len(have), len(impls), len(configs), counters, launches))
for p in impls:
    if p not in have:
        print("  no result: " + p)
PY
log "done"
