#!/usr/bin/env bash
# `make rank`: the ranking model's whole pipeline on everything measured so far (docs/ranking.md).
# CPU only. Regenerates the dataset with the measured seed, turns every stored result into examples
# (the analyzer runs once per implementation; cached in BUILD/rank/analysis, so a rerun after more
# measurements analyses only the new ones), trains the three model kinds, evaluates them beside the
# baselines on the fixed split and by leave-one-family-out cross-validation, and measures the scoring
# throughput. Writes OUT (default data/ranking): checkpoints/{linear,mlp,tokens,mlp-counters,mlp-static,
# tokens-static}, eval.{json,md},
# cv-*.{json,md}, bench-cpu.json, and prints the tables.
#
#   scripts/rank.sh [BUILD_DIR]     env: RANK_OUT=DIR, RANK_JOBS=N (analyses at once, 2),
#                                   RANK_THREADS=N (LibTorch threads, 1), RANK_CV_TOKENS=1 (also
#                                   cross-validate the tokens model: one training per family)
set -euo pipefail
BUILD=${1:-build}
OUT=${RANK_OUT:-data/ranking}
JOBS=${RANK_JOBS:-2}
THREADS=${RANK_THREADS:-1}
WORK=$BUILD/rank
RANK=$BUILD/bin/cudaperf-rank
SEED=1 # the dataset seed of data/measured/dataset-h200 (scripts/gpu/measure-dataset.sh's default)
# The commit the run starts from (commits made while it runs are not what it measured).
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
mkdir -p "$WORK" "$OUT/checkpoints"
say() { echo "== $*" >&2; }

# Generated once per generator binary: into a fresh folder, renamed when complete (an interrupted
# generation never passes for a dataset; prepare would skip its files by SHA-256 anyway).
if [ ! -f "$WORK/dataset/.complete" ] || [ "$BUILD/bin/cudaperf-dataset" -nt "$WORK/dataset/.complete" ]; then
  say "dataset (seed $SEED) -> $WORK/dataset"
  rm -rf "$WORK/dataset.tmp"
  "$BUILD/bin/cudaperf-dataset" generate --out "$WORK/dataset.tmp" --seed "$SEED" --quiet >/dev/null
  touch "$WORK/dataset.tmp/.complete"
  rm -rf "$WORK/dataset" && mv "$WORK/dataset.tmp" "$WORK/dataset"
fi

shopt -s nullglob
measured=(data/measured/dataset-h200/results-*.jsonl.zst data/measured/dataset-h200/results-*.jsonl)
[ ${#measured[@]} -gt 0 ] || { echo "rank.sh: no measured results in data/measured/dataset-h200" >&2; exit 1; }
results=()
for f in "${measured[@]}"; do results+=(--results "$f"); done
say "examples of ${#measured[@]} result files"
"$RANK" prepare --dataset "$WORK/dataset" "${results[@]}" --out "$WORK/dataset-examples.jsonl" \
  --cache "$WORK/analysis" --jobs "$JOBS"
# The shipped tasks' stored H200 results (the file docs/features.md joins).
"$RANK" prepare --tasks data/tasks --results data/eval-runs/2026-11-29-h200-tasks/tasks-eval.jsonl \
  --out "$WORK/shipped-examples.jsonl" --cache "$WORK/analysis" --jobs "$JOBS"

EX=(--examples "$WORK/dataset-examples.jsonl")
TOKENS=(--tokenizer-corpus "$WORK/dataset" --corpus-files 4000)
say "train (seed 1)"
"$RANK" train "${EX[@]}" --model linear --out "$OUT/checkpoints/linear" --threads "$THREADS"
"$RANK" train "${EX[@]}" --model mlp --out "$OUT/checkpoints/mlp" --threads "$THREADS"
# With the counters too (not the measured duration): for candidates that have had a counter pass.
"$RANK" train "${EX[@]}" --model mlp --counters --out "$OUT/checkpoints/mlp-counters" --threads "$THREADS"
"$RANK" train "${EX[@]}" --model tokens --epochs 150 --validate-every 5 "${TOKENS[@]}" --out "$OUT/checkpoints/tokens" --threads "$THREADS"
# With the reward's static score as one more input (the baseline that generalises best to new families).
"$RANK" train "${EX[@]}" --model mlp --static-score-input --out "$OUT/checkpoints/mlp-static" --threads "$THREADS"
"$RANK" train "${EX[@]}" --model tokens --static-score-input --epochs 150 --validate-every 5 "${TOKENS[@]}" \
  --out "$OUT/checkpoints/tokens-static" --threads "$THREADS"

say "eval (fixed split)"
"$RANK" eval "${EX[@]}" --examples "$WORK/shipped-examples.jsonl" --checkpoint "$OUT/checkpoints/linear" \
  --checkpoint "$OUT/checkpoints/mlp" --checkpoint "$OUT/checkpoints/tokens" --checkpoint "$OUT/checkpoints/mlp-counters" \
  --checkpoint "$OUT/checkpoints/mlp-static" --checkpoint "$OUT/checkpoints/tokens-static" \
  --json "$OUT/eval.json" --markdown "$OUT/eval.md" --threads "$THREADS"

say "leave-one-family-out cross-validation"
"$RANK" cv "${EX[@]}" --model linear --json "$OUT/cv-linear.json" --markdown "$OUT/cv-linear.md" --threads "$THREADS"
"$RANK" cv "${EX[@]}" --model mlp --json "$OUT/cv-mlp.json" --markdown "$OUT/cv-mlp.md" --threads "$THREADS"
"$RANK" cv "${EX[@]}" --model mlp --static-score-input --json "$OUT/cv-mlp-static.json" --markdown "$OUT/cv-mlp-static.md" \
  --threads "$THREADS"
if [ "${RANK_CV_TOKENS:-0}" = 1 ]; then
  "$RANK" cv "${EX[@]}" --model tokens --epochs 150 "${TOKENS[@]}" --json "$OUT/cv-tokens.json" \
    --markdown "$OUT/cv-tokens.md" --threads "$THREADS"
  "$RANK" cv "${EX[@]}" --model tokens --static-score-input --epochs 150 "${TOKENS[@]}" --json "$OUT/cv-tokens-static.json" \
    --markdown "$OUT/cv-tokens-static.md" --threads "$THREADS"
fi

say "scoring throughput"
for kind in mlp tokens; do
  "$RANK" bench "${EX[@]}" --checkpoint "$OUT/checkpoints/$kind" --threads "$THREADS" --json "$OUT/bench-cpu-$kind.json"
done

say "docs/ranking.md: the results section"
python3 - "$OUT" "$COMMIT" "${RANK_CV_TOKENS:-0}" "${measured[@]}" <<'PY'
import json, os, sys
out, commit, cv_tokens, files = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4:]
def read(name):
    path = os.path.join(out, name)
    return open(path).read().strip() if os.path.exists(path) else None
ev = json.load(open(os.path.join(out, "eval.json")))
lines = ["## Results", "",
         f"`make rank` at commit {commit}, on {len(files)} stored result file(s): "
         + ", ".join(f"`{f}`" for f in files) + ". Every figure below stands on what was measured then;"
         " the sets' task and family lists are in `data/ranking/eval.json` (`coverage`).", ""]
for s in ev["sets"]:
    fams = s["coverage"]["families"]
    lines.append(f"- {s['name']}: {s['coverage']['tasks']} tasks of {len(fams)} families ({', '.join(sorted(fams))})")
lines += ["", "### Fixed split", "", read("eval.md"), ""]
# The tokens cross-validations only when this run made them (RANK_CV_TOKENS=1): a file left by an
# earlier run is not this run's figure.
for kind in ("linear", "mlp", "mlp-static") + (("tokens", "tokens-static") if cv_tokens else ()):
    text = read(f"cv-{kind}.md")
    if text:
        lines += [f"### Leave-one-family-out cross-validation: {kind}", "", text, ""]
for kind in ("mlp", "tokens"):
    path = os.path.join(out, "checkpoints", kind, "curve.svg")
    if os.path.exists(path):
        lines += [f"Training curve of `{kind}` (`data/ranking/checkpoints/{kind}/curve.svg`):", "",
                  f"![{kind} training curve](../data/ranking/checkpoints/{kind}/curve.svg)", ""]
doc = open("docs/ranking.md").read()
begin, end = "<!-- BEGIN rank-results (scripts/rank.sh) -->", "<!-- END rank-results -->"
a, b = doc.index(begin) + len(begin), doc.index(end)
open("docs/ranking.md", "w").write(doc[:a] + "\n" + "\n".join(lines) + "\n" + doc[b:])
PY
