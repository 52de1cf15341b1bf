#!/usr/bin/env bash
# The GPU scripts, checked where no GPU is: every scripts/gpu/*.sh parses (bash -n); every one that sources
# build-gpu.sh defines the cap() its gpu_build calls (decode-ab.sh did not, and its H100 call of 2026-12-07
# built nothing); scripts/export-dataset-pytorch.sh on a dataset without a manifest (1), without PyTorch tasks
# (0, says so) and with PyTorch tasks but a python3 without PyTorch (0, names the count, touches nothing);
# scripts/decode-choice.py on stand-in A/B results.
# Every scripts/gpu/*.py compiles.
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
for f in "$src"/scripts/gpu/*.py "$src"/scripts/decode-choice.py; do # compiled into the scratch folder, not beside them
  python3 -c 'import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)' "$f" "$work/pyc" 2> /dev/null ||
    bad "$(basename "$f") does not compile"
done
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
# scripts/decode-choice.py: an arm decodes with the CUDA graph only when the A/B shows it replays static's rows,
# static agrees with dynamic, and the graph is faster; anything else (or a missing run) keeps dynamic.
choice=$src/scripts/decode-choice.py
ab() { # ab GRAPH_T1_TPS GRAPH_IDENTICAL STATIC_PREFIX [DROP]
  python3 - "$work/ab.json" "$@" <<'PY'
import json, sys
dest, gtps, gsame, sprefix = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
drop = sys.argv[5] if len(sys.argv) > 5 else ""
rows = []
for s in ("greedy", "t1"):
    for d in ("dynamic", "static", "graph"):
        if f"{s} {d}" == drop: continue
        rows.append({"batch": 24, "sampling": s, "decode": d, "tokens_per_second": gtps if d == "graph" else 3000.0,
                     "decode_seconds_per_step": 0.004, "rows_identical_to_dynamic": None,
                     "mean_common_prefix": sprefix if d == "static" else None,
                     "rows_identical_to_static": gsame if d == "graph" else None})
json.dump(rows, open(dest, "w"))
PY
}
ab 9000 1.0 400; [ "$(python3 "$choice" "$work/ab.json" 2> /dev/null)" = graph ] && ok "decode-choice: x3, identical, agreeing: graph" || bad "decode-choice: should choose graph"
ab 3300 1.0 400; [ "$(python3 "$choice" "$work/ab.json" 2> /dev/null)" = dynamic ] && ok "decode-choice: x1.1: dynamic" || bad "decode-choice: x1.1 should keep dynamic"
ab 9000 0.5 400; [ "$(python3 "$choice" "$work/ab.json" 2> /dev/null)" = dynamic ] && ok "decode-choice: graph differs from static: dynamic" || bad "decode-choice: graph differing from static should keep dynamic"
ab 9000 1.0 3; [ "$(python3 "$choice" "$work/ab.json" 2> /dev/null)" = dynamic ] && ok "decode-choice: static diverges at once: dynamic" || bad "decode-choice: early divergence should keep dynamic"
ab 9000 1.0 400 "t1 graph"; out=$(python3 "$choice" "$work/ab.json" 2>&1 >/dev/null)
case "$out" in *"t1 graph"*) ok "decode-choice: a missing run: dynamic, named" ;; *) bad "decode-choice: missing run: $out" ;; esac
echo '{"not": "a list"}' > "$work/ab.json"; python3 "$choice" "$work/ab.json" > /dev/null 2>&1
[ $? -eq 2 ] && ok "decode-choice: unreadable file: exit 2" || bad "decode-choice: unreadable file should exit 2"
echo "$fails failure(s)"
[ "$fails" -eq 0 ]
