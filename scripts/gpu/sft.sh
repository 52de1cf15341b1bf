#!/usr/bin/env bash
# `make sft` on the GPU host, in one command (<= 9 minutes):
#   1. builds cudaperf-dataset, cudaperf-train, cudaperf-lm, cudaperf-eval (+ worker) against the host's
#      LibTorch and .carry/deps;
#   2. generates the dataset (all kinds; C tasks are evaluated below);
#   3. trains the BPE tokenizer and the ~23M-parameter policy on the train split (cudaperf-train sft,
#      bf16 with fp32 masters; the training time is what the deadline leaves after sampling and evaluation);
#   4. samples candidates at temperature 0.8 for held-out (test split) C tasks of the training families
#      (cudaperf-train sample) and evaluates them with cudaperf-eval (compile and correct rates);
#   5. packs the checkpoint (bf16 shards <= 15 MB each) and the report.
# Usage: scripts/gpu/sft.sh [OUTDIR]   (default $OUT, else /tmp/sft)
# Carry: .carry/deps (scripts/pack-deps.sh). Environment: SFT_SECONDS (whole-run deadline, default 530),
# SFT_EVAL_TASKS (default 32), SFT_SAMPLES_PER_TASK (default 3), SFT_SEED (default 0), SFT_ARGS (extra
# cudaperf-train sft options; default "--epochs 12": the time budget ends it first), SFT_CHECKPOINT (a
# checkpoint carried here, e.g. data/models/sft: no training, steps 4-5 only on it), SFT_SAMPLE_BATCH (rows
# generated together, default: all samples in one batch).
# Writes OUTDIR/{summary.txt,sft.log,report.tar.gz,checkpoint-meta.tar.gz,model-0000k-of-0000n.safetensors}.
# To commit / carry back for RL: mkdir -p data/models/sft && tar -xzf checkpoint-meta.tar.gz -C data/models/sft
# && cp model-*.safetensors data/models/sft/ ; the numbers go to docs/training.md. Exit 1 if a step failed.
set -uo pipefail
out=${1:-${OUT:-/tmp/sft}}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
mkdir -p "$out"
work=/tmp/cudaperf-sft
rm -rf "$work" && mkdir -p "$work/logs"
exec > >(tee -a "$out/sft.log") 2>&1
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
deadline=$(( $(date +%s) + ${SFT_SECONDS:-530} ))
left() { echo $(( deadline - $(date +%s) )); }
cap() { local want=$1 l; l=$(( $(left) - 15 )); [ "$l" -lt "$want" ] && want=$l; [ "$want" -lt 1 ] && want=1; echo "$want"; }
seed=${SFT_SEED:-0}
failed=0
pack() {
  cp "$work"/logs/* "$out/" 2>/dev/null
  local files=()
  for f in sft-report.json train-log.jsonl loss.svg sample-summary.json samples.jsonl eval.jsonl sft-eval.json \
           outcomes.jsonl per-family.txt \
           build.log dataset.log train.log sample.log eval.log; do
    [ -f "$out/$f" ] && files+=("$f")
  done
  [ ${#files[@]} -gt 0 ] && tar -czf "$out/report.tar.gz" -C "$out" "${files[@]}" && (cd "$out" && rm -f "${files[@]}")
}

note "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$summary"
note "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"

note "== build"
SECONDS=0
. scripts/gpu/build-gpu.sh
gpu_build "$work/logs/build.log" 120 300 cudaperf-dataset cudaperf-train cudaperf-lm cudaperf-eval cudaperf-eval-worker
rc=$?
note "build rc=$rc in ${SECONDS} s"
grep -E "error|NOT found|unknown target" "$work/logs/build.log" | head -20 | tee -a "$summary"
bin=$root/build-gpu/bin
for b in cudaperf-dataset cudaperf-train cudaperf-eval; do
  [ -x "$bin/$b" ] || { note "RESULT: FAILED (no $b)"; pack; exit 1; }
done

note "== dataset"
SECONDS=0
timeout "$(cap 150)" "$bin/cudaperf-dataset" generate --out "$work/dataset" --kind all --jobs "$(nproc)" \
  > "$work/logs/dataset.log" 2>&1
rc=$?
note "cudaperf-dataset generate rc=$rc in ${SECONDS} s: $(wc -l < "$work/dataset/manifest.jsonl" 2>/dev/null || echo 0) tasks"
[ "$rc" -eq 0 ] || { note "RESULT: FAILED (dataset)"; pack; exit 1; }

if [ -n "${SFT_CHECKPOINT:-}" ]; then
  ckpt=$(cd "$SFT_CHECKPOINT" 2>/dev/null && pwd)
  [ -f "$ckpt/config.json" ] || { note "RESULT: FAILED (no checkpoint in $SFT_CHECKPOINT)"; pack; exit 1; }
  note "== checkpoint $SFT_CHECKPOINT (no training)"
else
  note "== train (cudaperf-train sft)"
  # What sampling, evaluation and packing need after training (measured on the H200: ~3 minutes).
  reserve=${SFT_RESERVE_SECONDS:-190}
  train_seconds=$(( $(left) - reserve ))
  [ "$train_seconds" -gt 360 ] && train_seconds=360
  if [ "$train_seconds" -lt 60 ]; then note "RESULT: FAILED (only ${train_seconds} s left to train)"; pack; exit 1; fi
  SECONDS=0
  # shellcheck disable=SC2086
  timeout $(( train_seconds + 90 )) "$bin/cudaperf-train" sft --dataset "$work/dataset" --out "$work/sft" \
    --device cuda --max-seconds "$train_seconds" --seed "$seed" ${SFT_ARGS:---epochs 12} > "$work/logs/train.log" 2>&1
  rc=$?
  note "cudaperf-train sft rc=$rc in ${SECONDS} s (training budget ${train_seconds} s)"
  grep -E "training examples|tokenizer of|encoded|new Qwen2|planned|allows|steps in" "$work/logs/train.log" | tee -a "$summary"
  cp "$work/sft/sft-report.json" "$work/sft/train-log.jsonl" "$work/sft/loss.svg" "$out/" 2>/dev/null
  [ -f "$work/sft/checkpoint/config.json" ] || { note "RESULT: FAILED (no checkpoint)"; pack; exit 1; }
  ckpt=$work/sft/checkpoint
fi

note "== sample held-out C tasks of the training families (temperature 0.8)"
SECONDS=0
timeout "$(cap ${SFT_SAMPLE_SECONDS:-120})" "$bin/cudaperf-train" sample --model "$ckpt" --dataset "$work/dataset" \
  --out "$work/samples" --kinds c --tasks "${SFT_EVAL_TASKS:-32}" --per-task "${SFT_SAMPLES_PER_TASK:-3}" \
  --temperature 0.8 --max-new-tokens 1536 --seed "$seed" \
  --batch "${SFT_SAMPLE_BATCH:-$(( ${SFT_EVAL_TASKS:-32} * ${SFT_SAMPLES_PER_TASK:-3} ))}" > "$work/logs/sample.log" 2>&1
rc=$?
note "cudaperf-train sample rc=$rc in ${SECONDS} s"
tail -n 2 "$work/logs/sample.log" | tee -a "$summary"
cp "$work/samples/samples.jsonl" "$work/samples/sample-summary.json" "$out/" 2>/dev/null
[ "$rc" -eq 0 ] || failed=1

note "== evaluate (cudaperf-eval, correctness without timing)"
SECONDS=0
if [ -s "$work/samples/batch.txt" ]; then
  CUDAPERF_CACHE_DIR=$work/cache timeout "$(cap 150)" "$bin/cudaperf-eval" --batch "$work/samples/batch.txt" \
    --jobs 12 --no-timing --sets 2 --timeout 30 --stall-timeout 10 --jsonl --output "$out/eval.jsonl" \
    > "$work/logs/eval.log" 2>&1
  rc=$?
  note "cudaperf-eval rc=$rc in ${SECONDS} s: $(wc -l < "$out/eval.jsonl" 2>/dev/null || echo 0) results"
else
  note "no candidate to evaluate"
  failed=1
fi
python3 scripts/sft-eval-tables.py "$out/samples.jsonl" "$out/eval.jsonl" "$out" | tee -a "$summary"

note "== pack"
if [ -z "${SFT_CHECKPOINT:-}" ]; then
meta=()
for f in config.json model.safetensors.index.json tokenizer.json tokenizer_config.json; do [ -f "$ckpt/$f" ] && meta+=("$f"); done
tar -czf "$out/checkpoint-meta.tar.gz" -C "$ckpt" "${meta[@]}"
cp "$ckpt"/model*.safetensors "$out/"
fi
ls -l "$out" | tee -a "$summary"
pack
if [ $failed -eq 0 ]; then note "RESULT: ok"; else note "RESULT: FAILED (see above)"; fi
exit $failed
