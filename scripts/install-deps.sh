#!/usr/bin/env bash
# Installs, with apt, what cudaperf needs on Debian 12 and is missing. Does nothing when all is present.
# Usage: scripts/install-deps.sh [--no-torch]
#   LibTorch (libtorch-dev, CPU) builds the learning stack (lib/Learn: cudaperf-lm, -rank, -train);
#   libopenblas0-pthread replaces Debian's reference BLAS under it (about 12x faster here).
set -euo pipefail
pkgs=(cmake ninja-build make g++ python3 llvm-22-dev libclang-22-dev clang-22 libclang-rt-22-dev llvm-22-tools libfmt-dev libgtest-dev
      zlib1g-dev libzstd-dev ccache nlohmann-json3-dev libpcre2-dev libutf8proc-dev libcpp-httplib-dev gnuplot-nox zstd xz-utils
      libhiredis-dev redis-server)
[ "${1:-}" != "--no-torch" ] && pkgs+=(libtorch-dev libopenblas0-pthread libgloo-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
