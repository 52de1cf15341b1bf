#!/usr/bin/env bash
# scripts/device-tree.sh in a scratch repository: `slim PROFILE` moves exactly the profile's paths out (the
# travelling size drops by their bytes), a second slim is refused while paths are out, `restore` puts every
# byte back, an unknown profile exits 2, and a path recreated meanwhile is not overwritten (exit 1, copy kept).
# Usage: device-tree-test.sh SOURCE_DIR
set -euo pipefail
src=$1
work=$(mktemp -d /tmp/cudaperf-device-tree.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
repo=$work/repo
export CUDAPERF_SLIM_DIR=$work/stash
mkdir -p "$repo/scripts" "$repo/data/eval-runs/run1" "$repo/data/realcode" "$repo/data/models" "$repo/lib"
cp "$src/scripts/device-tree.sh" "$repo/scripts/"
head -c 300000 /dev/urandom > "$repo/data/eval-runs/run1/result.json"
head -c 1000 /dev/urandom > "$repo/data/realcode/a.cu"
head -c 500000 /dev/urandom > "$repo/data/models/sft.tar.zst"
echo 'int main() {}' > "$repo/lib/keep.cpp"
(cd "$repo" && git init -q && git add -A && git -c user.email=t@t -c user.name=t commit -qm init)
( cd "$repo" && find data lib -type f -exec sha256sum {} + | sort ) > "$work/before.sums"

size() { (cd "$repo" && scripts/device-tree.sh size "$@" | cut -d' ' -f1); }
full=$(size)
[ "$full" -ge 801000 ] || fail "size of the full tree: $full"

set +e
(cd "$repo" && scripts/device-tree.sh slim nosuchprofile) 2> /dev/null; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "an unknown profile exited $rc, not 2"

(cd "$repo" && scripts/device-tree.sh slim evaluator) > "$work/slim.log"
for p in data/eval-runs data/realcode data/models/sft.tar.zst; do
  [ ! -e "$repo/$p" ] || fail "$p still in the tree after slim evaluator"
done
[ -f "$repo/lib/keep.cpp" ] || fail "slim moved a path outside the profile"
slim=$(size)
[ $((full - slim)) -eq 801000 ] || fail "slimming saved $((full - slim)) bytes, not the 801000 moved"
# Carried paths count too.
[ "$(size "$repo/lib")" -gt "$slim" ] || fail "a carried path did not count"

set +e
(cd "$repo" && scripts/device-tree.sh slim evaluator) 2> /dev/null; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "a second slim while paths are out exited $rc, not 2"

(cd "$repo" && scripts/device-tree.sh restore) > "$work/restore.log"
( cd "$repo" && find data lib -type f -exec sha256sum {} + | sort ) > "$work/after.sums"
cmp -s "$work/before.sums" "$work/after.sums" || fail "restore did not give back every file as it was"
[ ! -e "$CUDAPERF_SLIM_DIR" ] || fail "the stash is left after a full restore"

# Profile arm: only data/models and this script stay (the code travels as .carry/src.tgz).
(cd "$repo" && scripts/device-tree.sh slim arm) > "$work/slim-arm.log"
for p in data/eval-runs data/realcode lib; do
  [ ! -e "$repo/$p" ] || fail "$p still in the tree after slim arm"
done
[ -f "$repo/data/models/sft.tar.zst" ] && [ -f "$repo/scripts/device-tree.sh" ] || fail "slim arm moved data/models or itself"
(cd "$repo" && scripts/device-tree.sh restore) > /dev/null
( cd "$repo" && find data lib -type f -exec sha256sum {} + | sort ) > "$work/after-arm.sums"
cmp -s "$work/before.sums" "$work/after-arm.sums" || fail "restore after slim arm did not give back every file"

# A path recreated while moved out is not overwritten: restore says so and keeps the moved copy.
(cd "$repo" && scripts/device-tree.sh slim evaluator) > /dev/null
mkdir -p "$repo/data/realcode" && echo new > "$repo/data/realcode/new.cu"
set +e
(cd "$repo" && scripts/device-tree.sh restore) > /dev/null 2> "$work/restore2.err"; rc=$?
set -e
[ "$rc" -eq 1 ] || fail "restore over a recreated path exited $rc, not 1"
[ -f "$CUDAPERF_SLIM_DIR/data/realcode/a.cu" ] || fail "the moved copy of a recreated path was not kept"
[ -f "$repo/data/eval-runs/run1/result.json" ] || fail "the other paths were not restored"

# `src`: HEAD's code without the stored runs and models, with SOURCE_COMMIT naming HEAD.
(cd "$repo" && scripts/device-tree.sh src > /dev/null) || fail "src failed"
listing=$(tar tzf "$repo/.carry/src.tgz")
grep -qx "lib/keep.cpp" <<< "$listing" || fail "src lacks the code: $listing"
grep -q "^data/" <<< "$listing" && fail "src carries data/: $listing"
[ "$(tar xzOf "$repo/.carry/src.tgz" SOURCE_COMMIT)" = "$(git -C "$repo" rev-parse HEAD)" ] || fail "SOURCE_COMMIT is not HEAD"
echo PASS
