// Hand-made documents for the lib/Features tests: an analyzer --task document following
// TASK_JSON.md and docs/json-schema.md, and an eval result with counters and a launch list
// (docs/eval-result.md). Tests change single fields of them.
#pragma once

#include "cudaperf/Support/Json.h"

namespace fixtures {

using cudaperf::support::Json;

// Kernel `scale` at grid 8 x block 256, with one global load and store and one shared access.
inline Json kernelReport(const char *name, const char *mangled, int grid, int block) {
  return cudaperf::support::parseJson(R"J({
    "name": ")J" + std::string(name) + R"J(", "mangled_name": ")J" + mangled + R"J(",
    "file": "cand.cu", "line": 3, "column": 17, "parameters": [],
    "launch": {"grid": [)J" + std::to_string(grid) + R"J(, 1, 1], "block": [)J" + std::to_string(block) +
                                      R"J(, 1, 1], "dynamic_smem_bytes": 0, "origin": "task-config", "params": {}},
    "launch_sites": [], "shared_arrays": [], "coalescing_efficiency": 0.75,
    "accesses": [
      {"space": "global", "op": "load", "bytes": 4, "pattern": "coalesced", "sectors_per_request": 4,
       "ideal_sectors_per_request": 4, "bank_conflict_ways": null, "executions_per_thread": 1, "line": 5, "column": 9},
      {"space": "global", "op": "store", "bytes": 4, "pattern": "strided", "sectors_per_request": 32,
       "ideal_sectors_per_request": 4, "bank_conflict_ways": null, "executions_per_thread": 3, "line": 6, "column": 9},
      {"space": "shared", "op": "load", "bytes": 4, "pattern": "bank-conflict", "sectors_per_request": null,
       "bank_conflict_ways": 4, "ideal_wavefronts": 1, "executions_per_thread": 2, "line": 7, "column": 9}],
    "sync": {"barriers": 1, "barriers_per_thread": 2, "divergent_barriers": 0,
             "missing_barrier_sites": [{"line": 7, "column": 9}], "redundant_barrier_sites": []},
    "resources": {"registers": 40, "spill_store_bytes": 8, "spill_load_bytes": 4, "local_bytes": 16,
                  "static_smem_bytes": 1024, "barriers": 1, "source": "nvcc"},
    "occupancy": {"active_blocks_per_sm": 6, "active_warps_per_sm": 48, "max_warps_per_sm": 64,
                  "theoretical": 0.75, "limiter": "registers", "device": "H200", "sms": 132,
                  "grid_blocks": )J" + std::to_string(grid) + R"J(, "waves": 0.5, "last_wave_fraction": 0.5},
    "work": {"threads": 2048, "flops": {"total": 4096, "fp32": {"total": 4096}, "tensor": 0},
             "dram_read_bytes_estimate": 8192, "dram_write_bytes_estimate": 8192,
             "arithmetic_intensity": 0.25, "roofline_time_us": 2.0, "bound": "memory"}
  })J");
}

inline Json analysisDocument() {
  Json doc = cudaperf::support::parseJson(R"J({
    "schema_version": 1, "tool": {"name": "cudaperf-analyze", "version": "0.1.0"}, "arch": "sm_90",
    "files": [{"file": "cand.cu", "analysed": true, "kernels": 2}],
    "kernels": [], "diagnostics": [],
    "task": {"name": "toy", "dir": "data/tasks/toy", "entry": "toy", "kind": "c-to-cuda"},
    "configurations": [
      {"name": "small", "values": {"n": 2048}, "pointer_elements": {"x": 2048},
       "entry_found": true, "launches_complete": true,
       "launches": [
         {"index": 0, "kernel": "scale", "mangled_name": "_Z5scalePfi", "via": "<<<>>>",
          "site": {"file": "cand.cu", "line": 20, "column": 3}, "resolved": true, "unresolved": [],
          "grid": [8, 1, 1], "block": [256, 1, 1], "dynamic_smem_bytes": 0,
          "scalar_args": {"x": null, "n": 2048}, "pointer_args": {"x": {"argument": "x", "offset_elements": 0}}},
         {"index": 1, "kernel": "reduce", "mangled_name": "_Z6reducePfi", "site": {"file": "cand.cu", "line": 21, "column": 3},
          "resolved": true, "unresolved": [], "grid": [1, 1, 1], "block": [128, 1, 1], "dynamic_smem_bytes": 512,
          "scalar_args": {"x": null, "n": 8}},
         {"index": 2, "kernel": "scale", "mangled_name": "_Z5scalePfi", "site": {"file": "cand.cu", "line": 20, "column": 3},
          "resolved": true, "unresolved": [], "grid": [8, 1, 1], "block": [256, 1, 1], "dynamic_smem_bytes": 0,
          "scalar_args": {"x": null, "n": 2048}, "same_report_as": 0}],
       "diagnostics": [{"check": "cuda-tail-effect", "severity": "warning", "message": "m", "kernel": "reduce",
                        "file": "cand.cu", "line": 21, "column": 3}]},
      {"name": "large", "values": {"n": 1000000}, "pointer_elements": {"x": 1000000},
       "entry_found": true, "launches_complete": false, "reason": "the step budget ran out",
       "launches": [
         {"index": 0, "kernel": "scale", "mangled_name": "_Z5scalePfi", "site": {"file": "cand.cu", "line": 20, "column": 3},
          "resolved": false, "unresolved": [{"part": "grid", "reason": "depends on the value of 'p' (returned by cudaMalloc)"}],
          "grid": null, "block": [256, 1, 1], "dynamic_smem_bytes": 0, "scalar_args": {"x": null, "n": 1000000}}],
       "diagnostics": []}]
  })J");
  doc["kernels"] = Json::array({kernelReport("scale", "_Z5scalePfi", 8, 256), kernelReport("reduce", "_Z6reducePfi", 1, 128)});
  Json &small = doc["configurations"][0]["launches"];
  small[0]["report"] = kernelReport("scale", "_Z5scalePfi", 8, 256);
  small[1]["report"] = kernelReport("reduce", "_Z6reducePfi", 1, 128);
  small[1]["report"]["occupancy"]["limiter"] = "shared-memory";
  small[1]["report"]["work"]["roofline_time_us"] = 6.0;
  small[1]["report"]["work"]["bound"] = "compute";
  Json &large = doc["configurations"][1]["launches"][0];
  large["report"] = kernelReport("scale", "_Z5scalePfi", 8, 256);
  large["report"]["launch"]["grid"] = nullptr;
  large["report"]["occupancy"].erase("waves");
  large["report"]["occupancy"].erase("last_wave_fraction");
  large["report"]["occupancy"].erase("grid_blocks");
  large["report"]["work"]["flops"]["total"] = nullptr;
  large["report"]["work"]["roofline_time_us"] = nullptr;
  return doc;
}

// Metrics of one measured kernel: 100 global requests moving 800 sectors, 10 shared instructions of
// 20 wavefronts, 4 MB of DRAM traffic, 1000 fp32 FMA thread instructions, 5 us.
inline Json kernelMetrics() {
  return cudaperf::support::parseJson(R"J({
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 500, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": 300,
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": 60, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": 40,
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": 20, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": 0,
    "smsp__inst_executed_op_shared_ld.sum": 10, "smsp__inst_executed_op_shared_st.sum": 0,
    "dram__bytes_read.sum": 3000000, "dram__bytes_write.sum": 1000000,
    "sm__warps_active.avg.pct_of_peak_sustained_active": 50,
    "gpu__time_duration.sum": 5000, "launch__registers_per_thread": 40,
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": 0, "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": 0,
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 1000,
    "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum": 0, "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum": 0,
    "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum": 0,
    "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum": 0, "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum": 0,
    "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum": 7
  })J");
}

inline Json evalResult() {
  Json doc = cudaperf::support::parseJson(R"J({
    "schema": "cudaperf-eval-result/1", "task": "toy", "task_dir": "/abs/data/tasks/toy", "candidate": "cand.cu",
    "candidate_sha256": "", "outcome": "ok", "detail": "", "speedup": 1.5,
    "gpu": {"name": "NVIDIA H200", "compute_capability": "9.0", "arch": "sm_90", "multiprocessors": 132},
    "configs": [
      {"name": "small", "params": {"n": 2048},
       "correctness": {"pass": true, "checks": []},
       "baseline": {"median_ms": 0.03, "min_ms": 0.03, "max_ms": 0.04, "mean_ms": 0.03, "p10_ms": 0.03, "p90_ms": 0.04,
                    "spread": 0.3, "runs": 30, "stable": true},
       "candidate": {"median_ms": 0.02, "min_ms": 0.02, "max_ms": 0.03, "mean_ms": 0.02, "p10_ms": 0.02, "p90_ms": 0.022,
                     "spread": 0.1, "runs": 30, "stable": true},
       "speedup": 1.5,
       "launches": [{"kernel": "_Z5scalePfi", "grid": [8, 1, 1], "block": [256, 1, 1], "dynamic_smem_bytes": 0},
                    {"kernel": "_Z6reducePfi", "grid": [1, 1, 1], "block": [128, 1, 1], "dynamic_smem_bytes": 512},
                    {"kernel": "_Z5scalePfi", "grid": [8, 1, 1], "block": [256, 1, 1], "dynamic_smem_bytes": 0}],
       "counters": {"gpu": {"name": "NVIDIA H200", "compute_capability": "9.0"}, "available": true, "reason": "",
                    "dropped_metrics": {}, "kernels": [], "kernels_not_profiled": 0, "notes": []}},
      {"name": "large", "params": {"n": 1000000},
       "correctness": {"pass": true, "checks": []},
       "candidate": {"median_ms": "nan", "spread": 0, "runs": 20},
       "counters": {"available": true, "reason": "", "kernels": [], "kernels_not_profiled": 0}}]
  })J");
  Json &small = doc["configs"][0]["counters"]["kernels"];
  small.push_back({{"name", "_Z5scalePfi"}, {"demangled", "scale(float*, int)"}, {"launch", 0}, {"metrics", kernelMetrics()}});
  small.push_back({{"name", "_Z6reducePfi"}, {"demangled", "reduce(float*, int)"}, {"launch", 1}, {"metrics", kernelMetrics()}});
  small.push_back({{"name", "_Z5scalePfi"}, {"demangled", "scale(float*, int)"}, {"launch", 2}, {"metrics", kernelMetrics()}});
  Json &large = doc["configs"][1]["counters"]["kernels"];
  large.push_back({{"name", "_Z5scalePfi"}, {"demangled", "scale(float*, int)"}, {"launch", 0}, {"metrics", kernelMetrics()}});
  large.push_back({{"name", "_ZN3cub11DeviceReduceEv"}, {"demangled", "cub::DeviceReduce()"}, {"launch", 1},
                   {"metrics", kernelMetrics()}});
  return doc;
}

} // namespace fixtures
