#!/usr/bin/env bash
# Stores what one device call of an experiment arm returned (docs/training.md, "The experiment in chunks"):
# R.TGZ is the call's $OUT/r.tgz holding arm/ (scripts/gpu/arm.sh's OUTDIR: rl-report.tar.gz, summary.txt, rl.log,
# the compact state arm-<arm>-s<seed>.tar.bp.zst) and arm.out (arm.sh's output). Into RUN_DIR/chunk-N (N one
# more than the highest there): rl-log.jsonl, candidates.jsonl.gz, rl-config.json, train.log (and build.log,
# export.log when the call built), summary.txt, arm.log (rl.sh's log), arm.out. The compact state replaces the
# arm's file under data/models/ (a .tar.zst of the same arm written before byte planes is removed) and its line in
# data/models/ARM-STATES.sha256. Prints the chunk's folder and its steps.
# Usage: scripts/store-chunk.sh R.TGZ RUN_DIR   (repository root; MODELS_DIR overrides data/models for tests)
# Exit: 0 stored; 1 the archive has no arm/rl-report.tar.gz or no step in its rl-log.jsonl (nothing is written);
#       64 usage.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: scripts/store-chunk.sh R.TGZ RUN_DIR" >&2; exit 64; }
tgz=$1 run=$2 models=${MODELS_DIR:-data/models}
tmp=$(mktemp -d /tmp/cudaperf-store-chunk.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$tgz" -C "$tmp" || { echo "store-chunk: $tgz cannot be unpacked" >&2; exit 1; }
[ -f "$tmp/arm/rl-report.tar.gz" ] || { echo "store-chunk: $tgz has no arm/rl-report.tar.gz (see its arm.out)" >&2; exit 1; }
mkdir "$tmp/report" && tar -xzf "$tmp/arm/rl-report.tar.gz" -C "$tmp/report"
steps=$(python3 -c 'import json,sys; s=[d.get("step") for d in map(json.loads, filter(str.strip, open(sys.argv[1])))]
s=[x for x in s if isinstance(x, int)]; print(f"{min(s)}-{max(s)}" if s else "")' "$tmp/report/rl-log.jsonl" 2>/dev/null || true)
[ -n "$steps" ] || { echo "store-chunk: no step in the call's rl-log.jsonl (see its arm.out)" >&2; exit 1; }
mkdir -p "$run"
n=1
while [ -e "$run/chunk-$n" ]; do n=$(( n + 1 )); done
dir=$run/chunk-$n
mkdir "$dir"
for f in rl-log.jsonl candidates.jsonl.gz rl-config.json train.log build.log export.log; do
  [ -f "$tmp/report/$f" ] && cp "$tmp/report/$f" "$dir/"
done
[ -f "$tmp/arm/summary.txt" ] && cp "$tmp/arm/summary.txt" "$dir/"
[ -f "$tmp/arm/rl.log" ] && cp "$tmp/arm/rl.log" "$dir/arm.log"
[ -f "$tmp/arm.out" ] && cp "$tmp/arm.out" "$dir/"
echo "$dir: steps $steps"
for state in "$tmp"/arm/arm-*.tar.bp.zst "$tmp"/arm/arm-*.tar.zst; do
  [ -f "$state" ] || continue
  name=$(basename "$state")
  base=${name%.tar.bp.zst}; base=${base%.tar.zst}
  rm -f "$models/$base.tar.zst" "$models/$base.tar.bp.zst"
  cp "$state" "$models/$name"
  touch "$models/ARM-STATES.sha256"
  grep -v -E "  ($base\.tar\.zst|$base\.tar\.bp\.zst)\$" "$models/ARM-STATES.sha256" > "$tmp/sums" || true
  (cd "$models" && sha256sum "$name") >> "$tmp/sums"
  sort -k2 "$tmp/sums" > "$models/ARM-STATES.sha256"
  echo "$models/$name: $(stat -c %s "$models/$name") bytes, listed in ARM-STATES.sha256"
done
