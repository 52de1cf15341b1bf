#!/usr/bin/env bash
# Why a kernel is slower in the confined runner on KernelBench-size buffers (issue 33): KernelBench
# level-1 ReLU (4096 x 393216 fp32) through `cudaperf-eval --isolation none | runner-unconfined |
# runner`, one job each (the sandbox and the process split told apart), and scripts/gpu/ipc-probe.cu
# (the same kernel on a process's own memory, on memory imported through legacy CUDA IPC, and on a
# VMM allocation imported as a file descriptor). Usage: scripts/gpu/relu-isolation.sh OUTDIR
# (uses build-gpu's cudaperf-eval; builds cudaperf-torch-reference there). RELU_PROBE=0 skips the probe;
# RELU_ISOLATION lists the modes.
set -uo pipefail
out=${1:-${OUT:-/tmp/relu-isolation}}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
work=/tmp/relu-isolation-work
rm -rf "$work"; mkdir -p "$work/files" "$out"
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
log=$work/files/summary.txt
note() { echo "$*" | tee -a "$log"; }
kb=$work/kb/relu
bash scripts/gpu/kernelbench-relu/import.sh "$kb" "$work/files/import.log" 200 &
ipid=$!
prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2> /dev/null)
t0=$SECONDS
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDAPERF_BUILD_ANALYZER=OFF -DCUDAPERF_BUILD_TORCH_REFERENCE=ON \
  -DCMAKE_PREFIX_PATH="$prefix" > "$work/files/cmake.log" 2>&1 \
  && timeout 150 cmake --build build-gpu -j "$(nproc)" --target cudaperf-eval cudaperf-eval-worker cudaperf-torch-reference >> "$work/files/cmake.log" 2>&1
note "build rc=$? in $((SECONDS - t0)) s"
[ "${RELU_PROBE:-1}" = 1 ] && nvcc -O2 -arch=sm_90 scripts/gpu/ipc-probe.cu -lcuda -o "$work/ipc-probe" > "$work/files/probe-build.log" 2>&1 \
  && timeout 60 "$work/ipc-probe" 2>&1 | tee -a "$log"
wait $ipid
[ -f "$kb/task.json" ] || { note "import failed"; tail -20 "$work/files/import.log" | tee -a "$log"; }
cp "$kb/impls/baseline.cu" "$work/relu-naive.cu"; echo "// candidate" >> "$work/relu-naive.cu"
# RELU_SETTLE="0 1": each isolation mode with and without CUDAPERF_TIMED_SETTLE (a one-thread kernel,
# waited for, in the callee before each timed call's flush).
for settle in ${RELU_SETTLE:-0}; do
for iso in ${RELU_ISOLATION:-none runner-unconfined runner}; do
  export CUDAPERF_TIMED_SETTLE=$settle
  t0=$SECONDS
  CUDAPERF_CACHE_DIR=/tmp/relu-iso-cache timeout 90 build-gpu/bin/cudaperf-eval "$kb" "$work/relu-naive.cu" --jsonl --timeout 300 \
    --stall-timeout 60 --jobs 1 --isolation $iso --allow-weak-sandbox --output "$work/files/relu-$iso-s$settle.jsonl" 2> "$work/files/relu-$iso-s$settle.stderr"
  rc=$?
  note "isolation $iso, settle $settle: rc=$rc in $((SECONDS - t0)) s: $(python3 -c "
import json,sys
d=json.loads(open(sys.argv[1]).readline())
c=(d.get('configs') or [{}])[0]
def find(o, k):
    if isinstance(o, dict):
        if k in o: yield o[k]
        for v in o.values(): yield from find(v, k)
    elif isinstance(o, list):
        for v in o: yield from find(v, k)
print(d.get('outcome'), 'candidate', (c.get('candidate') or {}).get('median_ms'), 'baseline', (c.get('baseline') or {}).get('median_ms'), 'worker s', (d.get('stage_seconds') or {}).get('worker'), 'issue host ms', list(find(d, 'issue_host_median_ms')))" "$work/files/relu-$iso-s$settle.jsonl" 2>&1 | tail -1)"
done
done
unset CUDAPERF_TIMED_SETTLE
# RELU_NCU=1: the same evaluations under Nsight Compute, every process followed: the kernel's own
# duration in the worker and in the runner (if the runner's kernel itself runs at the worker's speed,
# the time lost is outside the kernel: between the events, not in the memory).
if [ "${RELU_NCU:-0}" = 1 ]; then
  for iso in none runner-unconfined; do
    t0=$SECONDS
    CUDAPERF_CACHE_DIR=/tmp/relu-iso-cache timeout 200 ncu --target-processes all --clock-control none \
      --print-units base --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum \
      --kernel-name "regex:${RELU_NCU_KERNEL:-reluKernel}" --launch-count 16 --csv --log-file "$work/files/ncu-$iso.log" \
      build-gpu/bin/cudaperf-eval "$kb" "$work/relu-naive.cu" --jsonl --timeout 300 --stall-timeout 120 --jobs 1 \
      --isolation $iso --allow-weak-sandbox --output "$work/files/ncu-relu-$iso.jsonl" > "$work/files/ncu-$iso.csv" 2> "$work/files/ncu-$iso.stderr"
    note "ncu $iso: rc=$? in $((SECONDS - t0)) s"
    python3 - "$work/files/ncu-$iso.log" <<'PY' 2>&1 | tee -a "$log"
import csv, sys, collections
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
if not rows: print("  no ncu rows"); sys.exit()
h = rows[0]; ix = {k: h.index(k) for k in h}
agg = collections.defaultdict(list)
for r in rows[1:]:
    try: agg[(r[ix["Process ID"]], r[ix["Kernel Name"]][:40], r[ix["Metric Name"]], r[ix["Metric Unit"]])].append(float(r[ix["Metric Value"]].replace(",", "")))
    except Exception: pass
big = {(k[0], k[1]) for k, v in agg.items() if k[2] == "gpu__time_duration.sum" and sorted(v)[len(v)//2] > 1e5}
for k, v in sorted(agg.items()):
    if (k[0], k[1]) in big: print("  pid %s %-40s %-52s %s n=%d median %.4g" % (k[0], k[1], k[2], k[3], len(v), sorted(v)[len(v)//2]))
PY
  done
fi
tar -czf "$out/relu-isolation.tar.gz" -C "$work" files
