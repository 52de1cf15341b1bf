#include "cudaperf/Counters/CounterMetrics.h"

namespace cudaperf::counters {

namespace {
constexpr MetricSource C = MetricSource::Counter;
} // namespace

// Names checked against ncu 2025.3.1 on the H200 (docs/counters.md). A name the CUPTI host configuration
// does not know on some chip is dropped there with its reason, never fatal. The theoretical occupancy is not a
// counter the range profiler accepts on GH100 (CUPTI_ERROR_INVALID_PARAMETER): it is computed from the launch.
const std::vector<MetricInfo> &metricTable() {
  static const std::vector<MetricInfo> table = {
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "global_load_sectors", "sector", C,
       "32-byte sectors requested from L1TEX by global loads (LSU pipe)"},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "global_load_requests", "request", C,
       "warp-level global load requests at L1TEX (one per executed warp load instruction)"},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "global_store_sectors", "sector", C,
       "32-byte sectors written to L1TEX by global stores (LSU pipe)"},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "global_store_requests", "request", C,
       "warp-level global store requests at L1TEX (one per executed warp store instruction)"},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "shared_load_wavefronts", "wavefront", C,
       "shared-memory load wavefronts (passes through the data pipe; 1 per instruction without conflicts)"},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "shared_store_wavefronts", "wavefront", C,
       "shared-memory store wavefronts (1 per instruction without conflicts)"},
      {"smsp__inst_executed_op_shared_ld.sum", "shared_load_instructions", "warp instruction", C,
       "warp-level shared-memory load instructions executed"},
      {"smsp__inst_executed_op_shared_st.sum", "shared_store_instructions", "warp instruction", C,
       "warp-level shared-memory store instructions executed"},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "shared_load_bank_conflicts", "conflict", C,
       "bank conflicts of shared-memory loads (extra wavefronts; can include other serialisation)"},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "shared_store_bank_conflicts", "conflict", C,
       "bank conflicts of shared-memory stores (extra wavefronts; can include other serialisation)"},
      {"dram__bytes_read.sum", "dram_read_bytes", "byte", C, "bytes read from device memory (DRAM/HBM)"},
      {"dram__bytes_write.sum", "dram_write_bytes", "byte", C,
       "bytes written to device memory (DRAM/HBM) during the kernel; L2-resident writes are not counted"},
      {"lts__t_sectors_srcunit_tex_op_write.sum", "l2_write_sectors_from_l1", "sector", C,
       "32-byte L2 sectors written by requests from L1TEX (global stores reaching L2)"},
      {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "fp32_add_thread_instructions", "thread instruction", C,
       "FADD instructions executed, counted per thread with predicate on"},
      {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", "fp32_mul_thread_instructions", "thread instruction", C,
       "FMUL instructions executed, counted per thread with predicate on"},
      {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "fp32_fma_thread_instructions", "thread instruction", C,
       "FFMA instructions executed, counted per thread with predicate on (2 FLOPs each)"},
      {"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", "fp64_add_thread_instructions", "thread instruction", C,
       "DADD instructions executed, counted per thread with predicate on"},
      {"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", "fp64_mul_thread_instructions", "thread instruction", C,
       "DMUL instructions executed, counted per thread with predicate on"},
      {"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", "fp64_fma_thread_instructions", "thread instruction", C,
       "DFMA instructions executed, counted per thread with predicate on (2 FLOPs each)"},
      {"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", "fp16_add_thread_instructions", "thread instruction", C,
       "HADD instructions executed, counted per thread with predicate on (a half2 HADD2 counts once)"},
      {"smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", "fp16_mul_thread_instructions", "thread instruction", C,
       "HMUL instructions executed, counted per thread with predicate on (a half2 HMUL2 counts once)"},
      {"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", "fp16_fma_thread_instructions", "thread instruction", C,
       "HFMA instructions executed, counted per thread with predicate on (a half2 HFMA2 counts once)"},
      {"sm__warps_active.avg.pct_of_peak_sustained_active", "achieved_occupancy", "%", C,
       "achieved occupancy: average active warps per active cycle as a share of the SM's maximum"},
      {"sm__maximum_warps_per_active_cycle_pct", "theoretical_occupancy", "%", MetricSource::OccupancyApi,
       "theoretical occupancy: blocks per SM from cuOccupancyMaxActiveBlocksPerMultiprocessor x warps per block, as a share of the SM's maximum warps"},
      {"gpu__time_duration.sum", "duration", "nsecond", C,
       "kernel duration on the GPU in the counter pass (clocks not locked; replay changes caches)"},
      {"smsp__inst_executed.sum", "warp_instructions", "warp instruction", C,
       "warp-level instructions executed"},
      {"launch__registers_per_thread", "registers_per_thread", "register", MetricSource::FunctionAttribute,
       "registers per thread from cuFuncGetAttribute(CU_FUNC_ATTRIBUTE_NUM_REGS): ptxas count, not rounded as ncu's is"},
  };
  return table;
}

const MetricInfo *findMetric(const std::string &name) {
  for (const MetricInfo &m : metricTable())
    if (name == m.name)
      return &m;
  return nullptr;
}

std::vector<std::string> allMetricNames() {
  std::vector<std::string> names;
  for (const MetricInfo &m : metricTable())
    names.emplace_back(m.name);
  return names;
}

const char *metricSourceName(MetricSource source) {
  switch (source) {
  case MetricSource::Counter: return "counter";
  case MetricSource::FunctionAttribute: return "function attribute";
  case MetricSource::OccupancyApi: return "occupancy API";
  }
  return "unknown";
}

} // namespace cudaperf::counters
