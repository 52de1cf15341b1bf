#!/usr/bin/env bash
# The committed SFT checkpoint (data/models/sft.tar.zst, issue 34 item 6) still unpacks, matches its checksums and
# loads in today's cudaperf-train: four held-out tasks of the training families, greedy, one turn, on the CPU
# (float32, static-only: compile and analysis, no GPU), and at least one answer compiles. A loader that reads the
# shards wrongly writes no compiling code. Also: a tampered checksum list is refused.
# Usage: sft-checkpoint-test.sh CUDAPERF_TRAIN CUDAPERF_DATASET SOURCE_DIR   (exit 77: zstd missing)
set -euo pipefail
train=$1 dataset_tool=$2 src=$3
command -v zstd > /dev/null || { echo "zstd missing: skipped"; exit 77; }
work=$(mktemp -d /tmp/cudaperf-sft-checkpoint.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

bash "$src/scripts/unpack-model.sh" "$work/sft" || fail "unpack-model.sh"
[ -f "$work/sft/config.json" ] && [ -f "$work/sft/model.safetensors.index.json" ] || fail "no checkpoint after unpacking"

# The checksum list is what the unpacked files are held to: a copy of the tree with one hash changed is refused.
mkdir -p "$work/tampered/data/models" "$work/tampered/scripts"
cp "$src/scripts/unpack-model.sh" "$work/tampered/scripts/"
ln -s "$src/data/models/sft.tar.zst" "$work/tampered/data/models/sft.tar.zst"
awk 'NR == 1 { c = substr($0, 1, 1); $0 = (c == "0" ? "1" : "0") substr($0, 2) } { print }' \
  "$src/data/models/SHA256SUMS" > "$work/tampered/data/models/SHA256SUMS"
! cmp -s "$src/data/models/SHA256SUMS" "$work/tampered/data/models/SHA256SUMS" || fail "the tampered list is unchanged"
if bash "$work/tampered/scripts/unpack-model.sh" "$work/tampered-out" 2> "$work/tampered.err"; then
  fail "a changed checksum list was accepted"
fi
grep -q "differs from data/models/SHA256SUMS" "$work/tampered.err" || fail "tampered: $(cat "$work/tampered.err")"
[ ! -e "$work/tampered-out" ] || fail "a refused checkpoint was left in place"

"$dataset_tool" generate --out "$work/dataset" > "$work/dataset.log" 2>&1 || fail "dataset: $(tail -3 "$work/dataset.log")"
"$train" eval-policy --config "$src/data/rl/h200.json" --model "$work/sft" --set dataset="$work/dataset" \
  --set device=cpu --set dtype=float32 --set static_only=true --set eval_tasks=4 --set eval_held_out_family_tasks=0 \
  --set turns=1 --out "$work/eval" > "$work/eval.log" 2>&1 || fail "eval-policy: $(tail -5 "$work/eval.log")"
python3 - "$work/eval/eval-policy.json" "$work/eval/candidates.jsonl" <<'PY' || fail "eval-policy output"
import json, sys
doc = json.load(open(sys.argv[1]))
s = doc["sets"]["train_families"]
assert s["tasks"] == 4, s["tasks"]
lines = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
assert len(lines) == 4, len(lines)
compiled = s["turn1"]["compiled"]
print(f"committed checkpoint on the CPU: 4 tasks, compiled {compiled:.2f}, outcomes "
      f"{sorted(l['outcome'] for l in lines)}")
assert compiled > 0, "no answer of the committed checkpoint compiles"
PY
echo "PASS"
