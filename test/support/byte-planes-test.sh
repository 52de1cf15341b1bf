#!/usr/bin/env bash
# scripts/pack/byte-planes.py: split then join gives the input back for empty, odd and even lengths; split puts the
# odd-offset bytes first (checked on a known input); join refuses what is not its format with exit 2 (no header,
# a truncated body, trailing bytes) and a wrong command with 64.
# Usage: byte-planes-test.sh SOURCE_DIR
set -euo pipefail
bp="python3 $1/scripts/pack/byte-planes.py"
work=$(mktemp -d /tmp/cudaperf-byte-planes.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
for n in 0 1 2 3 4096 10001; do
  head -c "$n" /dev/urandom > "$work/in"
  $bp split < "$work/in" > "$work/planes"
  [ "$(stat -c %s "$work/planes")" -eq $(( n + 14 )) ] || fail "split of $n bytes is not 14 + $n bytes"
  $bp join < "$work/planes" | cmp -s - "$work/in" || fail "join(split(x)) != x for $n bytes"
done
printf 'abcde' | $bp split | tail -c 5 | grep -qx 'bdace' || fail "split of abcde: planes are not 'bd' then 'ace'"
expect() { # RC DESCRIPTION < input
  set +e; $bp join > /dev/null 2> "$work/err"; rc=$?; set -e
  [ "$rc" -eq "$1" ] || fail "$2: exit $rc, expected $1"
  [ -s "$work/err" ] || fail "$2: no message"
}
printf 'plain tar bytes' | expect 2 "no header"
head -c 100 /dev/urandom > "$work/in"; $bp split < "$work/in" > "$work/planes"
head -c 60 "$work/planes" | expect 2 "truncated"
{ cat "$work/planes"; printf 'x'; } | expect 2 "trailing byte"
set +e; $bp shuffle < /dev/null 2> /dev/null; rc=$?; set -e
[ "$rc" -eq 64 ] || fail "unknown command: exit $rc"
echo PASS
