#!/usr/bin/env bash
# On the GPU host: the occupancy sweep (calculator vs cudaOccupancyMaxActiveBlocksPerMultiprocessor)
# and the register ground truth (cudaFuncGetAttributes of the corpus built with nvcc -O3 -arch=sm_90).
# Usage: OUT=dir scripts/gpu/occupancy-sweep.sh   (results in $OUT; see docs/accuracy.md)
#        PREBUILT=dir ...: use dir/occupancy-sweep, dir/kernel-attributes and dir/cubins/*.cubin
#        built beforehand on a CPU host with the same CUDA release (saves GPU time; the commands
#        are the ones below).
set -euo pipefail
OUT=${OUT:-/tmp/cudaperf-occupancy}
mkdir -p "$OUT"
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
{
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
  nvcc --version | tail -2
} > "$OUT/machine.txt" 2>&1 || true
cat "$OUT/machine.txt"

start=$(date +%s)
if [ -n "${PREBUILT:-}" ]; then
  bin=$PREBUILT; cubins=$PREBUILT/cubins
  export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
else
  cmake -S . -B build-gpu -G Ninja -DCUDAPERF_BUILD_ANALYZER=OFF -DCUDAPERF_BUILD_TESTS=OFF \
        -DCUDAPERF_BUILD_OCCUPANCY_SWEEP=ON > "$OUT/build.log" 2>&1
  ninja -C build-gpu occupancy-sweep kernel-attributes >> "$OUT/build.log" 2>&1
  bin=build-gpu/bin
  # Registers: every corpus and example file, compiled as a user would (nvcc -O3 -arch=sm_90).
  cubins=/tmp/cudaperf-cubins
  rm -rf "$cubins" && mkdir -p "$cubins"
  ls data/corpus/*.cu data/examples/*.cu 2>/dev/null | xargs -P 16 -I{} sh -c \
    'nvcc -O3 -arch=sm_90 -cubin -o '"$cubins"'/$(basename {} .cu).cubin {} 2>>'"$OUT"'/cubin-errors.log || echo "failed: {}" >>'"$OUT"'/cubin-errors.log'
fi
echo "build: $(( $(date +%s) - start )) s"

"$bin"/occupancy-sweep "$OUT/occupancy-sweep-h200.csv" | tee "$OUT/occupancy-sweep-summary.txt"

"$bin"/kernel-attributes "$cubins"/*.cubin > "$OUT/kernel-attributes-h200.csv" 2> "$OUT/kernel-attributes-errors.log" || echo "kernel-attributes: some kernels failed (see errors log)"
echo "kernels with attributes: $(( $(wc -l < "$OUT/kernel-attributes-h200.csv") - 1 ))"
echo "total: $(( $(date +%s) - start )) s"
