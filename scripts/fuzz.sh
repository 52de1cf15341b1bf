#!/usr/bin/env bash
# Runs the libFuzzer targets of test/fuzz (docs/security.md, "Fuzzing") for SECONDS each, one after
# the other, seeded from the repository's own files. `make test` runs each for 20 s (ctest fuzz.*);
# run this for longer ones: scripts/fuzz.sh 600.
# Usage: scripts/fuzz.sh [--bin DIR] [--corpus DIR] [--only TARGET] SECONDS
#   --bin     where the fuzz-* programs are (default: build/test/fuzz/bin)
#   --corpus  where each target's growing corpus is kept (default: a temporary folder, removed after)
#   --only    one target: Json, Task, SizeExpr, ServeProtocol, Safetensors, TokenizerJson,
#             AnalysisDocument, WorkerEvents or RunnerAnswers
# A finding stops that target; its input is kept as DIR/crash-* (or leak-*, timeout-*, oom-*) under
# the corpus folder's findings/ and the script exits 1 after the remaining targets ran.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/build/test/fuzz/bin"
corpus=""
only=""
while [ $# -gt 1 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --corpus) corpus="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    *) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
seconds="${1:-}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -eq 0 ]; then
  echo "usage: scripts/fuzz.sh [--bin DIR] [--corpus DIR] [--only TARGET] SECONDS" >&2
  exit 2
fi
if [ -z "$corpus" ]; then
  corpus="$(mktemp -d -t cudaperf-fuzz.XXXXXX)"
  trap 'rm -rf "$corpus"' EXIT
fi

# seeds TARGET DIR: copies the target's seed files into DIR.
seeds() {
  local target="$1" dir="$2" f
  local tasks=("$root"/data/tasks/*/task.json "$root"/data/tasks/pytorch/*/task.json)
  case "$target" in
    Json)
      cp "$root"/test/fuzz/seeds/json/* "$dir"/
      for f in "${tasks[@]}" "$root"/test/learn/fixtures/hf/*/config.json "$root"/test/learn/fixtures/tokenizer/hf-small/tokenizer.json; do
        cp "$f" "$dir/$(echo "$f" | md5sum | cut -c1-12).json"
      done ;;
    Task)
      for f in "${tasks[@]}"; do cp "$f" "$dir/$(echo "$f" | md5sum | cut -c1-12).json"; done ;;
    SizeExpr)
      cp "$root"/test/fuzz/seeds/size-expr/* "$dir"/
      local i=0 expr
      while IFS= read -r expr; do
        printf '%s' "$expr" > "$dir/count-$i.txt"; i=$((i + 1))
      done < <(grep -hoE '"count": *"[^"]*"' "${tasks[@]}" | sed -E 's/"count": *"(.*)"/\1/' | sort -u) ;;
    ServeProtocol)
      cp "$root"/test/fuzz/seeds/serve/* "$dir"/ ;;
    Safetensors)
      for f in "$root"/data/ranking/checkpoints/*/model.safetensors "$root"/test/learn/fixtures/hf/*/model*.safetensors; do
        [ "$(stat -c %s "$f")" -le 65536 ] && cp "$f" "$dir/$(echo "$f" | md5sum | cut -c1-12).safetensors"
      done
      # earlier findings (test/fuzz/seeds/safetensors: 1e65 in a shape, 2026-12-06)
      cp "$root"/test/fuzz/seeds/safetensors/* "$dir"/
      # a few tiny hand-made files: one tensor, an empty header, metadata only
      printf '\x40\x00\x00\x00\x00\x00\x00\x00{"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}        \x00\x00\x80\x3f\x00\x00\x00\x40' > "$dir/one.safetensors"
      printf '\x02\x00\x00\x00\x00\x00\x00\x00{}' > "$dir/empty.safetensors"
      printf '\x28\x00\x00\x00\x00\x00\x00\x00{"__metadata__":{"format":"pt"}}        ' > "$dir/metadata.safetensors" ;;
    TokenizerJson)
      cp "$root"/test/learn/fixtures/tokenizer/hf-small/tokenizer.json "$dir"/hf-small.json
      cp "$root"/test/learn/fixtures/tokenizer/hf-repo/tokenizer.json "$dir"/hf-repo.json ;;
    AnalysisDocument)
      # the analyzer's documents stored with the reward's golden cases, and one with estimated savings
      cp "$root"/test/fuzz/seeds/analysis/* "$dir"/
      for f in "$root"/test/reward/golden/*/analysis.json; do cp "$f" "$dir/$(echo "$f" | md5sum | cut -c1-12).json"; done ;;
    WorkerEvents)
      # a worker's event file, and forged lines (wrong types, an out-of-range set, a torn line)
      cp "$root"/test/fuzz/seeds/worker-events/* "$dir"/ ;;
    RunnerAnswers)
      # a runner's answer to each op, its ready message, a request, and forged answers
      cp "$root"/test/fuzz/seeds/runner-answers/* "$dir"/ ;;
  esac
}

status=0
for target in Json Task SizeExpr ServeProtocol Safetensors TokenizerJson AnalysisDocument WorkerEvents RunnerAnswers; do
  [ -n "$only" ] && [ "$only" != "$target" ] && continue
  program="$bin/fuzz-$target"
  if [ ! -x "$program" ]; then
    echo "fuzz.sh: $program is not built (test/fuzz: clang-22 and libclang-rt-22-dev)" >&2
    exit 2
  fi
  work="$corpus/$target"
  mkdir -p "$work/seeds" "$work/corpus" "$work/findings"
  seeds "$target" "$work/seeds"
  max_len=4096
  case "$target" in Safetensors | AnalysisDocument) max_len=65536 ;; TokenizerJson) max_len=131072 ;; esac
  echo "== fuzz-$target: $seconds s, $(ls "$work/seeds" | wc -l) seeds"
  # -timeout: one input taking 10 s is a finding (a hang); -rss_limit_mb: 2 GB resident is one too.
  "$program" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" \
    -print_final_stats=1 -artifact_prefix="$work/findings/" "$work/corpus" "$work/seeds" \
    > "$work/log" 2>&1
  rc=$?
  grep -E '^stat::(number_of_executed_units|peak_rss_mb|new_units_added)' "$work/log" | sed 's/^/   /'
  if [ $rc -ne 0 ]; then
    status=1
    echo "fuzz.sh: fuzz-$target found a fault (exit $rc); last lines of its log:" >&2
    tail -n 40 "$work/log" >&2
    ls "$work/findings" >&2
    trap - EXIT # keep the findings (a temporary corpus folder included)
    echo "fuzz.sh: inputs kept in $work/findings" >&2
  fi
done
exit $status
