#!/usr/bin/env bash
# cudaperf-lm and cudaperf-train from the command line, on the CPU with tiny models: exit codes,
# init -> info -> logits -> generate -> convert, then sft on a small dataset made of data/tasks (a few
# steps), resume, sample and fit. Usage: lm-cli-test.sh CUDAPERF_LM CUDAPERF_TRAIN SOURCE_DIR
set -uo pipefail
lm=$1 train=$2 src=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fails=0
check() { # check NAME EXPECTED_RC COMMAND...
  local name=$1 want=$2
  shift 2
  "$@" > out.txt 2> err.txt
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL $name: exit $rc, expected $want"; sed -n 1,20p err.txt; fails=$((fails + 1)); return 1
  fi
  echo "ok   $name"
}
expect() { # expect NAME PYTHON_CONDITION_ON_d (d = JSON of out.txt)
  if python3 -c "import json,sys; d=json.load(open('out.txt')); sys.exit(0 if ($2) else 1)"; then echo "ok   $1"
  else echo "FAIL $1"; head -c 600 out.txt; echo; fails=$((fails + 1)); fi
}

cat > tiny.json <<'EOF'
{"model_type":"qwen2","vocab_size":400,"hidden_size":32,"intermediate_size":64,"num_hidden_layers":2,
 "num_attention_heads":4,"num_key_value_heads":2,"max_position_embeddings":2048,"rope_theta":10000.0,
 "tie_word_embeddings":true,"eos_token_id":2}
EOF

check "no command is bad usage" 2 "$lm"
check "unknown command" 2 "$lm" frobnicate
check "unknown option names the close one" 2 "$lm" logits --model x --idz 1 && grep -q "did you mean '--ids'" err.txt
check "missing model" 1 "$lm" logits --model "$work/none" --ids 1
check "init" 0 "$lm" init --config tiny.json --out m --seed 3 --max-shard-mb 0.05
[ -f m/model.safetensors.index.json ] && echo "ok   init wrote shards" || { echo "FAIL no shards"; fails=$((fails + 1)); }
check "info" 0 "$lm" info --model m
expect "info counts parameters" "d['parameters'] == 400*32 + 2*(32*32*2 + 32*16*2 + 32+16+16 + 3*32*64 + 64) + 32 and d['checkpoint']['files'] > 1"
check "logits" 0 "$lm" logits --model m --ids 1,2,3
expect "logits has the vocabulary" "len(d['logits']) == 400 and d['ids'] == [1, 2, 3]"
cp out.txt logits-fp32.json
check "token id outside the vocabulary" 1 "$lm" logits --model m --ids 1,400
check "greedy" 0 "$lm" generate --model m --ids 5,6,7 --max-new-tokens 12 --greedy --ignore-eos
cp out.txt greedy1.json
check "greedy again" 0 "$lm" generate --model m --ids 5,6,7 --max-new-tokens 12 --greedy --ignore-eos --no-cache
python3 -c "import json; a=json.load(open('greedy1.json')); b=json.load(open('out.txt')); assert a['rows'][0]['tokens']==b['rows'][0]['tokens'] and len(a['rows'][0]['tokens'])==12" \
  && echo "ok   cached greedy = uncached" || { echo "FAIL cached vs uncached"; fails=$((fails + 1)); }
check "sampled batch" 0 "$lm" generate --model m --ids 5,6,7 --batch 3 --max-new-tokens 6 --temperature 0.9 --top-k 50 --seed 4
expect "three rows, own seeds" "len(d['rows']) == 3 and d['sampler'] == 'temperature 0.9 -> top-k 50 -> draw' and len({tuple(r['tokens']) for r in d['rows']}) > 1"
check "random LoRA, merged copies" 0 "$lm" generate --model m --ids 5,6,7 --max-new-tokens 12 --greedy --ignore-eos --random-lora 4
cp out.txt lora-merged.json
check "random LoRA, adapter path" 0 "$lm" generate --model m --ids 5,6,7 --max-new-tokens 12 --greedy --ignore-eos --random-lora 4 --lora-merge off
python3 -c "
import json; a=json.load(open('lora-merged.json')); b=json.load(open('out.txt')); g=json.load(open('greedy1.json'))
assert a['lora_rank'] == 4 and a['lora_merge'] is True and b['lora_merge'] is False, (a['lora_merge'], b['lora_merge'])
assert a['rows'][0]['tokens'] == b['rows'][0]['tokens'], (a['rows'][0]['tokens'], b['rows'][0]['tokens'])
assert g['lora_rank'] == 0 and g['lora_merge'] is False
" && echo "ok   merged LoRA copies generate what the adapters generate" || { echo "FAIL merged LoRA generation"; fails=$((fails + 1)); }
check "bad --lora-merge" 2 "$lm" generate --model m --ids 5 --random-lora 4 --lora-merge maybe
check "stop strings need a tokenizer" 1 "$lm" generate --model m --ids 5 --stop x
check "convert to bf16" 0 "$lm" convert --model m --out mb
check "logits of the bf16 copy" 0 "$lm" logits --model mb --ids 1,2,3
python3 -c "
import json; a=json.load(open('logits-fp32.json'))['logits']; b=json.load(open('out.txt'))['logits']
d=max(abs(x-y) for x,y in zip(a,b)); assert 0 < d < 0.05, d" && echo "ok   bf16 copy close, not equal" || { echo "FAIL bf16 copy"; fails=$((fails + 1)); }

# A small dataset in the manifest format (docs/dataset.md) from the shipped tasks.
python3 - "$src" <<'EOF'
import json, os, sys
root = os.path.join(sys.argv[1], "data", "tasks")
rows = [("saxpy", "train"), ("vector_add", "train"), ("reduce_sum", "train"), ("transpose", "val"),
        ("histogram", "test"), ("pytorch/leaky_relu", "train")]
with open("manifest.jsonl", "w") as f:
    for name, split in rows:
        d = os.path.join(root, name)
        impls = sorted(os.listdir(os.path.join(d, "impls")))
        f.write(json.dumps({"task": os.path.basename(name), "dir": d, "family": "shipped",
                            "kind": "pytorch" if "/" in name else "c", "split": split,
                            "implementations": [{"file": "impls/" + i, "strategies": ["label_" + i[:-3]],
                                                 "baseline": i == "baseline.cu",
                                                 "expected": "neutral" if i == "baseline.cu" else "fast"} for i in impls]}) + "\n")
EOF
cat > sftshape.json <<'EOF'
{"model_type":"qwen2","vocab_size":384,"hidden_size":32,"intermediate_size":64,"num_hidden_layers":1,
 "num_attention_heads":2,"num_key_value_heads":1,"max_position_embeddings":4096,"rope_theta":10000.0,
 "tie_word_embeddings":true}
EOF
sft=(sft --dataset . --device cpu --dtype float32 --model-config sftshape.json --vocab 384 --batch-tokens 3000
     --micro-batch-tokens 1500 --max-seq-len 1500 --eval-every 2 --eval-batches 1 --warmup 1 --lr 3e-3 --max-shard-mb 0.02)
check "sft needs --dataset" 2 "$train" sft --out x
check "sft (2 steps)" 0 "$train" "${sft[@]}" --out run --steps 3 --save-every 2
for f in run/checkpoint/config.json run/checkpoint/tokenizer.json run/checkpoint/tokenizer_config.json \
         run/checkpoint/model.safetensors.index.json run/train-log.jsonl run/loss.svg run/sft-report.json \
         run/state/trainer_state.json run/state/optimizer.safetensors; do
  [ -f "$f" ] || { echo "FAIL missing $f"; fails=$((fails + 1)); }
done
python3 -c "
import json; rows=[json.loads(l) for l in open('run/train-log.jsonl')]
assert [r['step'] for r in rows]==[1,2,3], rows; assert 'val_loss' in rows[1] and 'val_loss' in rows[2]
r=json.load(open('run/sft-report.json')); assert r['steps']==3 and r['strategy_label_in_prompt'] is False and r['train']['tasks']==4, r
# A two-turn example per training task with a baseline (neutral) and a fast implementation, unless too long.
pairs = sum(1 for l in open('manifest.jsonl') for t in [json.loads(l)]
            if t['split'] == 'train' and len(t['implementations']) > 1)
n = r['train']['refinement_examples']; assert 0 < n <= pairs and r['train']['examples'] >= n, (n, pairs, r)
" && echo "ok   sft log and report" || { echo "FAIL sft log/report"; fails=$((fails + 1)); }
# Every setting is written down (OUT/sft-config.json, the report's "config"), and it is the run again:
# --config of it prints the same config; a run's config names its own keys only.
"$train" sft --config run/sft-config.json --print-config > reprinted.json 2> err.txt
python3 -c "
import json; c=json.load(open('run/sft-config.json')); r=json.load(open('run/sft-report.json'))['config']
assert c == r == json.load(open('reprinted.json')), (c, r)
assert c['schema'] == 'cudaperf-sft-config/1' and c['steps'] == 3 and c['save_every'] == 2 and c['vocab'] == 384, c
" && echo "ok   sft config written whole and read back" || { echo "FAIL sft config"; fails=$((fails + 1)); }
check "sft --set of an unknown key is an input error" 1 "$train" "${sft[@]}" --out run-bad --set learning_rate=1
grep -q 'unknown key "learning_rate"' err.txt || { echo "FAIL the unknown key is not named"; cat err.txt; fails=$((fails + 1)); }
check "sft --refinement-examples off" 0 "$train" "${sft[@]}" --out run-single --steps 1 --refinement-examples off
python3 -c "
import json; a=json.load(open('run/sft-report.json'))['train']; b=json.load(open('run-single/sft-report.json'))['train']
assert b['refinement_examples'] == 0 and b['examples'] == a['examples'] - a['refinement_examples'], (a, b)
" && echo "ok   refinement examples off" || { echo "FAIL refinement examples off"; fails=$((fails + 1)); }
check "sft --refinement-examples bad" 2 "$train" "${sft[@]}" --out run-bad --steps 1 --refinement-examples maybe
# Repair examples (on by default): one per task, counted in the report; off gives the other examples unchanged
# (the same tokenizer for both, so that the same examples are kept and encoded alike).
check "sft --dry-run (repair examples on)" 0 "$train" "${sft[@]}" --out run-repair --dry-run --max-seq-len 100000 \
  --tokenizer run/checkpoint --dump-examples repair-on.jsonl
check "sft --dry-run --repair-examples off" 0 "$train" "${sft[@]}" --out run-norepair --dry-run --max-seq-len 100000 \
  --tokenizer run/checkpoint --dump-examples repair-off.jsonl --repair-examples off
python3 -c "
import json
on=json.load(open('run-repair/sft-report.json')); off=json.load(open('run-norepair/sft-report.json'))
assert on['dry_run'] and on['steps'] == 0, on
for s in ('train', 'val'):
    a, b = on[s], off[s]
    assert a['repair_examples'] == a['tasks'] > 0 and a['repair_dropped_too_long'] == 0, a  # every shipped task has one
    assert sum(a['repair_mutations'].values()) == a['repair_examples'], a
    assert b['repair_examples'] == 0 and b['examples'] == a['examples'] - a['repair_examples'], (a, b)
    assert b['refinement_examples'] == a['refinement_examples'], (a, b)
rows=[json.loads(l) for l in open('repair-on.jsonl')]
kept=[l for l, r in zip(open('repair-on.jsonl'), rows) if not r['kind'].startswith('repair:')]
assert kept == open('repair-off.jsonl').readlines(), 'off is not on without its repair examples'
repair=[r for r in rows if r['kind'].startswith('repair:')]
for r in repair:  # the broken answer and its feedback in the prompt; the answer compiles (an intact implementation)
    assert 'Feedback on your previous answer:\\nOutcome: compile_error (reward -0.80).\\nnvcc failed:\\n' in r['prompt'], r['prompt']
    assert r['answer'].startswith('\`\`\`cuda\\n') and r['answer'] not in r['prompt']
" && echo "ok   repair examples: counted, off = on without them" || { echo "FAIL repair examples"; fails=$((fails + 1)); }
# Measured refinement examples (--measured-examples DIR): results of the training tasks' implementations as
# measure-dataset.sh stores them (here made up: speedups 1, 2, 3... in file order; one file changed since it
# was measured, one result failed); one example per task with a pair, its prompt the slowest with RL's
# feedback, its answer the fastest; the other examples unchanged; a folder without results is an input error.
mkdir -p measured
python3 - <<'PY'
import hashlib, json, os
rows = []
for line in open("manifest.jsonl"):
    t = json.loads(line)
    if t["split"] != "train" or len(t["implementations"]) < 2:
        continue
    for k, impl in enumerate(i["file"] for i in t["implementations"]):
        data = open(os.path.join(t["dir"], impl), "rb").read()
        rows.append({"schema": "cudaperf-eval-result/1", "task": t["task"], "dataset_task": t["task"],
                     "dataset_impl": os.path.basename(impl), "candidate_sha256": hashlib.sha256(data).hexdigest(),
                     "outcome": "ok", "detail": "", "speedup": float(k + 1), "configs": []})
rows.append(dict(rows[0], candidate_sha256="0" * 64, dataset_impl="not-this-file.cu", speedup=50.0))
rows.append(dict(rows[1], outcome="runtime_fault"))  # a later failure of the second file: not ok any more
with open("measured/results-1.jsonl", "w") as f:
    f.writelines(json.dumps(r) + "\n" for r in rows)
PY
check "sft --dry-run --measured-examples" 0 "$train" "${sft[@]}" --out run-measured --dry-run --max-seq-len 100000 \
  --tokenizer run/checkpoint --dump-examples measured-on.jsonl --measured-examples measured
python3 -c "
import json, os
on=json.load(open('run-measured/sft-report.json'))
tasks=[t for t in map(json.loads, open('manifest.jsonl')) if t['split'] == 'train' and len(t['implementations']) >= 2]
first=tasks[0]['task']
# per task: the files still ok (the first task lost its second file to the later failure), fastest = the last
expect={}
for t in tasks:
    ok=[i['file'] for k, i in enumerate(t['implementations']) if not (t['task'] == first and k == 1)]
    if len(ok) >= 2:
        expect[t['task']] = (open(os.path.join(t['dir'], ok[0])).read(), open(os.path.join(t['dir'], ok[-1])).read())
rows=[json.loads(l) for l in open('measured-on.jsonl')]
measured=[r for r in rows if r['kind'] == 'measured']
assert on['train']['measured_examples'] == len(measured) == len(expect) > 0, (on['train'], len(measured), len(expect))
assert on['val']['measured_examples'] == 0, on['val']  # nothing of the val split was measured
assert [l for l, r in zip(open('measured-on.jsonl'), rows) if r['kind'] != 'measured'] == open('repair-on.jsonl').readlines()
for r in measured:
    slow, fast = next(v for v in expect.values() if v[1].strip() in r['answer'])
    assert slow.strip() in r['prompt'] and fast.strip() not in r['prompt'], r['prompt'][-600:]
    assert 'Feedback on your previous answer:\\nOutcome: ok' in r['prompt'], r['prompt'][-600:]
    assert 'Static analysis unavailable' not in r['prompt']
" && echo "ok   measured examples: one per measured pair, the rest unchanged" || { echo "FAIL measured examples"; fails=$((fails + 1)); }
mkdir -p no-results
check "sft --measured-examples without results" 1 "$train" "${sft[@]}" --out run-bad --dry-run --measured-examples no-results
[ ! -e run-repair/checkpoint ] && echo "ok   --dry-run writes no model" || { echo "FAIL --dry-run wrote a model"; fails=$((fails + 1)); }
check "sft --repair-examples bad" 2 "$train" "${sft[@]}" --out run-bad --steps 1 --repair-examples maybe
check "the SFT checkpoint loads" 0 "$lm" generate --model run/checkpoint --prompt "Task: saxpy" --chat --max-new-tokens 4 --stop '```'
# A run of 3 steps stopped after 2 and resumed gives run's third step exactly.
check "sft stopped after step 2" 0 "$train" "${sft[@]}" --out run3 --steps 3 --stop-after-steps 2
python3 -c "import json; assert json.load(open('run3/state/trainer_state.json'))['step']==2" \
  && echo "ok   state at step 2" || { echo "FAIL state step"; fails=$((fails + 1)); }
check "resume to step 3" 0 "$train" "${sft[@]}" --out run3 --steps 3 --resume run3/state
python3 -c "
import json; a=[json.loads(l) for l in open('run/train-log.jsonl')]; b=[json.loads(l) for l in open('run3/train-log.jsonl')]
assert [r['step'] for r in b]==[1,2,3], b
assert a[2]['loss']==b[2]['loss'] and a[2]['grad_norm']==b[2]['grad_norm'], (a[2], b[2])
" && echo "ok   resume reproduces step 3 exactly" || { echo "FAIL resume"; fails=$((fails + 1)); }
check "sample" 0 "$train" sample --model run/checkpoint --dataset . --out samples --device cpu --dtype float32 \
  --tasks 2 --per-task 2 --max-new-tokens 8
python3 -c "
import json; rows=[json.loads(l) for l in open('samples/samples.jsonl')]
assert len(rows)==2 and {r['task'] for r in rows}=={'histogram'}, rows" && echo "ok   samples of the held-out task" || { echo "FAIL samples"; fails=$((fails + 1)); }
check "fit" 0 "$train" fit --config tiny.json --device cpu --dtype float32 --seq 64 --gradient-checkpointing
expect "fit reports a step" "d['fits'] and d['mode'] == 'full' and d['grad_norm'] > 0"
check "fit with LoRA" 0 "$train" fit --config tiny.json --device cpu --dtype float32 --seq 64 --lora-rank 2
expect "fit LoRA" "d['mode'] == 'lora'"

[ "$fails" -eq 0 ] && echo "all passed" || echo "$fails failed"
[ "$fails" -eq 0 ]
