#!/usr/bin/env bash
# RL step throughput on the GPU host (issue 34 item 3; docs/training.md, "RL step throughput"), in one
# device call (<= 540 s):
#   1. builds cudaperf-dataset, cudaperf-train, cudaperf-eval (+ worker) against the host's LibTorch;
#   2. the dataset (sft.sh's when it ran earlier in the session, else generated);
#   3. the SFT checkpoint: RLT_SFT_DIR, else /tmp/cudaperf-sft's, else data/models/sft, else a short
#      cudaperf-train sft (RLT_SFT_SECONDS, default 90);
#   4. cudaperf-train rl --config data/rl/h200.json --set tasks_per_step=8 --set group_size=8 for RLT_STEPS
#      steps (default 4), no held-out evaluation, static-only unless RLT_MEASURED=1;
#   5. prints every step's seconds per phase (prompt, generate, extract, reward_wait, evaluate, rank,
#      score, update), its counts (candidates, unique, reused, evaluated, ranked, scorer calls, tokens) and
#      the run's means with the generation tokens/s; then, when time is left, transformers' generate on
#      the same checkpoint and GPU (batch 64, sampling) for comparison.
# Usage: scripts/gpu/rl-throughput.sh [OUTDIR]   (default $OUT, else /tmp/rl-throughput)
# Carry: .carry/deps (scripts/pack-deps.sh); .carry/analyzer (optional: the static terms and the ranker).
# Environment: RLT_SECONDS (whole-run deadline, default 530), RLT_STEPS (4), RLT_SFT_DIR, RLT_SFT_SECONDS (90),
# RLT_MEASURED (0: static-only rewards, compile + analysis; 1: measured with cudaperf-eval), RLT_SET (extra
# "--set K=V ..."), RLT_ARMS ("K=V[,K=V] ...": one RL run per arm in the same call, e.g.
# "overlap_steps=0 overlap_steps=1"), RLT_HF (1: the transformers comparison when >= 70 s are left).
# Writes OUTDIR/{summary.txt,rl-throughput.log,throughput.json (throughput-I.json per arm),rl-run.tar.gz} (at most 8 files).
# The numbers go to docs/benchmarks.md and docs/training.md ("RL step throughput"). Exit 1 if a step failed.
set -uo pipefail
out=${1:-${OUT:-/tmp/rl-throughput}}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
export PATH=$PWD/.carry/deps/bin:/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
mkdir -p "$out"
work=/tmp/cudaperf-rl-throughput
rm -rf "$work" && mkdir -p "$work/logs"
exec > >(tee -a "$out/rl-throughput.log") 2>&1
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
deadline=$(( $(date +%s) + ${RLT_SECONDS:-530} ))
left() { echo $(( deadline - $(date +%s) )); }
cap() { local want=$1 l; l=$(( $(left) - 15 )); [ "$l" -lt "$want" ] && want=$l; [ "$want" -lt 1 ] && want=1; echo "$want"; }
steps=${RLT_STEPS:-4}
case $steps in ''|*[!0-9]*) echo "RLT_STEPS: expected a whole number, got '$steps'" >&2; exit 2 ;; esac
failed=0
pack() {
  local files=()
  for f in build.log dataset.log export.log sft.log hf.log; do [ -f "$work/logs/$f" ] && files+=("logs/$f"); done
  for r in "$work"/run "$work"/run-*; do
    [ -d "$r" ] || continue
    r=${r#"$work"/}
    for f in rl-config.json rl-log.jsonl rl-report.json train.log; do [ -f "$work/$r/$f" ] && files+=("$r/$f"); done
    [ -f "$work/$r/candidates.jsonl" ] && gzip -c "$work/$r/candidates.jsonl" > "$work/$r/candidates.jsonl.gz" &&
      files+=("$r/candidates.jsonl.gz")
  done
  [ ${#files[@]} -gt 0 ] && tar -czf "$out/rl-run.tar.gz" -C "$work" "${files[@]}"
}

note "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1 | tee -a "$summary"
note "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown); $(nproc) cores"

note "== build"
SECONDS=0
. scripts/gpu/build-gpu.sh
# cudaperf-torch-reference: the pytorch-to-cuda tasks' reference (without it every PyTorch candidate is internal_error)
gpu_build "$work/logs/build.log" 120 300 cudaperf-dataset cudaperf-train cudaperf-eval cudaperf-eval-worker cudaperf-torch-reference
rc=$?
note "build rc=$rc in ${SECONDS} s"
grep -E "error|NOT found|unknown target" "$work/logs/build.log" | head -20 | tee -a "$summary"
bin=$root/build-gpu/bin
for b in cudaperf-train cudaperf-eval; do
  [ -x "$bin/$b" ] || { note "RESULT: FAILED (no $b)"; pack; exit 1; }
done

note "== dataset"
dataset=/tmp/cudaperf-sft/dataset
if [ ! -f "$dataset/manifest.jsonl" ]; then
  dataset=$work/dataset
  SECONDS=0
  timeout "$(cap 150)" "$bin/cudaperf-dataset" generate --out "$dataset" --kind all --jobs "$(nproc)" > "$work/logs/dataset.log" 2>&1
  note "cudaperf-dataset generate rc=$? in ${SECONDS} s"
fi
[ -f "$dataset/manifest.jsonl" ] || { note "RESULT: FAILED (no dataset)"; pack; exit 1; }
note "dataset: $dataset ($(wc -l < "$dataset/manifest.jsonl") tasks)"
# The PyTorch tasks' exported modules (the evaluator's reference for them; without them every PyTorch
# candidate that compiles gets internal_error: the void arm of 2026-12-07). Kept with a kept dataset.
SECONDS=0
timeout "$(cap 180)" bash scripts/export-dataset-pytorch.sh "$dataset" "$(nproc)" > "$work/logs/export.log" 2>&1
note "PyTorch exports rc=$? in ${SECONDS} s: $(grep -c '^error' "$work/logs/export.log") failures; $(tail -1 "$work/logs/export.log")"

note "== SFT checkpoint"
sft=${RLT_SFT_DIR:-}
[ -z "$sft" ] && [ -f /tmp/cudaperf-sft/sft/checkpoint/config.json ] && sft=/tmp/cudaperf-sft/sft/checkpoint
[ -z "$sft" ] && [ -f "$root/data/models/sft/config.json" ] && sft=$root/data/models/sft
if [ -z "$sft" ]; then
  sft_seconds=${RLT_SFT_SECONDS:-90}
  SECONDS=0
  timeout "$(cap $(( sft_seconds + 60 )))" "$bin/cudaperf-train" sft --dataset "$dataset" --out "$work/sft" --device cuda \
    --max-seconds "$sft_seconds" --seed 0 --epochs 12 > "$work/logs/sft.log" 2>&1
  note "cudaperf-train sft rc=$? in ${SECONDS} s (${sft_seconds} s of training)"
  sft=$work/sft/checkpoint
fi
[ -f "$sft/config.json" ] && [ -f "$sft/tokenizer.json" ] || { note "RESULT: FAILED (no SFT checkpoint in $sft)"; pack; exit 1; }
note "SFT checkpoint: $sft"
analyzer=none
if [ -d .carry/analyzer ]; then
  bash scripts/gpu/unpack-analyzer.sh .carry/analyzer /tmp/cudaperf-analyzer > "$work/logs/analyzer-unpack.log" 2>&1 ||
    note "analyzer package unusable: $(tail -1 "$work/logs/analyzer-unpack.log")"
fi
[ -x /tmp/cudaperf-analyzer/cudaperf-analyze ] && analyzer=/tmp/cudaperf-analyzer/cudaperf-analyze
note "analyzer: $analyzer$( [ "$analyzer" = none ] && echo ' (no static terms, no ranker)')"
evaluator=process
"$bin/cudaperf-eval" --help 2>&1 | grep -q -- "--serve" && evaluator=serve
static=true
[ "${RLT_MEASURED:-0}" = 1 ] && static=false
# As rl.sh: --jobs only for the persistent evaluator.
eval_args='["--sets","2","--budget-ms","40","--timeout","30","--stall-timeout","10"]'
[ "$evaluator" = serve ] && eval_args='["--jobs","12","--sets","2","--budget-ms","40","--timeout","30","--stall-timeout","10"]'

# Arms: RLT_ARMS="K=V[,K=V...] ..." runs RL once per arm (the same checkpoint, dataset and builds; the
# time left split evenly), each with its own run folder and throughput file; default one arm.
read -r -a arms <<< "${RLT_ARMS:-}"
[ ${#arms[@]} -eq 0 ] && arms=("")
note "== RL: ${steps} steps of 8 tasks x G = 8 (static_only=$static, evaluator $evaluator), ${#arms[@]} arm(s)"
rl_total=$(( $(left) - 40 ))
[ "${RLT_HF:-1}" = 1 ] && rl_total=$(( rl_total - 70 ))
for i in "${!arms[@]}"; do
  arm=${arms[$i]}
  run=$work/run; tp=$out/throughput.json
  [ ${#arms[@]} -gt 1 ] && run=$work/run-$i && tp=$out/throughput-$i.json
  arm_set=()
  IFS=, read -r -a kvs <<< "$arm"
  for kv in "${kvs[@]}"; do [ -n "$kv" ] && arm_set+=(--set "$kv"); done
  rl_cap=$(( rl_total / (${#arms[@]} - i) ))
  [ "$rl_cap" -gt $(( $(left) - 40 )) ] && rl_cap=$(( $(left) - 40 ))
  [ "$rl_cap" -lt 60 ] && { note "RESULT: FAILED (only ${rl_cap} s left for RL arm '$arm')"; failed=1; break; }
  mkdir -p "$run"
  note "-- arm $i: '${arm:-as configured}' (cap ${rl_cap} s)"
  SECONDS=0
  # max_seconds stops the loop in time (the report and per-step lines are still written).
  # shellcheck disable=SC2086
  CUDAPERF_CACHE_DIR=$work/cache-$i timeout --kill-after=10 "$rl_cap" "$bin/cudaperf-train" rl --config data/rl/h200.json \
    --out "$run" --set model="$sft" --set dataset="$dataset" --set steps="$steps" --set max_seconds=$(( rl_cap - 45 )) \
    --set tasks_per_step=8 --set group_size=8 --set eval_tasks=0 --set eval_held_out_family_tasks=0 --set save_every=1000 \
    --set static_only="$static" --set evaluator="$evaluator" --set eval_path="$bin/cudaperf-eval" \
    --set analyzer_path="$analyzer" --set reward_jobs=12 \
    --set eval_args="$eval_args" \
    ${RLT_SET:-} "${arm_set[@]}" > "$run/train.log" 2>&1
  rc=$?
  rl_total=$(( rl_total - SECONDS ))
  note "cudaperf-train rl rc=$rc in ${SECONDS} s"
  grep -E "environment:|per step|steps \(" "$run/train.log" | tail -4 | tee -a "$summary"
  [ "$rc" -eq 0 ] || { failed=1; tail -8 "$run/train.log" | tee -a "$summary"; }

  note "== per step, arm $i (seconds per phase; counts)"
  python3 scripts/gpu/rl-throughput-table.py "$run" "$tp" 2>&1 | tee -a "$summary"
  [ "${PIPESTATUS[0]}" -eq 0 ] || failed=1
done

if [ "${RLT_HF:-1}" = 1 ] && [ "$(left)" -ge 70 ]; then
  note "== transformers generate on the same checkpoint (batch 64, 256 new tokens, sampling, bf16)"
  timeout "$(cap 90)" python3 scripts/gpu/hf-generate.py "$sft" --batch 64 --prompt 512 --new 256 \
    --merge "$out/throughput.json" > "$work/logs/hf.log" 2>&1
  note "transformers rc=$?: $(tail -1 "$work/logs/hf.log")"
fi

pack
ls -l "$out" | tee -a "$summary"
if [ $failed -eq 0 ]; then note "RESULT: ok"; else note "RESULT: FAILED (see above)"; fi
exit $failed
