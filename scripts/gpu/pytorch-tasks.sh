#!/usr/bin/env bash
# The PyTorch problems on the GPU host, in one command:
#   1. `make tasks`: task.json and exported/<config>.pt for every data/tasks/pytorch/*/model.py;
#   2. every generated task.json copied to OUTDIR/tasks/<name>/task.json (to commit from the dev machine);
#   3. every problem's entry point (`import-pytorch-task.py --signature`) against its baseline.cu comment;
#   4. test/tasks/check-pytorch-tasks.py on the generated files (with --validate where CUDAPERF_EVAL names
#      a cudaperf-eval binary that accepts pytorch-to-cuda tasks).
# Usage: scripts/gpu/pytorch-tasks.sh [OUTDIR]   (default $OUT, else /tmp/pytorch-tasks)
# Writes OUTDIR/{pytorch-tasks.log,summary.txt,signatures.tsv,check.txt,tasks/<name>/task.json}. About a minute;
# exit status 1 if any step failed.
set -uo pipefail
out=${1:-${OUT:-/tmp/pytorch-tasks}}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
mkdir -p "$out/tasks"
exec > >(tee -a "$out/pytorch-tasks.log") 2>&1
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
failed=0

note "== machine"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$summary"
timeout 60 python3 -c "import sys, torch; print('python', sys.version.split()[0], 'torch', torch.__version__, 'cuda', torch.version.cuda, 'device', torch.cuda.get_device_name())" | tee -a "$summary"

note "== make tasks"
SECONDS=0
timeout 110 make tasks
rc=$?
note "make tasks rc=$rc in ${SECONDS} s"
[ $rc -eq 0 ] || failed=1
copied=0
for json in data/tasks/pytorch/*/task.json; do
  [ -f "$json" ] || continue
  name=$(basename "$(dirname "$json")")
  mkdir -p "$out/tasks/$name"
  cp "$json" "$out/tasks/$name/task.json"
  copied=$((copied + 1))
done
note "task.json copied: $copied of $(ls -d data/tasks/pytorch/*/ | wc -l) problems"

note "== entry points against the baseline.cu comments"
SECONDS=0
timeout 50 python3 scripts/import-pytorch-task.py --signature data/tasks/pytorch/*/model.py > "$out/signatures.tsv"
rc=$?
note "--signature rc=$rc in ${SECONDS} s"
[ $rc -eq 0 ] || failed=1
match=0 differ=0
while IFS=$'\t' read -r name signature; do
  comment=$(sed -n 's|^//[[:space:]]*entry:[[:space:]]*||p' "data/tasks/pytorch/$name/impls/baseline.cu" | head -1)
  if [ "$(tr -d '[:space:]' <<< "$signature")" = "$(tr -d '[:space:]' <<< "$comment")" ]; then
    match=$((match + 1))
    echo "same    $name: $signature"
  else
    differ=$((differ + 1))
    note "DIFFERS $name"
    note "  generated: $signature"
    note "  baseline:  $comment"
  fi
done < "$out/signatures.tsv"
note "signatures: $match same, $differ differ"
[ $differ -eq 0 ] && [ $match -gt 0 ] || failed=1

note "== check-pytorch-tasks.py"
eval_args=()
[ -n "${CUDAPERF_EVAL:-}" ] && eval_args=(--eval "$CUDAPERF_EVAL")
timeout 60 python3 test/tasks/check-pytorch-tasks.py "${eval_args[@]}" > "$out/check.txt" 2>&1
rc=$?
cat "$out/check.txt" >> "$summary"
tail -n 40 "$out/check.txt"
[ $rc -eq 0 ] || failed=1
if [ $failed -eq 0 ]; then note "RESULT: ok"; else note "RESULT: FAILED (see above)"; fi
exit $failed
