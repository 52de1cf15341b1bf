#!/usr/bin/env bash
# cudaperf-rank on the CPU: exit codes and messages of bad input, prepare on two shipped tasks
# (the analyzer runs), eval and score with the committed checkpoints (docs/ranking.md).
#   rank-cli-test.sh CUDAPERF_RANK SOURCE_DIR
set -u
RANK=$1
SRC=$2
ANALYZER=$(dirname "$RANK")/cudaperf-analyze
# The shipped model by default (no --checkpoint), on stored analyses (test/learn/fake-analyze.py), so this
# part runs without the analyzer: the tiled transpose ahead of the baseline, the baseline's difference 0, and
# the same difference whether the baseline is among the candidates or scored apart.
T=$SRC/data/tasks/transpose
"$RANK" score "$T" "$T/impls/baseline.cu" "$T/impls/tiled.cu" --analyzer "$SRC/test/learn/fake-analyze.py" --format json \
  > /tmp/rank-default-$$.json 2>/dev/null && "$RANK" score "$T" "$T/impls/tiled.cu" --analyzer "$SRC/test/learn/fake-analyze.py" \
  --format json > /tmp/rank-alone-$$.json 2>/dev/null && python3 - /tmp/rank-default-$$.json /tmp/rank-alone-$$.json <<'EOF2'
import json, sys
both, alone = (json.load(open(f)) for f in sys.argv[1:3])
assert both["checkpoint"].endswith("data/ranking/checkpoints/mlp-static"), both["checkpoint"]
vs = {v["candidate"].split("/")[-1]: v for v in both["versus_baseline"]}
assert vs["baseline.cu"]["mean_score_vs_baseline"] == 0, vs
assert vs["tiled.cu"]["mean_score_vs_baseline"] > 1 and vs["tiled.cu"]["top_features"], vs
a = alone["versus_baseline"][0]["mean_score_vs_baseline"]
assert abs(a - vs["tiled.cu"]["mean_score_vs_baseline"]) < 1e-5, (a, vs)
EOF2
[ $? -eq 0 ] && echo "ok   score: shipped model by default" || { echo "FAIL score: shipped model by default"; exit 1; }
rm -f /tmp/rank-default-$$.json /tmp/rank-alone-$$.json
[ -x "$ANALYZER" ] || { echo "SKIP: no cudaperf-analyze beside $RANK"; exit 77; }
CKPT=$SRC/data/ranking/checkpoints
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
check() { # NAME EXPECTED_RC GREP_PATTERN -- command...
  local name=$1 want=$2 pattern=$3
  shift 4
  "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL $name: exit $rc, expected $want"; sed 's/^/  /' "$TMP/err" | head -20; fails=$((fails + 1)); return
  fi
  if [ -n "$pattern" ] && ! grep -q -- "$pattern" "$TMP/out" "$TMP/err"; then
    echo "FAIL $name: no '$pattern' in the output"; sed 's/^/  /' "$TMP/err" "$TMP/out" | head -20; fails=$((fails + 1)); return
  fi
  echo "ok   $name"
}

check "no command" 2 "usage:" -- "$RANK"
check "unknown command" 2 "unknown command" -- "$RANK" frobnicate
check "train without --out" 2 "out is required" -- "$RANK" train --examples x.jsonl
check "unknown option" 2 "unknown option" -- "$RANK" eval --bogus
check "missing examples file" 1 "cannot read the examples file" -- "$RANK" eval --examples "$TMP/none.jsonl"

mkdir -p "$TMP/tasks"
cp -r "$SRC/data/tasks/saxpy" "$SRC/data/tasks/transpose" "$TMP/tasks/"
check "prepare shipped tasks" 0 "12 examples" -- "$RANK" prepare --tasks "$TMP/tasks" \
  --results "$SRC/data/eval-runs/2026-11-29-h200-tasks/tasks-eval.jsonl" --out "$TMP/shipped.jsonl" --cache "$TMP/cache"
check "prepare again from the cache" 0 "0 analysed, 4 cached" -- "$RANK" prepare --tasks "$TMP/tasks" \
  --results "$SRC/data/eval-runs/2026-11-29-h200-tasks/tasks-eval.jsonl" --out "$TMP/shipped2.jsonl" --cache "$TMP/cache"
cmp -s "$TMP/shipped.jsonl" "$TMP/shipped2.jsonl" && echo "ok   cached examples identical" || { echo "FAIL cached examples differ"; fails=$((fails + 1)); }
check "prepare without a dataset or tasks" 2 "one of --dataset and --tasks" -- "$RANK" prepare --results x --out y

for kind in linear mlp tokens; do
  check "eval $kind" 0 "shipped_tasks" -- "$RANK" eval --examples "$TMP/shipped.jsonl" --checkpoint "$CKPT/$kind" --json "$TMP/eval-$kind.json"
done
check "score" 0 "" -- "$RANK" score "$SRC/data/tasks/transpose" "$SRC/data/tasks/transpose/impls/baseline.cu" \
  "$SRC/data/tasks/transpose/impls/tiled.cu" --checkpoint "$CKPT/mlp" --format json --cache "$TMP/cache"
python3 - "$TMP/out" <<'EOF' && echo "ok   score document" || { echo "FAIL score document"; fails=$((fails + 1)); }
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema"] == "cudaperf-rank-scores/1", doc["schema"]
configs = doc["configurations"]
assert [c["name"] for c in configs] == ["small", "medium", "large"], configs
for c in configs:
    r = c["ranking"]
    assert sorted(x["candidate"].rsplit("/", 1)[-1] for x in r) == ["baseline.cu", "tiled.cu"], r
    assert r[0]["score"] >= r[1]["score"] and [x["rank"] for x in r] == [1, 2]
    assert all(len(x["top_features"]) == 3 for x in r)
# One number per candidate against impls/baseline.cu: the baseline's own is exactly 0.
vs = {v["candidate"].rsplit("/", 1)[-1]: v for v in doc["versus_baseline"]}
assert sorted(vs) == ["baseline.cu", "tiled.cu"], vs
assert vs["baseline.cu"]["mean_score_vs_baseline"] == 0 and vs["tiled.cu"]["configurations"] == 3, vs
EOF
check "score text" 0 "configuration large:" -- "$RANK" score "$SRC/data/tasks/transpose" \
  "$SRC/data/tasks/transpose/impls/tiled.cu" --checkpoint "$CKPT/linear" --config large --cache "$TMP/cache"
check "score: unknown task" 1 "not a task folder" -- "$RANK" score "$TMP/no-such-task" a.cu --checkpoint "$CKPT/mlp"
check "score: unknown configuration" 1 "no configuration 'huge'" -- "$RANK" score "$SRC/data/tasks/transpose" \
  "$SRC/data/tasks/transpose/impls/tiled.cu" --checkpoint "$CKPT/mlp" --config huge --cache "$TMP/cache"
check "score: missing candidate" 1 "no such candidate file" -- "$RANK" score "$SRC/data/tasks/transpose" \
  "$TMP/absent.cu" --checkpoint "$CKPT/mlp"
cp -r "$CKPT/linear" "$TMP/v99"
sed -i 's/"version": [0-9]*/"version": 99/' "$TMP/v99/config.json"
check "checkpoint of another version" 1 "checkpoint version 99" -- "$RANK" eval --examples "$TMP/shipped.jsonl" --checkpoint "$TMP/v99"
cp -r "$CKPT/linear" "$TMP/v1"
sed -i 's/"version": [0-9]*/"version": 1/' "$TMP/v1/config.json"
check "checkpoint of version 1 (sources with comments)" 1 "read the sources with their comments" -- \
  "$RANK" eval --examples "$TMP/shipped.jsonl" --checkpoint "$TMP/v1"
check "not a checkpoint" 1 "not a ranking checkpoint" -- "$RANK" eval --examples "$TMP/shipped.jsonl" --checkpoint "$TMP"
python3 - "$TMP/shipped.jsonl" "$TMP/lacking.jsonl" <<'EOF'
import json, sys
with open(sys.argv[2], "w") as out:
    for line in open(sys.argv[1]):
        d = json.loads(line)
        del d["features"]["total_roofline_time_us"]
        out.write(json.dumps(d) + "\n")
EOF
check "examples without a feature" 1 "feature 'total_roofline_time_us' is absent" -- "$RANK" eval --examples "$TMP/lacking.jsonl" --checkpoint "$CKPT/mlp"
check "train on examples without a training split" 1 "no training groups" -- "$RANK" train --examples "$TMP/shipped.jsonl" --out "$TMP/ckpt"

[ "$fails" = 0 ] && echo "all passed" || { echo "$fails failed"; exit 1; }
