#!/usr/bin/env bash
# Data-parallel training on the CPU with Gloo (docs/training.md, "Data-parallel"): two processes give
# the one-process gradient and RL update (cudaperf-train dp-check: relative tolerance 1e-5 on the SFT
# gradient, the RL loss and gradient norm; 1e-4 on the weights' change), through a FileStore and a
# TCPStore; a missing peer and a peer that dies fail the other rank with a message, not a hang;
# `sft` and `rl` (also with overlap_steps 1) on two ranks log what one rank logs (relative 1e-5), rank 0 alone writes the
# outputs, and a run stopped on two ranks resumes on one.
# Usage: dp-test.sh CUDAPERF-TRAIN SOURCE_DIR
set -uo pipefail
train=$(readlink -f "$1") src=$(readlink -f "$2")
dir=$(mktemp -d /tmp/cudaperf-dp-test.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$dir"
}
trap cleanup EXIT
[ -n "${DP_TEST_KEEP:-}" ] && trap - EXIT
cd "$dir" || exit 1
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
cap=120 # seconds any one command may take: a hang fails the test instead of stalling ctest

# Two ranks of one command (its arguments after --), rank 1's environment from R1ENV; rc0, rc1 set.
two_ranks() { # NAME STORE ARGS...
  local name=$1 store=$2; shift 2
  rm -f "$store"
  timeout $cap "$train" "$@" --world-size 2 --rank 0 --dist-store-file "$store" --dist-timeout 30 > "$name.0.out" 2> "$name.0.err" &
  local p0=$!
  pids+=("$p0")
  env ${R1ENV:-} timeout $cap "$train" "$@" --world-size 2 --rank 1 --dist-store-file "$store" --dist-timeout 30 > "$name.1.out" 2> "$name.1.err"
  rc1=$?
  wait "$p0"
  rc0=$?
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# 1. The gradient and the RL update against one process, FileStore then TCPStore (env as torchrun sets it).
two_ranks check "$dir/store-check" dp-check
if [ $rc0 -eq 0 ] && [ $rc1 -eq 0 ] && python3 -c "import json,sys; d=json.load(open('check.0.out')); sys.exit(0 if d['pass'] and len(d['checks'])>=2 else 1)"; then
  ok "dp-check, 2 ranks, FileStore: $(python3 -c "import json; d=json.load(open('check.0.out')); print(', '.join(c['check'] for c in d['checks']))")"
else
  bad "dp-check FileStore: rc $rc0/$rc1"; cat check.0.out; tail -n 3 check.0.err check.1.err
fi
port=$(free_port)
MASTER_ADDR=127.0.0.1 MASTER_PORT=$port WORLD_SIZE=2 RANK=0 timeout $cap "$train" dp-check --dist-timeout 30 > tcp.0.out 2> tcp.0.err &
p0=$!
pids+=("$p0")
MASTER_ADDR=127.0.0.1 MASTER_PORT=$port WORLD_SIZE=2 RANK=1 timeout $cap "$train" dp-check --dist-timeout 30 > tcp.1.out 2> tcp.1.err
rc1=$?
wait "$p0"
rc0=$?
if [ $rc0 -eq 0 ] && [ $rc1 -eq 0 ] && grep -q '"pass":true' tcp.0.out && grep -q "tcp 127.0.0.1:$port" tcp.0.out; then
  ok "dp-check, 2 ranks, TCPStore from MASTER_ADDR/MASTER_PORT/WORLD_SIZE/RANK"
else
  bad "dp-check TCPStore: rc $rc0/$rc1"; tail -n 3 tcp.0.err tcp.1.err
fi

# 2. Failures end in a message and exit 1: a rank alone, a peer that dies mid-run, a bad rank.
start=$(date +%s)
timeout $cap "$train" dp-check --world-size 2 --rank 0 --master-port "$(free_port)" --dist-timeout 2 > alone.out 2> alone.err
rc=$?
if [ $rc -eq 1 ] && grep -q "rendezvous .* failed on rank 0 of 2" alone.err; then
  ok "a rank alone fails the rendezvous after its timeout ($(( $(date +%s) - start )) s)"
else
  bad "rank alone: rc $rc"; cat alone.err
fi
R1ENV=CUDAPERF_DP_TEST_EXIT_AFTER=4 two_ranks dead "$dir/store-dead" dp-check
if [ $rc1 -eq 9 ] && [ $rc0 -eq 1 ] && grep -q "failed on rank 0 of 2 .*a peer exited" dead.0.err; then
  ok "a peer that dies makes the other rank fail: $(grep -o 'all-reduce failed.*' dead.0.err | cut -c1-90)"
else
  bad "dead peer: rc $rc0/$rc1"; cat dead.0.err
fi
timeout $cap "$train" dp-check --world-size 2 --rank 2 > badrank.out 2> badrank.err
rc=$?
[ $rc -eq 1 ] && grep -q "outside the world of 2" badrank.err && ok "--rank 2 of 2 is refused" || { bad "bad rank: rc $rc"; cat badrank.err; }

# 3. sft on 2 ranks logs what 1 rank logs; stopped on 2 ranks, resumed on 1.
python3 "$src/test/learn/tiny-dataset.py" "$src" || { echo "FAIL tiny dataset"; exit 1; }
sft=(sft --dataset . --device cpu --dtype float32 --model-config shape.json --vocab 384 --batch-tokens 6000
     --micro-batch-tokens 1500 --max-seq-len 1500 --warmup 1 --steps 3 --save-every 1)
timeout $cap "$train" "${sft[@]}" --out sft1 > /dev/null 2> sft1.err || { bad "sft, 1 rank"; tail -n 3 sft1.err; }
two_ranks sft2 "$dir/store-sft" "${sft[@]}" --out sft2
[ $rc0 -eq 0 ] && [ $rc1 -eq 0 ] || { bad "sft, 2 ranks: rc $rc0/$rc1"; tail -n 3 sft2.0.err sft2.1.err; }
[ -s sft2.1.err ] && { bad "rank 1 printed (rank 0 alone reports)"; head -3 sft2.1.err; }
two_ranks stop "$dir/store-stop" "${sft[@]}" --out sft-split --stop-after-steps 2
[ $rc0 -eq 0 ] && [ $rc1 -eq 0 ] || { bad "sft stopped on 2 ranks: rc $rc0/$rc1"; tail -n 3 stop.0.err; }
timeout $cap "$train" "${sft[@]}" --out sft-split --resume sft-split/state > /dev/null 2> resume.err || { bad "sft resumed on 1 rank"; tail -n 3 resume.err; }
python3 - <<'PY' && ok "sft: 2 ranks log the 1-rank loss and gradient norm; 2 ranks stopped at step 2 resume on 1 to the same step 3" || bad "sft logs differ"
import json
def log(p): return [json.loads(l) for l in open(p) if '"loss"' in l]
def close(a, b): return abs(a - b) <= 1e-5 * max(abs(a), abs(b)) + 1e-8
one, two, split = log("sft1/train-log.jsonl"), log("sft2/train-log.jsonl"), log("sft-split/train-log.jsonl")
assert [x["step"] for x in two] == [1, 2, 3] and [x["step"] for x in split] == [1, 2, 3], (two, split)
for a, b in list(zip(one, two)) + list(zip(one, split)):
    for k in ("loss", "grad_norm"):
        assert close(a[k], b[k]), (a["step"], k, a[k], b[k])
    assert a["target_tokens"] == b["target_tokens"] and a["tokens"] == b["tokens"], (a, b)
assert all(x.get("world_size") == 2 for x in two)
assert json.load(open("sft2/sft-report.json"))["world_size"] == 2
PY

# 4. rl on 2 ranks (the task groups split, the update dealt) logs what 1 rank logs: the same candidates,
#    rewards, loss and gradient norm (fake evaluator; LoRA, KL and 2 mini-batches).
cat > rl.json <<JSON
{"model": "sft1/checkpoint", "dataset": ".", "device": "cpu", "dtype": "float32", "lora_rank": 4,
 "tasks_per_step": 2, "group_size": 2, "turns": 2, "max_new_tokens": 24, "eval_tasks": 1, "eval_held_out_family_tasks": 1,
 "analyzer_path": "none", "reward_jobs": 2, "save_every": 1, "mini_batches": 2, "kl_coef": 0.05, "steps": 2,
 "eval_path": "$src/test/reward/fake-eval.py"}
JSON
timeout $cap "$train" rl --config rl.json --out rl1 > /dev/null 2> rl1.err || { bad "rl, 1 rank"; tail -n 3 rl1.err; }
two_ranks rl2 "$dir/store-rl" rl --config rl.json --out rl2
[ $rc0 -eq 0 ] && [ $rc1 -eq 0 ] || { bad "rl, 2 ranks: rc $rc0/$rc1"; tail -n 3 rl2.0.err rl2.1.err; }
python3 - <<'PY' && ok "rl: 2 ranks give the 1-rank candidates, rewards, loss and gradient norm; rank 0 wrote the logs" || bad "rl logs differ"
import json, os
def lines(p): return [json.loads(l) for l in open(p) if l.strip()]
def close(a, b): return abs(a - b) <= 1e-5 * max(abs(a), abs(b)) + 1e-8
a, b = lines("rl1/rl-log.jsonl"), lines("rl2/rl-log.jsonl")
assert [x["step"] for x in b] == [1, 2], b
for x, y in zip(a, b):
    for k in ("samples", "trained_tokens", "generated_tokens", "candidates", "optimizer_steps"):
        assert x[k] == y[k], (x["step"], k, x[k], y[k])
    for k in ("loss", "grad_norm", "reward_mean", "kl"):
        assert close(x[k], y[k]), (x["step"], k, x[k], y[k])
key = lambda c: (c["phase"], c["step"], c["group"], c["trajectory"], c["turn"], c["source_sha256"], c["reward"])
assert [key(c) for c in lines("rl1/candidates.jsonl")] == [key(c) for c in lines("rl2/candidates.jsonl")]
assert [e["label"] for e in lines("rl2/eval.jsonl")] == ["before", "after"]
assert json.load(open("rl2/rl-report.json"))["data_parallel"]["world_size"] == 2
assert os.path.isdir("rl2/work-rank1") and os.path.isfile("rl2/state/trainer_state.json")
PY

# 5. overlap_steps 1 on 2 ranks: each rank makes its share of the next step's first turn ahead; the logs are
#    the 1-rank run's (candidates with their policy versions, rewards, loss).
timeout $cap "$train" rl --config rl.json --set overlap_steps=1 --out rlo1 > /dev/null 2> rlo1.err || { bad "rl overlap, 1 rank"; tail -n 3 rlo1.err; }
two_ranks rlo2 "$dir/store-rlo" rl --config rl.json --set overlap_steps=1 --out rlo2
[ $rc0 -eq 0 ] && [ $rc1 -eq 0 ] || { bad "rl overlap, 2 ranks: rc $rc0/$rc1"; tail -n 3 rlo2.0.err rlo2.1.err; }
python3 - <<'PY' && ok "rl overlap_steps 1: 2 ranks give the 1-rank candidates, policy versions, rewards and loss" || bad "rl overlap logs differ"
import json
def lines(p): return [json.loads(l) for l in open(p) if l.strip()]
def close(a, b): return abs(a - b) <= 1e-5 * max(abs(a), abs(b)) + 1e-8
a, b = lines("rlo1/rl-log.jsonl"), lines("rlo2/rl-log.jsonl")
assert [x["policy_version_by_turn"] for x in b] == [[0, 0], [0, 1]], [x["policy_version_by_turn"] for x in b]
for x, y in zip(a, b):
    for k in ("samples", "trained_tokens", "generated_tokens", "candidates", "overlap_steps"):
        assert x[k] == y[k], (x["step"], k, x[k], y[k])
    assert x["counts"]["overlapped_tokens"] == y["counts"]["overlapped_tokens"], (x["counts"], y["counts"])
    for k in ("loss", "grad_norm", "reward_mean", "kl"):
        assert close(x[k], y[k]), (x["step"], k, x[k], y[k])
key = lambda c: (c["phase"], c["step"], c["group"], c["trajectory"], c["turn"], c["source_sha256"], c["reward"], c["policy_version"])
assert [key(c) for c in lines("rlo1/candidates.jsonl")] == [key(c) for c in lines("rlo2/candidates.jsonl")]
PY

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
