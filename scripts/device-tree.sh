#!/usr/bin/env bash
# The device tool copies this working tree to the GPU host: tracked files present on disk, untracked files
# git does not ignore, and the carried paths, at most 64 MiB in all. The tracked tree is ~68 MB since the SFT
# checkpoint was committed (data/models/sft.tar.zst, 36 MB; data/eval-runs 12 MB), so a device call first
# moves out what it does not need and puts it back afterwards. A tracked file that is absent on disk is
# simply not copied (tried 2026-12-07 with data/realcode).
# Usage (repository root, this machine):
#   scripts/device-tree.sh slim PROFILE   move PROFILE's paths to /tmp/cudaperf-slim (kept until restore)
#   scripts/device-tree.sh restore        put every moved path back (also after an interrupted call)
#   scripts/device-tree.sh size [CARRY..] the bytes that would travel, with the carried paths named
#   scripts/device-tree.sh src            .carry/src.tgz: HEAD's code (git archive) without the stored runs,
#                                         measured shards, models, tests and docs, with SOURCE_COMMIT (the
#                                         commit, which the GPU scripts print: the host's .git is not HEAD's)
# PROFILE:
#   evaluator  runs from .carry/src.tgz (git archive) or needs only the code: red team, trust-cost, validate
#   rl         sft.sh/rl.sh with the committed checkpoint and .carry/{deps,analyzer}: no tests, docs,
#              stored runs or measured shards travel (the GPU build has CUDAPERF_BUILD_TESTS=OFF)
#   arm        a resumed experiment arm (scripts/gpu/arm.sh): only data/models (checkpoint + arm states) and
#              this script stay; the code travels as .carry/src.tgz (2 MB gzip instead of ~6 MB of files),
#              which the device command unpacks into the repository root first (`tar xzf .carry/src.tgz && ...`)
# Exit 2 on a bad argument or when moved paths are still out (restore first).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
stash=${CUDAPERF_SLIM_DIR:-/tmp/cudaperf-slim}
limit=$((64 * 1024 * 1024))

paths_of() {
  case "$1" in
    evaluator) echo "data/eval-runs data/realcode data/models/sft.tar.zst" ;;
    rl) echo "data/eval-runs data/realcode data/measured test docs" ;;
    arm) # every tracked top-level entry, data/* and scripts/* but data/models and this script
      git ls-files | awk -F/ '{ if (($1 == "data" || $1 == "scripts") && NF > 2) print $1 "/" $2; else if ($1 == "data" || $1 == "scripts") print $0; else print $1 }' |
        sort -u | grep -v -x -e .gitignore -e data/models -e scripts/device-tree.sh | tr '\n' ' ' ;;
    *) return 1 ;;
  esac
}

travelling_bytes() {
  # Tracked files present on disk + untracked files git does not ignore + the carried paths.
  # (A tracked file moved out is absent: stat skips it.)
  { git ls-files -z; git ls-files -z --others --exclude-standard; } |
    { xargs -0 -r stat -c %s 2>/dev/null || true; } | awk '{s += $1} END {print s + 0}'
}

case "${1:-}" in
  slim)
    profile=${2:-}
    paths=$(paths_of "$profile") || { echo "device-tree: unknown profile '$profile' (evaluator, rl, arm)" >&2; exit 2; }
    if [ -s "$stash/MOVED" ]; then
      echo "device-tree: $stash holds moved paths; run '$0 restore' first" >&2
      exit 2
    fi
    mkdir -p "$stash"
    : > "$stash/MOVED"
    for p in $paths; do
      [ -e "$p" ] || continue
      mkdir -p "$stash/$(dirname "$p")"
      mv "$p" "$stash/$p"
      echo "$p" >> "$stash/MOVED"
      echo "moved out: $p"
    done
    ;;
  restore)
    [ -s "$stash/MOVED" ] || { echo "device-tree: nothing to restore"; exit 0; }
    status=0
    while read -r p; do
      if [ -e "$p" ]; then
        echo "device-tree: $p exists again; its moved copy stays in $stash/$p" >&2
        status=1
        continue
      fi
      mkdir -p "$(dirname "$p")"
      mv "$stash/$p" "$p" && echo "restored: $p"
    done < "$stash/MOVED"
    [ "$status" -eq 0 ] && rm -rf "$stash"
    exit "$status"
    ;;
  src)
    mkdir -p .carry
    git archive --add-virtual-file=SOURCE_COMMIT:"$(git rev-parse HEAD)" HEAD -- . ':(exclude)data/eval-runs' \
      ':(exclude)data/realcode' ':(exclude)data/models' ':(exclude)data/measured' ':(exclude)test' ':(exclude)docs' |
      gzip -9 > .carry/src.tgz
    echo ".carry/src.tgz: $(stat -c %s .carry/src.tgz) bytes, commit $(git rev-parse --short HEAD)"
    ;;
  size)
    shift
    bytes=$(travelling_bytes)
    for c in "$@"; do
      [ -e "$c" ] && bytes=$((bytes + $(du -sb "$c" | cut -f1)))
    done
    echo "$bytes bytes would travel ($((bytes * 100 / limit))% of 64 MiB)"
    [ "$bytes" -le "$limit" ]
    ;;
  *)
    sed -n '2,19p' "$0" >&2
    exit 2
    ;;
esac
