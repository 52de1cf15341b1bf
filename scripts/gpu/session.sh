#!/usr/bin/env bash
# Several GPU scripts in one device call, each in its own output folder with its own time cap, so that
# one failing or overrunning step loses nothing of the others. The device tool returns at most 8 files,
# so each step's folder comes back as one archive, STEP.tar.gz, beside session.log.
# Usage (repository root, GPU host): scripts/gpu/session.sh STEP:SECONDS:COMMAND ...
#   COMMAND runs with OUT set to the step's folder (under /tmp/session), e.g.
#   scripts/gpu/session.sh 'launches:150:bash scripts/gpu/task-launches.sh $OUT' 'tok:120:bash scripts/gpu/tokenizer-fixtures.sh $OUT'
# The whole call should stay inside the device's 10-minute limit: the caps are the caller's to add up.
set -uo pipefail
final=${OUT:-/tmp/session-out}
mkdir -p "$final"
work=/tmp/session
rm -rf "$work" && mkdir -p "$work"
export PATH=$PWD/.carry/deps/bin:/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH  # .carry/deps/bin: zstd
log=$final/session.log
say() { echo "[$(date -u +%T) ${SECONDS}s] $*" | tee -a "$log"; }
say "machine: $(nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader 2>&1 | head -1); $(nproc) cores"
results=()
for spec in "$@"; do
  step=${spec%%:*}; rest=${spec#*:}; secs=${rest%%:*}; cmd=${rest#*:}
  mkdir -p "$work/$step"
  say "== $step (cap ${secs}s): $cmd"
  start=$SECONDS
  # Own process group, so the cap kills the step's children too; stdout+stderr to the step's log.
  OUT="$work/$step" timeout --kill-after=10 "$secs" setsid bash -c "$cmd" > "$work/$step/step.log" 2>&1 < /dev/null
  rc=$?
  say "$step: rc=$rc in $((SECONDS - start))s"
  tail -15 "$work/$step/step.log" | sed "s/^/  $step| /" | tee -a "$log"
  tar -C "$work" -czf "$final/$step.tar.gz" "$step"
  results+=("$step rc=$rc $((SECONDS - start))s")
done
say "== summary"
printf '%s\n' "${results[@]}" | tee -a "$log"
