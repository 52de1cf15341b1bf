#!/usr/bin/env bash
# The tokenizer's Hugging Face fixtures on the GPU host (Python tokenizers and transformers are
# there), in one command; no GPU is used:
#   1. builds cudaperf-tokenizer (needs .carry/deps from scripts/pack-deps.sh; skipped without it);
#   2. scripts/gpu/tokenizer-fixtures.py: trains hf-repo and hf-small with tokenizers' BpeTrainer,
#      writes the expected ids of hf-repo and ours-repo under every variant, checks transformers on
#      ours-repo (ids, chat template), measures encoding speed against cudaperf-tokenizer;
#   3. packs the fixtures to commit into OUTDIR/tokenizer-fixtures.tar.gz.
# Usage: scripts/gpu/tokenizer-fixtures.sh [OUTDIR]   (default $OUT, else /tmp/tokenizer-fixtures)
# Writes OUTDIR/{tokenizer-fixtures.log,summary.txt,hf-checks.json,tokenizer-fixtures.tar.gz}.
# About a minute (the build is most of it). Exit status 1 if a step failed.
# To commit (on the dev machine, repository root):
#   tar -xzf tokenizer-fixtures.tar.gz -C test/learn/fixtures/tokenizer
set -uo pipefail
out=${1:-${OUT:-/tmp/tokenizer-fixtures}}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export PATH=/opt/torch/.venv/bin:$PATH
mkdir -p "$out"
exec > >(tee -a "$out/tokenizer-fixtures.log") 2>&1
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
failed=0

note "== machine"
timeout 30 python3 -c "import sys, tokenizers, transformers; print('python', sys.version.split()[0], 'tokenizers', tokenizers.__version__, 'transformers', transformers.__version__)" | tee -a "$summary"

note "== build cudaperf-tokenizer"
bin=
if [ -d .carry/deps ]; then
  SECONDS=0
  timeout 100 cmake -S . -B build-tokenizer -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCUDAPERF_DEPS_PREFIX="$root/.carry/deps" -DCUDAPERF_BUILD_ANALYZER=OFF -DCUDAPERF_BUILD_RUNTIME=OFF \
    -DCUDAPERF_BUILD_TESTS=OFF > "$out/build.log" 2>&1 &&
    timeout 200 cmake --build build-tokenizer --target cudaperf-tokenizer -j 16 >> "$out/build.log" 2>&1
  rc=$?
  note "build rc=$rc in ${SECONDS} s"
  if [ $rc -eq 0 ] && [ -x build-tokenizer/bin/cudaperf-tokenizer ]; then
    bin=$root/build-tokenizer/bin/cudaperf-tokenizer
  else
    tail -n 30 "$out/build.log"
    failed=1
  fi
else
  note "no .carry/deps (scripts/pack-deps.sh): cudaperf-tokenizer not built; its speed and CLI check are skipped"
fi

note "== fixtures"
SECONDS=0
work=$out/work
rm -rf "$work"
args=(--root "$root" --out "$work")
[ -n "$bin" ] && args+=(--cudaperf-tokenizer "$bin")
timeout 300 python3 scripts/gpu/tokenizer-fixtures.py "${args[@]}"
rc=$?
note "tokenizer-fixtures.py rc=$rc in ${SECONDS} s"
[ $rc -eq 0 ] || failed=1

note "== pack"
if [ -d "$work/tokenizer" ]; then
  cp "$work/tokenizer/hf-checks.json" "$out/" 2>/dev/null
  tar -czf "$out/tokenizer-fixtures.tar.gz" -C "$work/tokenizer" . && note "packed: $(tar -tzf "$out/tokenizer-fixtures.tar.gz" | grep -v '/$' | tr '\n' ' ')"
  rm -rf "$work"
else
  note "nothing to pack"
  failed=1
fi

note "== summary"
python3 - "$out/hf-checks.json" <<'PY' | tee -a "$summary"
import json, sys
try:
    c = json.load(open(sys.argv[1]))
except Exception as e:
    print("no hf-checks.json:", e); sys.exit(0)
print("%-28s %s" % ("step", "result"))
for name, s in c["steps"].items():
    print("%-28s %s" % (name, "ok (%s s)" % s["seconds"] if s["ok"] else "FAILED"))
t = c.get("transformers") or {}
if t:
    print("transformers %s %s: ids same %s differ %s, decode differ %s, chat same %s differ %s" % (
        t.get("version"), t.get("cls"), t.get("ids_same"), t.get("ids_differ"), t.get("decode_differ"),
        t.get("chat_same"), t.get("chat_differ")))
s = c.get("speed") or {}
if s:
    print("tokenizers %s: %d .cu files, %d tokens: one thread %.0f tokens/s first pass, %.0f best; encode_batch %.0f" % (
        c["tokenizers"], s["files"], s["tokens"], s["hf_first_tokens_per_s"], s["hf_best_tokens_per_s"],
        s["hf_batch_tokens_per_s"]))
    for line in s.get("cudaperf_bench", []):
        print("cudaperf-tokenizer: " + line)
    if "cudaperf_cli_same_ids" in s:
        print("cudaperf-tokenizer encode = tokenizers: " + s["cudaperf_cli_same_ids"])
PY
if [ $failed -eq 0 ]; then note "RESULT: ok"; else note "RESULT: FAILED (see above)"; fi
exit $failed
