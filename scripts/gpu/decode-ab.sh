#!/usr/bin/env bash
# The CUDA-graph decoding step against the default one (issue 34, item 3), in one command (<= 4 minutes):
# cudaperf-lm generate on the committed SFT checkpoint (data/models/sft, unpacked from data/models/sft.tar.zst
# when missing) with random rank-16 LoRA adapters merged (the RL policy's shape), EOS ignored, twice per process
# (the first run warms up), for --decode dynamic, static and graph, at batch 24 (an RL step of 6 tasks x G = 4)
# and 64, prompts of 500 random tokens, 1,344 new tokens (the RL config's max_new_tokens), greedy and at
# temperature 1.0 with the same seeds. Compares each decode's tokens with dynamic's (greedy: the share of rows
# identical and the mean length of the common prefix; bf16 on the GPU may round a long reduction differently)
# and tokens/s in the same process order on the same GPU.
# Then transformers' generate (scripts/gpu/hf-generate.py) on the same checkpoint at batch 24 and 64, sampling, the
# same shapes, unless DECODE_AB_HF=0.
# Usage: scripts/gpu/decode-ab.sh [OUTDIR]   Carry: .carry/deps(.tgz). Environment: DECODE_AB_SECONDS (300), DECODE_AB_HF (1).
# Writes OUTDIR/{summary.txt,decode-ab.json,logs.tar.gz}. Commit to data/eval-runs/<date>-<gpu>-decode-ab/.
set -uo pipefail
out=${1:-${OUT:-/tmp/decode-ab}}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
[ -d .carry/deps ] || { [ -f .carry/deps.tgz ] && tar -xzf .carry/deps.tgz -C .carry; }
export PATH=$PWD/.carry/deps/bin:/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
mkdir -p "$out"
work=/tmp/cudaperf-decode-ab
rm -rf "$work" && mkdir -p "$work/logs"
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
deadline=$(( $(date +%s) + ${DECODE_AB_SECONDS:-300} ))
left() { echo $(( deadline - $(date +%s) )); }
# build-gpu.sh's gpu_build asks cap() for each phase's seconds (it was missing here: the H100 call of
# 2026-12-07 stopped at "cap: command not found" before building anything).
cap() { local want=$1 l; l=$(( $(left) - 15 )); [ "$l" -lt "$want" ] && want=$l; [ "$want" -lt 1 ] && want=1; echo "$want"; }
note "== machine: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
SECONDS=0
. scripts/gpu/build-gpu.sh
gpu_build "$work/logs/build.log" 120 200 cudaperf-lm
note "build rc=$? in ${SECONDS} s"
grep -E "error" "$work/logs/build.log" | head -10 | tee -a "$summary"
bin=$root/build-gpu/bin
[ -x "$bin/cudaperf-lm" ] || { note "RESULT: FAILED (no cudaperf-lm)"; tar -czf "$out/logs.tar.gz" -C "$work" logs; exit 1; }
[ -f data/models/sft/config.json ] || bash scripts/unpack-model.sh > "$work/logs/unpack.log" 2>&1
for batch in 24 64; do
  for sampling in greedy t1; do
    for decode in dynamic static graph; do
      [ "$(left)" -lt 30 ] && { note "out of time before b$batch $sampling $decode"; continue; }
      s=(--greedy); [ "$sampling" = t1 ] && s=(--temperature 1.0)
      timeout $(( $(left) - 10 )) "$bin/cudaperf-lm" generate --model data/models/sft --device cuda --batch "$batch" \
        --random-prompt-length 500 --max-new-tokens 1344 --ignore-eos --repeat 2 --random-lora 16 "${s[@]}" \
        --decode "$decode" > "$work/logs/b$batch-$sampling-$decode.json" 2> "$work/logs/b$batch-$sampling-$decode.err"
      note "b$batch $sampling $decode: rc=$? $(tail -1 "$work/logs/b$batch-$sampling-$decode.err")"
    done
  done
done
# transformers' generate on the same checkpoint, GPU and call (no LoRA: merged adapters cost nothing), sampling
# as the RL rollouts do, the same shapes: the baseline issue 34 asks the tokens/s to be compared with.
if [ "${DECODE_AB_HF:-1}" = 1 ]; then
  for batch in 24 64; do
    [ "$(left)" -lt 60 ] && { note "out of time before transformers b$batch"; continue; }
    timeout "$(cap 120)" python3 scripts/gpu/hf-generate.py data/models/sft --batch "$batch" --prompt 500 --new 1344 \
      > "$work/logs/hf-b$batch.json" 2> "$work/logs/hf-b$batch.err"
    note "transformers b$batch t1: rc=$? $(tail -c 300 "$work/logs/hf-b$batch.json")"
  done
fi
python3 - "$work/logs" "$out/decode-ab.json" <<'PY' | tee -a "$summary"
import json, os, sys
logs, dest = sys.argv[1], sys.argv[2]
def load(name):
    p = os.path.join(logs, name + ".json")
    try:
        return next(json.loads(l) for l in open(p) if l.startswith('{"schema":"cudaperf-generation/1"'))
    except (OSError, StopIteration, ValueError):
        return None
def compare(base, r):
    """(share of rows identical, mean length of the common prefix) of two runs' rows, or (None, None)."""
    if not base or len(base["rows"]) != len(r["rows"]):
        return None, None
    pairs = list(zip(base["rows"], r["rows"]))
    def common(a, b):
        n = 0
        for x, y in zip(a, b):
            if x != y: break
            n += 1
        return n
    return (sum(a["tokens"] == b["tokens"] for a, b in pairs) / len(pairs),
            sum(common(a["tokens"], b["tokens"]) for a, b in pairs) / len(pairs))
result = []
for batch in (24, 64):
    for sampling in ("greedy", "t1"):
        base = load(f"b{batch}-{sampling}-dynamic")
        static = load(f"b{batch}-{sampling}-static")
        for decode in ("dynamic", "static", "graph"):
            r = load(f"b{batch}-{sampling}-{decode}")
            if not r:
                print(f"b{batch} {sampling} {decode}: no result"); continue
            tps = r["runs"][-1]["tokens_per_second"]; step = r["runs"][-1]["decode_seconds_per_step"]
            same, prefix = compare(base, r)
            # The graph replays static's step: its rows should be static's exactly (same kernels, same order).
            same_static, prefix_static = compare(static, r) if decode == "graph" else (None, None)
            result.append({"batch": batch, "sampling": sampling, "decode": decode, "tokens_per_second": tps,
                           "decode_seconds_per_step": step, "rows_identical_to_dynamic": same, "mean_common_prefix": prefix,
                           "rows_identical_to_static": same_static, "mean_common_prefix_static": prefix_static})
            print(f"b{batch} {sampling:6} {decode:8} {tps:9.0f} tokens/s  {1000*step:6.2f} ms/step  identical rows {same}  "
                  f"common prefix {prefix}" + (f"  identical to static {same_static}" if decode == "graph" else ""))
for batch in (24, 64):
    try:
        hf = json.loads(open(os.path.join(logs, f"hf-b{batch}.json")).read().strip().splitlines()[-1])
    except (OSError, ValueError, IndexError):
        continue
    ours = next((r for r in result if r["batch"] == batch and r["sampling"] == "t1" and r["decode"] == "graph"), None)
    ratio = ours["tokens_per_second"] / hf["tokens_per_second"] if ours and hf.get("tokens_per_second") else None
    result.append({"batch": batch, "sampling": "t1", "decode": "transformers", "tokens_per_second": hf["tokens_per_second"],
                   "version": hf.get("version"), "graph_over_transformers": ratio})
    print(f"b{batch} t1     transformers {hf['tokens_per_second']:9.0f} tokens/s  (transformers {hf.get('version')}; "
          f"graph / transformers {ratio if ratio is None else round(ratio, 2)})")
json.dump(result, open(dest, "w"), indent=1)
PY
tar -czf "$out/logs.tar.gz" -C "$work" logs
