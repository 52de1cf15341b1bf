#!/usr/bin/env bash
# Unpacks the committed SFT checkpoint, data/models/sft.tar.zst, into data/models/sft/ (git-ignored) and checks
# every file against data/models/SHA256SUMS; rl.sh and `make eval-policy` call it when data/models/sft is
# missing. Needs zstd (Debian's zstd; on the GPU host .carry/deps/bin/zstd) and tar.
# Usage: scripts/unpack-model.sh [DEST]   (default data/models/sft). Exit 1 when the archive is missing, corrupt or
# differs from SHA256SUMS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
models=$root/data/models
dest=${1:-$models/sft}
mkdir -p "$(dirname "$dest")"
dest=$(cd "$(dirname "$dest")" && pwd)/$(basename "$dest")
cd "$models"
[ -f sft.tar.zst ] || { echo "unpack-model: data/models/sft.tar.zst is missing" >&2; exit 1; }
command -v zstd > /dev/null || { echo "unpack-model: zstd is missing (apt-get install zstd)" >&2; exit 1; }
partial=$dest.partial
rm -rf "$partial" && mkdir "$partial"
zstd -dc < sft.tar.zst | tar -x -C "$partial" || { echo "unpack-model: sft.tar.zst is corrupt" >&2; rm -rf "$partial"; exit 1; }
# Every listed file present and equal, and nothing else in the archive.
(cd "$partial/sft" && sha256sum --quiet --strict -c "$models/SHA256SUMS" &&
  [ "$(ls -A | sort)" = "$(awk '{print $2}' "$models/SHA256SUMS" | sort)" ]) ||
  { echo "unpack-model: the unpacked checkpoint differs from data/models/SHA256SUMS" >&2; rm -rf "$partial"; exit 1; }
rm -rf "$dest" && mv "$partial/sft" "$dest" && rmdir "$partial"
echo "unpack-model: $dest ($(ls "$dest" | wc -l) files, checked against SHA256SUMS)"
