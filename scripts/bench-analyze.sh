#!/usr/bin/env bash
# Wall time of cudaperf-analyze against `nvcc -O3 -arch=sm_90 -c` on the same files: median of RUNS
# runs each, interleaved, as a ratio. The analyzer is timed cold (an empty resources cache, so it
# also runs NVIDIA's compiler for registers) and warm (cache filled by the cold run).
# Usage: scripts/bench-analyze.sh [RUNS] [FILES...]
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
printf '| file | analyze cold (s) | analyze warm (s) | nvcc -O3 -c (s) | cold/nvcc | warm/nvcc |\n|---|---|---|---|---|---|\n'
for f in "${files[@]}"; do
  : > "$tmp/c"; : > "$tmp/w"; : > "$tmp/n"
  for ((i = 0; i < runs; i++)); do
    rm -rf "$tmp/cache"
    t0=$(now); CUDAPERF_CACHE_DIR="$tmp/cache" "$analyze" "$f" > /dev/null 2>&1; t1=$(now)
    CUDAPERF_CACHE_DIR="$tmp/cache" "$analyze" "$f" > /dev/null 2>&1; t2=$(now)
    "$nvcc" -O3 -arch=sm_90 -c "$f" -o "$tmp/out.o"; t3=$(now)
    echo "$t1 - $t0" | bc >> "$tmp/c"; echo "$t2 - $t1" | bc >> "$tmp/w"; echo "$t3 - $t2" | bc >> "$tmp/n"
  done
  c=$(median < "$tmp/c"); w=$(median < "$tmp/w"); n=$(median < "$tmp/n")
  printf '| %s | %.3f | %.3f | %.3f | %.2f | %.2f |\n' "$f" "$c" "$w" "$n" "$(echo "$c / $n" | bc -l)" "$(echo "$w / $n" | bc -l)"
done
