#!/usr/bin/env bash
# An arm's trainer state as a plain tar on stdout, whatever form it travels in: .tar.bp.zst (zstd of byte planes,
# scripts/pack/byte-planes.py; what scripts/gpu/arm.sh writes), .tar.zst (written before byte planes), or a
# gzip'd tar (rl-state.tar.gz). The one place that knows these forms (arm.sh resumes from it, rl.sh's
# RL_EVAL_POLICY exports from it).
# Usage: scripts/pack/state-tar.sh STATE > state.tar   Exit: 0; non-zero when STATE cannot be read or decoded.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: scripts/pack/state-tar.sh STATE" >&2; exit 64; }
case "$1" in
  *.tar.bp.zst) zstd -dc "$1" | python3 "$(dirname "$0")/byte-planes.py" join ;;
  *.tar.zst) zstd -dc "$1" ;;
  *) gzip -dc "$1" ;;
esac
