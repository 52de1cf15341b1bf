#!/usr/bin/env bash
# The PyTorch tasks of a generated dataset (cudaperf-dataset generate) need their exported TorchScript
# modules (exported/<config>.pt) before cudaperf-eval can run their reference (cudaperf-torch-reference);
# only a python3 with PyTorch and a GPU makes them (docs/pytorch-tasks.md). This exports every PyTorch task
# of DATASET's manifest, skipping those already exported from the same model.py (a kept dataset on a warm
# host costs nothing the second time), task.json checked against the generator's and left as it is.
# Without PyTorch it says so and exits 0: static-only runs (compile + analysis) do not need the exports,
# and a measured run without them gets internal_error for the kind, which stops RL (RlCommand.cpp).
# Usage: scripts/export-dataset-pytorch.sh DATASET [JOBS]   Exit: 0 done or nothing to do, 1 failures.
set -uo pipefail
dataset=${1:?usage: export-dataset-pytorch.sh DATASET [JOBS]}
jobs=${2:-$(nproc)}
root=$(cd "$(dirname "$0")/.." && pwd)
manifest=$dataset/manifest.jsonl
[ -f "$manifest" ] || { echo "export-dataset-pytorch: no $manifest" >&2; exit 1; }
list=$(mktemp)
trap 'rm -f "$list"' EXIT
python3 - "$manifest" "$dataset" > "$list" <<'PY' || exit 1
import json, os, sys
for line in open(sys.argv[1]):
    if line.strip():
        task = json.loads(line)
        if task.get("kind") == "pytorch":
            print(os.path.join(sys.argv[2], task["dir"]))
PY
count=$(wc -l < "$list")
[ "$count" -gt 0 ] || { echo "export-dataset-pytorch: no PyTorch tasks in $manifest"; exit 0; }
if ! python3 -c 'import torch' > /dev/null 2>&1; then
  echo "export-dataset-pytorch: python3 has no PyTorch: $count PyTorch tasks left without exports (fine for static-only runs)"
  exit 0
fi
python3 "$root/scripts/import-pytorch-task.py" --from-file "$list" --jobs "$jobs" --skip-done --verify-task-json --no-timing
