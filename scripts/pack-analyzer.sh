#!/usr/bin/env bash
# Packs the analyzer for a host without LLVM (the GPU host) into .carry/analyzer/:
#   bin/cudaperf-analyze                 the binary as built
#   lib/<soname>.xz                      every shared library ldd resolves, except glibc, libstdc++ and
#                                        libgcc_s (the host has newer ones): libclang-cpp, libLLVM, libz3,
#                                        and their dependencies (libxml2, ICU, libedit, ...)
#   resource/include.tar.xz              clang's builtin headers (the resource directory's include/)
#   MANIFEST                             sources, sizes and checksums
# xz because the host can always decompress it (xz, or python3's lzma module). scripts/gpu/validate.sh
# unpacks it into /tmp and loads from it only the libraries the host lacks (ldconfig -p).
# Usage: scripts/pack-analyzer.sh [ANALYZER] [DEST]   (defaults build/bin/cudaperf-analyze, .carry/analyzer)
# The device call's working tree, carried paths included, must stay under 64 MiB: the script fails
# when the package exceeds PACK_LIMIT_MB (default 56; on 2026-11-29 it was 54 MiB, ~9 minutes of xz -9 on
# 2 busy cores). PACK_SKIP="libicudata.so.72 libicuuc.so.72 libxml2.so.2" leaves out libraries the GPU host
# is known to have (their ICU alone is 8 MB packed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
analyzer=${1:-build/bin/cudaperf-analyze}
dest=${2:-.carry/analyzer}
limit_mb=${PACK_LIMIT_MB:-56}
[ -x "$analyzer" ] || { echo "no analyzer at $analyzer (ninja -C build cudaperf-analyze)"; exit 2; }
command -v xz > /dev/null || { echo "xz is missing (apt-get install xz-utils)"; exit 2; }

resource=$(sed -n 's/^CUDAPERF_CLANG_RESOURCE_DIR:PATH=//p' "$(dirname "$(dirname "$analyzer")")/CMakeCache.txt" 2>/dev/null || true)
[ -d "$resource/include" ] || resource=$(clang-19 -print-resource-dir 2>/dev/null || true)
[ -d "$resource/include" ] || { echo "clang resource directory not found"; exit 2; }

rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib" "$dest/resource"
cp "$analyzer" "$dest/bin/cudaperf-analyze"
manifest=$dest/MANIFEST
{
  echo "packed $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n) by scripts/pack-analyzer.sh"
  echo "analyzer $(realpath "$analyzer") sha256 $(sha256sum "$analyzer" | cut -d' ' -f1)"
  echo "git $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (dirty tree)')"
  echo "resource-dir $resource"
} > "$manifest"

# "libfoo.so.1 => /lib/.../libfoo.so.1 (0x...)"; the host provides glibc and the C++ runtime.
ldd "$analyzer" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | while read -r soname path; do
  case "$soname" in
    libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|ld-linux*|libstdc++.so.*|libgcc_s.so.*) continue ;;
  esac
  case " ${PACK_SKIP:-} " in *" $soname "*) echo "skipped $soname (PACK_SKIP)" >> "$manifest"; continue ;; esac
  real=$(readlink -f "$path")
  xz -9 -T"$(nproc)" -c "$real" > "$dest/lib/$soname.xz"
  echo "lib $soname from $real $(stat -c %s "$real") bytes, packed $(stat -c %s "$dest/lib/$soname.xz")" >> "$manifest"
done
tar -C "$resource" -cf - include | xz -9 -T"$(nproc)" > "$dest/resource/include.tar.xz"

total=$(du -sb "$dest" | cut -f1)
echo "total $total bytes" >> "$manifest"
cat "$manifest"
if [ "$total" -gt $((limit_mb * 1024 * 1024)) ]; then
  echo "FAIL: $dest is $((total / 1048576)) MiB, over PACK_LIMIT_MB=$limit_mb"
  exit 1
fi
echo "OK: carry '$dest' (run tool: carry [\"$dest\"])"
