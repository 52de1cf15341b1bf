#!/usr/bin/env bash
# Which sandbox rule the CUDA driver needs (scripts/gpu/runner-probe.py under CUDAPERF_SANDBOX_SKIP).
export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B build-gpu -G Ninja -DCUDAPERF_BUILD_ANALYZER=OFF -DCMAKE_BUILD_TYPE=Release > /tmp/b.log 2>&1 && \
  cmake --build build-gpu -j 16 --target cudaperf-eval-worker >> /tmp/b.log 2>&1 || { tail -30 /tmp/b.log; exit 1; }
W=build-gpu/bin/cudaperf-eval-worker
echo "strace: $(which strace ltrace gdb 2>/dev/null | tr '\n' ' ')"
for skip in ${PROBES:-none "dir=/proc" "dir=/tmp" "dir=/dev" "dir=/run" "dir=/var" "dir=/sys" "dir=/root" "dir=/etc" "dir=/proc/self" "dir=/usr"}; do
  echo "=== skip: $skip: $(CUDAPERF_SANDBOX_SKIP=$skip timeout 60 python3 scripts/gpu/runner-probe.py $W 2>&1 | grep -E '"error"|exec_mappings|runner exit' | tr -s ' ' | tr '\n' ' ')"
done
