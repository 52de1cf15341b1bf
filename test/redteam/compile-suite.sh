#!/usr/bin/env bash
# Builds every red-team candidate with cudaperf-eval --compile-only (no GPU needed) and checks each
# built: ok, unless its header allows compile_error (then it must not). Skips (77) without nvcc.
set -euo pipefail
eval_bin=$1
root=$2
if ! command -v nvcc > /dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "SKIP: nvcc not found; the red-team candidates were not compiled"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for f in "$root"/data/redteam/hostile/*.cu "$root"/data/redteam/honest/*.cu; do
  task=$(sed -n 's|^// cudaperf-task: ||p' "$f")
  expect=$(sed -n 's|^// cudaperf-expect: ||p' "$f")
  want=ok
  [ "$expect" = compile_error ] && want=compile_error
  echo "$root/data/tasks/$task $f $want"
done > "$work/list"
cut -d' ' -f1,2 "$work/list" > "$work/batch"
export CUDAPERF_CACHE_DIR=${CUDAPERF_TEST_CACHE_DIR:-$work/cache}
"$eval_bin" --compile-only --arch sm_90 --jobs 2 --batch "$work/batch" --output "$work/results.jsonl"
python3 - "$work/list" "$work/results.jsonl" <<'PY'
import json, sys
expected = [l.split() for l in open(sys.argv[1])]
results = [json.loads(l) for l in open(sys.argv[2])]
if len(results) != len(expected):
    sys.exit(f"{len(results)} results for {len(expected)} candidates")
bad = 0
for (task, cand, want), r in zip(expected, results):
    got = r["outcome"]
    if got != want:
        bad += 1
        print(f"FAIL {cand.split('/')[-1]:44s} expected {want} got {got}: {(r.get('detail') or '')[:300]}")
print(f"{len(results) - bad}/{len(results)} built as expected")
sys.exit(1 if bad else 0)
PY
