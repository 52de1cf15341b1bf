#!/usr/bin/env bash
# The GPU scripts, checked where no GPU is: every scripts/gpu/*.sh parses (bash -n); every one that sources
# build-gpu.sh defines the cap() its gpu_build calls (decode-ab.sh did not, and its H100 call of 2026-12-07
# built nothing); scripts/export-dataset-pytorch.sh on a dataset without a manifest (1), without PyTorch tasks
# (0, says so) and with PyTorch tasks but a python3 without PyTorch (0, names the count, touches nothing).
# Usage: gpu-scripts-test.sh SOURCE_DIR
set -uo pipefail
src=${1:?usage: gpu-scripts-test.sh SOURCE_DIR}
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
for f in "$src"/scripts/gpu/*.sh "$src"/scripts/export-dataset-pytorch.sh; do
  bash -n "$f" 2> /dev/null || bad "$(basename "$f") does not parse"
  if grep -q "build-gpu.sh" "$f" && [ "$(basename "$f")" != build-gpu.sh ]; then
    grep -qE '^cap\(\) *\{' "$f" && ok "$(basename "$f") defines cap() for gpu_build" || bad "$(basename "$f") sources build-gpu.sh without cap()"
  fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
script=$src/scripts/export-dataset-pytorch.sh
bash "$script" "$work/none" > "$work/out" 2>&1
[ $? -eq 1 ] && grep -q "no $work/none/manifest.jsonl" "$work/out" && ok "no manifest: exit 1, named" || bad "no manifest: $(cat "$work/out")"
mkdir -p "$work/c"
echo '{"task":"a_000","dir":"c/a/a_000","kind":"c"}' > "$work/c/manifest.jsonl"
bash "$script" "$work/c" > "$work/out" 2>&1
[ $? -eq 0 ] && grep -q "no PyTorch tasks" "$work/out" && ok "C tasks only: exit 0, nothing to export" || bad "C only: $(cat "$work/out")"
# A python3 without PyTorch first on PATH (the CPU machine's has none; the stand-in makes sure).
mkdir -p "$work/bin" "$work/pt/pytorch/f/f_000"
cat > "$work/bin/python3" <<'PY'
#!/bin/sh
[ "$1" = -c ] && case "$2" in *"import torch"*) exit 1 ;; esac
exec /usr/bin/python3 "$@"
PY
chmod +x "$work/bin/python3"
printf '%s\n' '{"task":"f_000","dir":"pytorch/f/f_000","kind":"pytorch"}' '{"task":"f_001","dir":"pytorch/f/f_001","kind":"pytorch"}' \
  '{"task":"a_000","dir":"c/a/a_000","kind":"c"}' > "$work/pt/manifest.jsonl"
PATH=$work/bin:$PATH bash "$script" "$work/pt" > "$work/out" 2>&1
[ $? -eq 0 ] && grep -q "no PyTorch: 2 PyTorch tasks left without exports" "$work/out" && [ ! -e "$work/pt/pytorch/f/f_000/exported" ] &&
  ok "no PyTorch: exit 0, 2 tasks named, nothing written" || bad "no PyTorch: $(cat "$work/out")"
echo "$fails failure(s)"
[ "$fails" -eq 0 ]
