#!/usr/bin/env bash
# Copies KernelBench's problem files (github ScalingIntelligence/KernelBench, KernelBench/level{1,2,3}/*.py)
# from a checkout into DEST (default .carry/kernelbench, an ignored path the lead carries to the GPU host for
# scripts/gpu/bench.sh). They are not committed to cudaperf. The checkout may be a work tree (its root or its
# KernelBench/ folder) or a git directory without one (a mirror): then the files come from its HEAD.
# Usage: scripts/fetch-kernelbench.sh CHECKOUT [DEST]
# Writes DEST/level{1,2,3}/*.py and DEST/SOURCE (where from, which commit, how many files).
set -euo pipefail
src=${1:?usage: scripts/fetch-kernelbench.sh CHECKOUT [DEST]}
dest=${2:-.carry/kernelbench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
commit=unknown
if [ -d "$src/KernelBench/level1" ]; then
  cp -r "$src/KernelBench/level1" "$src/KernelBench/level2" "$src/KernelBench/level3" "$tmp/"
  commit=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)
elif [ -d "$src/level1" ]; then
  cp -r "$src/level1" "$src/level2" "$src/level3" "$tmp/"
  commit=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)
elif git --git-dir="$src" rev-parse --verify -q HEAD > /dev/null; then
  git --git-dir="$src" archive HEAD KernelBench/level1 KernelBench/level2 KernelBench/level3 | tar -x -C "$tmp"
  mv "$tmp"/KernelBench/level* "$tmp/" && rmdir "$tmp/KernelBench"
  commit=$(git --git-dir="$src" rev-parse HEAD)
else
  echo "fetch-kernelbench: $src is neither a KernelBench checkout nor a git directory with KernelBench/level1" >&2
  exit 1
fi
rm -rf "$dest"
mkdir -p "$dest"
for level in level1 level2 level3; do
  mkdir -p "$dest/$level"
  cp "$tmp/$level"/*.py "$dest/$level/"
done
count=$(find "$dest" -name '*.py' | wc -l)
printf 'KernelBench problem files copied by scripts/fetch-kernelbench.sh\nfrom: %s\ncommit: %s\nfiles: %s\n' \
  "$(cd "$src" && pwd)" "$commit" "$count" > "$dest/SOURCE"
echo "fetch-kernelbench: $count problem files in $dest (commit $commit)"
