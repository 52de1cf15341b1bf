#!/usr/bin/env bash
# A/B of the counter pass's profiler set-up on the GPU host (docs/counters.md, "Counters mode"): builds the
# evaluator, generates a small sample of the dataset (C tasks, one per family, TASKS of them spread evenly over
# the families, every implementation: 4 per task), builds the candidates once (--compile-only, so the timed runs only hit the build cache),
# then evaluates the same candidates with --counters three times, one cudaperf-eval call each: the base mode
# (BASE), the new mode (NEW), the base mode again (the repeat: how much counters and times vary from run to
# run). The first A/B (2026-12-02, the defaults BASE=per-config NEW=shared) labelled them
#   default  (--counters-mode per-config, the default until that A/B; the label kept)
#   shared   (--counters-mode shared, the default since)
#   repeat   (per-config again)
# and the second (BASE=shared NEW=joint) shared, joint, repeat. NEW_OPTS adds cudaperf-eval options to the new
# run only and NEW_LABEL names it, for an A/B of options within one mode, e.g. the counter data image's size:
#   BASE=shared NEW=shared NEW_LABEL=ranges-auto NEW_OPTS='--counters-ranges auto' bash scripts/gpu/counters-ab.sh
# Then it compares them
# (scripts/gpu/counters-ab-compare.py): per candidate the worker's counters stage seconds in each run and
# whether every counter of the new run equals the base run's (or lies within the base's own spread), per metric
# the pairs equal, per run the candidates per minute.
#
# Usage (repository root, GPU host; the carried .carry/deps from scripts/pack-deps.sh):
#   OUT=<dir> bash scripts/gpu/counters-ab.sh          (TASKS=5 FAMILIES='*' JOBS=16 BASE=per-config NEW=shared)
# Results in $OUT (7 files): ab.log, runs.tsv, results-{BASE's label,NEW,repeat}.jsonl, compare.txt, compare.json.
# About 3-4 minutes (capped at 300 s: build 150 s at most, each evaluation 75 s at most).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-/tmp/counters-ab-out}
TASKS=${TASKS:-5}
FAMILIES=${FAMILIES:-'*'}
JOBS=${JOBS:-16}
BASE=${BASE:-per-config}
NEW=${NEW:-shared}
NEW_OPTS=${NEW_OPTS:-}
NEW_LABEL=${NEW_LABEL:-$NEW}
BASE_LABEL=$BASE
[ "$BASE" = per-config ] && BASE_LABEL=default
WORK=/tmp/counters-ab
START=$SECONDS
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK"
cd "$ROOT" || exit 1
LOG=$OUT/ab.log
: > "$LOG"
say() { echo "[$(date -u +%T) $((SECONDS - START))s] $*" | tee -a "$LOG"; }
left() { echo $((300 - (SECONDS - START))); }
cap() { local want=$1 l; l=$(left); [ "$l" -lt "$want" ] && want=$l; [ "$want" -lt 1 ] && want=1; echo "$want"; }
export PATH=$PWD/.carry/deps/bin:/usr/local/cuda/bin:$PATH
say "scripts/gpu/counters-ab.sh TASKS=$TASKS FAMILIES='$FAMILIES' JOBS=$JOBS BASE=$BASE NEW=$NEW NEW_LABEL=$NEW_LABEL NEW_OPTS='$NEW_OPTS' at $(git rev-parse --short HEAD 2>/dev/null)"
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1); $(nproc) cores"
grep -i RestrictProfiling /proc/driver/nvidia/params 2>/dev/null | tee -a "$LOG"

# 1. Build: evaluator, worker, generator (as scripts/gpu/measure-dataset.sh, without the torch reference).
DEPS=()
[ -d .carry/deps ] && DEPS=("-DCUDAPERF_DEPS_PREFIX=$PWD/.carry/deps")
timeout "$(cap 60)" cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDAPERF_BUILD_ANALYZER=OFF \
  -DCUDAPERF_BUILD_TESTS=OFF "${DEPS[@]}" > "$WORK/configure.log" 2>&1 &&
  timeout "$(cap 150)" cmake --build build-gpu -j "$(nproc)" --target cudaperf-eval cudaperf-eval-worker cudaperf-dataset \
    > "$WORK/build.log" 2>&1
rc=$?
say "build: rc=$rc ($(tail -1 "$WORK/build.log" 2>/dev/null))"
if [ $rc -ne 0 ]; then
  tail -30 "$WORK/configure.log" "$WORK/build.log" >> "$LOG" 2>/dev/null
  exit 1
fi
EVAL=build-gpu/bin/cudaperf-eval
"$EVAL" --help 2>&1 | grep -- --counters-mode > /dev/null || { say "this cudaperf-eval has no --counters-mode"; exit 1; }
[ "$NEW" = joint ] && { "$EVAL" --help 2>&1 | grep -q "joint:" || { say "this cudaperf-eval has no joint mode"; exit 1; }; }
case "$NEW_OPTS" in *--counters-ranges*) "$EVAL" --help 2>&1 | grep -q -- "--counters-ranges" ||
  { say "this cudaperf-eval has no --counters-ranges"; exit 1; } ;; esac

# 2. The sample: C tasks only (no PyTorch import needed), one per family, TASKS families spread over the list
#    (the manifest lists related families together: map_*, row_*, gemm-like, ...).
DS=$WORK/ds
timeout "$(cap 60)" build-gpu/bin/cudaperf-dataset generate --out "$DS" --kind c --families "$FAMILIES" --limit 1 \
  --quiet > "$WORK/generate.log" 2>&1
say "generate: rc=$?"
python3 - "$DS" "$TASKS" > "$WORK/batch.txt" <<'PY'
import json, sys
ds, n = sys.argv[1], int(sys.argv[2])
tasks = [json.loads(line) for line in open(f"{ds}/manifest.jsonl")]
for e in [tasks[len(tasks) * i // n] for i in range(min(n, len(tasks)))]:
    for i in e["implementations"]:
        print(f"{ds}/{e['dir']}", f"{ds}/{e['dir']}/{i['file']}")
PY
N=$(wc -l < "$WORK/batch.txt")
say "sample: $N implementations of $(cut -d' ' -f1 "$WORK/batch.txt" | sort -u | wc -l) tasks: $(cut -d' ' -f1 "$WORK/batch.txt" | sort -u | xargs -n1 basename | tr '\n' ' ')"
[ "$N" -gt 0 ] || exit 1

# 3. Builds first, into a cache of this run: the timed runs below then only read it.
CACHE=$WORK/cache
timeout "$(cap 60)" "$EVAL" --batch "$WORK/batch.txt" --compile-only --jobs "$JOBS" --cache-dir "$CACHE" --jsonl \
  --output "$WORK/compile.jsonl" > "$WORK/compile.log" 2>&1 < /dev/null
say "compile-only: rc=$? ($(grep -c '"outcome":"ok"' "$WORK/compile.jsonl" 2>/dev/null) of $N built)"

# 4. The three runs, the same options but the mode (those of measure-dataset.sh's evaluation).
: > "$OUT/runs.tsv"
run() {  # label [extra options...]
  local label=$1 t0 t1 rc
  shift
  t0=$(date +%s.%N)
  timeout "$(cap 75)" "$EVAL" --batch "$WORK/batch.txt" --jobs "$JOBS" --cache-dir "$CACHE" --counters "$@" --jsonl \
    --budget-ms 30 --min-runs 10 --output "$OUT/results-$label.jsonl" > "$WORK/eval-$label.log" 2>&1 < /dev/null
  rc=$?
  t1=$(date +%s.%N)
  printf '%s\t%s\t%s\n' "$label" "$(python3 -c "print(round($t1 - $t0, 3))")" "$rc" >> "$OUT/runs.tsv"
  say "$label: rc=$rc, $(wc -l < "$OUT/results-$label.jsonl" 2>/dev/null || echo 0) results, $(grep -c '"outcome":"ok"' "$OUT/results-$label.jsonl" 2>/dev/null) ok, $(tail -1 "$OUT/runs.tsv" | cut -f2) s"
  [ $rc -ne 0 ] && tail -5 "$WORK/eval-$label.log" >> "$LOG"
}
run "$BASE_LABEL" --counters-mode "$BASE"
# shellcheck disable=SC2086  # NEW_OPTS: words on purpose
run "$NEW_LABEL" --counters-mode "$NEW" $NEW_OPTS
run repeat --counters-mode "$BASE"

# 5. The comparison.
python3 scripts/gpu/counters-ab-compare.py --base "$OUT/results-$BASE_LABEL.jsonl" --new "$OUT/results-$NEW_LABEL.jsonl" \
  --repeat "$OUT/results-repeat.jsonl" --base-mode "$BASE" --new-mode "$NEW" --new-label "$NEW_LABEL" --runs "$OUT/runs.tsv" \
  --json "$OUT/compare.json" > "$OUT/compare.txt" 2>> "$LOG"
say "compare: rc=$?"
cat "$OUT/compare.txt"
ls -la "$OUT" | tee -a "$LOG"
