#!/usr/bin/env bash
# The policy model against Hugging Face transformers on the GPU host, in one command (<= 9 minutes):
#   1. builds cudaperf-lm and cudaperf-train against the host's LibTorch (CUDA) and .carry/deps;
#   2. fixtures: tiny random Qwen2/Qwen3/Llama checkpoints made by transformers (fp32, bf16, sharded, tied,
#      untied, three rope types); logits fp32 <= 1e-4 and bf16 <= 2e-2, greedy 64 tokens identical, a
#      left-padded batch identical, cudaperf-written checkpoints loaded by transformers; the fixtures and
#      transformers' outputs packed for test/learn/fixtures/hf (the CPU test replays them);
#   3. speed: generated tokens/s at batch 64, cudaperf-lm against transformers' generate, same run;
#   4. memory: one training step's peak GPU memory, 0.5B/1.5B/7B/14B shapes, full fine-tuning vs LoRA.
# Usage: scripts/gpu/lm-crosscheck.sh [OUTDIR]   (default $OUT, else /tmp/lm-crosscheck)
# Carry: .carry/deps (scripts/pack-deps.sh). Environment: LM_CROSSCHECK_PARTS (default "fixtures speed
# memory"), LM_CROSSCHECK_SECONDS (default 530: the whole run's deadline).
# Writes OUTDIR/{summary.txt,lm-crosscheck.log,crosscheck.json,speed.json,memory.json,hf-fixtures.tar.gz,logs.tar.gz}.
# Commit: tar -xzf hf-fixtures.tar.gz -C test/learn/fixtures  (then ctest -R HfFixtures), and the numbers
# into docs/training.md and docs/benchmarks.md. Exit status 1 if a step failed.
set -uo pipefail
out=${1:-${OUT:-/tmp/lm-crosscheck}}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
mkdir -p "$out/logs"
exec > >(tee -a "$out/lm-crosscheck.log") 2>&1
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
deadline=$(( $(date +%s) + ${LM_CROSSCHECK_SECONDS:-530} ))
left() { echo $(( deadline - $(date +%s) )); }
cap() { local want=$1 l; l=$(( $(left) - 15 )); [ "$l" -lt "$want" ] && want=$l; [ "$want" -lt 1 ] && want=1; echo "$want"; }
parts=${LM_CROSSCHECK_PARTS:-fixtures speed memory}
failed=0

note "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$summary"
timeout 60 python3 -c "import sys, torch, transformers; print('python', sys.version.split()[0], 'torch', torch.__version__, 'transformers', transformers.__version__)" | tee -a "$summary"
note "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"

note "== build (cudaperf-lm, cudaperf-train)"
SECONDS=0
. scripts/gpu/build-gpu.sh
gpu_build "$out/logs/build.log" 120 300 cudaperf-lm cudaperf-train
rc=$?
note "build rc=$rc in ${SECONDS} s"
grep -E "error|LibTorch not found|NOT found" "$out/logs/build.log" | head -20 | tee -a "$summary"
lm=$root/build-gpu/bin/cudaperf-lm
train=$root/build-gpu/bin/cudaperf-train
if [ ! -x "$lm" ] || [ ! -x "$train" ]; then
  note "RESULT: FAILED (no binaries)"
  tar -czf "$out/logs.tar.gz" -C "$out" logs && rm -rf "$out/logs"
  exit 1
fi

if [[ " $parts " == *" fixtures "* ]]; then
  note "== fixtures and comparisons against transformers"
  SECONDS=0
  timeout "$(cap 200)" python3 scripts/gpu/lm-crosscheck.py fixtures --out "$out" --lm "$lm" 2>&1 | tail -n 30 | tee -a "$summary"
  rc=${PIPESTATUS[0]}
  note "fixtures rc=$rc in ${SECONDS} s"
  [ "$rc" -eq 0 ] || failed=1
  if [ -d "$out/fixtures/hf" ]; then
    tar -czf "$out/hf-fixtures.tar.gz" -C "$out/fixtures" hf && rm -rf "$out/fixtures"
    note "hf-fixtures.tar.gz: $(du -k "$out/hf-fixtures.tar.gz" | cut -f1) kB"
  fi
fi

if [[ " $parts " == *" speed "* ]]; then
  note "== speed: batch 64, 128 prompt + 256 new tokens, bf16"
  SECONDS=0
  timeout "$(cap 170)" python3 scripts/gpu/lm-crosscheck.py speed --out "$out" --lm "$lm" 2>&1 | tail -n 12 | tee -a "$summary"
  rc=${PIPESTATUS[0]}
  note "speed rc=$rc in ${SECONDS} s"
  [ "$rc" -eq 0 ] || failed=1
fi

if [[ " $parts " == *" memory "* ]]; then
  note "== memory fit: one training step, seq 2048, gradient checkpointing"
  SECONDS=0
  timeout "$(cap 200)" python3 scripts/gpu/lm-crosscheck.py memory --out "$out" --train "$train" 2>&1 | tail -n 12 | tee -a "$summary"
  rc=${PIPESTATUS[0]}
  note "memory rc=$rc in ${SECONDS} s"
  [ "$rc" -eq 0 ] || failed=1
fi

if [ $failed -eq 0 ]; then note "RESULT: ok"; else note "RESULT: FAILED (see above)"; fi
tar -czf "$out/logs.tar.gz" -C "$out" logs && rm -rf "$out/logs"
exit $failed
