#!/usr/bin/env bash
# scripts/gpu/arm.sh's choice of the state to resume (ARM_DRY_RUN=1 stops before rl.sh), in a scratch tree:
# none -> from the SFT checkpoint; the arm's committed compact state, checked against ARM-STATES.sha256 and
# unpacked to a tar.gz holding state/; a state whose checksum differs, or one not listed, exits 2; a state
# left by an earlier call on the host wins over the committed one; another arm's state is not taken; a committed
# byte-plane state (.tar.bp.zst, scripts/pack/byte-planes.py) wins over a .tar.zst beside it and unpacks to the
# same tar, byte for byte; a corrupt one (not byte planes) exits 2.
# Usage: arm-state-test.sh SOURCE_DIR
set -euo pipefail
src=$1
command -v zstd > /dev/null || { echo "SKIP: no zstd"; exit 0; }
work=$(mktemp -d /tmp/cudaperf-arm-state.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
repo=$work/repo
mkdir -p "$repo/scripts/gpu" "$repo/scripts/pack" "$repo/data/models" "$repo/lib" "$work/state/state"
cp "$src/scripts/gpu/arm.sh" "$repo/scripts/gpu/"
cp "$src/scripts/pack/byte-planes.py" "$src/scripts/pack/state-tar.sh" "$repo/scripts/pack/"
echo '{"schema":"cudaperf-trainer-state/1","compact":true}' > "$work/state/state/trainer_state.json"
tar -C "$work/state" -cf - state | zstd -q > "$repo/data/models/arm-unified-s1.tar.zst"
run() { (cd "$repo" && ARM_DRY_RUN=1 ARM_KEEP=$work/keep "$@" bash scripts/gpu/arm.sh "$work/out" 2>&1); }

out=$(run env RL_ARM=outcome RL_SEED=1) || fail "no state: exit $?"
echo "$out" | grep -q "from the SFT checkpoint" || fail "no state: $out"

set +e; out=$(run env RL_ARM=unified RL_SEED=1); rc=$?; set -e
[ "$rc" -eq 2 ] || fail "a state not listed in ARM-STATES.sha256: exit $rc ($out)"
(cd "$repo/data/models" && sha256sum arm-unified-s1.tar.zst > ARM-STATES.sha256)
out=$(run env RL_ARM=unified RL_SEED=1) || fail "the committed state: exit $?"
echo "$out" | grep -q "resuming from $work/keep/arm-unified-s1/resume.tar.gz" || fail "the committed state: $out"
tar -tzf "$work/keep/arm-unified-s1/resume.tar.gz" | grep -q '^state/trainer_state.json$' || fail "resume.tar.gz has no state/"

echo "00 arm-unified-s1.tar.zst" | sed "s/^00/$(printf '0%.0s' {1..64})/" > "$repo/data/models/ARM-STATES.sha256"
set +e; out=$(run env RL_ARM=unified RL_SEED=1); rc=$?; set -e
[ "$rc" -eq 2 ] || fail "a state whose checksum differs: exit $rc ($out)"

mkdir -p "$work/keep/arm-unified-s1" && touch "$work/keep/arm-unified-s1/rl-state.tar.gz"
out=$(run env RL_ARM=unified RL_SEED=1) || fail "a state left on the host: exit $?"
echo "$out" | grep -q "resuming from $work/keep/arm-unified-s1/rl-state.tar.gz" || fail "the host's state: $out"
out=$(run env RL_ARM=unified RL_SEED=2) || fail "another seed: exit $?"
echo "$out" | grep -q "from the SFT checkpoint" || fail "another arm took this one's state: $out"

# The byte-plane form, as arm.sh now writes it, beside the older .tar.zst: it is the one taken.
rm -rf "$work/keep"
head -c 4097 /dev/urandom > "$work/state/state/optimizer.safetensors" # an odd length: the last byte has no pair
tar -C "$work/state" -cf "$work/state.tar" state
python3 "$src/scripts/pack/byte-planes.py" split < "$work/state.tar" | zstd -q > "$repo/data/models/arm-unified-s1.tar.bp.zst"
set +e; out=$(run env RL_ARM=unified RL_SEED=1); rc=$?; set -e
[ "$rc" -eq 2 ] || fail "a byte-plane state not listed: exit $rc ($out)"
(cd "$repo/data/models" && sha256sum arm-unified-s1.tar.zst arm-unified-s1.tar.bp.zst > ARM-STATES.sha256)
out=$(run env RL_ARM=unified RL_SEED=1) || fail "the byte-plane state: exit $?"
echo "$out" | grep -q "resuming from $work/keep/arm-unified-s1/resume.tar.gz" || fail "the byte-plane state: $out"
gzip -dc "$work/keep/arm-unified-s1/resume.tar.gz" | cmp -s - "$work/state.tar" ||
  fail "the byte-plane state did not unpack to the tar it was made from"

rm -rf "$work/keep"
zstd -dc "$repo/data/models/arm-unified-s1.tar.zst" | zstd -q > "$work/plain.zst" # a plain tar under the new name
mv "$work/plain.zst" "$repo/data/models/arm-unified-s1.tar.bp.zst"
(cd "$repo/data/models" && sha256sum arm-unified-s1.tar.bp.zst > ARM-STATES.sha256)
set +e; out=$(run env RL_ARM=unified RL_SEED=1); rc=$?; set -e
[ "$rc" -eq 2 ] || fail "a .tar.bp.zst that is not byte planes: exit $rc ($out)"
echo "$out" | grep -q "cannot unpack" || fail "a .tar.bp.zst that is not byte planes: $out"
echo PASS
