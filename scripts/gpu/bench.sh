#!/usr/bin/env bash
# The benchmark harness on the GPU host, in one command (docs/bench.md; issue 19):
#   1. build cudaperf-eval, its worker, cudaperf-torch-reference and cudaperf-bench (no LLVM), while the
#      shipped PyTorch problems' exported/ traces are made (import-pytorch-task.py --export-only);
#   2. import KernelBench's three levels (scripts/import-kernelbench.py, one process per level, the three
#      at once) from .carry/kernelbench (scripts/fetch-kernelbench.sh): outcome per problem, time per level;
#   3. cudaperf-bench over the shipped suite with the shipped implementations as candidates (--impls);
#   4. torch.compile (and Python eager) timings of the shipped PyTorch problems (scripts/torch-baselines.py),
#      then the shipped suite scored again with them;
#   5. PyTorch baselines of the imported KernelBench level-1 problems (eager and torch.compile at
#      KernelBench's sizes), as far as the time allows;
#   6. (step "policy", not in the default steps) the policy's candidates: the held-out answers that a stored
#      RL run recorded before RL (the SFT policy) and after it (the RL policy), extracted by
#      scripts/policy-candidates.py, each set scored by cudaperf-bench over the dataset's test split
#      (data/suites/dataset-test.json on a dataset generated here with cudaperf-dataset, seed 1 as the RL run's),
#      then re-scored per eval set (train_families, held_out_families) from the same results;
#   7. the tables for docs/benchmarks.md.
# Usage (repository root, GPU host; carry .carry/deps from scripts/pack-deps.sh and .carry/kernelbench):
#   scripts/gpu/bench.sh [OUTDIR]          (default $OUT, else /tmp/bench-out)
#   BENCH_STEPS=policy BENCH_SECONDS=300 scripts/gpu/bench.sh [OUTDIR]   (the policy's candidates alone)
# Writes OUTDIR/{README.md,bench.log,shipped-results.jsonl,torch-timings.jsonl,kernelbench-import.json,
# level1-timings.jsonl,bench-outputs.tar.gz,logs.tar.gz} (bench-outputs: cudaperf-bench's outputs of the
# shipped suite, raw and with compile timings, of the level-1 problems with adopted baselines, and of the
# policy step), with step "policy" also policy-candidates.json (what was extracted) and
# policy-{before,after}-results.jsonl (cudaperf-eval's results). README.md has the command, the machine
# and the tables; copy it with the .jsonl/.json files, and shipped-final/bench.json of bench-outputs.tar.gz
# as bench.json, to data/eval-runs/<date>-h200-bench/ (test/bench/replay_stored_runs.py replays them).
# Environment: BENCH_SECONDS (default 510: every step is capped so the whole ends within it),
# BENCH_STEPS (default "import shipped compile level1"; add "policy" with BENCH_SECONDS about 150 higher, or
# leave steps out to save time),
# BENCH_LEVEL1_SPARES (step level1: also evaluate the adopted level-1 baselines with each of these
# --spare-workers values, e.g. "0", and compare each problem's candidate-over-baseline timing),
# BENCH_POLICY_RUN (the RL run for "policy": a directory with candidates.jsonl.gz, or the file; default
# data/eval-runs/2026-12-02-h200-rl-4, the run its recorded results came from).
set -uo pipefail
out=${1:-${OUT:-/tmp/bench-out}}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
work=/tmp/cudaperf-bench-run
rm -rf "$work"
mkdir -p "$out" "$work"/logs
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
export PYTHONUNBUFFERED=1
exec > >(tee -a "$out/bench.log") 2>&1
start=$SECONDS
deadline=$((SECONDS + ${BENCH_SECONDS:-510}))
steps=" ${BENCH_STEPS:-import shipped compile level1} "
# cap N [RESERVE]: N seconds, or what is left before the deadline less RESERVE (at least 5).
cap() { local l=$((deadline - ${2:-0} - SECONDS)); [ "$1" -lt $l ] && l=$1; [ $l -lt 5 ] && l=5; echo $l; }
left() { echo $((deadline - SECONDS)); }
log() { echo "[$((SECONDS - start))s] $*"; }
want() { [[ "$steps" == *" $1 "* ]]; }
# The least time each step needs; a step's cap leaves it to every later step that BENCH_STEPS selects.
declare -A RESERVE=([import]=0 [shipped]=100 [compile]=80 [level1]=70 [policy]=150)
after() { local sum=0 seen=0 s; for s in import shipped compile level1 policy; do
  [ $seen = 1 ] && want $s && sum=$((sum + RESERVE[$s])); [ $s = "$1" ] && seen=1; done; echo $sum; }
jobs=$(nproc)
build_jobs=$(( jobs > 4 ? jobs - 2 : 2 ))  # leave two cores to the importers running beside the build

log "== machine"
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)
torchv=$(timeout 60 python3 -c 'import torch; print(torch.__version__)' 2>&1 | tail -1)
environment="$(echo "$gpu" | sed 's/, / driver /'), CUDA $(nvcc --version 2>/dev/null | grep -o 'V[0-9][0-9.]*' | tr -d V), PyTorch $torchv, $(nproc) cores, $(date -u +%Y-%m-%d)"
log "$environment"
commit=${BENCH_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo "not recorded (set BENCH_COMMIT)")}
summary=()  # "step: what" lines, printed last
note() { summary+=("$*"); log "$*"; }
# outcomes RESULTS.jsonl: the count of each outcome of a cudaperf-eval results file, or why not.
outcomes() { python3 -c '
import collections, json, sys
print(dict(collections.Counter(json.loads(l)["outcome"] for l in open(sys.argv[1]) if l.strip())))' "$1" 2>&1 | tail -1; }
[ -d .carry/kernelbench ] && head -3 .carry/kernelbench/SOURCE
[ -d .carry/deps ] || log "WARNING: no .carry/deps (scripts/pack-deps.sh): cudaperf-bench needs nlohmann-json; the runtime may too"

# --- 1. build, and the shipped problems' traces ---------------------------------------------------
log "== 1. build (runtime, worker, torch reference, bench) and the shipped PyTorch problems' exported/"
prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)
deps=()
[ -d .carry/deps ] && deps=(-DCUDAPERF_DEPS_PREFIX="$root/.carry/deps")
(
  timeout "$(cap 120)" cmake -S . -B build-gpu -G Ninja -DCUDAPERF_BUILD_ANALYZER=OFF -DCUDAPERF_BUILD_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=Release -DCUDAPERF_BUILD_TORCH_REFERENCE=ON -DCMAKE_PREFIX_PATH="$prefix" "${deps[@]}" \
    > "$work/logs/build.log" 2>&1
  # One target at a time, so that one failing leaves the others built.
  targets="cudaperf-bench cudaperf-eval cudaperf-eval-worker cudaperf-torch-reference"
  want policy && targets="$targets cudaperf-dataset"
  for target in $targets; do
    timeout "$(cap 240)" cmake --build build-gpu -j "$build_jobs" --target $target >> "$work/logs/build.log" 2>&1
    echo "$target rc=$?" >> "$work/logs/build.log"
  done
) &
build_pid=$!
(timeout "$(cap 150)" python3 scripts/import-pytorch-task.py --export-only data/tasks/pytorch/*/model.py \
  > "$work/logs/shipped-export.log" 2>&1; echo "export rc=$?" >> "$work/logs/shipped-export.log") &
export_pid=$!

# --- 2. KernelBench, three levels at once -----------------------------------------------------------
kb_pids=()
if want import && [ -d .carry/kernelbench ]; then
  log "== 2. KernelBench import, levels 1, 2, 3 in parallel (each level's time is measured while the others run)"
  mkdir -p build/kernelbench
  for level in 1 2 3; do
    timeout "$(cap 200 $(after import))" python3 scripts/import-kernelbench.py .carry/kernelbench --levels $level --out build/kernelbench \
      --report "$work/kb-level$level.json" --log "$work/logs/kb-importer-level$level.log" \
      --level-timeout "$(cap 180 $(( $(after import) + 10 )))" > "$work/logs/kb-level$level.log" 2>&1 &
    kb_pids+=($!)
  done
elif want import; then
  log "== 2. skipped: no .carry/kernelbench (scripts/fetch-kernelbench.sh on the CPU machine, then carry it)"
fi
wait "$export_pid"
note "1. shipped export: $(tail -1 "$work/logs/shipped-export.log"), $(grep -c '^== ' "$work/logs/shipped-export.log") problems, $(grep -c '^error' "$work/logs/shipped-export.log") errors"
grep '^error' "$work/logs/shipped-export.log" | head -10
wait "$build_pid"
note "1. build: $(grep -E " rc=" "$work/logs/build.log" | tr '\n' ' ')"
bench_bin=build-gpu/bin/cudaperf-bench
eval_bin=build-gpu/bin/cudaperf-eval
[ -x "$eval_bin" ] || { log "cudaperf-eval did not build:"; grep -E "error|Error" "$work/logs/build.log" | head -20; }
[ -x "$bench_bin" ] || { log "cudaperf-bench did not build:"; grep -E "error|nlohmann|Error" "$work/logs/build.log" | head -10; }
for pid in "${kb_pids[@]}"; do wait "$pid"; done
if [ ${#kb_pids[@]} -gt 0 ]; then
  python3 - "$work" "$out/kernelbench-import.json" <<'PY'
import json, sys
work, out = sys.argv[1], sys.argv[2]
merged = {"schema": "cudaperf-kernelbench-import/1", "levels": {}, "refusal_classes": {}, "problems": []}
for level in (1, 2, 3):
    try:
        r = json.load(open(f"{work}/kb-level{level}.json"))
    except (OSError, ValueError) as e:
        print(f"level {level}: no report ({e}); the end of its log:")
        try:
            print("".join(open(f"{work}/logs/kb-level{level}.log").readlines()[-5:]))
        except OSError:
            pass
        continue
    merged["kernelbench"] = r.get("kernelbench")
    merged["levels"].update(r["levels"])
    merged["problems"] += r["problems"]
    for k, v in r["refusal_classes"].items():
        merged["refusal_classes"][k] = merged["refusal_classes"].get(k, 0) + v
json.dump(merged, open(out, "w"), indent=1)
for level, s in sorted(merged["levels"].items()):
    print(f"level {level}: {s['imported']}/{s['problems']} imported, {s['refused']} refused, {s['seconds']} s")
    with open(f"{work}/summary-kb.txt", "a") as f:
        f.write(f"2. KernelBench level {level}: {s['imported']}/{s['problems']} imported, {s['refused']} refused, {s['seconds']} s\n")
print("refusals by class:", merged["refusal_classes"])
for p in merged["problems"]:
    if p["outcome"] != "imported":
        print(f"  refused {p['task']}: {p['reason'][:600]}")
PY
fi

# --- 3. the shipped implementations as candidates of the shipped tasks ----------------------------
eval_args=(--eval-arg=--budget-ms=20 --eval-arg=--stall-timeout=20 --eval-arg=--timeout=90)
if want shipped && [ -x "$eval_bin" ]; then
  log "== 3. cudaperf-bench --suite data/suites/shipped.json --impls"
  if [ -x "$bench_bin" ]; then
    CUDAPERF_CACHE_DIR=/tmp/cudaperf-cache timeout "$(cap 200 $(after shipped))" "$bench_bin" --suite data/suites/shipped.json --impls \
      --out "$work/shipped" --jobs 12 "${eval_args[@]}" > "$work/logs/shipped-bench.stdout" 2> "$work/logs/shipped-bench.stderr"
    log "cudaperf-bench rc=$?"
    tail -5 "$work/logs/shipped-bench.stderr"
  else  # without cudaperf-bench: the evaluator alone; the results are scored on the CPU machine (--results)
    : > "$work/shipped.batch"
    for impl in data/tasks/*/impls/*.cu data/tasks/pytorch/*/impls/*.cu; do
      echo "$root/$(dirname "$(dirname "$impl")") $root/$impl" >> "$work/shipped.batch"
    done
    mkdir -p "$work/shipped"
    CUDAPERF_CACHE_DIR=/tmp/cudaperf-cache timeout "$(cap 200 $(after shipped))" "$eval_bin" --batch "$work/shipped.batch" --jobs 12 \
      --budget-ms 20 --stall-timeout 20 --timeout 90 --jsonl --summary --output "$work/shipped/results.jsonl" \
      2> "$work/logs/shipped-bench.stderr"
    log "cudaperf-eval rc=$?"
  fi
  [ -f "$work/shipped/results.jsonl" ] && cp "$work/shipped/results.jsonl" "$out/shipped-results.jsonl"
  note "3. shipped: $(wc -l < "$out/shipped-results.jsonl" 2>/dev/null || echo 0) results of $(ls data/tasks/*/impls/*.cu data/tasks/pytorch/*/impls/*.cu | wc -l) implementations; outcomes $(outcomes "$out/shipped-results.jsonl")"
fi

# --- 4. torch.compile of the shipped PyTorch problems, and the shipped suite scored with it ---------
: > "$out/torch-timings.jsonl"
collect_timings() { # TASK_DIR...: their exported/torch-timing.json, one line each, into torch-timings.jsonl
  python3 - "$out/torch-timings.jsonl" "$@" <<'PY'
import json, os, sys
with open(sys.argv[1], "a") as out:
    for d in sys.argv[2:]:
        p = os.path.join(d, "exported", "torch-timing.json")
        if os.path.exists(p):
            out.write(json.dumps(json.load(open(p))) + "\n")
PY
}
if want compile; then
  log "== 4. torch.compile timings of the shipped PyTorch problems (6 compiling processes, one timing at a time)"
  timeout "$(cap 130 $(after compile))" python3 scripts/torch-baselines.py data/tasks/pytorch/*/ --jobs 6 --task-timeout 90 \
    --deadline "$(cap 110 $(( $(after compile) + 10 )))" > "$work/shipped-torch-timing.jsonl" 2> "$work/logs/shipped-torch-baselines.stderr"
  note "4. compile timings (shipped): rc=$?, $(grep -c '"configs"' "$work/shipped-torch-timing.jsonl") of 27 tasks timed, $(grep -o '"compile_error": "[^"]' "$work/shipped-torch-timing.jsonl" | wc -l) configurations failed to compile"
  tail -3 "$work/logs/shipped-torch-baselines.stderr"
  collect_timings data/tasks/pytorch/*/
fi
if [ -x "$bench_bin" ] && [ -s "$out/shipped-results.jsonl" ]; then
  # Scored from the results alone (no --impls), as test/bench/replay_stored_runs.py scores the stored copy.
  "$bench_bin" --results "$out/shipped-results.jsonl" --suite data/suites/shipped.json \
    --torch-timings "$out/torch-timings.jsonl" --out "$work/shipped-final" > "$work/shipped-final.md" 2> "$work/logs/shipped-final.stderr"
  note "4. shipped suite scored with the compile timings: rc=$?"
  cat "$work/shipped-final.md"
fi

# --- 5. KernelBench level 1: the adopted shipped baselines as candidates, then PyTorch eager and
#        torch.compile at KernelBench's sizes ---------------------------------------------------------
adopted=$(ls build/kernelbench/level1_*/impls/baseline.cu 2>/dev/null | while read -r b; do
  d=$(dirname "$(dirname "$b")"); [ -f "$d/task.json" ] && echo "$d"; done)
if want level1 && [ -n "$adopted" ] && [ -x "$bench_bin" ] && [ "$(left)" -gt 120 ]; then
  log "== 5a. the $(echo "$adopted" | wc -l) level-1 problems with an adopted shipped baseline, that baseline as candidate"
  python3 - "$work/level1-adopted.json" $adopted <<'PY'
import json, os, sys
json.dump({"schema": "cudaperf-suite/1", "name": "kernelbench-level1-adopted",
           "description": "KernelBench level-1 problems with a baseline adopted from a shipped problem",
           "disallowed_libraries": ["cublas", "cublasLt", "cudnn"],
           "tasks": [os.path.abspath(d) for d in sys.argv[2:]]}, open(sys.argv[1], "w"), indent=1)
PY
  CUDAPERF_CACHE_DIR=/tmp/cudaperf-cache timeout "$(cap 60 $((60 + $(after level1))))" "$bench_bin" --suite "$work/level1-adopted.json" --impls \
    --out "$work/level1-adopted" --jobs 12 "${eval_args[@]}" > /dev/null 2> "$work/logs/level1-adopted.stderr"
  rc=$?
  if [ -s "$work/level1-adopted/results.jsonl" ]; then
    "$bench_bin" --results "$work/level1-adopted/results.jsonl" --suite "$work/level1-adopted.json" --impls \
      --out "$work/level1-adopted-final" > "$work/level1-adopted.md" 2>> "$work/logs/level1-adopted.stderr"
  fi
  note "5a. level-1 adopted baselines: rc=$rc, $(wc -l < "$work/level1-adopted/results.jsonl" 2>/dev/null || echo 0) of $(echo "$adopted" | wc -l) evaluated in the time given"
  # The same candidates with other --spare-workers (BENCH_LEVEL1_SPARES, e.g. "0"): do the spares' context
  # creations beside a worker move its timings? Each candidate is its own baseline, so a speedup off 1.00 is
  # the timing's own error; the medians of both runs per problem go to the log and summary.
  for n in ${BENCH_LEVEL1_SPARES:-}; do
    [ "$(left)" -gt 90 ] || { note "5a. --spare-workers $n: skipped, $(left) s left"; continue; }
    CUDAPERF_CACHE_DIR=/tmp/cudaperf-cache timeout "$(cap 60 $((30 + $(after level1))))" "$bench_bin" --suite "$work/level1-adopted.json" \
      --impls --out "$work/level1-adopted-spares$n" --jobs 12 "${eval_args[@]}" --eval-arg=--spare-workers="$n" \
      > /dev/null 2>> "$work/logs/level1-adopted.stderr"
    note "5a. --spare-workers $n: rc=$?; candidate over its own baseline, default spares -> $n spares: $(python3 - \
      "$work/level1-adopted/results.jsonl" "$work/level1-adopted-spares$n/results.jsonl" <<'PY'
import json, sys
def speedups(path):
    out = {}
    try:
        for line in open(path):
            if line.strip():
                r = json.loads(line)
                c = (r.get("configs") or [{}])[-1]
                v = c.get("speedup_vs_baseline", c.get("speedup"))
                if v:
                    out[r.get("task")] = (v, (c.get("candidate") or {}).get("spread"))
    except OSError:
        pass
    return out
a, b = speedups(sys.argv[1]), speedups(sys.argv[2])
print("; ".join(f"{t} {a[t][0]:.2f} (spread {a[t][1] or 0:.2f}) -> {b[t][0]:.2f} (spread {b[t][1] or 0:.2f})"
                for t in sorted(set(a) & set(b))) or "no pairs")
PY
)"
  done
fi

# --- 5b. KernelBench level 1: PyTorch eager and torch.compile at KernelBench's sizes ---------------
: > "$out/level1-timings.jsonl"
if want level1 && ls build/kernelbench/level1_*/task.json > /dev/null 2>&1; then
  l1=$(ls -d build/kernelbench/level1_*/ | sort -t_ -k2,2n | while read -r d; do [ -f "$d/task.json" ] && echo "$d"; done)
  log "== 5b. PyTorch baselines of $(echo "$l1" | wc -l) imported level-1 problems until $(left)s before the end"
  # shellcheck disable=SC2086
  timeout "$(cap 200 $((25 + $(after level1))))" python3 scripts/torch-baselines.py $l1 --jobs 3 --task-timeout 40 \
    --deadline "$(cap 190 $((30 + $(after level1))))" \
    > "$out/level1-timings.jsonl" 2> "$work/logs/level1-torch-baselines.stderr"
  note "5b. level-1 PyTorch baselines: rc=$?, $(grep -c '"configs"' "$out/level1-timings.jsonl") timed, $(grep -c '"skipped"' "$out/level1-timings.jsonl") skipped"
  # shellcheck disable=SC2086
  collect_timings $l1
fi

# --- 6. the policy's candidates: the SFT policy (before RL) and the RL policy (after), on the test split ---
if want policy; then
  policy_run=${BENCH_POLICY_RUN:-data/eval-runs/2026-12-02-h200-rl-4}
  log "== 6. the held-out candidates of $policy_run, before RL (SFT policy) and after, through cudaperf-bench"
  dataset=$work/dataset
  if [ -x build-gpu/bin/cudaperf-dataset ]; then
    # The RL run's dataset: cudaperf-dataset's defaults (seed 1, every kind) give the same tasks byte for byte.
    timeout "$(cap 60 "$(after policy)")" build-gpu/bin/cudaperf-dataset generate --out "$dataset" --jobs "$jobs" --quiet \
      > "$work/logs/policy-dataset.log" 2>&1
    note "6. dataset: cudaperf-dataset generate rc=$?, $(wc -l < "$dataset/manifest.jsonl" 2>/dev/null || echo 0) tasks"
  else
    note "6. dataset: cudaperf-dataset did not build (logs/build.log)"
  fi
  python3 scripts/policy-candidates.py "$policy_run" "$work/policy" --dataset "$dataset" --labels before,after \
    > "$work/logs/policy-candidates.log" 2>&1
  note "6. candidates: policy-candidates.py rc=$?"
  cat "$work/logs/policy-candidates.log"
  [ -f "$work/policy/policy-candidates.json" ] && cp "$work/policy/policy-candidates.json" "$out/"
  for label in before after; do
    [ -d "$work/policy/$label" ] && [ -x "$bench_bin" ] && [ -x "$eval_bin" ] || continue
    turns=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["labels"][sys.argv[2]]["turns"])' \
      "$work/policy/policy-candidates.json" "$label")
    reserve=$(after policy); [ "$label" = before ] && reserve=$((reserve + 60))  # the second label's least time
    CUDAPERF_DATASET_MANIFEST="$dataset/manifest.jsonl" CUDAPERF_CACHE_DIR=/tmp/cudaperf-cache \
      timeout "$(cap 150 "$reserve")" "$bench_bin" --suite data/suites/dataset-test.json --candidates "$work/policy/$label" \
      --turns "$turns" --out "$work/policy-$label" --jobs 12 "${eval_args[@]}" \
      > "$work/policy-$label.md" 2> "$work/logs/policy-$label.stderr"
    rc=$?
    results=$work/policy-$label/results.jsonl
    [ -s "$results" ] && cp "$results" "$out/policy-$label-results.jsonl"
    note "6. policy $label: cudaperf-bench rc=$rc, $(wc -l < "$results" 2>/dev/null || echo 0) results of $(find "$work/policy/$label" -name '*.cu' | wc -l) files; outcomes $(outcomes "$results")"
    # The same results scored over each eval set's tasks alone (the whole split counts every other task missing).
    for suite in "$work"/policy/suite-*.json; do
      [ -s "$results" ] && [ -f "$suite" ] || continue
      set_name=$(basename "$suite" .json); set_name=${set_name#suite-}
      "$bench_bin" --results "$results" --suite "$suite" --turns "$turns" --out "$work/policy-$label-$set_name" \
        > "$work/policy-$label-$set_name.md" 2>> "$work/logs/policy-$label.stderr"
      note "6. policy $label, $set_name: scored rc=$?"
    done
  done
fi

# --- 7. tables -----------------------------------------------------------------------------------
log "== 7. tables for docs/benchmarks.md"
python3 - "$out" "$work" "$environment" "$commit" <<'PY' > "$out/README.md"
import json, os, sys
out, work, environment, commit = sys.argv[1:5]
print("# cudaperf-bench on the H200 (`scripts/gpu/bench.sh`)\n")
print(f"- machine: {environment}; commit {commit or '?'}")
print("- command: `scripts/gpu/bench.sh $OUT` (run tool, carry `.carry/deps`, `.carry/kernelbench`); files: "
      "`shipped-results.jsonl` (cudaperf-eval results of every shipped implementation), `torch-timings.jsonl` "
      "(torch-baselines.py documents, shipped problems and KernelBench level 1), `kernelbench-import.json` "
      "(import outcome per problem), `level1-timings.jsonl` (its summary lines)")
print("- re-score on any machine: `cudaperf-bench --results shipped-results.jsonl --suite data/suites/shipped.json "
      "--torch-timings torch-timings.jsonl`; `bench.json` (from `bench-outputs.tar.gz`, `shipped-final/bench.json`) is "
      "what the GPU host computed, replayed by ctest `bench.replay-stored-runs`")
if os.path.exists(os.path.join(out, "policy-candidates.json")):
    print("- step policy: `policy-candidates.json` (the candidates extracted by scripts/policy-candidates.py), "
          "`policy-before-results.jsonl` and `policy-after-results.jsonl` (cudaperf-eval results of the SFT and RL "
          "policies' candidates); re-score with `cudaperf-bench --results policy-before-results.jsonl --suite "
          "data/suites/dataset-test.json --root DATASET --turns 2` (DATASET: `cudaperf-dataset generate --out DATASET`)")
print()
final = os.path.join(work, "shipped-final.md")
if os.path.exists(final):
    print("## Shipped implementations as candidates of the shipped tasks\n")
    print(open(final).read())
try:
    kb = json.load(open(os.path.join(out, "kernelbench-import.json")))
    print("## KernelBench import (levels imported at once, each level's time measured while the others ran)\n")
    print("| level | problems | imported | refused | seconds |\n|---|---|---|---|---|")
    for level, s in sorted(kb["levels"].items()):
        print(f"| {level} | {s['problems']} | {s['imported']} | {s['refused']} | {s['seconds']} |")
    print("\n| refused problem | class | reason |\n|---|---|---|")
    for p in kb["problems"]:
        if p["outcome"] != "imported":
            print(f"| {p['task']} | {p['reason_class']} | {p['reason'][:600].replace('|', '/')} |")
    slow = sorted(kb["problems"], key=lambda p: -p["seconds"])[:8]
    print("\nSlowest imports: " + ", ".join(f"{p['task']} {p['seconds']} s" for p in slow) + "\n")
except (OSError, ValueError, KeyError) as e:
    print(f"(no KernelBench import report: {e})\n")
adopted = os.path.join(work, "level1-adopted.md")
if os.path.exists(adopted):
    print("## KernelBench level 1: shipped baselines adopted by equivalent problems, at KernelBench's sizes\n")
    print(open(adopted).read())
rows = []
for line in open(os.path.join(out, "level1-timings.jsonl")):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    c = (r.get("configs") or {}).get("default") or {}
    rows.append((r.get("task", "?"), c.get("eager_ms"), c.get("compile_ms"), c.get("compile_seconds"),
                 c.get("compile_error") or c.get("eager_error") or r.get("skipped") or r.get("error") or ""))
if rows:
    print("## KernelBench level 1: PyTorch baselines at KernelBench's sizes (Python eager, torch.compile)\n")
    print("| problem | eager ms | compile ms | compile / eager | compile s | note |\n|---|---|---|---|---|---|")
    f = lambda v: f"{v:.4g}" if isinstance(v, (int, float)) else "–"
    for task, e, c, cs, note in rows:
        ratio = f"{c / e:.2f}" if isinstance(e, (int, float)) and isinstance(c, (int, float)) and e > 0 else "–"
        print(f"| {task} | {f(e)} | {f(c)} | {ratio} | {f(cs)} | {str(note)[:120].replace('|', '/')} |")
    print()
try:
    listing = json.load(open(os.path.join(work, "policy", "policy-candidates.json")))
except (OSError, ValueError):
    listing = None
if listing:
    print("## The policy's candidates on the dataset's test split (`scripts/policy-candidates.py`)\n")
    print(f"Held-out answers recorded by `{listing['input']}` (greedy, one trajectory per task), scored by "
          "cudaperf-bench over `data/suites/dataset-test.json` on the dataset generated here, and over each eval "
          "set's tasks alone from the same results. A turn without code has no file (the sample keeps its best "
          "earlier turn).\n")
    for label, what in (("before", "the SFT policy (before RL)"), ("after", "the RL policy (after RL)")):
        L = listing["labels"].get(label)
        if not L:
            continue
        sets = ", ".join(f"{k} {len(v)}" for k, v in L["sets"].items())
        print(f"### {what}: {L['tasks']} tasks ({sets}), {L['samples']} samples, turns 1..{L['turns']}, "
              f"{L['files']} files, {L['turns_without_code']} turns without code\n")
        for eval_set in L["sets"]:
            md = os.path.join(work, f"policy-{label}-{eval_set}.md")
            if os.path.exists(md):
                print(f"#### {what}, eval set {eval_set} ({len(L['sets'][eval_set])} tasks)\n")
                print(open(md).read())
        md = os.path.join(work, f"policy-{label}.md")
        if os.path.exists(md):
            print(f"#### {what}, the whole test split (every task without a candidate is a failed sample)\n")
            print(open(md).read())
PY
log "README.md: $(wc -l < "$out/README.md") lines"
outputs=$(for d in shipped shipped-final level1-adopted level1-adopted-final policy "$work"/policy-*/; do
  d=$(basename "$d"); [ -d "$work/$d" ] && echo "$d"; done)
# shellcheck disable=SC2086
[ -n "$outputs" ] && tar -C "$work" -czf "$out/bench-outputs.tar.gz" $outputs
tar -C "$work" -czf "$out/logs.tar.gz" logs $(cd "$work" && ls kb-level*.json shipped-torch-timing.jsonl 2>/dev/null)
[ -f "$work/summary-kb.txt" ] && while read -r line; do summary+=("$line"); done < "$work/summary-kb.txt"
log "== done in $((SECONDS - start)) s; $(ls "$out" | wc -l) files in $out"
echo
echo "== summary"
printf '%s\n' "${summary[@]}" | sort -s -k1,1
if [ -f "$work/shipped-final/bench.md" ]; then
  sed -n '/^## Speedups/,/^## /p' "$work/shipped-final/bench.md" | grep '^|'
fi
