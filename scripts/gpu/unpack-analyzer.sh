#!/usr/bin/env bash
# Unpacks the analyzer that scripts/pack-analyzer.sh packed (.carry/analyzer; the GPU host has no LLVM) into
# DEST (default /tmp/cudaperf-analyzer) and writes DEST/cudaperf-analyze, a wrapper that runs it with the
# carried clang resource directory. A static package (bin/cudaperf-analyze.xz) needs nothing else; a shared
# one (bin/cudaperf-analyze + lib/*.xz) gets only the libraries the host lacks (ldconfig -p): the host's own
# libz, libzstd, libxml2, ... stay in use, for the analyzer and for the nvcc it starts. The unpacked
# analyzer stays in /tmp while the device host stays warm, so a later call's scripts (rl.sh: RL_ANALYZER's
# default) find it without carrying the package again.
# Usage: scripts/gpu/unpack-analyzer.sh [PACK] [DEST]   (sourced by scripts/gpu/validate.sh)
# Exit 1 (with the reason) when the package is missing or the unpacked analyzer does not start.
unpack_analyzer() { # PACK DEST
  local pack=${1:-.carry/analyzer} adir=${2:-/tmp/cudaperf-analyzer} f name
  rm -rf "$adir" && mkdir -p "$adir/bin" "$adir/lib" "$adir/resource"
  unxz_to() { # SRC.xz DEST: xz, or python3's lzma where xz is missing
    if command -v xz > /dev/null; then xz -dc "$1" > "$2"
    else python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' "$1" "$2"; fi
  }
  host_has() { { ldconfig -p 2>/dev/null || /sbin/ldconfig -p; } | awk '{print $1}' | grep -qx "$1"; }
  if [ -f "$pack/bin/cudaperf-analyze.xz" ]; then
    unxz_to "$pack/bin/cudaperf-analyze.xz" "$adir/bin/cudaperf-analyze" && chmod +x "$adir/bin/cudaperf-analyze"
  elif [ -x "$pack/bin/cudaperf-analyze" ]; then
    cp "$pack/bin/cudaperf-analyze" "$adir/bin/"
  else
    echo "no $pack/bin/cudaperf-analyze[.xz] (scripts/pack-analyzer.sh, carry $pack)"; return 1
  fi
  for f in "$pack"/lib/*; do
    [ -e "$f" ] || continue
    name=$(basename "$f" .xz)
    if host_has "$name"; then echo "  $name: the host's"; continue; fi
    case "$f" in *.xz) unxz_to "$f" "$adir/lib/$name" ;; *) cp "$f" "$adir/lib/$name" ;; esac
    echo "  $name: carried"
  done
  if [ -f "$pack/resource/include.tar.xz" ]; then
    unxz_to "$pack/resource/include.tar.xz" "$adir/resource/include.tar" && tar -C "$adir/resource" -xf "$adir/resource/include.tar" \
      && rm "$adir/resource/include.tar"
  elif [ -d "$pack/resource/include" ]; then cp -r "$pack/resource/include" "$adir/resource/"; fi
  cat > "$adir/cudaperf-analyze" <<WRAP
#!/bin/sh
LD_LIBRARY_PATH=$adir/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH} exec $adir/bin/cudaperf-analyze --resource-dir=$adir/resource "\$@"
WRAP
  chmod +x "$adir/cudaperf-analyze"
  LD_LIBRARY_PATH=$adir/lib ldd "$adir/bin/cudaperf-analyze" | grep "not found" && return 1
  "$adir/cudaperf-analyze" --version
}
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -uo pipefail
  unpack_analyzer "${1:-.carry/analyzer}" "${2:-/tmp/cudaperf-analyzer}"
fi
