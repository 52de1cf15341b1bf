#!/usr/bin/env bash
# Builds every implementation under data/tasks and every bad candidate with --compile-only and
# checks the outcome: ok for implementations, and for bad candidates ok unless they declare
# compile_error. Runs without a GPU.
set -euo pipefail
eval_bin=$1
root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
list=$work/list
for impl in "$root"/data/tasks/*/impls/*.cu; do
  echo "$(dirname "$(dirname "$impl")") $impl ok"
done > "$list"
for bad in "$root"/test/runtime/bad/*.cu; do
  task=$(sed -n 's|^// cudaperf-task: ||p' "$bad")
  expect=$(sed -n 's|^// cudaperf-expect: ||p' "$bad")
  [ "$expect" = compile_error ] || expect=ok
  echo "$root/data/tasks/$task $bad $expect"
done >> "$list"
cut -d' ' -f1,2 "$list" > "$work/batch"
# A private cache keeps the test honest (every file is really compiled) unless the caller shares one.
export CUDAPERF_CACHE_DIR=${CUDAPERF_TEST_CACHE_DIR:-$work/cache}
"$eval_bin" --compile-only --arch sm_90 --jobs 2 --batch "$work/batch" --output "$work/results.jsonl"
python3 - "$list" "$work/results.jsonl" <<'PY'
import json, sys
expected = [l.split() for l in open(sys.argv[1])]
results = [json.loads(l) for l in open(sys.argv[2])]
assert len(results) == len(expected), (len(results), len(expected))
bad = 0
for (task, cand, want), r in zip(expected, results):
    got = r["outcome"]
    mark = "ok  " if got == want else "FAIL"
    if got != want:
        bad += 1
    print(f"{mark} {cand.split('/')[-1]:36s} expected {want:14s} got {got}")
print(f"{len(results) - bad}/{len(results)} as expected")
sys.exit(1 if bad else 0)
PY
