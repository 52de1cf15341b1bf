#!/usr/bin/env bash
# Packs the headers and shared objects of the Debian libraries the non-LLVM programs use
# (cmake/CudaperfDeps.cmake) into .carry/deps, for the GPU host, which has no package registry.
# There: cmake ... -DCUDAPERF_DEPS_PREFIX=$PWD/.carry/deps, and the shared objects in
# .carry/deps/lib are found through the build's RPATH (or LD_LIBRARY_PATH).
# Usage (repository root, CPU machine): scripts/pack-deps.sh [DEST]   (default .carry/deps)
set -euo pipefail
dest=${1:-.carry/deps}
rm -rf "$dest" && mkdir -p "$dest/include" "$dest/lib"
inc=/usr/include
lib=/usr/lib/x86_64-linux-gnu
cp -r "$inc/nlohmann" "$inc/fmt" "$dest/include/"
cp "$inc/httplib.h" "$inc/pcre2.h" "$inc/utf8proc.h" "$dest/include/"
for so in libpcre2-8.so libutf8proc.so libcpp-httplib.so; do
  real=$(readlink -f "$lib/$so")
  cp "$real" "$dest/lib/"
  soname=$(objdump -p "$real" | awk '/SONAME/ {print $2}')
  ln -sf "$(basename "$real")" "$dest/lib/$soname"
  ln -sf "$soname" "$dest/lib/$so"
done
# GoogleTest (static libraries), so the GPU host builds the runtime's GPU tests too:
# cmake -DGTEST_ROOT=$PWD/.carry/deps (scripts/gpu/eval-scale.sh).
cp -r "$inc/gtest" "$inc/gmock" "$dest/include/"
cp "$lib"/libgtest.a "$lib"/libgtest_main.a "$lib"/libgmock.a "$lib"/libgmock_main.a "$dest/lib/"
# The zstd command line (the GPU host has none; the measured results are .jsonl.zst): it links libzstd
# statically and needs only libz/liblzma/liblz4, which the host has. GPU scripts put .carry/deps/bin on PATH.
mkdir -p "$dest/bin" && cp /usr/bin/zstd "$dest/bin/"
{ echo "packed $(date -u +%FT%TZ) on $(. /etc/os-release; echo "$PRETTY_NAME")";
  dpkg-query -W nlohmann-json3-dev libfmt-dev libcpp-httplib-dev libpcre2-dev libutf8proc-dev libgtest-dev; } > "$dest/MANIFEST"
du -sh "$dest"
