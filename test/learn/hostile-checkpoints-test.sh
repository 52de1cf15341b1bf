#!/usr/bin/env bash
# Issue 35: corrupt checkpoints are refused at load with a clear message and exit 1, never scored.
# cudaperf-rank: NaN / Inf weights, a zero or negative feature scale (copies of
# data/ranking/checkpoints/mlp-static). cudaperf-lm: a config.json whose shapes do not fit the
# checkpoint's tensors is refused naming the tensor, before the model's memory is reserved (the
# config asks for ~8 GB of weights; the run is limited to 4 GB of address space).
#   hostile-checkpoints-test.sh CUDAPERF_RANK CUDAPERF_LM SOURCE_DIR
set -u
RANK=$1 LM=$2 SRC=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
T=$SRC/data/tasks/transpose
fails=0
check() { # NAME EXPECTED_RC PATTERN -- command...
  local name=$1 want=$2 pattern=$3
  shift 4
  "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  if [ "$rc" != "$want" ] || ! grep -q -- "$pattern" "$TMP/err"; then
    echo "FAIL $name: exit $rc (expected $want), message:"; head -c 600 "$TMP/err" "$TMP/out"; echo
    fails=$((fails + 1)); return
  fi
  echo "ok   $name"
}
corrupt() { # NAME PYTHON: a copy of mlp-static in $TMP/NAME, changed by the snippet (c: config, w: tensors)
  cp -r "$SRC/data/ranking/checkpoints/mlp-static" "$TMP/$1"
  python3 - "$TMP/$1" "$2" <<'PY'
import json, struct, sys
d, snippet = sys.argv[1], sys.argv[2]
c = json.load(open(d + "/config.json"))
raw = bytearray(open(d + "/model.safetensors", "rb").read())
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
def poke(value):  # the first element of the alphabetically first F32 tensor
    name = sorted(k for k in header if k != "__metadata__")[0]
    start = 8 + n + header[name]["data_offsets"][0]
    raw[start:start + 4] = struct.pack("<f", value)
exec(snippet)
json.dump(c, open(d + "/config.json", "w"))
open(d + "/model.safetensors", "wb").write(raw)
PY
}
score() { "$RANK" score "$T" "$T/impls/tiled.cu" --analyzer "$SRC/test/learn/fake-analyze.py" --format json --checkpoint "$@"; }

check "rank: the shipped checkpoint scores" 0 "" -- score "$SRC/data/ranking/checkpoints/mlp-static"
corrupt nan 'poke(float("nan"))'
check "rank: a NaN weight is refused" 1 "holds NaN or infinite values" -- score "$TMP/nan"
corrupt inf 'poke(float("inf"))'
check "rank: an infinite weight is refused" 1 "holds NaN or infinite values" -- score "$TMP/inf"
corrupt zero 'c["inputs"][0]["scale"] = 0'
check "rank: a zero feature scale is refused" 1 "scale.*expected a finite number > 0" -- score "$TMP/zero"

cat > "$TMP/tiny.json" <<'JSON'
{"model_type":"qwen2","vocab_size":400,"hidden_size":32,"intermediate_size":64,"num_hidden_layers":2,
 "num_attention_heads":4,"num_key_value_heads":2,"max_position_embeddings":2048,"rope_theta":10000.0,
 "tie_word_embeddings":true,"eos_token_id":2}
JSON
check "lm: init a tiny checkpoint" 0 "" -- "$LM" init --config "$TMP/tiny.json" --out "$TMP/lm" --seed 1
python3 - "$TMP/lm/config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c.update(vocab_size=4000000, hidden_size=512)  # 4M x 512 fp32 embeddings: 8 GB if it were allocated
json.dump(c, open(sys.argv[1], "w"))
PY
start=$(date +%s)
check "lm: a config that does not fit the checkpoint names the tensor" 1 \
  "model.embed_tokens.weight: shape \[400, 32\] in the checkpoint, the configuration needs \[4000000, 512\]" -- \
  bash -c 'ulimit -v 4000000; exec "$0" logits --model "$1" --ids 1,2' "$LM" "$TMP/lm"
[ $(( $(date +%s) - start )) -le 20 ] && echo "ok   lm: refused promptly" || { echo "FAIL lm: slow refusal"; fails=$((fails + 1)); }

[ "$fails" = 0 ] && echo "all passed" || { echo "$fails failed"; exit 1; }
