#!/usr/bin/env bash
# cudaperf-train rl and eval-policy on the CPU with a tiny model (docs/training.md): usage errors, one RL
# step with the static-only reward (cudaperf-eval --compile-only + cudaperf-analyze, when built: nvcc
# compiles whatever code blocks the policy writes), logs, curves, report; a run stopped after step 2 and
# resumed reproduces step 3 of the uninterrupted run exactly (log and trainable weights); eval-policy (greedy,
# and 2 samples per task read back by scripts/eval-report.py).
# Usage: rl-cli-test.sh CUDAPERF-TRAIN SOURCE_DIR [CUDAPERF-EVAL [CUDAPERF-ANALYZE]]
set -uo pipefail
train=$1 src=$2 eval=${3:-} analyzer=${4:-none}
dir=$(mktemp -d /tmp/cudaperf-rl-cli.XXXXXX)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fails=0
check() { # NAME EXPECTED_RC CMD...
  local name=$1 want=$2; shift 2
  "$@" > out.txt 2> err.txt
  local rc=$?
  if [ "$rc" -eq "$want" ]; then echo "ok   $name"; else echo "FAIL $name: rc=$rc, expected $want"; tail -5 err.txt; fails=$((fails + 1)); fi
}

python3 "$src/test/learn/tiny-dataset.py" "$src" || { echo "FAIL tiny dataset"; exit 1; }
# Issue 34: the same with two PyTorch->CUDA training tasks (both kinds).
python3 - "$src" <<'PY' || { echo "FAIL both-kinds manifest"; fails=$((fails + 1)); }
import json, os, sys
src = sys.argv[1]
rows = [json.loads(l) for l in open("manifest.jsonl")]
for name in ("leaky_relu", "gelu_tanh"):
  d = os.path.join(src, "data", "tasks", "pytorch", name)
  impls = sorted(os.listdir(os.path.join(d, "impls")))
  rows.append({"task": "pytorch/" + name, "dir": d, "family": "p", "kind": "pytorch", "split": "train",
               "implementations": [{"file": "impls/" + i, "strategies": [], "baseline": i == "baseline.cu",
                                    "expected": "neutral"} for i in impls]})
os.makedirs("both", exist_ok=True)
with open("both/manifest.jsonl", "w") as f:
  f.writelines(json.dumps(r) + "\n" for r in rows)
PY
check "tiny SFT checkpoint" 0 "$train" sft --dataset . --device cpu --dtype float32 --model-config shape.json --vocab 384 \
  --batch-tokens 3000 --micro-batch-tokens 1500 --max-seq-len 1500 --warmup 1 --steps 1 --out sft
cat > rl.json <<JSON
{"model": "sft/checkpoint", "dataset": ".", "device": "cpu", "dtype": "float32", "lora_rank": 4, "lora_dropout": 0.1,
 "tasks_per_step": 2, "group_size": 2, "turns": 2, "max_new_tokens": 24, "eval_tasks": 1, "eval_held_out_family_tasks": 1,
 "analyzer_path": "none", "reward_jobs": 2, "save_every": 1, "mini_batches": 2, "kl_coef": 0.05,
 "eval_path": "$src/test/reward/fake-eval.py"}
JSON

check "rl needs --out" 2 "$train" rl --config rl.json
check "unknown config key" 1 "$train" rl --config rl.json --set gama=0.3 --out x
grep -q 'unknown key "gama"' err.txt && echo "ok   the message names the key" || { echo "FAIL key message"; fails=$((fails + 1)); }
check "bad choice" 1 "$train" rl --config rl.json --set loss_normalization=batch --out x
check "print-config" 0 "$train" rl --config rl.json --print-config
python3 -c "import json; c=json.load(open('out.txt')); assert c['gamma']==0.4 and c['lora_rank']==4, c" \
  && echo "ok   print-config" || { echo "FAIL print-config"; fails=$((fails + 1)); }

# Static-only: the real evaluator (compile only) and analyzer where they are built.
if [ -n "$eval" ] && [ -x "$eval" ]; then
  check "one RL step, static-only reward" 0 "$train" rl --config rl.json --set steps=1 --set static_only=true \
    --set eval_path="$eval" --set analyzer_path="$analyzer" --set eval_tasks=0 --set eval_held_out_family_tasks=0 --out static
  python3 - <<'PY' && echo "ok   static-only log" || { echo "FAIL static-only log"; fails=$((fails + 1)); }
import json
log = [json.loads(l) for l in open("static/rl-log.jsonl")]
assert len(log) == 1 and log[0]["step"] == 1 and log[0]["candidates"] == 8, log
cands = [json.loads(l) for l in open("static/candidates.jsonl")]
assert len(cands) == 8 and all(c["own_reward"] is not None for c in cands), cands[0]
PY
  # Issue 34: both kinds, the shipped ranker on (when the analyzer is built), task selection by uncertainty;
  # the step lines carry seconds per phase and counts, the report their means.
  check "static-only RL, both kinds, ranker on, uncertain tasks" 0 "$train" rl --config rl.json --set steps=2 \
    --set static_only=true --set eval_path="$eval" --set analyzer_path="$analyzer" --set ranking_checkpoint=default \
    --set dataset=both --set kinds=c,pytorch --set task_selection=uncertain --set selection_samples=2 \
    --set generation_batch=3 --set eval_tasks=0 --set eval_held_out_family_tasks=0 --out both-run
  if [ "$analyzer" != none ]; then
    grep -q "ranking model" err.txt && echo "ok   the ranker is in the environment" || { echo "FAIL no ranker in the environment"; fails=$((fails + 1)); }
  fi
  grep -q "per step (mean of 2)" err.txt && echo "ok   per-step means printed" || { echo "FAIL per-step means line"; fails=$((fails + 1)); }
  python3 - <<'PY' && echo "ok   phases, counts, kinds, selection" || { echo "FAIL phases/counts/kinds/selection"; fails=$((fails + 1)); }
import json
log = [json.loads(l) for l in open("both-run/rl-log.jsonl")]
assert [x["step"] for x in log] == [1, 2], log
phases = {"prompt", "generate", "extract", "reward_wait", "evaluate", "rank", "score", "update", "step"}
for x in log:
    assert phases <= set(x["seconds"]), x["seconds"]
    assert all(v >= 0 for v in x["seconds"].values()), x["seconds"]
    c = x["counts"]
    assert c["candidates"] == 8 and 1 <= c["unique_candidates"] <= 8, c
    assert c["duplicates"] == c["candidates"] - c["unique_candidates"], c
    assert c["generated_tokens"] == x["generated_tokens"] > 0, c
    assert c["ranking_calls"] <= c["ranked"] or c["ranked"] == 0, c
    assert len(x["tasks"]) == 2, x["tasks"]
cands = [json.loads(l) for l in open("both-run/candidates.jsonl")]
for step in (1, 2):
    kinds = {c["kind"] for c in cands if c["step"] == step and c["phase"] == "train"}
    assert kinds == {"c", "pytorch"}, (step, kinds)
for c in cands:
    if "ranking" in c:
        assert isinstance(c["ranking"]["score"], float), c["ranking"]
        assert any(t["name"] == "ranking" for t in c["reward_document"]["terms"]), c["reward_document"]
rep = json.load(open("both-run/rl-report.json"))
m = rep["step_means"]
assert m["steps"] == 2 and phases <= set(m["seconds"]) and m["counts"]["candidates"] == 8, m
sel = json.load(open("both-run/task-selection.json"))
assert sel["schema"] == "cudaperf-rl-task-selection/1" and sel["measured"] == 5 and sel["samples"] == 2, sel
assert all(t["samples"] == 2 and 0 <= t["share_correct"] <= 1 for t in sel["tasks"]), sel["tasks"]
assert sel["chosen"] and (sel["fallback_all"] or all(t["chosen"] for t in sel["tasks"] if t["task"] in sel["chosen"])), sel
drawn = {t for x in log for t in x["tasks"]}
assert drawn <= set(sel["chosen"]), (drawn, sel["chosen"])
PY
  python3 "$src/scripts/gpu/rl-throughput-table.py" both-run table.json > table.txt 2>&1 &&
    python3 -c "import json; d=json.load(open('table.json')); assert len(d['steps']) == 2 and d['step_means']['steps'] == 2, d" &&
    grep -q "^mean " table.txt && echo "ok   rl-throughput-table" || { echo "FAIL rl-throughput-table"; cat table.txt; fails=$((fails + 1)); }
  python3 "$src/scripts/gpu/rl-throughput-table.py" nowhere table2.json > /dev/null 2>&1
  [ $? -eq 1 ] && echo "ok   rl-throughput-table: no run, exit 1" || { echo "FAIL rl-throughput-table on no run"; fails=$((fails + 1)); }
else
  echo "skip one RL step, static-only reward (cudaperf-eval not built)"
fi

# The ranker's term in the records: a policy that always writes a code block (chain-model.py), both kinds, the
# stand-in evaluator (compile-only) and analyzer, the shipped ranking model; against the same run without it.
if python3 "$src/test/learn/chain-model.py" sft/checkpoint chain && [ -s both/manifest.jsonl ]; then
  for r in on none; do
    ckpt=default; [ "$r" = none ] && ckpt=none
    check "static-only RL, both kinds, code blocks, ranker $r" 0 "$train" rl --config rl.json --set model=chain \
      --set temperature=0.01 --set steps=2 --set static_only=true --set dataset=both --set kinds=c,pytorch \
      --set analyzer_path="$src/test/learn/fake-analyze.py" --set ranking_checkpoint=$ckpt --set eval_tasks=0 \
      --set eval_held_out_family_tasks=0 --out "ranker-$r"
  done
  python3 - <<'PY' && echo "ok   the ranker's term in the records, the reward raised by it" || { echo "FAIL ranker term"; fails=$((fails + 1)); }
import json, math
def lines(p): return [json.loads(l) for l in open(p) if l.strip()]
on, off = lines("ranker-on/candidates.jsonl"), lines("ranker-none/candidates.jsonl")
assert len(on) == len(off) == 16, (len(on), len(off))
assert {c["kind"] for c in on} == {"c", "pytorch"}
for a, b in zip(on, off):
    assert a["source"] and a["source"] == b["source"] and a["task"] == b["task"], (a["source"], b["source"])
    v = a["ranking"]
    assert isinstance(v["score"], float) and v["configurations"] >= 1 and "mlp" in v["model"] and v["top_features"], v
    term = [t for t in a["reward_document"]["terms"] if t["name"] == "ranking"]
    assert len(term) == 1 and term[0]["weight"] == 0.04, term
    assert abs(term[0]["contribution"] - 0.04 * math.tanh(v["score"] / term[0]["inputs"]["scale"])) < 1e-9, term
    assert "ranking" not in b and not any(t["name"] == "ranking" for t in b["reward_document"]["terms"])
    # static-only totals are mapped into their band: a positive verdict raises the reward, a negative lowers it
    assert (a["own_reward"] - b["own_reward"]) * v["score"] > 0, (a["own_reward"], b["own_reward"], v["score"])
log = lines("ranker-on/rl-log.jsonl")
assert log[0]["counts"]["ranked"] >= 1 and 1 <= log[0]["counts"]["ranking_calls"] <= 2, log[0]["counts"]
assert all(x["counts"]["duplicates"] > 0 for x in log), [x["counts"] for x in log]  # the chain writes one answer
assert all(x["counts"]["evaluated"] + x["counts"]["reused"] == x["counts"]["candidates"] for x in log), [x["counts"] for x in log]
# The evaluator's stage seconds (the stand-in's compile-only result: build 0.75 s) per candidate, their means per
# evaluated candidate in the step lines and the report.
evaluated = [c for c in on if not c["cached"]]
assert evaluated and all(c["evaluator_stages"]["build"] == 0.75 for c in on), [c.get("evaluator_stages") for c in on]
for x in log:
    st = x["evaluator_stages"]
    assert st["candidates"] == x["counts"]["evaluated"] and st["build"] == 0.75, (st, x["counts"])
report = json.load(open("ranker-on/rl-report.json"))
assert report["step_means"]["evaluator_stages"]["build"] == 0.75, report["step_means"]
PY
else
  echo "FAIL chain model"; fails=$((fails + 1))
fi

# Exact resume: 3 steps straight, against 2 steps + resume.
check "rl 3 steps" 0 "$train" rl --config rl.json --set steps=3 --out full
for f in rl-config.json rl-log.jsonl candidates.jsonl eval.jsonl rl-report.json reward.svg correctness.svg speedup.svg \
         state/trainer_state.json checkpoint/config.json adapter/adapter_config.json; do
  [ -s "full/$f" ] || { echo "FAIL missing full/$f"; fails=$((fails + 1)); }
done
check "rl stopped after step 2" 0 "$train" rl --config rl.json --set steps=3 --stop-after-steps 2 --out split
check "rl resumed to step 3" 0 "$train" rl --config rl.json --set steps=3 --resume --out split
grep -q "resumed .* at RL step 2" err.txt && echo "ok   resumed at step 2" || { echo "FAIL resume message"; fails=$((fails + 1)); }
python3 - <<'PY' && echo "ok   resume reproduces step 3" || { echo "FAIL resume differs"; fails=$((fails + 1)); }
import json
def lines(p): return [json.loads(l) for l in open(p) if l.strip()]
a, b = lines("full/rl-log.jsonl"), lines("split/rl-log.jsonl")
assert [x["step"] for x in b] == [1, 2, 3], [x["step"] for x in b]
keys = ["loss", "policy_loss", "kl", "grad_norm", "generated_tokens", "reward_mean", "samples", "ratio_max"]
for x, y in zip(a, b):
    assert all(x[k] == y[k] for k in keys), (x["step"], {k: (x[k], y[k]) for k in keys})
ca = [(c["step"], c["task"], c["trajectory"], c["turn"], c["completion_tokens"], c["source_sha256"]) for c in lines("full/candidates.jsonl") if c["phase"] == "train"]
cb = [(c["step"], c["task"], c["trajectory"], c["turn"], c["completion_tokens"], c["source_sha256"]) for c in lines("split/candidates.jsonl") if c["phase"] == "train"]
assert ca == cb
assert [e["label"] for e in lines("split/eval.jsonl")] == ["before", "after"]
PY
cmp -s full/state/trainable.safetensors split/state/trainable.safetensors && cmp -s full/state/optimizer.safetensors split/state/optimizer.safetensors \
  && echo "ok   resumed weights and optimizer bit-identical" || { echo "FAIL resumed state differs"; fails=$((fails + 1)); }

# A resume with other settings is refused before anything of the run is touched (an arm's chunk resumed with a
# forgotten --set would be a different run under the same name); run-local keys (max_seconds) may change.
cp split/rl-config.json split-config.before
check "resume with another temperature refused" 1 "$train" rl --config rl.json --set steps=3 --set temperature=0.5 --resume --out split
grep -q "was trained with other settings" err.txt && grep -q "temperature: was" err.txt && cmp -s split/rl-config.json split-config.before \
  && echo "ok   refused resume names the key, leaves rl-config.json" || { echo "FAIL refused resume: $(tail -3 err.txt)"; fails=$((fails + 1)); }
check "resume with another max_seconds accepted" 0 "$train" rl --config rl.json --set steps=3 --set max_seconds=900 --resume --out split
# A finished state's policy (how scripts/gpu/rl.sh RL_EVAL_POLICY evaluates an arm from its committed state): resumed
# with steps = its step, no step runs and the checkpoint written is the uninterrupted run's; eval-policy loads it.
mkdir -p export && cp -r split/state export/state
check "checkpoint of a finished state" 0 "$train" rl --config rl.json --set steps=3 --set eval_tasks=0 \
  --set eval_held_out_family_tasks=0 --resume --out export
[ ! -s export/rl-log.jsonl ] && [ -f export/checkpoint/config.json ] &&
  (for f in full/checkpoint/*.safetensors; do cmp -s "$f" "export/checkpoint/$(basename "$f")" || exit 1; done) &&
  echo "ok   a finished state's checkpoint equals the uninterrupted run's, no step run" ||
  { echo "FAIL checkpoint of a finished state: $(ls export export/checkpoint 2>&1 | tr '\n' ' ')"; fails=$((fails + 1)); }
check "eval-policy on it" 0 "$train" eval-policy --config rl.json --model export/checkpoint --set eval_held_out_family_tasks=0 --out export-ep

# overlap_steps 1 (docs/training.md, "Overlapping rewards with generation"): step n + 1's first turn made by
# step n's weights while step n's last turn is evaluated; step 1 is the same as without it.
check "rl 3 steps, overlap_steps 1" 0 "$train" rl --config rl.json --set steps=3 --set overlap_steps=1 --out overlap
python3 - <<'PY' && echo "ok   overlap: policy versions per turn, overlapped seconds, step 1 unchanged" || { echo "FAIL overlap log"; fails=$((fails + 1)); }
import json
def lines(p): return [json.loads(l) for l in open(p) if l.strip()]
a, b = lines("full/rl-log.jsonl"), lines("overlap/rl-log.jsonl")
assert [x["overlap_steps"] for x in a] == [0, 0, 0] and [x["overlap_steps"] for x in b] == [1, 1, 1], b
assert [x["policy_version_by_turn"] for x in a] == [[0, 0], [1, 1], [2, 2]], [x["policy_version_by_turn"] for x in a]
assert [x["policy_version_by_turn"] for x in b] == [[0, 0], [0, 1], [1, 2]], [x["policy_version_by_turn"] for x in b]
assert b[0]["seconds"]["overlapped"] > 0 and b[1]["counts"]["overlapped_tokens"] > 0, b[0]["seconds"]
assert b[2]["seconds"]["overlapped"] == 0 and a[0]["seconds"]["overlapped"] == 0  # no step after the last
assert a[0]["loss"] == b[0]["loss"] and a[0]["reward_mean"] == b[0]["reward_mean"], (a[0]["loss"], b[0]["loss"])
key = lambda c: (c["task"], c["trajectory"], c["turn"], c["completion_tokens"], c["source_sha256"], c["policy_version"])
ca = [key(c) for c in lines("full/candidates.jsonl") if c["phase"] == "train" and c["step"] == 1]
cb = [key(c) for c in lines("overlap/candidates.jsonl") if c["phase"] == "train" and c["step"] == 1]
assert ca == cb and len(ca) == 8, (ca, cb)
v2 = [c["policy_version"] for c in lines("overlap/candidates.jsonl") if c["phase"] == "train" and c["step"] == 2]
assert sorted(set(v2)) == [0, 1], v2
PY

check "eval-policy" 0 "$train" eval-policy --config rl.json --model sft/checkpoint --out ep
python3 -c "
import json; e=json.load(open('ep/eval-policy.json'))
assert set(e['sets']) == {'train_families', 'held_out_families'}, e['sets'].keys()
v = e['sets']['train_families']; assert v['tasks'] == 1 and len(v['per_turn']) == 2 and 'best_of_turns' in v, v
" && echo "ok   eval-policy report" || { echo "FAIL eval-policy report"; fails=$((fails + 1)); }
# Issue 34: eval_samples 2 at temperature 0.8: every task has trajectories 0 and 1 of T turns, the summary's
# rates are per sample, and scripts/eval-report.py reads the lines (2 samples per task).
check "eval-policy, 2 samples per task" 0 "$train" eval-policy --config rl.json --model sft/checkpoint --out ep2 \
  --set eval_samples=2 --set eval_temperature=0.8
python3 -c "
import json; e=json.load(open('ep2/eval-policy.json'))
v = e['sets']['train_families']; assert v['tasks'] == 1 and v['samples_per_task'] == 2, v
lines = [json.loads(l) for l in open('ep2/candidates.jsonl')]
seen = {(c['phase'], c['task'], c['trajectory'], c['turn']) for c in lines}
assert len(seen) == len(lines) == 2 * 2 * 2, sorted(seen)  # 2 sets x 1 task, 2 samples x 2 turns
" && echo "ok   eval-policy with 2 samples" || { echo "FAIL eval-policy with 2 samples"; fails=$((fails + 1)); }
check "eval-report on the eval-policy lines" 0 python3 "$src/scripts/eval-report.py" --phase policy:train_families \
  --json ep2/report.json ep2/candidates.jsonl
python3 -c "
import json; r=json.load(open('ep2/report.json'))['groups']['all']
assert r['tasks'] == 1 and r['samples_per_task'] == 2 and r['turns'] == 2, r
" && echo "ok   eval-report of 2 samples" || { echo "FAIL eval-report of 2 samples"; fails=$((fails + 1)); }

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
