#!/usr/bin/env bash
# One device call's share of an experiment arm (docs/training.md, "The experiment in chunks"): scripts/gpu/rl.sh
# for ARM_SECONDS of training with no evaluations (the arms are evaluated once, at the end, by eval-policy on the
# test split), resuming from, in this order: the state an earlier call left on this host (ARM_KEEP, kept while the
# machine stays warm), ARM_STATE_TAR (an rl-state.tar.gz or a compact .tar.bp.zst / .tar.zst), or the arm's
# committed compact state data/models/arm-<arm>-s<seed>.tar.bp.zst (or, written before byte planes,
# .tar.zst; checked against data/models/ARM-STATES.sha256). It leaves the dataset and the new state in ARM_KEEP
# for the next call, and returns the state compacted (`cudaperf-train compact-state`: bf16 moments, no masters;
# 6.6 MB tar), split into byte planes (scripts/pack/byte-planes.py) and zstd'd (4.3 MB), as
# OUTDIR/arm-<arm>-s<seed>.tar.bp.zst, the file to commit under data/models/ when the arm continues later. The arm's steps are functions of
# (seed, step), so the chunks of an arm give the run one call would give, up to the evaluator's timings and, at a
# session boundary, the bf16 rounding of the masters and moments.
# Usage (repository root on the GPU host): scripts/gpu/arm.sh OUTDIR
#   First call of a session: here `scripts/device-tree.sh slim arm` and
#   `scripts/device-tree.sh src` (.carry/src.tgz: HEAD's code with SOURCE_COMMIT, without runs, models, tests, docs);
#   carry .carry/src.tgz, .carry/deps.tgz (scripts/pack-deps.sh, then tar) and .carry/analyzer (scripts/pack-analyzer.sh):
#   ~62 MiB with the checkpoint and one compact state. The device command unpacks the code first (the tree
#   holds no scripts under profile arm): `tar xzf .carry/src.tgz && bash scripts/gpu/arm.sh $OUT`.
#   Later calls on the warm machine: the same command (the tree there is kept); `restore` here after the last.
# Environment: RL_ARM (unified-ranker), RL_SEED (0), ARM_SECONDS (training seconds, 300), ARM_TOTAL_SECONDS
# (whole call, ARM_SECONDS + 240), ARM_KEEP (/tmp/cudaperf-arm; each arm's state in its own folder there),
# ARM_STATE_TAR, RL_SET (extra --set K=V), ARM_DRY_RUN (1: choose the state and stop; tests).
# Exit: rl.sh's; 2 when a committed state does not match its checksum or cannot be unpacked.
set -uo pipefail
out=${1:-${OUT:-/tmp/arm}}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
keep=${ARM_KEEP:-/tmp/cudaperf-arm}
mkdir -p "$keep" "$out"
[ -d lib ] || { [ -f .carry/src.tgz ] && tar -xzf .carry/src.tgz; } # profile arm, if the command did not unpack it
[ -d .carry/deps ] || { [ -f .carry/deps.tgz ] && tar -xzf .carry/deps.tgz -C .carry; }
export PATH=$PWD/.carry/deps/bin:$PATH # zstd
arm=${RL_ARM:-unified-ranker}
seed=${RL_SEED:-0}
name=arm-$arm-s$seed
mine=$keep/$name # this arm's state on a warm host (another arm may run in the same session)
mkdir -p "$mine"
if [ -f "$keep/dataset/manifest.jsonl" ]; then # an earlier call's dataset: rl.sh takes sft.sh's place for it
  mkdir -p /tmp/cudaperf-sft && ln -sfn "$keep/dataset" /tmp/cudaperf-sft/dataset
fi
state=
if [ -f "$mine/rl-state.tar.gz" ]; then state=$mine/rl-state.tar.gz
elif [ -n "${ARM_STATE_TAR:-}" ] && [ -f "$ARM_STATE_TAR" ]; then state=$ARM_STATE_TAR
else
  for f in "$name.tar.bp.zst" "$name.tar.zst"; do
    [ -f "data/models/$f" ] || continue
    state=data/models/$f
    (cd data/models && grep " $f\$" ARM-STATES.sha256 | sha256sum --quiet --strict -c -) ||
      { echo "arm: data/models/$f differs from data/models/ARM-STATES.sha256 (or is not listed)"; exit 2; }
    break
  done
fi
case "$state" in
  *.zst) bash scripts/pack/state-tar.sh "$state" | gzip -1 > "$mine/resume.tar.gz" || { echo "arm: cannot unpack $state"; exit 2; }
         state=$mine/resume.tar.gz ;;
esac
echo "arm $arm seed $seed: $( [ -n "$state" ] && echo "resuming from $state" || echo "from the SFT checkpoint")"
[ "${ARM_DRY_RUN:-0}" = 1 ] && exit 0 # tests: the choice of state only
secs=${ARM_SECONDS:-300}
RL_RESUME_TAR=$state RL_SECONDS=$secs RL_TOTAL_SECONDS=${ARM_TOTAL_SECONDS:-$(( secs + 240 ))} \
  RL_SET="--set eval_tasks=0 --set eval_held_out_family_tasks=0 ${RL_SET:-}" bash scripts/gpu/rl.sh "$out"
rc=$?
if [ ! -f "$keep/dataset/manifest.jsonl" ] && [ -f /tmp/cudaperf-rl/dataset/manifest.jsonl ]; then
  rm -rf "$keep/dataset" && cp -r /tmp/cudaperf-rl/dataset "$keep/dataset"
fi
[ -f "$out/rl-state.tar.gz" ] && cp "$out/rl-state.tar.gz" "$mine/rl-state.tar.gz"
# The compact state to commit (the exact one stays on this host for the next warm call).
if [ -d /tmp/cudaperf-rl/run/state ] && [ -x build-gpu/bin/cudaperf-train ]; then
  rm -rf "$mine/compact" && mkdir -p "$mine/compact"
  if build-gpu/bin/cudaperf-train compact-state --state /tmp/cudaperf-rl/run/state --out "$mine/compact/state"; then
    tar -C "$mine/compact" -cf - state | python3 scripts/pack/byte-planes.py split | zstd -19 -q > "$out/$name.tar.bp.zst" &&
      rm -f "$out/rl-state.tar.gz"
    (cd "$out" && sha256sum "$name.tar.bp.zst")
  fi
fi
grep -h '"step"' /tmp/cudaperf-rl/run/rl-log.jsonl 2>/dev/null | tail -1 | cut -c1-300
exit $rc
