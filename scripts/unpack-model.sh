#!/usr/bin/env bash
# Unpacks the committed SFT checkpoint, data/models/sft.tar.zst, into data/models/sft/ (git-ignored) and checks
# every file against data/models/SHA256SUMS; rl.sh and `make eval-policy` call it when data/models/sft is
# missing. Needs zstd (Debian's zstd; on the GPU host .carry/deps/bin/zstd) and tar.
# Usage: scripts/unpack-model.sh   (repository root). Exit 1 when the archive is missing, corrupt or differs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/data/models"
[ -f sft.tar.zst ] || { echo "unpack-model: data/models/sft.tar.zst is missing" >&2; exit 1; }
command -v zstd > /dev/null || { echo "unpack-model: zstd is missing (apt-get install zstd)" >&2; exit 1; }
rm -rf sft.partial && mkdir sft.partial
zstd -dc sft.tar.zst | tar -x -C sft.partial
(cd sft.partial/sft && sha256sum --quiet -c "$root/data/models/SHA256SUMS") ||
  { echo "unpack-model: the unpacked checkpoint differs from data/models/SHA256SUMS" >&2; rm -rf sft.partial; exit 1; }
rm -rf sft && mv sft.partial/sft sft && rmdir sft.partial
echo "unpack-model: data/models/sft ($(ls sft | wc -l) files, checked against SHA256SUMS)"
