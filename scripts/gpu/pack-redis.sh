#!/usr/bin/env bash
# Packs Redis for the GPU host (which has no package registry) into .carry/redis (git-ignored), for
# scripts/gpu/queue-bench.sh (issue 38):
#   bin/redis-server            Debian's /usr/bin/redis-server
#   lib/*.so*                   every shared object `ldd` lists for it except the C runtime itself
#                               (libc, libm, ld-linux, libstdc++, libgcc_s: the host's are used), so a
#                               host image without liblzf, libjemalloc, libssl 3, ... still runs it
#                               (queue-bench.sh runs it with LD_LIBRARY_PATH=.carry/redis/lib);
#   include/hiredis, lib/libhiredis.so*   hiredis (libhiredis-dev), so the host's build of cudaperf-eval
#                               has the queue modes (cmake -DCMAKE_PREFIX_PATH=...;$PWD/.carry/redis)
#   MANIFEST                    what was packed, from which Debian packages
# Usage (repository root, CPU machine with redis-server and libhiredis-dev: scripts/install-deps.sh):
#   scripts/gpu/pack-redis.sh [DEST]   (default .carry/redis); then carry .carry with the run.
set -euo pipefail
dest=${1:-.carry/redis}
server=${REDIS_SERVER:-/usr/bin/redis-server}
[ -x "$server" ] || { echo "pack-redis: no $server (apt-get install redis-server)" >&2; exit 1; }
[ -f /usr/include/hiredis/hiredis.h ] || { echo "pack-redis: no hiredis headers (apt-get install libhiredis-dev)" >&2; exit 1; }
rm -rf "$dest" && mkdir -p "$dest/bin" "$dest/lib" "$dest/include"
cp "$(readlink -f "$server")" "$dest/bin/redis-server"
ldd "$server" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | while read -r name path; do
  case $name in
    libc.so.*|libm.so.*|libstdc++.so.*|libgcc_s.so.*|ld-linux*|libpthread.so.*|libdl.so.*|librt.so.*) continue ;;
  esac
  cp "$(readlink -f "$path")" "$dest/lib/$name"
done
cp -r /usr/include/hiredis "$dest/include/"
lib=/usr/lib/x86_64-linux-gnu
real=$(readlink -f "$lib/libhiredis.so")
cp "$real" "$dest/lib/"
soname=$(objdump -p "$real" | awk '/SONAME/ {print $2}')
[ "$(basename "$real")" = "$soname" ] || ln -sf "$(basename "$real")" "$dest/lib/$soname"
ln -sf "$soname" "$dest/lib/libhiredis.so"
{ echo "packed $(date -u +%FT%TZ) on $(. /etc/os-release; echo "$PRETTY_NAME")"
  dpkg-query -W redis-server redis-tools libhiredis-dev 2>/dev/null || true
  (cd "$dest" && ls -l bin lib); } > "$dest/MANIFEST"
# It runs from the copy, with only the copied libraries added.
LD_LIBRARY_PATH="$PWD/$dest/lib" "$dest/bin/redis-server" --version
du -sh "$dest"
