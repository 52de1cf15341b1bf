#!/usr/bin/env bash
# Measures a shard of the generated dataset on the GPU host (docs/dataset.md, "Measurements"):
# builds the evaluator (with the torch reference), generates the dataset, imports its PyTorch
# problems in a few processes (task.json checked against the generator's prediction, TorchScript
# exports), and evaluates every implementation of the shard with --counters at every configuration.
# Resumable: tasks already in data/measured/dataset-h200/*.jsonl.zst (carried along) are skipped, and so are
# those of shards an earlier call wrote on this same machine while it stayed warm (kept in $KEEP, default
# /tmp/measure-dataset-shards) that are not committed yet: session 9's second call measured 60 tasks again because
# the first call's shard was not yet in the working tree it sent.
#
# Usage (repository root, GPU host; the carried .carry/deps from scripts/pack-deps.sh):
#   scripts/gpu/measure-dataset.sh [OUT] [--families GLOB] [--limit N] [--budget SECONDS] [--jobs N] [--no-counters]
#                                  [--counters-mode per-config|shared|joint]   (cudaperf-eval's; default shared)
#                                  [--counters-ranges N|auto]   (cudaperf-eval's; default auto)
# Writes OUT/results-<stamp>.jsonl.zst (one cudaperf-eval result per implementation, with "dataset_task"
# and "dataset_impl"), OUT/command.txt, OUT/logs.tar.gz, OUT/summary.txt; prints the summary last.
# Commit OUT/results-*.jsonl.zst and command.txt into data/measured/dataset-h200/.
set -uo pipefail
OUT=${1:-${OUT:-/tmp/measure-dataset}}
[ $# -gt 0 ] && shift
FAMILIES='*'; LIMIT=3; BUDGET=360; JOBS=12; COUNTERS=(--counters); RANGES=()
while [ $# -gt 0 ]; do
  case $1 in
    --families) FAMILIES=$2; shift 2 ;;
    --limit) LIMIT=$2; shift 2 ;;
    --budget) BUDGET=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --no-counters) COUNTERS=(); shift ;;
    --counters-ranges) RANGES=(--counters-ranges "$2"); shift 2 ;;  # docs/counters.md, "Counter data image size"
    --counters-mode) COUNTERS=(--counters --counters-mode "$2"); shift 2 ;;  # docs/counters.md, "Counters mode"
    *) echo "measure-dataset: unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
export PATH=$PWD/.carry/deps/bin:/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH  # .carry/deps/bin: zstd
START=$SECONDS
LOGS=$OUT/logs && mkdir -p "$LOGS"
say() { echo "[$(date -u +%T) $((SECONDS - START))s] $*" | tee -a "$LOGS/measure.log"; }
left() { echo $((BUDGET - (SECONDS - START))); }
echo "scripts/gpu/measure-dataset.sh OUT --families '$FAMILIES' --limit $LIMIT --budget $BUDGET --jobs $JOBS$([ ${#COUNTERS[@]} -eq 0 ] && echo ' --no-counters')$([ ${#COUNTERS[@]} -eq 3 ] && echo " --counters-mode ${COUNTERS[2]}")${RANGES[*]:+ ${RANGES[*]}}" > "$OUT/command.txt"
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1); $(nproc) cores"

# 1. Build (capped): evaluator, worker, torch reference, generator.
DEPS=()
[ -d .carry/deps ] && DEPS=(-DCUDAPERF_DEPS_PREFIX=$PWD/.carry/deps)
timeout 240 cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDAPERF_BUILD_ANALYZER=OFF \
  -DCUDAPERF_BUILD_TESTS=OFF -DCUDAPERF_BUILD_TORCH_REFERENCE=ON "${DEPS[@]}" \
  -DCMAKE_PREFIX_PATH="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)" \
  > "$LOGS/configure.log" 2>&1 &&
timeout 300 cmake --build build-gpu -j 16 --target cudaperf-eval cudaperf-eval-worker cudaperf-torch-reference cudaperf-dataset \
  > "$LOGS/build.log" 2>&1
say "build: rc=$? ($(tail -1 "$LOGS/build.log"))"

# 2. Generate the shard.
DS=/tmp/measure-dataset-ds
timeout 120 build-gpu/bin/cudaperf-dataset generate --out "$DS" --families "$FAMILIES" --limit "$LIMIT" --quiet \
  > "$LOGS/generate.log" 2>&1
say "generate: rc=$? ($(python3 -c "import json;print(json.load(open('$DS/dataset.json'))['counts'])" 2>&1))"

# 3. Tasks already measured (carried committed results) are skipped, unless the generator has changed
#    one of their implementations since (scripts/dataset-report.py --measured-tasks compares each stored
#    candidate_sha256 with the generated file's): those are measured again, named in the log.
KEEP=${KEEP:-/tmp/measure-dataset-shards}
mkdir -p "$KEEP"
STORED=(data/measured/dataset-h200/*.jsonl.zst)
[ -e "${STORED[0]}" ] || STORED=()
EARLIER=()
for f in "$KEEP"/results-*.jsonl.zst; do  # this machine's earlier shards, unless committed since (same name)
  [ -e "$f" ] && [ ! -e "data/measured/dataset-h200/$(basename "$f")" ] && EARLIER+=("$f")
done
[ ${#EARLIER[@]} -gt 0 ] && say "also skipping what this machine's earlier calls measured: $(for f in "${EARLIER[@]}"; do basename "$f"; done | tr '\n' ' ')(not committed)"
python3 scripts/dataset-report.py --manifest "$DS/manifest.jsonl" --results "${STORED[@]}" "${EARLIER[@]}" \
  --measured-tasks > /tmp/measure-done.txt 2> "$LOGS/todo.log"
python3 - "$DS" /tmp/measure-done.txt > /tmp/measure-todo.txt <<'PY'
import json, sys
ds = sys.argv[1]
done = set(open(sys.argv[2]).read().split())
# Round-robin over families (every family's first task, then every family's second, ...), so a budget
# that runs out leaves a sample of every family rather than all of a few; within a round, the families with
# the fewest tasks measured so far first (then by name), so that successive calls reach every family
# instead of always stopping at the same place in the alphabet (five families were never reached so).
by_family, measured = {}, {}
for line in open(f"{ds}/manifest.jsonl"):
    e = json.loads(line)
    if e["task"] in done:
        measured[e["family"]] = measured.get(e["family"], 0) + 1
    else:
        by_family.setdefault(e["family"], []).append(e)
order = sorted(by_family, key=lambda f: (measured.get(f, 0), f))
rank = 0
while any(len(v) > rank for v in by_family.values()):
    for family in order:
        if len(by_family[family]) > rank:
            print(json.dumps(by_family[family][rank]))
    rank += 1
PY
say "to measure: $(wc -l < /tmp/measure-todo.txt) tasks$(grep -h 'measured again' "$LOGS/todo.log" 2>/dev/null | sed 's/^/; /')"

# 4. PyTorch problems: task.json (must equal the generator's) and exports, in several processes.
grep '"kind": *"pytorch"' /tmp/measure-todo.txt | python3 -c "
import json, sys
for l in sys.stdin: print('$DS/' + json.loads(l)['dir'])" > /tmp/measure-pytorch.txt
if [ -s /tmp/measure-pytorch.txt ]; then
  timeout $(( $(left) / 3 )) python3 scripts/import-pytorch-task.py --from-file /tmp/measure-pytorch.txt --jobs 6 \
    --verify-task-json --no-timing > "$LOGS/import.log" 2>&1
  say "import: rc=$? ($(grep -c '^error:' "$LOGS/import.log") failures; $(tail -1 "$LOGS/import.log"))"
fi

# 5. Evaluate every implementation, GROUP tasks per batch (so the GPU host's cores build in parallel),
#    until the budget is spent; a batch is either wholly kept or not at all.
STAMP=$(date -u +%Y%m%dT%H%M%S)
RAW=$OUT/results-$STAMP.jsonl
: > "$RAW"
measured=0
GROUP=${GROUP:-6}
split -l "$GROUP" -d -a 4 /tmp/measure-todo.txt /tmp/measure-group-
# A batch starts only when the budget still holds one as long as the longest so far (+15 s): a batch cut
# by the budget is dropped whole, so starting one that cannot finish wastes its time (session 8: 57 s).
longest=60
for group in /tmp/measure-group-*; do
  [ "$(left)" -lt $(( longest + 15 )) ] && { say "budget spent ($(left) s left, a batch takes up to ${longest} s)"; break; }
  batch_start=$SECONDS
  python3 - "$group" "$DS" > /tmp/measure-batch.txt <<'PY'
import json, sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    for i in e["implementations"]:
        print(f"{sys.argv[2]}/{e['dir']}", f"{sys.argv[2]}/{e['dir']}/{i['file']}")
PY
  rm -f /tmp/measure-task.jsonl
  timeout $(( $(left) < 240 ? $(left) - 10 : 240 )) build-gpu/bin/cudaperf-eval --batch /tmp/measure-batch.txt \
    --jobs "$JOBS" "${COUNTERS[@]}" ${COUNTERS[0]:+"${RANGES[@]}"} --jsonl --budget-ms 30 --min-runs 10 --output /tmp/measure-task.jsonl \
    >> "$LOGS/eval.log" 2>&1 < /dev/null
  rc=$?
  [ $rc -eq 124 ] && { say "batch $(basename "$group") cut by the budget: dropped"; break; }
  python3 - "$DS" >> "$RAW" <<'PY'
import json, os, sys
ds = sys.argv[1]
for line in open("/tmp/measure-task.jsonl"):
    if line.strip():
        r = json.loads(line)
        cand = r.get("candidate", "")
        r["dataset_task"] = os.path.basename(os.path.dirname(os.path.dirname(cand)))
        r["dataset_impl"] = os.path.basename(cand)
        for k in ("task_dir", "candidate"):  # paths of this machine
            r.pop(k, None)
        for key in ("compile",):
            if isinstance(r.get(key), dict):
                r[key].pop("log", None)
        print(json.dumps(r, separators=(",", ":")))
PY
  measured=$((measured + $(wc -l < "$group")))
  [ $(( SECONDS - batch_start )) -gt "$longest" ] && longest=$(( SECONDS - batch_start ))
  say "measured $measured tasks (batch $(( SECONDS - batch_start )) s)"
done
say "evaluated $measured tasks"
zstd -q -19 -f "$RAW" -o "$RAW.zst" && rm -f "$RAW"
[ "$measured" -gt 0 ] && cp "$RAW.zst" "$KEEP/"  # the next call on this warm machine skips these tasks

# 6. Summary (outcomes per family) and logs.
python3 scripts/dataset-report.py --results "$RAW.zst" --summary > "$OUT/summary.txt" 2>&1
tar -C "$OUT" -czf "$OUT/logs.tar.gz" logs && rm -rf "$LOGS"
ls -la "$OUT"
cat "$OUT/summary.txt"
