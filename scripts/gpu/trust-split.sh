#!/usr/bin/env bash
# One device call for the evaluator's trust split (issue 33): build, the shipped implementations
# and the bad-candidate suite with their expected outcomes (eval-suite.sh's suite step), then the
# red-team suite in batch mode (redteam.sh), everything packed into $OUT/trust-split.tar.gz.
# Usage: scripts/gpu/trust-split.sh [OUTDIR]   (TRUST_STEPS="suite redteam serve", TRUST_SECONDS=540)
set -uo pipefail
out=${1:-${OUT:-/tmp/trust-split}}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
work=/tmp/trust-split-work
rm -rf "$work"; mkdir -p "$work" "$out"
steps=${TRUST_STEPS:-"suite redteam"}
want() { [[ " $steps " == *" $1 "* ]]; }
start=$SECONDS
left() { echo $(( ${TRUST_SECONDS:-540} - (SECONDS - start) )); }
{
  echo "== $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (modified)')"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  echo "kernel $(uname -r); lsm: $(cat /sys/kernel/security/lsm 2>/dev/null); $(grep -E '^(Seccomp|NoNewPrivs|CapEff)' /proc/self/status | tr '\n' ' ')"
} > "$work/machine.txt" 2>&1
if want suite; then
  EVAL_SUITE_STEPS=suite EVAL_SUITE_SECONDS=$(( $(left) * 2 / 5 )) bash scripts/gpu/eval-suite.sh "$work/suite" > "$work/suite.log" 2>&1
  echo "suite rc=$?" >> "$work/machine.txt"
fi
if want redteam; then
  REDTEAM_STEPS="build batch ${TRUST_REDTEAM_EXTRA:-}" REDTEAM_SECONDS=$(( $(left) - 20 )) bash scripts/gpu/redteam.sh "$work/redteam" > "$work/redteam.log" 2>&1
  echo "redteam rc=$?" >> "$work/machine.txt"
fi
# Anything a candidate left behind outside its scratch directory, and any process of a candidate.
ls -la /tmp > "$work/tmp-after.txt" 2>&1
ps -eo pid,ppid,pgid,etimes,args > "$work/ps-after.txt" 2>&1
tar -czf "$out/trust-split.tar.gz" -C "$work" .
cat "$work/machine.txt"; tail -30 "$work/suite/summary.txt" 2>/dev/null; tail -40 "$work/redteam/summary.txt" 2>/dev/null
