#!/usr/bin/env bash
# The ranking model on the GPU host (docs/ranking.md), in one command (<= 4 minutes):
#   1. builds cudaperf-rank against the host's LibTorch 2.11 and .carry/deps (no analyzer: the examples
#      come prepared, with their sources inside);
#   2. evaluates the committed checkpoints (data/ranking/checkpoints) on the CPU and on CUDA: the same
#      weights must give the same tables;
#   3. scoring throughput: bench on CUDA and on the CPU (1 and 16 threads) for mlp and tokens;
#   4. trains mlp and tokens on CUDA (the CPU's seed and epochs) and evaluates the CUDA-trained tokens
#      checkpoint on the CPU (a GPU checkpoint loads on the CPU).
# Usage: scripts/gpu/rank.sh [OUTDIR]   (default $OUT, else /tmp/rank)
# Carry: .carry/deps (scripts/pack-deps.sh) and .carry/rank (the examples, made here after `make rank`:
#   mkdir -p .carry/rank && cp build/rank/dataset-examples.jsonl build/rank/shipped-examples.jsonl .carry/rank/).
# Writes OUTDIR/{summary.txt,rank.log,bench.tar.gz,eval.tar.gz,checkpoints-gpu.tar.gz}; the summary's
# numbers go to docs/benchmarks.md ("Ranking model scoring throughput") and docs/ranking.md. Exit 1 if a step failed.
set -uo pipefail
out=${1:-${OUT:-/tmp/rank}}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
mkdir -p "$out"
work=/tmp/cudaperf-rank-gpu
rm -rf "$work" && mkdir -p "$work/logs" "$work/bench" "$work/eval" "$work/ckpt"
exec > >(tee -a "$out/rank.log") 2>&1
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
deadline=$(( $(date +%s) + ${RANK_SECONDS:-230} ))
cap() { local want=$1 l; l=$(( deadline - $(date +%s) - 10 )); [ "$l" -lt "$want" ] && want=$l; [ "$want" -lt 1 ] && want=1; echo "$want"; }
failed=0
step() { # NAME SECONDS command...: time-capped, logged, a failure noted and the rest kept going
  local name=$1 seconds=$2 rc
  shift 2
  SECONDS=0
  timeout "$(cap "$seconds")" "$@" > "$work/logs/$name.log" 2>&1
  rc=$?
  note "$name: rc=$rc in ${SECONDS} s$( [ "$rc" -eq 0 ] || echo '  <- FAILED' )"
  [ "$rc" -eq 0 ] || { failed=1; tail -5 "$work/logs/$name.log" | sed 's/^/    /' | tee -a "$summary"; }
  return "$rc"
}
pack() {
  tar -czf "$out/bench.tar.gz" -C "$work" bench 2>/dev/null
  tar -czf "$out/eval.tar.gz" -C "$work" eval logs 2>/dev/null
  tar -czf "$out/checkpoints-gpu.tar.gz" -C "$work" ckpt 2>/dev/null
}

note "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$summary"
note "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
ex=.carry/rank/dataset-examples.jsonl
shipped=.carry/rank/shipped-examples.jsonl
[ -f "$ex" ] && [ -f "$shipped" ] || { note "RESULT: FAILED (no $ex / $shipped: carry .carry/rank)"; exit 1; }

note "== build"
prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)
deps=()
[ -d .carry/deps ] && deps=(-DCUDAPERF_DEPS_PREFIX="$PWD/.carry/deps")
step configure 90 cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDAPERF_BUILD_ANALYZER=OFF \
  -DCUDAPERF_BUILD_TESTS=OFF -DCMAKE_PREFIX_PATH="$prefix" "${deps[@]}"
step build 150 cmake --build build-gpu -j "$(nproc)" --target cudaperf-rank
rank=$root/build-gpu/bin/cudaperf-rank
[ -x "$rank" ] || { note "RESULT: FAILED (no cudaperf-rank)"; pack; exit 1; }

note "== the committed checkpoints on cpu and cuda"
ckpts=()
for k in linear mlp tokens mlp-static tokens-static; do ckpts+=(--checkpoint data/ranking/checkpoints/$k); done
for dev in cpu cuda; do
  step "eval-$dev" 40 "$rank" eval --examples "$ex" --examples "$shipped" "${ckpts[@]}" --device "$dev" \
    --json "$work/eval/eval-$dev.json" --markdown "$work/eval/eval-$dev.md"
done
python3 - "$work/eval/eval-cpu.json" "$work/eval/eval-cuda.json" <<'EOF' | tee -a "$summary" || failed=1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
worst = 0.0
for sa, sb in zip(a["sets"], b["sets"]):
    for m in sa["methods"]:
        for key in ("pair_accuracy", "kendall_tau", "top1_regret"):
            x, y = sa["methods"][m][key], sb["methods"][m][key]
            if x is not None and y is not None:
                worst = max(worst, abs(x - y))
print(f"cpu vs cuda: largest metric difference {worst:.2e} ({'same' if worst < 1e-9 else 'DIFFERENT'})")
sys.exit(0 if worst < 1e-9 else 1)
EOF

note "== scoring throughput"
for k in mlp tokens; do
  step "bench-$k-cuda" 30 "$rank" bench --examples "$ex" --checkpoint data/ranking/checkpoints/$k --device cuda \
    --count 50000 --json "$work/bench/bench-$k-cuda.json"
  for t in 1 16; do
    step "bench-$k-cpu$t" 30 "$rank" bench --examples "$ex" --checkpoint data/ranking/checkpoints/$k --threads "$t" \
      --json "$work/bench/bench-$k-cpu$t.json"
  done
done

note "== training on cuda"
step train-mlp-cuda 30 "$rank" train --examples "$ex" --model mlp --device cuda --out "$work/ckpt/mlp"
step train-tokens-cuda 60 "$rank" train --examples "$ex" --model tokens --epochs 150 --validate-every 5 --device cuda \
  --tokenizer data/ranking/checkpoints/tokens/tokenizer.json --out "$work/ckpt/tokens"
step eval-gpu-trained-on-cpu 30 "$rank" eval --examples "$ex" --examples "$shipped" --checkpoint "$work/ckpt/mlp" \
  --checkpoint "$work/ckpt/tokens" --device cpu --json "$work/eval/eval-gpu-trained.json" --markdown "$work/eval/eval-gpu-trained.md"

note "== summary"
for f in "$work"/logs/train-*.log "$work"/logs/bench-*.log; do [ -f "$f" ] && grep -h "cudaperf-rank \(train\|bench\):" "$f" | tee -a "$summary"; done
pack
note "RESULT: $([ "$failed" = 0 ] && echo ok || echo 'FAILED (see above)')"
exit "$failed"
