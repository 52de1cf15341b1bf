#!/usr/bin/env bash
# Scale-out over several GPUs (issue 21; docs/training.md "Data-parallel", docs/benchmarks.md
# "Scale-out"), on an nvidia-h200-x2 or -x4 machine, in one command (<= 8 minutes):
#   1. builds cudaperf-train, cudaperf-eval (+ worker), cudaperf-dataset; reports the data-parallel
#      backends the LibTorch has (gloo, nccl);
#   2. cudaperf-train dp-check on N ranks (NCCL on cuda:R, else Gloo): the data-parallel gradient and RL
#      update against one process, on the GPUs;
#   3. evaluation throughput: the same candidates (dataset implementations) with cudaperf-eval --batch on
#      GPU 0 alone, then on all N GPUs: candidates per minute, ratio;
#   4. training throughput: cudaperf-train sft with the same global batch (4 micro-batches of 16k tokens
#      per step) on 1 rank, then N ranks: tokens/s and examples/s (median over steps 6+), ratio;
#   5. a fixed-seed RL run (static-only reward: deterministic) on 1 and 2 GPUs from step 4's checkpoint,
#      compared step by step (loss, grad_norm, reward_mean: the largest relative difference).
# Refuses (exit 2) on fewer than 2 GPUs. Every step is time-capped; a failing step keeps the others'.
# Usage: scripts/gpu/scale-out.sh [OUTDIR]   (default $OUT, else /tmp/scale-out)
# Carry: .carry/deps (scripts/pack-deps.sh). Environment: SCALE_TOTAL_SECONDS (deadline, default 470),
# SCALE_CANDIDATES (evaluated candidates, default 96), SCALE_SFT_STEPS (default 30), SCALE_RL_STEPS (default 4).
# Writes OUTDIR/{summary.txt,scale-out.log,results.jsonl,logs.tar.gz}.
# Commit: results.jsonl as data/scale-out/<date>-h200-xN.jsonl and the summary table into docs/benchmarks.md
# ("Scale-out") and docs/training.md ("Data-parallel").
set -uo pipefail
out=${1:-${OUT:-/tmp/scale-out}}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
export PATH=$PWD/.carry/deps/bin:/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
export NCCL_NVLS_ENABLE=0 # NVLink multicast off in every process started here (docs/training.md)
mkdir -p "$out"
work=/tmp/cudaperf-scale-out
rm -rf "$work" && mkdir -p "$work/logs"
exec > >(tee -a "$out/scale-out.log") 2>&1
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
deadline=$(( $(date +%s) + ${SCALE_TOTAL_SECONDS:-470} ))
left() { echo $(( deadline - $(date +%s) )); }
cap() { local want=$1 l; l=$(( $(left) - 10 )); [ "$l" -lt "$want" ] && want=$l; [ "$want" -lt 1 ] && want=1; echo "$want"; }
pack() { tar -czf "$out/logs.tar.gz" -C "$work" logs 2>/dev/null; }
results=$work/results.jsonl
: > "$results"
record() { echo "$1" >> "$results"; } # one JSON object per measurement

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ "${gpus:-0}" -lt 2 ]; then
  note "scale-out.sh needs at least 2 GPUs (an nvidia-h200-x2 or -x4 machine); this one has ${gpus:-0}: nothing measured"
  exit 2
fi
note "== scale-out on $gpus GPUs ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)), $(date -u +%FT%TZ), $(git rev-parse --short HEAD 2>/dev/null)"
devices=$(seq -s, 0 $((gpus - 1)))

# Launches N ranks of cudaperf-train (TCPStore on a free port), waits on their PIDs; rc = the worst.
ranks() { # N LOGPREFIX CAP ARGS...
  local n=$1 prefix=$2 seconds=$3 port pids=() r rc=0 one
  shift 3
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  for ((r = 0; r < n; r++)); do
    MASTER_ADDR=127.0.0.1 MASTER_PORT=$port WORLD_SIZE=$n RANK=$r LOCAL_RANK=$r \
      timeout "$seconds" "$bin/cudaperf-train" "$@" --dist-timeout 120 > "$prefix.$r.out" 2> "$prefix.$r.err" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; one=$?; [ "$one" -gt "$rc" ] && rc=$one; done
  return "$rc"
}

note "== build"
source scripts/gpu/build-gpu.sh
SECONDS=0
gpu_build "$work/logs/build.log" 120 240 cudaperf-dataset cudaperf-train cudaperf-eval cudaperf-eval-worker cudaperf-torch-reference
rc=$?
bin=$PWD/build-gpu/bin
note "build rc=$rc in ${SECONDS} s; $(grep -o 'data-parallel backends: .*' "$work/logs/build.log" | tail -1)"
[ "$rc" -eq 0 ] && [ -x "$bin/cudaperf-train" ] || { note "RESULT: FAILED (build)"; pack; exit 1; }

note "== dp-check on $gpus ranks (cuda)"
SECONDS=0
ranks "$gpus" "$work/logs/dp-check" "$(cap 90)" dp-check --device cuda
rc=$?
note "dp-check rc=$rc in ${SECONDS} s: $(head -c 300 "$work/logs/dp-check.0.out")"
[ -s "$work/logs/dp-check.0.out" ] && record "$(cat "$work/logs/dp-check.0.out")"

note "== dataset"
SECONDS=0
timeout "$(cap 120)" "$bin/cudaperf-dataset" generate --out "$work/dataset" --kind c --jobs "$(nproc)" > "$work/logs/dataset.log" 2>&1
note "dataset rc=$? in ${SECONDS} s: $(wc -l < "$work/dataset/manifest.jsonl" 2>/dev/null || echo 0) tasks"

note "== evaluation throughput: GPU 0 against GPUs $devices"
python3 - "$work/dataset/manifest.jsonl" "${SCALE_CANDIDATES:-96}" > "$work/batch.txt" <<'PY'
import json, os, sys
n, out = int(sys.argv[2]), []
for line in open(sys.argv[1]):
    t = json.loads(line)
    for impl in t["implementations"]:
        if not impl.get("baseline") and len(out) < n:
            out.append("%s %s" % (t["dir"], os.path.join(t["dir"], impl["file"])))
print("\n".join(out))
PY
evaluate() { # NAME DEVICES
  local start=$(date +%s.%N) rc
  timeout "$(cap 100)" "$bin/cudaperf-eval" --batch "$work/batch.txt" --jsonl --output "$work/logs/eval-$1.jsonl" \
    --jobs "$(nproc)" --devices "$2" --sets 2 --budget-ms 40 > "$work/logs/eval-$1.log" 2>&1
  rc=$?
  local secs=$(python3 -c "import time; print(round(time.time() - $start, 2))") n
  n=$(grep -c '"outcome"' "$work/logs/eval-$1.jsonl" 2>/dev/null || echo 0)
  note "eval $1 (--devices $2): rc=$rc, $n candidates in $secs s: $(python3 -c "print(round(60 * $n / max($secs, 1e-9), 1))") per minute"
  record "{\"measure\": \"eval\", \"devices\": \"$2\", \"candidates\": $n, \"seconds\": $secs, \"rc\": $rc}"
}
if [ -s "$work/batch.txt" ]; then evaluate one 0; evaluate all "$devices"; else note "eval: no candidates (dataset failed)"; fi

note "== training throughput (sft): 1 rank against $gpus ranks, the same global batch"
sft=(sft --dataset "$work/dataset" --device cuda --kinds c --steps "${SCALE_SFT_STEPS:-30}" --batch-tokens 65536
     --micro-batch-tokens 16384 --warmup 5 --eval-every 100000 --eval-batches 1 --seed 1)
SECONDS=0
timeout "$(cap 110)" "$bin/cudaperf-train" "${sft[@]}" --out "$work/sft1" > /dev/null 2> "$work/logs/sft1.err"
note "sft 1 rank rc=$? in ${SECONDS} s"
SECONDS=0
ranks "$gpus" "$work/logs/sftN" "$(cap 110)" "${sft[@]}" --tokenizer "$work/sft1/checkpoint" --out "$work/sftN"
note "sft $gpus ranks rc=$? in ${SECONDS} s"
for d in sft1 sftN; do
  [ -f "$work/$d/train-log.jsonl" ] && cp "$work/$d/train-log.jsonl" "$work/logs/$d-train-log.jsonl"
  python3 - "$work/$d/train-log.jsonl" "$d" <<'PY' >> "$results" 2>/dev/null
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if '"loss"' in l]
late = [r for r in rows if r["step"] > 5] or rows
print(json.dumps({"measure": "sft", "run": sys.argv[2], "world_size": rows[-1].get("world_size", 1), "steps": len(rows),
                  "tokens_per_second": statistics.median(r["tokens_per_second"] for r in late),
                  "examples_per_second": statistics.median(r.get("examples_per_second", 0) for r in late),
                  "losses": [r["loss"] for r in rows]}))
PY
done

note "== fixed-seed RL on 1 and 2 GPUs (static-only reward)"
rl=(rl --config data/rl/h200.json --set model="$work/sft1/checkpoint" --set dataset="$work/dataset"
    --set steps="${SCALE_RL_STEPS:-4}" --set static_only=true --set analyzer_path=none --set eval_tasks=0
    --set eval_held_out_family_tasks=0 --set tasks_per_step=4 --set group_size=4 --set turns=2 --set max_new_tokens=256
    --set seed=3 --set save_every=100)
if [ -d "$work/sft1/checkpoint" ]; then
  SECONDS=0
  timeout "$(cap 100)" "$bin/cudaperf-train" "${rl[@]}" --out "$work/rl1" > /dev/null 2> "$work/logs/rl1.err"
  note "rl 1 GPU rc=$? in ${SECONDS} s"
  SECONDS=0
  ranks 2 "$work/logs/rl2" "$(cap 100)" "${rl[@]}" --out "$work/rl2"
  note "rl 2 GPUs rc=$? in ${SECONDS} s"
  for d in rl1 rl2; do [ -f "$work/$d/rl-log.jsonl" ] && cp "$work/$d/rl-log.jsonl" "$work/logs/$d-rl-log.jsonl"; done
  python3 - "$work/rl1/rl-log.jsonl" "$work/rl2/rl-log.jsonl" <<'PY' >> "$results" 2>/dev/null
import json, sys
a, b = ([json.loads(l) for l in open(p) if l.strip()] for p in sys.argv[1:3])
worst = {}
for x, y in zip(a, b):
    for k in ("loss", "grad_norm", "reward_mean", "generated_tokens"):
        u, v = x.get(k), y.get(k)
        if isinstance(u, (int, float)) and isinstance(v, (int, float)):
            worst[k] = max(worst.get(k, 0), abs(u - v) / max(abs(u), abs(v), 1e-12))
print(json.dumps({"measure": "rl-curves", "steps": [len(a), len(b)], "max_relative_difference": worst,
                  "samples_per_second": [sum(r["samples"] for r in l) / max(1e-9, sum(r["seconds"]["step"] for r in l)) for l in (a, b)]}))
PY
else
  note "rl: no SFT checkpoint (step 4 failed)"
fi

cp "$results" "$out/results.jsonl" 2>/dev/null
python3 - "$results" "$gpus" <<'PY' | tee -a "$summary"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
n = sys.argv[2]
def get(measure, **kw):
    return next((r for r in rows if r.get("measure") == measure and all(r.get(k) == v for k, v in kw.items())), None)
print("\n%-34s %14s %14s %8s" % ("scale-out, 1 vs %s GPUs" % n, "1", n, "ratio"))
e1, eN = get("eval", devices="0"), next((r for r in rows if r.get("measure") == "eval" and r.get("devices") != "0"), None)
if e1 and eN and e1["seconds"] and eN["seconds"]:
    a, b = 60 * e1["candidates"] / e1["seconds"], 60 * eN["candidates"] / eN["seconds"]
    print("%-34s %14.1f %14.1f %8.2f" % ("evaluation, candidates/min", a, b, b / a if a else 0))
s1, sN = get("sft", run="sft1"), get("sft", run="sftN")
if s1 and sN:
    for k, label in (("tokens_per_second", "sft, tokens/s"), ("examples_per_second", "sft, examples/s")):
        print("%-34s %14.0f %14.0f %8.2f" % (label, s1[k], sN[k], sN[k] / s1[k] if s1[k] else 0))
    diffs = [abs(a - b) / max(abs(a), abs(b), 1e-12) for a, b in zip(s1["losses"], sN["losses"])]
    print("sft loss curve, 1 vs %s ranks (same global batch): largest relative difference %.2e over %d steps"
          % (n, max(diffs) if diffs else float("nan"), len(diffs)))
c = get("rl-curves")
if c:
    print("%-34s %14.3f %14.3f %8.2f" % ("rl, samples/s (1 vs 2 GPUs)", c["samples_per_second"][0], c["samples_per_second"][1],
                                         c["samples_per_second"][1] / c["samples_per_second"][0] if c["samples_per_second"][0] else 0))
    print("rl curves, 1 vs 2 GPUs, largest relative difference per key:", json.dumps(c["max_relative_difference"]))
d = next((r for r in rows if r.get("schema") == "cudaperf-dp-check/1"), None)
print("dp-check:", "pass" if d and d.get("pass") else "FAIL or not run", "(%s)" % (d or {}).get("data_parallel", ""))
PY
pack
echo "left $(left) s"
