#!/usr/bin/env bash
# scripts/arm-progress.py on the stored arm of 2026-12-07 (three chunks, steps 1-62): joins them without a
# problem and prints the first window's means as computed here from the step lines; a missing chunk (a gap),
# a chunk repeated, and a chunk with another config are each reported with exit 1, a changed run-local key is
# not; the evaluator's stage seconds in step lines are averaged per window, and per kind over the answers that
# reached the GPU; --by-kind's first span agrees with a
# count made here, and so do --pairs' count and mean advantage of one outcome pair; --wait-fit recovers a reward wait constructed from its counts; a step logged by a chunk killed
# before saving it gives way to the next chunk's run of it (a NOTE), but only where that chunk says it resumed
# before it; no chunk is exit 2.
# Usage: arm-progress-test.sh SOURCE_DIR
set -euo pipefail
src=$1
arm=$src/data/eval-runs/2026-12-07-h100-arm-unified-ranker-s0
tool=$src/scripts/arm-progress.py
work=$(mktemp -d /tmp/cudaperf-arm-progress.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

python3 "$tool" "$arm" > "$work/out.txt" || fail "the stored arm: exit $?"
grep -q '^62 steps in 3 chunks' "$work/out.txt" || fail "not 62 steps in 3 chunks: $(head -1 "$work/out.txt")"
# The first window (steps 1-10): mean reward and share correct, from the step lines directly.
want=$(python3 -c '
import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])][:10]
print("%+.3f %.1f%%" % (sum(r["reward_mean"] for r in rows)/10, 100*sum(r["correct_rate"] for r in rows)/10))' "$arm/chunk-1/rl-log.jsonl")
got=$(awk '$1 == "1-10" {print $2, $3}' "$work/out.txt")
[ "$got" = "$want" ] || fail "steps 1-10: got '$got', computed '$want'"

mk() { rm -rf "$work/arm" && mkdir -p "$work/arm"; }
expect1() { set +e; python3 "$tool" "$work/arm" > "$work/bad.txt" 2>&1; rc=$?; set -e
  [ "$rc" -eq 1 ] || fail "$1: exit $rc, not 1"; grep -q "PROBLEM: .*$2" "$work/bad.txt" || fail "$1: no PROBLEM line with '$2'"; }
# --by-kind: the first span's turn-1 share correct of the C candidates, counted here from the candidates.
python3 "$tool" "$arm" --by-kind 2 > "$work/kind.txt" || fail "--by-kind: exit $?"
want=$(python3 -c '
import glob, gzip, json, sys
rows = [json.loads(l) for p in sorted(glob.glob(sys.argv[1] + "/chunk-*/candidates.jsonl.gz")) for l in gzip.open(p, "rt")]
t1 = [r for r in rows if r["phase"] == "train" and r["kind"] == "c" and r["turn"] == 1 and r["step"] <= 31]
print("%.1f%%" % (100 * sum(r["outcome"] == "ok" for r in t1) / len(t1)))' "$arm")
got=$(awk '$1 == "c" && $2 == "1-31" {print $3}' "$work/kind.txt")
[ -n "$want" ] && [ "$got" = "$want" ] || fail "--by-kind c 1-31 turn-1 ok: got '$got', counted '$want'"
grep -q "^turn 2: [0-9]* of [0-9]* correct turn-1 answers" "$work/kind.txt" || fail "--by-kind: no turn-2 line"
mk; cp -r "$arm/chunk-1" "$work/arm/chunk-1"; cp -r "$arm/chunk-3" "$work/arm/chunk-2"
expect1 "a missing chunk" "steps are not"
mk; cp -r "$arm/chunk-1" "$work/arm/chunk-1"; cp -r "$arm/chunk-1" "$work/arm/chunk-2"
expect1 "a repeated chunk" "steps are not"
mk; cp -r "$arm/chunk-1" "$work/arm/chunk-1"; cp -r "$arm/chunk-2" "$work/arm/chunk-2"
python3 -c 'import json,sys; p=sys.argv[1]; c=json.load(open(p)); c["learning_rate"]=0.5; json.dump(c, open(p,"w"))' "$work/arm/chunk-2/rl-config.json"
expect1 "another config" "learning_rate"
# A run-local key (reward_jobs) may change between chunks, as `--resume` allows.
mk; cp -r "$arm/chunk-1" "$work/arm/chunk-1"; cp -r "$arm/chunk-2" "$work/arm/chunk-2"
python3 -c 'import json,sys; p=sys.argv[1]; c=json.load(open(p)); c["reward_jobs"]=3; json.dump(c, open(p,"w"))' "$work/arm/chunk-2/rl-config.json"
python3 "$tool" "$work/arm" > "$work/ok.txt" 2>&1 || fail "a run-local key changed: exit $?"
# Step lines with the evaluator's stage seconds: their window means (steps 1-10 of chunk-1 given build = step/10).
python3 - "$work/arm/chunk-1/rl-log.jsonl" <<'PY'
import json, sys
p = sys.argv[1]
rows = [json.loads(l) for l in open(p)]
for r in rows:
    r["evaluator_stages"] = {"candidates": 20, "build": r["step"] / 10, "worker": 0.5}
open(p, "w").write("".join(json.dumps(r) + "\n" for r in rows))
PY
python3 "$tool" "$work/arm" > "$work/stages.txt" 2>&1 || fail "stages: exit $?"
grep -q "evaluator seconds per evaluated candidate" "$work/stages.txt" || fail "no stage table: $(tail -3 "$work/stages.txt")"
got=$(awk '/evaluator seconds/ {t=1} t && $1 == "1-10" {print $2, $3, $4}' "$work/stages.txt")
[ "$got" = "20.0 0.55 0.50" ] || fail "stage means of steps 1-10: got '$got', want '20.0 0.55 0.50'"
# --wait-fit recovers a reward wait made here as 2 + 0.3 per GPU run + 0.1 per compile error (counted here).
mk; cp -r "$arm/chunk-1" "$work/arm/chunk-1"
python3 - "$work/arm/chunk-1" <<'PY'
import gzip, json, sys
d = sys.argv[1]
ran, built, seen = {}, {}, set()
for r in map(json.loads, gzip.open(d + "/candidates.jsonl.gz", "rt")):
    if r["phase"] != "train" or r["cached"] or r["outcome"] == "no_code_block" or (r["step"], r["source_sha256"]) in seen:
        continue
    seen.add((r["step"], r["source_sha256"]))
    (built if r["outcome"] == "compile_error" else ran)[r["step"]] = (built if r["outcome"] == "compile_error" else ran).get(r["step"], 0) + 1
rows = [json.loads(l) for l in open(d + "/rl-log.jsonl")]
for r in rows:
    r["seconds"]["reward_wait"] = 2 + 0.3 * ran.get(r["step"], 0) + 0.1 * built.get(r["step"], 0)
open(d + "/rl-log.jsonl", "w").write("".join(json.dumps(r) + "\n" for r in rows))
PY
python3 "$tool" "$work/arm" --wait-fit > "$work/fit.txt" 2>&1 || fail "--wait-fit: exit $?"
grep -q "^fit: wait = 2.00 s +0.300 s per GPU run +0.100 s per compile error" "$work/fit.txt" ||
  fail "--wait-fit: $(grep fit: "$work/fit.txt")"
# A chunk killed between two state saves (run3's chunk-4 logged step 103, saved 102): the next chunk resumed from
# step 102's state (its train.log says so) and ran 103 again; that run is kept, the first one named in a NOTE and
# left out of the candidates' counts. Without the resume line the repeat is a PROBLEM.
run3=$src/data/eval-runs/2026-12-07-h100-arm-unified-ranker-s0-run3
mk; cp -r "$run3/chunk-4" "$work/arm/chunk-4"; cp -r "$run3/chunk-5" "$work/arm/chunk-5"
python3 "$tool" "$work/arm" --by-kind 1 > "$work/resumed.txt" 2>&1 && fail "chunks 4-5 alone start at step 73: exit 0"
grep -q "^NOTE: chunk-4: step 103 logged but not saved; the next chunk resumed from step 102's state" "$work/resumed.txt" ||
  fail "no NOTE on chunk-4's step 103: $(grep -E 'NOTE|PROBLEM' "$work/resumed.txt")"
grep -q "PROBLEM: steps are not 1..73 in order: \[73, 74, 75, 76, 77\]...\[141, 142, 143, 144, 145\]" "$work/resumed.txt" ||
  fail "chunks 4-5: not 73 steps 73..145: $(grep PROBLEM "$work/resumed.txt")"
want=$(python3 -c '
import gzip, json, sys
n = lambda p, f: sum(1 for r in map(json.loads, gzip.open(p, "rt")) if r["phase"] == "train" and f(r))
print(n(sys.argv[1], lambda r: r["step"] <= 102) + n(sys.argv[2], lambda r: True))' "$run3/chunk-4/candidates.jsonl.gz" "$run3/chunk-5/candidates.jsonl.gz")
grep -q "^per kind, training candidates ($want)" "$work/resumed.txt" || fail "candidates: want $want, $(grep '^per kind' "$work/resumed.txt")"
# --by-kind's stage table: per kind, the answers that reached the GPU (not reused, not a compile error), kept
# steps only; the C row's count and mean device slot as computed here.
want=$(python3 -c '
import gzip, json, sys
rows = [r for p, last in ((sys.argv[1], 102), (sys.argv[2], 10**9)) for r in map(json.loads, gzip.open(p, "rt"))
        if r["phase"] == "train" and r["step"] <= last and r.get("evaluator_stages") and not r["cached"]
        and r["kind"] == "c" and r["outcome"] not in ("compile_error", "no_code_block")]
print("%d %.2f" % (len(rows), sum(r["evaluator_stages"].get("device_slot", 0) for r in rows) / len(rows)))' \
  "$run3/chunk-4/candidates.jsonl.gz" "$run3/chunk-5/candidates.jsonl.gz")
got=$(awk '/reached the GPU/ {t=1} t && $1 == "c" {print $2, $5}' "$work/resumed.txt")
[ "$got" = "$want" ] || fail "stage table, C: got '$got' (cands, device_slot), computed '$want'"
# --pairs: the trajectories whose turn 1 was correct and whose turn 2 did not compile, counted here, and their
# turn-1 answers' mean advantage.
python3 "$tool" "$work/arm" --pairs > "$work/pairs.txt" 2>&1 && fail "--pairs on chunks 4-5: exit 0"
want=$(python3 -c '
import gzip, json, sys
rows = [r for p, last in ((sys.argv[1], 102), (sys.argv[2], 10**9)) for r in map(json.loads, gzip.open(p, "rt"))
        if r["phase"] == "train" and r["step"] <= last]
t = {(r["step"], r["group"], r["trajectory"], r["turn"]): r for r in rows}
v = [r for (s, g, j, n), r in t.items() if n == 1 and r["outcome"] == "ok" and t.get((s, g, j, 2), {}).get("outcome") == "compile_error"]
print("%d %+.3f" % (len(v), sum(r["advantage"] for r in v) / len(v)))' "$run3/chunk-4/candidates.jsonl.gz" "$run3/chunk-5/candidates.jsonl.gz")
got=$(awk '$1 == "ok" && $2 == "->" && $3 == "compile_error" {print $4, $7}' "$work/pairs.txt")
[ "$got" = "$want" ] || fail "--pairs ok -> compile_error: got '$got' (count, advantage), computed '$want'"
sed -i '/resumed .* at RL step/d' "$work/arm/chunk-5/train.log"
expect1 "a repeated step without a resume line" "steps are not 1..74"
mk
set +e; python3 "$tool" "$work/arm" 2> /dev/null; rc=$?; set -e
[ "$rc" -eq 2 ] || fail "no chunk: exit $rc, not 2"
echo PASS
