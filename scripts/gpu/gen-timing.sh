#!/usr/bin/env bash
# Where the policy's sampling time goes on the GPU host (issue 20: RL rollouts sampled ~30x below the
# batch-64 benchmark), in one command (<= 4 minutes):
#   1. builds cudaperf-lm, cudaperf-train and cudaperf-dataset against the host's LibTorch;
#   2. cudaperf-lm generate on the carried checkpoint (data/models/sft) at batch 96, 32 and 1, random
#      prompts of 128 and 1,500 tokens, 256 new tokens, EOS ignored, twice per process (the second run
#      meets shapes the first has seen): first_token_seconds (prompt forward + first pick) and
#      decode_seconds_per_step; one of them again with cuDNN's attention allowed (CUDAPERF_SDPA_CUDNN=1);
#   2b. 16 left-padded rows of 300-1,800 tokens (an RL step's batch shape: the attention mask path),
#       then with random rank-16 LoRA adapters, merged copies against the adapter path;
#   3. the same sampling as scripts/gpu/sft.sh step 4 (32 held-out tasks x 3, temperature 0.8, 1,536 new
#      tokens at most), with the timing keys of sample-summary.json;
#   4. where nsys exists, a profile of one decode-heavy run (kernel time against CUDA API time).
# Usage: scripts/gpu/gen-timing.sh [OUTDIR]   Carry: .carry/deps, data/models/sft.
# Environment: GEN_TIMING_SECONDS (whole-run deadline, default 230).
# Writes OUTDIR/{summary.txt,gen-timing.json,logs.tar.gz}. Commit to data/eval-runs/<date>-h200-gen/.
set -uo pipefail
out=${1:-${OUT:-/tmp/gen-timing}}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
mkdir -p "$out"
work=/tmp/cudaperf-gen-timing
rm -rf "$work" && mkdir -p "$work/logs"
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
deadline=$(( $(date +%s) + ${GEN_TIMING_SECONDS:-230} ))
left() { echo $(( deadline - $(date +%s) )); }
cap() { local want=$1 l; l=$(( $(left) - 10 )); [ "$l" -lt "$want" ] && want=$l; [ "$want" -lt 1 ] && want=1; echo "$want"; }
pack() { tar -czf "$out/logs.tar.gz" -C "$work" logs $( [ -d "$work/samples" ] && echo samples/sample-summary.json ) 2>/dev/null; }

note "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$summary"
note "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
SECONDS=0
. scripts/gpu/build-gpu.sh
gpu_build "$work/logs/build.log" 120 200 cudaperf-lm cudaperf-train cudaperf-dataset
rc=$?
note "build rc=$rc in ${SECONDS} s"
bin=$root/build-gpu/bin
[ -x "$bin/cudaperf-lm" ] || { note "RESULT: FAILED (no cudaperf-lm)"; pack; exit 1; }

model=(--model data/models/sft)
[ -f data/models/sft/model.safetensors.index.json ] || { note "RESULT: FAILED (carry data/models/sft)"; pack; exit 1; }

: > "$work/runs.jsonl"
# timed_generate NAME LABEL_JSON [ENV=V ...] -- [generate options]: one cudaperf-lm generate of 256 tokens,
# twice in one process, noted in the summary and appended to runs.jsonl as LABEL_JSON plus its "runs".
timed_generate() {
  local name=$1 label=$2 envs=()
  shift 2
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  local log=$work/logs/generate-$name.log
  env "${envs[@]}" timeout "$(cap 60)" "$bin/cudaperf-lm" generate "${model[@]}" --device cuda --max-new-tokens 256 \
    --ignore-eos --temperature 0.8 --repeat 2 --quiet "$@" > "$log" 2>&1
  note "generate $name: rc=$? $(grep -o '"runs":\[.*\]' "$log" | tail -1 | cut -c1-400)"
  python3 - "$log" "$label" >> "$work/runs.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    if line.startswith('{"schema":"cudaperf-generation/1"'):
        print(json.dumps(dict(json.loads(sys.argv[2]), runs=json.loads(line)["runs"])))
PY
}

# "cudnn": the same run with cuDNN's attention allowed (CUDAPERF_SDPA_CUDNN=1, LibTorch's own choice),
# the baseline of lib/Learn's default (off) in the same call.
for spec in "96 1500 off" "96 1500 cudnn" "1 128 off" "32 1500 off" "96 128 off"; do
  set -- $spec
  [ "$(left)" -lt 45 ] && break
  timed_generate "b$1-l$2-$3" "{\"batch\": $1, \"prompt_tokens\": $2, \"cudnn_attention\": $([ "$3" = cudnn ] && echo true || echo false)}" \
    CUDAPERF_SDPA_CUDNN=$([ "$3" = cudnn ] && echo 1 || echo 0) -- --batch "$1" --random-prompt-length "$2"
done

# Left-padded: 16 rows of 300 to 1,900 random token ids, the shape of an RL step's batch (mask path);
# then the RL policy's shape of adapters (random, rank 16, every projection): merged copies (the default)
# against the adapter path (three products per projection), in one call.
python3 - "$work/padded.jsonl" <<'PY'
import json, random, sys
r = random.Random(0)
with open(sys.argv[1], "w") as f:
    for i in range(16):
        f.write(json.dumps({"ids": [r.randrange(4, 1800) for _ in range(300 + i * 100)]}) + "\n")
PY
padded='"batch": 16, "prompt_tokens": "300-1800 (left-padded)", "cudnn_attention": false'
[ "$(left)" -ge 45 ] && timed_generate padded16 "{$padded}" -- --prompts-file "$work/padded.jsonl"
for merge in on off; do
  [ "$(left)" -lt 45 ] && break
  timed_generate "padded16-lora-$merge" "{$padded, \"lora_rank\": 16, \"lora_merge\": $([ "$merge" = on ] && echo true || echo false)}" \
    -- --prompts-file "$work/padded.jsonl" --random-lora 16 --lora-merge "$merge"
done

if [ "$(left)" -gt 60 ]; then
  SECONDS=0
  timeout "$(cap 60)" "$bin/cudaperf-dataset" generate --out "$work/dataset" --kind c --jobs "$(nproc)" \
    > "$work/logs/dataset.log" 2>&1
  note "dataset rc=$? in ${SECONDS} s"
  SECONDS=0
  timeout "$(cap 120)" "$bin/cudaperf-train" sample "${model[@]}" --dataset "$work/dataset" --out "$work/samples" \
    --kinds c --tasks 32 --per-task 3 --temperature 0.8 --max-new-tokens 1536 --seed 0 --batch 96 \
    > "$work/logs/sample.log" 2>&1
  note "cudaperf-train sample rc=$? in ${SECONDS} s"
  tail -n 3 "$work/logs/sample.log" | tee -a "$summary"
  cat "$work/samples/sample-summary.json" 2>/dev/null | tee -a "$summary"
fi

if command -v nsys > /dev/null && [ "$(left)" -gt 60 ]; then
  SECONDS=0
  timeout "$(cap 60)" nsys profile -o "$work/logs/decode" --force-overwrite true --stats=true \
    "$bin/cudaperf-lm" generate "${model[@]}" --device cuda --batch 96 --random-prompt-length 1500 \
    --max-new-tokens 64 --ignore-eos --quiet > "$work/logs/nsys.log" 2>&1
  note "nsys rc=$? in ${SECONDS} s"
  rm -f "$work"/logs/decode.nsys-rep "$work"/logs/decode.sqlite
  grep -A 14 -E "cuda_api_sum|cuda_gpu_kern_sum" "$work/logs/nsys.log" | cut -c1-200 | tee -a "$summary"
else
  note "nsys: not run ($(command -v nsys || echo 'not installed'))"
fi

python3 - "$work/runs.jsonl" "$work/samples/sample-summary.json" "$out/gen-timing.json" <<'PY'
import json, os, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
sample = json.load(open(sys.argv[2])) if os.path.exists(sys.argv[2]) else None
json.dump({"schema": "cudaperf-gen-timing/1", "generate": runs, "sample": sample}, open(sys.argv[3], "w"), indent=1)
PY
pack
note "RESULT: done"
