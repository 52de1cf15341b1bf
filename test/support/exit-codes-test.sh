#!/usr/bin/env bash
# The error model of docs/architecture.md ("Errors and exit codes"): the exit code follows what
# failed. A corrupt document exits 1 with a message naming the file (and no --help hint); a bad flag
# exits 2 with the hint. Tools that are not built here (LibTorch ones) are skipped, by name.
#   exit-codes-test.sh SOURCE_DIR [--train BIN] [--lm BIN] [--rank BIN] [--reward BIN] [--features BIN] [--bench BIN]
set -u
src=$1; shift
declare -A bin=()
while [ $# -gt 0 ]; do bin[${1#--}]=$2; shift 2; done
work=$(mktemp -d /tmp/cudaperf-exit-codes.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fails=0 ran=0

# check NAME WANT_RC MUST_MATCH MUST_NOT_MATCH COMMAND... (grep -E patterns on stderr, each line on its
# own; MUST_MATCH may hold several patterns separated by " && ", each of which must match; "" skips)
check() {
  local name=$1 want=$2 match=$3 nomatch=$4; shift 4
  ran=$((ran + 1))
  timeout 120 "$@" > out.txt 2> err.txt < /dev/null
  local rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL $name: exit $rc, expected $want"; tail -n 8 err.txt | sed 's/^/  /'; fails=$((fails + 1)); return
  fi
  local rest=$match pattern
  while [ -n "$rest" ]; do
    pattern=${rest%% && *}
    [ "$pattern" = "$rest" ] && rest= || rest=${rest#* && }
    if ! grep -qE -- "$pattern" err.txt; then
      echo "FAIL $name: stderr does not match /$pattern/:"; tail -n 8 err.txt | sed 's/^/  /'; fails=$((fails + 1)); return
    fi
  done
  if [ -n "$nomatch" ] && grep -qE -- "$nomatch" err.txt; then
    echo "FAIL $name: stderr matches /$nomatch/:"; sed -n 1,8p err.txt | sed 's/^/  /'; fails=$((fails + 1)); return
  fi
  echo "ok   $name (exit $rc)"
}
has() { [ -n "${bin[$1]:-}" ] && [ -x "${bin[$1]}" ] || { echo "skip $1: not built"; return 1; }; }

# Corrupt documents: a truncated JSON object, and one whose key repeats.
printf '{"schema": "cudaperf-trainer-state/1", "step": 2,' > truncated.json
printf '{\n  "step": 2,\n  "step": 3\n}\n' > duplicate.json
mkdir -p model && cp duplicate.json model/config.json
printf '{"ids": [1, 2]}\n{"ids": [3,\n' > ids.jsonl
task=$src/data/tasks/saxpy
cand=$task/impls/baseline.cu

if has train; then
  # A one-task dataset and a tiny model shape: cudaperf-train reads --resume's trainer_state.json
  # after the examples are built (a second or two on the CPU).
  python3 - "$src" <<'EOF'
import json, os, sys
d = os.path.join(sys.argv[1], "data", "tasks", "saxpy")
impls = sorted(os.listdir(os.path.join(d, "impls")))
with open("manifest.jsonl", "w") as f:
    for split in ("train", "val"):
        f.write(json.dumps({"task": "saxpy", "dir": d, "family": "shipped", "kind": "c", "split": split,
                            "implementations": [{"file": "impls/" + i, "strategies": ["s"], "baseline": i == "baseline.cu",
                                                 "expected": "neutral" if i == "baseline.cu" else "fast"}
                                                for i in impls]}) + "\n")
EOF
  cat > shape.json <<'EOF'
{"model_type":"qwen2","vocab_size":300,"hidden_size":16,"intermediate_size":32,"num_hidden_layers":1,
 "num_attention_heads":2,"num_key_value_heads":1,"max_position_embeddings":4096,"rope_theta":10000.0,
 "tie_word_embeddings":true}
EOF
  sft=(sft --dataset . --device cpu --dtype float32 --model-config shape.json --vocab 300 --tokenizer-sample-mb 0.05
       --batch-tokens 3000 --micro-batch-tokens 1500 --max-seq-len 1500 --steps 1 --warmup 0)
  # One step writes a real state (OUT/state); its trainer_state.json is then cut short.
  check "train: one SFT step" 0 "" "" "${bin[train]}" "${sft[@]}" --out run
  if [ -f run/state/trainer_state.json ]; then
    cp -r run/state cut && head -c 40 run/state/trainer_state.json > cut/trainer_state.json
    check "train: a corrupt trainer_state.json is an input error" 1 'cut/trainer_state\.json:[0-9]+:[0-9]+: ' \
      "Try '|--help" "${bin[train]}" "${sft[@]}" --out run2 --resume cut
  fi
  check "train: a missing required option is usage" 2 "--dataset and --out are required && Try 'cudaperf-train sft --help'" \
    "" "${bin[train]}" sft --out x
fi

if has lm; then
  check "lm: a config.json with a repeated key is an input error" 1 'model/config\.json.*duplicate key' "Try '|--help" \
    "${bin[lm]}" info --model model
  check "lm: a corrupt --ids-file line names the file and line" 1 'ids\.jsonl: line 2: ' "Try '|--help" \
    "${bin[lm]}" logits --model model --ids-file ids.jsonl
  check "lm: a bad value is usage" 2 "expected a whole number && Try 'cudaperf-lm logits --help'" "" \
    "${bin[lm]}" logits --model model --ids 1,x
fi

if has rank; then
  check "rank: a missing required option is usage" 2 "--out is required.*" "" "${bin[rank]}" train --examples x.jsonl
fi

if has reward; then
  check "reward: a corrupt --result document is an input error" 1 'truncated\.json' "Try '|--help" \
    "${bin[reward]}" --result truncated.json
  check "reward: a corrupt --config is an input error" 1 'duplicate\.json.*duplicate key' "Try '|--help" \
    "${bin[reward]}" --config duplicate.json --print-config
  check "reward: an unknown option is usage" 2 "unknown option '--bogus' && Try 'cudaperf-reward --help'" "" \
    "${bin[reward]}" --bogus
fi

if has features; then
  check "features: a corrupt --analysis document is an input error" 1 'truncated\.json' "Try '|--help" \
    "${bin[features]}" "$task" "$cand" --analysis truncated.json
  check "features: a bad flag is usage" 2 "Try 'cudaperf-features --help'" "" "${bin[features]}" "$task" "$cand" --bogus
fi

if has bench; then
  check "bench: a bad flag is usage" 2 "Try 'cudaperf-bench --help'" "" "${bin[bench]}" --bogus
fi

echo "$ran checks, $fails failed"
[ "$ran" -gt 0 ] && [ "$fails" = 0 ]
