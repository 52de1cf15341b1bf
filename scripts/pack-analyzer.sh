#!/usr/bin/env bash
# Packs the analyzer for a host without LLVM (the GPU host) into .carry/analyzer/. Two forms:
#   static (default, PACK_MODE=static): the analyzer linked again from the build's objects against LLVM's
#     and Clang's static archives (-Wl,--gc-sections, stripped; only libz, libzstd and the C/C++ runtimes
#     stay shared, which every host has):
#       bin/cudaperf-analyze.xz          ~16 MB (68 MB unpacked), measured 2026-12-02: 4 s to link, 52 s of xz
#   shared (PACK_MODE=shared):
#       bin/cudaperf-analyze             the binary as built
#       lib/<soname>.xz                  every shared library ldd resolves, except glibc, libstdc++ and
#                                        libgcc_s (the host has newer ones): libclang-cpp, libLLVM, libz3,
#                                        and their dependencies (libxml2, ICU, libedit, ...)
#   both:
#       resource/include.tar.xz          clang's builtin headers (the resource directory's include/)
#       MANIFEST                         sources, sizes and checksums
# xz because the host can always decompress it (xz, or python3's lzma module). scripts/gpu/unpack-analyzer.sh
# unpacks it into /tmp (validate.sh, rl.sh) and, for the shared form, loads from it only the libraries the host
# lacks (ldconfig -p).
# Usage: scripts/pack-analyzer.sh [ANALYZER] [DEST]   (defaults build/bin/cudaperf-analyze, .carry/analyzer)
# The device call's working tree, carried paths included, must stay under 64 MiB: the script fails
# when the package exceeds PACK_LIMIT_MB (default 56). The shared form was 54 MiB on 2026-11-29 (~9 minutes
# of xz -9 on 2 busy cores), too large beside .carry/deps and the tree since; PACK_SKIP="libicudata.so.72
# libicuuc.so.72 libxml2.so.2" leaves out libraries the GPU host is known to have (their ICU alone is 8 MB).
# The static form needs the build tree of ANALYZER (its build.ninja: the objects and the link line) and the
# static archives of llvm-22-dev / libclang-22-dev (/usr/lib/llvm-22/lib/lib*.a).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
analyzer=${1:-build/bin/cudaperf-analyze}
dest=${2:-.carry/analyzer}
limit_mb=${PACK_LIMIT_MB:-56}
[ -x "$analyzer" ] || { echo "no analyzer at $analyzer (ninja -C build cudaperf-analyze)"; exit 2; }
command -v xz > /dev/null || { echo "xz is missing (apt-get install xz-utils)"; exit 2; }

resource=$(sed -n 's/^CUDAPERF_CLANG_RESOURCE_DIR:PATH=//p' "$(dirname "$(dirname "$analyzer")")/CMakeCache.txt" 2>/dev/null || true)
[ -d "$resource/include" ] || resource=$(clang-22 -print-resource-dir 2>/dev/null || true)
[ -d "$resource/include" ] || { echo "clang resource directory not found"; exit 2; }

rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib" "$dest/resource"
mode=${PACK_MODE:-static}
manifest=$dest/MANIFEST
{
  echo "packed $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n) by scripts/pack-analyzer.sh"
  echo "analyzer $(realpath "$analyzer") sha256 $(sha256sum "$analyzer" | cut -d' ' -f1)"
  echo "git $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (dirty tree)')"
  echo "resource-dir $resource"
} > "$manifest"

if [ "$mode" = static ]; then
  # The build's own link line, with the two LLVM shared libraries replaced by every static archive of the
  # prefix in one group (the linker takes what is referenced; --gc-sections drops unreferenced sections).
  build_dir=$(dirname "$(dirname "$analyzer")")
  llvm_lib=$(sed -n 's/^LLVM_DIR:PATH=//p' "$build_dir/CMakeCache.txt" | sed 's#/cmake/llvm$##')
  [ -d "$llvm_lib" ] || llvm_lib=/usr/lib/llvm-22/lib
  ls "$llvm_lib"/libclangAST.a "$llvm_lib"/libLLVMSupport.a > /dev/null 2>&1 ||
    { echo "no static LLVM/Clang archives in $llvm_lib (apt-get install llvm-22-dev libclang-22-dev), or PACK_MODE=shared"; exit 2; }
  line=$(cd "$build_dir" && ninja -t commands "bin/$(basename "$analyzer")" | tail -1)
  case "$line" in *libclang-cpp.so*) ;; *) echo "unexpected link line for $analyzer: $line"; exit 2 ;; esac
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  c++ -O2 -std=c++17 -fno-rtti -I"$(dirname "$llvm_lib")/include" -c scripts/pack/no-polly.cpp -o "$tmp/no-polly.o"
  group="$tmp/no-polly.o -Wl,--gc-sections -Wl,--start-group $(ls "$llvm_lib"/libclang*.a | grep -v '/libclang\.a$' | tr '\n' ' ')"
  group+="$(ls "$llvm_lib"/libLLVM*.a | tr '\n' ' ') -Wl,--end-group -lz -lzstd"
  line=$(echo "$line" | sed -E "s#-o [^ ]+#-o $tmp/cudaperf-analyze#; s#[^ ]*/libclang-cpp\.so[^ ]*##; s#[^ ]*/libLLVM\.so[^ ]*##; s#-Wl,-rpath,[^ ]+##")
  line=${line%&& :}
  (cd "$build_dir" && eval "${line#: && } $group") || { echo "static link failed"; exit 1; }
  strip "$tmp/cudaperf-analyze"
  ldd "$tmp/cudaperf-analyze" | grep -Eq "libLLVM|libclang" && { echo "static link still needs LLVM shared libraries"; exit 1; }
  "$tmp/cudaperf-analyze" --version > /dev/null || { echo "the static analyzer does not start"; exit 1; }
  xz -9 -T"$(nproc)" -c "$tmp/cudaperf-analyze" > "$dest/bin/cudaperf-analyze.xz"
  echo "static $(stat -c %s "$tmp/cudaperf-analyze") bytes stripped, packed $(stat -c %s "$dest/bin/cudaperf-analyze.xz"); shared: $(ldd "$tmp/cudaperf-analyze" | awk '{print $1}' | tr '\n' ' ')" >> "$manifest"
else
cp "$analyzer" "$dest/bin/cudaperf-analyze"
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
fi
tar -C "$resource" -cf - include | xz -9 -T"$(nproc)" > "$dest/resource/include.tar.xz"

total=$(du -sb "$dest" | cut -f1)
echo "total $total bytes" >> "$manifest"
cat "$manifest"
if [ "$total" -gt $((limit_mb * 1024 * 1024)) ]; then
  echo "FAIL: $dest is $((total / 1048576)) MiB, over PACK_LIMIT_MB=$limit_mb"
  exit 1
fi
echo "OK: carry '$dest' (run tool: carry [\"$dest\"])"
