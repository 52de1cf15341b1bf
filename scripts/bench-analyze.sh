#!/usr/bin/env bash
# Wall time of cudaperf-analyze against `nvcc -O3 -arch=sm_90 -c` on the same files: median of RUNS
# runs each, interleaved, as a ratio. Usage: scripts/bench-analyze.sh [RUNS] [FILES...]
# (default: 5 runs over data/examples/*.cu). Needs a build (make build) and nvcc.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}; shift || true
files=("$@"); [ ${#files[@]} -gt 0 ] || files=(data/examples/*.cu)
analyze=${ANALYZE:-build/bin/cudaperf-analyze}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
now() { date +%s.%N; }
printf '| file | cudaperf-analyze median (s) | nvcc -O3 -c median (s) | ratio analyze/nvcc |\n|---|---|---|---|\n'
for f in "${files[@]}"; do
  : > "$tmp/a"; : > "$tmp/n"
  for ((i = 0; i < runs; i++)); do
    t0=$(now); "$analyze" "$f" > /dev/null 2>&1; t1=$(now)
    "$nvcc" -O3 -arch=sm_90 -c "$f" -o "$tmp/out.o"; t2=$(now)
    echo "$t1 - $t0" | bc >> "$tmp/a"; echo "$t2 - $t1" | bc >> "$tmp/n"
  done
  a=$(median < "$tmp/a"); n=$(median < "$tmp/n")
  printf '| %s | %.3f | %.3f | %.2f |\n' "$f" "$a" "$n" "$(echo "$a / $n" | bc -l)"
done
