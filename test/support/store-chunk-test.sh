#!/usr/bin/env bash
# scripts/store-chunk.sh on stand-in device results: the next chunk folder gets the run's files; the byte-plane state
# replaces the arm's older .tar.zst and its checksum line while another arm's line stays; sha256sum -c passes; an
# archive without a report, or with no step, exits 1 and writes no chunk folder.
# Usage: store-chunk-test.sh SOURCE_DIR
set -euo pipefail
src=$1
work=$(mktemp -d /tmp/cudaperf-store-chunk-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
store() { MODELS_DIR=$work/models bash "$src/scripts/store-chunk.sh" "$@"; }
mkdir -p "$work/call/arm" "$work/report" "$work/run/chunk-1" "$work/models"
printf '{"schema":"cudaperf-rl-config/1"}\n' > "$work/report/rl-config.json"
printf '{"event":"start"}\n{"step":73,"reward":0.1}\n{"step":74,"reward":0.2}\n' > "$work/report/rl-log.jsonl"
echo log > "$work/report/train.log"
printf '{}\n' | gzip > "$work/report/candidates.jsonl.gz"
tar -czf "$work/call/arm/rl-report.tar.gz" -C "$work/report" rl-config.json rl-log.jsonl train.log candidates.jsonl.gz
echo summary > "$work/call/arm/summary.txt"; echo rl-log > "$work/call/arm/rl.log"; echo out > "$work/call/arm.out"
head -c 1000 /dev/urandom > "$work/call/arm/arm-unified-ranker-s0.tar.bp.zst"
tar -czf "$work/r.tgz" -C "$work/call" arm arm.out
echo old > "$work/models/arm-unified-ranker-s0.tar.zst"; echo other > "$work/models/arm-outcome-s0.tar.bp.zst"
(cd "$work/models" && sha256sum arm-outcome-s0.tar.bp.zst arm-unified-ranker-s0.tar.zst > ARM-STATES.sha256)

out=$(store "$work/r.tgz" "$work/run") || fail "store: exit $?"
echo "$out" | grep -q "chunk-2: steps 73-74" || fail "the chunk and its steps: $out"
for f in rl-config.json rl-log.jsonl train.log candidates.jsonl.gz summary.txt arm.log arm.out; do
  [ -f "$work/run/chunk-2/$f" ] || fail "chunk-2 has no $f"
done
[ "$(cat "$work/run/chunk-2/arm.log")" = rl-log ] || fail "arm.log is not rl.sh's log"
[ ! -e "$work/models/arm-unified-ranker-s0.tar.zst" ] || fail "the older .tar.zst of the arm was kept"
cmp -s "$work/models/arm-unified-ranker-s0.tar.bp.zst" "$work/call/arm/arm-unified-ranker-s0.tar.bp.zst" || fail "state not copied"
[ "$(wc -l < "$work/models/ARM-STATES.sha256")" -eq 2 ] || fail "ARM-STATES.sha256: $(cat "$work/models/ARM-STATES.sha256")"
grep -q "  arm-outcome-s0.tar.bp.zst$" "$work/models/ARM-STATES.sha256" || fail "another arm's line was dropped"
(cd "$work/models" && sha256sum --quiet --strict -c ARM-STATES.sha256) || fail "ARM-STATES.sha256 does not verify"

tar -czf "$work/bad.tgz" -C "$work/call" arm.out
set +e; store "$work/bad.tgz" "$work/run" 2> /dev/null; rc=$?; set -e
[ "$rc" -eq 1 ] || fail "no report: exit $rc"
printf '{"event":"start"}\n' > "$work/report/rl-log.jsonl"
tar -czf "$work/call/arm/rl-report.tar.gz" -C "$work/report" rl-log.jsonl
tar -czf "$work/nostep.tgz" -C "$work/call" arm arm.out
set +e; store "$work/nostep.tgz" "$work/run" 2> /dev/null; rc=$?; set -e
[ "$rc" -eq 1 ] || fail "no step: exit $rc"
[ ! -e "$work/run/chunk-3" ] || fail "a failed store left chunk-3"
set +e; store "$work/r.tgz" 2> /dev/null; rc=$?; set -e
[ "$rc" -eq 64 ] || fail "usage: exit $rc"
echo PASS
