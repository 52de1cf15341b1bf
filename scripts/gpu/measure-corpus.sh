#!/usr/bin/env bash
# Measures the corpus in data/corpus/ on a GPU host with Nsight Compute: builds every corpus file, profiles every
# kernel launch once with the metric list below (plus the SourceCounters section for per-instruction numbers),
# exports raw CSVs, runs compute-sanitizer synccheck on the files that use barriers, and converts the CSVs to JSON.
#
# Usage (from the repository root, on the GPU host):  scripts/gpu/measure-corpus.sh [OUTDIR]
#   OUTDIR defaults to $OUT. Results: OUTDIR/measure.log, OUTDIR/summary.txt, OUTDIR/h200-ncu.json,
#   OUTDIR/corpus-measure.tar.gz (env/, build/, csv/, sass/), OUTDIR/ncu-reports.tar.gz (if < 15 MB),
#   OUTDIR/synccheck.tar.gz and OUTDIR/synccheck-summary.txt.
# Environment: MEASURE_BUDGET_S (default 400): past two thirds of it, files are profiled without the
#   SourceCounters section so that the kernel-level metrics always finish. SYNCCHECK_TIMEOUT_S (default 45) per
#   file, all files at once, after the measurements are saved. CORPUS_FILES: space-separated subset.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUTDIR=${1:-${OUT:-/tmp/corpus-measure-out}}
WORK=/tmp/corpus-measure
BUDGET=${MEASURE_BUDGET_S:-400}
START=$(date +%s)
mkdir -p "$OUTDIR"
rm -rf "$WORK" && mkdir -p "$WORK"/{env,build,bin,csv,rep,sass,sanitizer}
exec > >(tee -a "$OUTDIR/measure.log") 2>&1
elapsed() { echo $(( $(date +%s) - START )); }
log() { echo "[$(elapsed)s] $*"; }

export PATH=/usr/local/cuda/bin:$PATH
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
SANITIZER=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
log "ncu: $NCU"

# --- environment --------------------------------------------------------------------------------------------
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  uname -a
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem --format=csv
} > "$WORK/env/system.txt" 2>&1
nvidia-smi > "$WORK/env/nvidia-smi.txt" 2>&1
"$NCU" --version > "$WORK/env/ncu-version.txt" 2>&1
nvcc --version > "$WORK/env/nvcc-version.txt" 2>&1
"$SANITIZER" --version > "$WORK/env/sanitizer-version.txt" 2>&1
cat "$WORK/env/system.txt" "$WORK/env/ncu-version.txt"

# --- metric list, filtered to the names this ncu knows ------------------------------------------------------
WANTED=(
  l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum l1tex__t_requests_pipe_lsu_mem_global_op_red.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum
  smsp__inst_executed_op_shared_ld.sum smsp__inst_executed_op_shared_st.sum smsp__inst_executed_op_shared_atom.sum
  smsp__inst_executed_op_global_ld.sum smsp__inst_executed_op_global_st.sum
  smsp__inst_executed_op_global_atom.sum smsp__inst_executed_op_global_red.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  dram__bytes_read.sum dram__bytes_write.sum
  lts__t_sectors_srcunit_tex_op_write.sum lts__t_sectors_srcunit_tex_op_read.sum
  smsp__sass_thread_inst_executed_op_fadd_pred_on.sum smsp__sass_thread_inst_executed_op_fmul_pred_on.sum
  smsp__sass_thread_inst_executed_op_ffma_pred_on.sum
  smsp__sass_thread_inst_executed_op_dadd_pred_on.sum smsp__sass_thread_inst_executed_op_dmul_pred_on.sum
  smsp__sass_thread_inst_executed_op_dfma_pred_on.sum
  smsp__sass_thread_inst_executed_op_hadd_pred_on.sum smsp__sass_thread_inst_executed_op_hmul_pred_on.sum
  smsp__sass_thread_inst_executed_op_hfma_pred_on.sum
  smsp__inst_executed.sum
  launch__registers_per_thread launch__grid_size launch__block_size
  launch__shared_mem_per_block_static launch__shared_mem_per_block_dynamic
  sm__maximum_warps_per_active_cycle_pct sm__warps_active.avg.pct_of_peak_sustained_active
  gpu__time_duration.sum
)
# One ncu at a time: two concurrent ncu processes (even two --query-metrics) waited on each other until the
# run's time limit on 2026-11-29. The build below runs beside this single query.
timeout 90 "$NCU" --query-metrics > "$WORK/env/query-metrics.txt" 2>&1 &
QUERY_PID=$!

# --- build --------------------------------------------------------------------------------------------------
cd "$ROOT/data/corpus"
FILES=${CORPUS_FILES:-$(ls *.cu | sed 's/\.cu$//')}
for f in $FILES; do echo "$f"; done | xargs -P 16 -I{} sh -c \
  'nvcc -O3 -arch=sm_90 -lineinfo -Xptxas -v -o '"$WORK"'/bin/{} {}.cu > '"$WORK"'/build/{}.log 2>&1 || echo "BUILD FAILED: {}"'
for f in $FILES; do
  [ -x "$WORK/bin/$f" ] && cuobjdump -sass "$WORK/bin/$f" > "$WORK/sass/$f.sass" 2>&1
done
log "build done: $(ls "$WORK/bin" | wc -l) binaries"
wait "$QUERY_PID"
if ! grep -q "^l1tex__t_sectors_pipe_lsu_mem_global_op_ld[[:space:]]" "$WORK/env/query-metrics.txt"; then
  # Query failed: fall back to the names that ncu 2025.3.1 on the H200 listed on 2026-11-29 (all but two).
  log "metric query failed; using the recorded list"
  grep -v "smsp__inst_executed_op_global_atom\|sm__maximum_warps_per_active_cycle_pct" <(printf '%s\n' "${WANTED[@]}") \
    | sed 's/\..*//; s/$/ (recorded)/' > "$WORK/env/query-metrics.txt"
fi
KEEP=()
for m in "${WANTED[@]}"; do
  base=${m%%.*}
  if [[ $m == launch__* ]] || grep -q "^${base}[[:space:]]" "$WORK/env/query-metrics.txt"; then
    KEEP+=("$m")
  else
    echo "$m" >> "$WORK/env/metrics-missing.txt"
  fi
done
METRICS=$(IFS=,; echo "${KEEP[*]}")
echo "$METRICS" | tr , '\n' > "$WORK/env/metrics-used.txt"
log "metrics kept: ${#KEEP[@]} of ${#WANTED[@]}; missing: $(tr '\n' ' ' < "$WORK/env/metrics-missing.txt" 2>/dev/null)"

# --- profile ------------------------------------------------------------------------------------------------
NCU_CMD="$NCU --clock-control none --metrics $METRICS --section SourceCounters --import-source yes"
echo "$NCU_CMD -o <report> -f <binary>" > "$WORK/env/ncu-command.txt"
declare -A STATUS
for f in $FILES; do
  bin=$WORK/bin/$f
  [ -x "$bin" ] || { STATUS[$f]="no-binary"; continue; }
  if [ "$(elapsed)" -lt $((BUDGET * 2 / 3)) ]; then
    log "profile $f (metrics + SourceCounters)"
    timeout 150 $NCU_CMD -o "$WORK/rep/$f" -f "$bin" > "$WORK/rep/$f.ncu.log" 2>&1
    rc=$?
    STATUS[$f]="metrics+source rc=$rc"
  else
    rc=1
  fi
  if [ $rc -ne 0 ] || [ ! -s "$WORK/rep/$f.ncu-rep" ]; then
    log "profile $f (metrics only)"
    timeout 150 "$NCU" --clock-control none --metrics "$METRICS" -o "$WORK/rep/$f" -f "$bin" > "$WORK/rep/$f.ncu.log" 2>&1
    STATUS[$f]="metrics-only rc=$?"
  fi
  tail -3 "$WORK/rep/$f.ncu.log"
  if [ -s "$WORK/rep/$f.ncu-rep" ]; then
    timeout 60 "$NCU" -i "$WORK/rep/$f.ncu-rep" --csv --page raw --print-units base --print-kernel-base mangled \
      > "$WORK/csv/$f.raw-mangled.csv" 2> "$WORK/csv/$f.export.err"
    timeout 60 "$NCU" -i "$WORK/rep/$f.ncu-rep" --csv --page raw --print-units base --print-kernel-base demangled \
      > "$WORK/csv/$f.raw-demangled.csv" 2>> "$WORK/csv/$f.export.err"
    timeout 60 "$NCU" -i "$WORK/rep/$f.ncu-rep" --csv --page source --print-source sass \
      > "$WORK/csv/$f.source-sass.csv" 2>> "$WORK/csv/$f.export.err"
    timeout 60 "$NCU" -i "$WORK/rep/$f.ncu-rep" --csv --page source --print-source cuda \
      > "$WORK/csv/$f.source-cuda.csv" 2>> "$WORK/csv/$f.export.err"
  fi
done
log "profiling done"

# --- synccheck on the files with barriers (after the results are saved: it can be slow on large grids) -----------
synccheck() {
  local pids=()
  for f in $FILES; do
    grep -q "__syncthreads" "$f.cu" && [ -x "$WORK/bin/$f" ] || continue
    ( timeout "${SYNCCHECK_TIMEOUT_S:-45}" "$SANITIZER" --tool synccheck --print-limit 200 "$WORK/bin/$f" \
        > "$WORK/sanitizer/$f.synccheck.txt" 2>&1
      echo "exit=$?" >> "$WORK/sanitizer/$f.synccheck.txt" ) &
    pids+=($!)
  done
  # These jobs only: a bare `wait` also waits for the tee behind `exec > >(...)`, which never ends
  # (why the first measurement run of 2026-11-29 timed out in this stage).
  [ ${#pids[@]} -gt 0 ] && wait "${pids[@]}"
  grep -H "ERROR SUMMARY\|exit=" "$WORK"/sanitizer/*.txt > "$OUTDIR/synccheck-summary.txt" 2>/dev/null
  tar czf "$OUTDIR/synccheck.tar.gz" -C "$WORK" sanitizer
  log "synccheck done"
}

# --- convert and summarise (before synccheck, so that a slow sanitizer cannot cost the measurements) ----------
for f in $FILES; do echo "$f: ${STATUS[$f]:-}"; done > "$WORK/env/profile-status.txt"
python3 "$ROOT/scripts/corpus/ncu-to-json.py" --csv-dir "$WORK/csv" --env-dir "$WORK/env" \
  --output "$OUTDIR/h200-ncu.json" --summary "$OUTDIR/summary.txt" || log "conversion failed"
tar czf "$OUTDIR/corpus-measure.tar.gz" --exclude='*.ncu-rep' -C /tmp corpus-measure
tar czf "$OUTDIR/ncu-reports.tar.gz" --exclude='*.log' -C "$WORK" rep
if [ "$(stat -c %s "$OUTDIR/ncu-reports.tar.gz")" -gt 15000000 ]; then
  log "ncu reports too large to bring back ($(stat -c %s "$OUTDIR/ncu-reports.tar.gz") bytes): dropped"
  rm -f "$OUTDIR/ncu-reports.tar.gz"
fi
cat "$WORK/env/profile-status.txt"
cat "$OUTDIR/summary.txt" 2>/dev/null
log "measurements saved"
synccheck
cat "$OUTDIR/synccheck-summary.txt" 2>/dev/null
ls -la "$OUTDIR"
log "all done"
