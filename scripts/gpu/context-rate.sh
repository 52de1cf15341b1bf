#!/usr/bin/env bash
# Issue 12's --serve ceiling: every candidate runs in a fresh process with its own CUDA context, so the
# rate at which the host can create contexts bounds candidates per minute. Runs K processes at once
# (K = 1, 2, 4, 8), each creating and destroying one context (scripts/gpu/context-rate.cu), 24 in all
# per K, and reports contexts per second and the per-process creation time (<= 1 minute per variant).
# Variants (CONTEXT_RATE_VARIANTS, space-separated NAME[:MODE][:VAR=VALUE,...]; default "default"):
# MODE is context-rate.cu's (runtime, driver, init); VAR=VALUE are set for the processes, e.g.
#   CONTEXT_RATE_VARIANTS="default conn1:runtime:CUDA_DEVICE_MAX_CONNECTIONS=1 driver:driver init:init"
# CONTEXT_RATE_K: the K values (default "1 2 4 8").
# Usage: scripts/gpu/context-rate.sh [OUTDIR]   Writes OUTDIR/{context-rate.txt,context-rate.json}.
set -uo pipefail
out=${1:-${OUT:-/tmp/context-rate}}
root=$(cd "$(dirname "$0")/../.." && pwd)
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$out"
work=/tmp/cudaperf-context-rate
rm -rf "$work" && mkdir -p "$work"
nvcc -O2 -o "$work/context-rate" "$root/scripts/gpu/context-rate.cu" -lcuda || exit 1
"$work/context-rate" > /dev/null  # the driver's first load, not counted
: > "$work/rows.jsonl"
for variant in ${CONTEXT_RATE_VARIANTS:-default}; do
  name=${variant%%:*}; rest=${variant#"$name"}; rest=${rest#:}
  mode=${rest%%:*}; [ -z "$mode" ] && mode=runtime
  envs=(); [[ "$rest" == *:* ]] && IFS=, read -ra envs <<< "${rest#*:}"
  for k in ${CONTEXT_RATE_K:-1 2 4 8}; do
    rm -f "$work"/k$k-r*.txt
    start=$(date +%s.%N)
    for round in $(seq 1 $(( 24 / k ))); do
      for i in $(seq 1 "$k"); do env "${envs[@]}" "$work/context-rate" "$mode" > "$work/k$k-r$round-$i.txt" & done
      wait
    done
    end=$(date +%s.%N)
    cat "$work"/k$k-r*.txt > "$work/k$k.txt"
    python3 - "$k" "$start" "$end" "$work/k$k.txt" "$name" "$mode" "${envs[*]}" >> "$work/rows.jsonl" <<'PY'
import json, statistics, sys
k, start, end = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
rows = [tuple(map(float, l.split())) for l in open(sys.argv[4]) if l.strip()]
create = [r[0] for r in rows]; destroy = [r[1] for r in rows]
print(json.dumps({"variant": sys.argv[5], "mode": sys.argv[6], "env": sys.argv[7], "concurrent": k, "processes": len(rows), "wall_seconds": round(end - start, 3),
                  "contexts_per_second": round(len(rows) / (end - start), 2),
                  "create_median_s": round(statistics.median(create), 4), "create_max_s": round(max(create), 4),
                  "destroy_median_s": round(statistics.median(destroy), 4)}))
PY
  done
done
python3 - "$work/rows.jsonl" "$out/context-rate.json" <<'PY' | tee "$out/context-rate.txt"
import json, subprocess, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                     capture_output=True, text=True).stdout.strip()
json.dump({"schema": "cudaperf-context-rate/1", "gpu": gpu, "rows": rows}, open(sys.argv[2], "w"), indent=1)
print(f"{gpu}: fresh processes creating and destroying one CUDA context each")
print(f"{'variant':>10} {'at once':>8} {'processes':>9} {'wall s':>7} {'contexts/s':>10} {'create med s':>12} {'create max s':>12} {'destroy med s':>13}")
for r in rows:
    print(f"{r.get('variant', 'default'):>10} {r['concurrent']:>8} {r['processes']:>9} {r['wall_seconds']:>7} {r['contexts_per_second']:>10} "
          f"{r['create_median_s']:>12} {r['create_max_s']:>12} {r['destroy_median_s']:>13}")
PY
