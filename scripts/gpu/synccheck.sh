#!/usr/bin/env bash
# On the GPU host: compute-sanitizer --tool synccheck on every corpus program that uses barriers and
# on each kernel of data/synccheck/barriers.cu (one process per kernel: a divergent barrier may
# hang). Compared with cuda-divergent-barrier on the CPU by scripts/corpus/compare-synccheck.py.
# Usage: OUT=dir scripts/gpu/synccheck.sh   Environment: SYNCCHECK_TIMEOUT_S (default 90) per run.
# Writes OUT/synccheck/<name>.txt (sanitizer output, then "exit=N"), OUT/synccheck-env.txt.
set -u
OUT=${OUT:-/tmp/synccheck-out}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=/tmp/synccheck-work
LIMIT=${SYNCCHECK_TIMEOUT_S:-90}
export PATH=/usr/local/cuda/bin:$PATH
SANITIZER=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
rm -rf "$WORK" && mkdir -p "$WORK" "$OUT/synccheck"
start=$(date +%s)
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  "$SANITIZER" --version | tail -1
  echo "timeout per run: $LIMIT s"
} > "$OUT/synccheck-env.txt" 2>&1
cat "$OUT/synccheck-env.txt"

files=$(grep -l "__syncthreads" "$ROOT"/data/corpus/*.cu)
for f in $files "$ROOT/data/synccheck/barriers.cu"; do
  n=$(basename "$f" .cu)
  nvcc -O3 -arch=sm_90 -lineinfo -o "$WORK/$n" "$f" > "$WORK/$n.build.log" 2>&1 || echo "build failed: $n"
done
echo "built in $(( $(date +%s) - start )) s"

check() { # NAME BINARY [ARGS...]
  local name=$1; shift
  ( timeout "$LIMIT" "$SANITIZER" --tool synccheck --print-limit 100 "$@" > "$OUT/synccheck/$name.txt" 2>&1
    echo "exit=$?" >> "$OUT/synccheck/$name.txt" ) &
}
for f in $files; do
  n=$(basename "$f" .cu)
  [ -x "$WORK/$n" ] && check "$n" "$WORK/$n"
done
if [ -x "$WORK/barriers" ]; then
  "$WORK/barriers" > "$WORK/barriers.list"
  while read -r k name; do check "barriers.$name" "$WORK/barriers" "$k"; done < "$WORK/barriers.list"
fi
wait
grep -H "ERROR SUMMARY\|exit=" "$OUT"/synccheck/*.txt
echo "synccheck done in $(( $(date +%s) - start )) s"
