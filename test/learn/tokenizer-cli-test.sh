#!/usr/bin/env bash
# cudaperf-tokenizer's command line: exit codes (0 done, 1 input failed, 2 bad usage), the error
# messages, and train -> encode -> decode giving back the text.
# Usage: tokenizer-cli-test.sh CUDAPERF_TOKENIZER SOURCE_DIR
set -u
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fixtures=$root/test/learn/fixtures/tokenizer

# expect STATUS PATTERN COMMAND...: the command exits with STATUS and its stderr matches PATTERN.
expect() {
  local status=$1 pattern=$2
  shift 2
  "$@" > "$tmp/out" 2> "$tmp/err"
  local got=$?
  if [ "$got" -ne "$status" ] || { [ -n "$pattern" ] && ! grep -qE -- "$pattern" "$tmp/err"; }; then
    echo "FAIL: $* -> exit $got (expected $status), stderr:"; sed 's/^/  /' "$tmp/err"
    failures=$((failures + 1))
  else
    echo "ok: $*"
  fi
}

expect 2 "usage:" "$bin"
expect 0 "" "$bin" train --help
grep -q -- "--min-frequency" "$tmp/out" || { echo "FAIL: train --help lists no --min-frequency"; failures=$((failures + 1)); }
expect 2 "unknown command \"tokenise\"" "$bin" tokenise
expect 2 "encode needs --tokenizer" "$bin" encode "$fixtures/texts/tiled.cu"
expect 2 "unknown option '--vocabulary'" "$bin" train --vocabulary 300 --out "$tmp/t" "$fixtures/texts"
expect 2 "'--vocab'.*whole number" "$bin" train --vocab 3e2 --out "$tmp/t" "$fixtures/texts"
expect 2 "--ids expects ids" "$bin" decode --tokenizer "$fixtures/ours-repo" --ids 1,x
expect 1 "cannot read $tmp/missing.cu" "$bin" encode --tokenizer "$fixtures/ours-repo" "$tmp/missing.cu"
expect 1 "cannot read $tmp/tokenizer.json" "$bin" encode --tokenizer "$tmp" "$fixtures/texts/tiled.cu"
printf '{"model": {"type": "WordPiece"}}' > "$tmp/bad.json"
expect 1 "bad.json: tokenizer.json: model.type: \"WordPiece\" is not supported" \
  "$bin" encode --tokenizer "$tmp/bad.json" "$fixtures/texts/tiled.cu"
expect 1 "vocabulary size 100 is smaller than the 4 special tokens and 256 byte symbols" \
  "$bin" train --vocab 100 --out "$tmp/t" "$fixtures/texts"

expect 0 "wrote .*tokenizer_config.json" "$bin" train --vocab 400 --out "$tmp/trained" "$fixtures/texts"
for f in tokenizer.json tokenizer_config.json; do
  [ -s "$tmp/trained/$f" ] || { echo "FAIL: train wrote no $f"; failures=$((failures + 1)); }
done
expect 0 "" "$bin" encode --tokenizer "$tmp/trained" "$fixtures/texts/adversarial.txt"
cp "$tmp/out" "$tmp/ids.json"
grep -q '^{"schema":"cudaperf-tokens/1","count":[0-9]*,"ids":\[' "$tmp/ids.json" ||
  { echo "FAIL: encode printed $(head -c 200 "$tmp/ids.json")"; failures=$((failures + 1)); }
ids=$(python3 -c 'import json,sys; print(",".join(map(str, json.load(open(sys.argv[1]))["ids"])))' "$tmp/ids.json")
expect 0 "" "$bin" decode --tokenizer "$tmp/trained/tokenizer.json" --ids "$ids"
# Decoding gives the NFC form of the text back.
python3 - "$tmp/out" "$fixtures/texts/adversarial.txt" <<'PY' || failures=$((failures + 1))
import sys, unicodedata
decoded = open(sys.argv[1], encoding="utf-8", newline="").read()
text = unicodedata.normalize("NFC", open(sys.argv[2], encoding="utf-8", newline="").read())
if decoded != text:
    print("FAIL: decode(encode(adversarial.txt)) differs from its NFC form")
    sys.exit(1)
print("ok: decode(encode(adversarial.txt)) is its NFC form")
PY
expect 0 "" "$bin" encode --tokenizer "$tmp/trained" --tokens - < "$fixtures/texts/tiled.cu"
grep -q '"tokens":\["' "$tmp/out" || { echo "FAIL: --tokens printed no tokens"; failures=$((failures + 1)); }
expect 0 "" "$bin" bench --tokenizer "$tmp/trained" --repeat 1 "$fixtures/texts"
grep -q "tokens/s" "$tmp/out" || { echo "FAIL: bench printed $(cat "$tmp/out")"; failures=$((failures + 1)); }

echo "$failures failed"
[ "$failures" -eq 0 ]
