//===- FeatureVector.cpp - The cudaperf-features/1 tables ------------------------------===//
//
// Each row: name, unit, source, definition (docs/features.md repeats them; a test checks the page
// lists every name), and how the value is computed. Rules for missing values: a feature is
// missing when an input it needs is unknown; a sum over launches is missing when any term is; a
// weighted mean is over the launches where value and weight are known, missing when there is none.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Features/FeatureVector.h"
#include "cudaperf/Features/FeaturesError.h"

#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace cudaperf::features {

namespace {

using L = LaunchInputs;
using C = ConfigurationInputs;
constexpr FeatureSource A = FeatureSource::Analysis, K = FeatureSource::Counters, E = FeatureSource::EvalResult;

FeatureValue known(const std::optional<int64_t> &v) { return v ? FeatureValue(double(*v)) : std::nullopt; }

FeatureValue ratio(FeatureValue num, FeatureValue den) {
  if (!num || !den || *den == 0)
    return std::nullopt;
  return *num / *den;
}

FeatureValue sum(std::initializer_list<FeatureValue> parts) {
  double s = 0;
  for (const FeatureValue &p : parts) {
    if (!p)
      return std::nullopt;
    s += *p;
  }
  return s;
}

FeatureValue oneHot(const std::string &actual, const char *value) {
  if (actual.empty())
    return std::nullopt;
  return actual == value ? 1.0 : 0.0;
}

// Weighted mean of accesses of one space; `value` null skips an access.
template <typename Value, typename Weight>
FeatureValue accessMean(const KernelReport *r, const char *space, Value value, Weight weight) {
  if (!r)
    return std::nullopt;
  double num = 0, den = 0;
  for (const AccessReport &a : r->accesses) {
    if (a.space != space)
      continue;
    FeatureValue v = value(a);
    if (!v)
      continue;
    double w = weight(a);
    num += *v * w;
    den += w;
  }
  return den > 0 ? FeatureValue(num / den) : std::nullopt;
}

double executions(const AccessReport &a) { return a.executionsPerThread.value_or(1.0); }

// --- measured values of one kernel ----------------------------------------------------------

FeatureValue metricSum(const MeasuredKernel *k, std::initializer_list<const char *> names) {
  if (!k)
    return std::nullopt;
  double s = 0;
  for (const char *n : names) {
    auto v = k->get(n);
    if (!v)
      return std::nullopt;
    s += *v;
  }
  return s;
}

// FLOP by precision (kPrecisions order; bf16 has no counters of its own and stays 0). fp16 FMA
// counts of kernels without predicted fp16 arithmetic are HFMA2.MMA constant moves, not FLOPs
// (docs/accuracy.md): they are counted only when the analysis predicts fp16 FLOPs or has no report.
std::optional<std::array<double, 4>> measuredFlopsByPrecision(const MeasuredKernel *k, const KernelReport *r) {
  if (!k)
    return std::nullopt;
  std::array<double, 4> out{};
  const std::pair<size_t, const char *> letters[] = {{0, "h"}, {2, "f"}, {3, "d"}};
  bool fp16Arithmetic = !r || (r->flopsByPrecision[0] && *r->flopsByPrecision[0] > 0);
  bool any = false;
  for (auto [index, letter] : letters) {
    auto add = k->get(metric::sassInstructions(letter, "add"));
    auto mul = k->get(metric::sassInstructions(letter, "mul"));
    auto fma = k->get(metric::sassInstructions(letter, "fma"));
    if (!add || !mul || !fma)
      return std::nullopt; // not collected: unknown, not 0
    any = true;
    if (index == 0 && !fp16Arithmetic)
      continue;
    out[index] = *add + *mul + 2 * *fma;
  }
  return any ? std::optional<std::array<double, 4>>(out) : std::nullopt;
}

FeatureValue measuredFlops(const MeasuredKernel *k, const KernelReport *r) {
  auto by = measuredFlopsByPrecision(k, r);
  return by ? FeatureValue((*by)[0] + (*by)[1] + (*by)[2] + (*by)[3]) : std::nullopt;
}

FeatureValue measuredDram(const MeasuredKernel *k) { return metricSum(k, {metric::kDramRead, metric::kDramWrite}); }

FeatureValue measuredDurationUs(const MeasuredKernel *k) {
  auto ns = metricSum(k, {metric::kDuration});
  return ns ? FeatureValue(*ns / 1000) : std::nullopt;
}

FeatureValue measuredRooflineUs(const MeasuredKernel *k, const KernelReport *r, const support::RooflinePeaks *p) {
  auto flops = measuredFlopsByPrecision(k, r);
  FeatureValue bytes = measuredDram(k);
  if (!flops || !bytes || !p)
    return std::nullopt;
  support::RooflineInput in;
  in.flops = *flops;
  in.dramBytes = *bytes;
  return support::rooflineTime(*p, in).seconds() * 1e6;
}

// --- the launch table -------------------------------------------------------------------------

std::vector<FeatureSpec<L>> buildLaunchSpecs() {
  auto limiter = [](const char *value) {
    return [value](const L &in) { return in.report ? oneHot(in.report->limiter, value) : std::nullopt; };
  };
  auto fromReport = [](auto member) {
    return [member](const L &in) -> FeatureValue {
      if (!in.report)
        return std::nullopt;
      const auto &v = in.report->*member;
      if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::optional<int64_t>>)
        return known(v);
      else
        return v;
    };
  };
  return {
      {"grid_blocks", "blocks", A, "gridDim.x × gridDim.y × gridDim.z of the launch at this configuration",
       [](const L &in) { return in.launch && in.launch->grid ? FeatureValue(double(in.launch->grid->count())) : std::nullopt; }},
      {"block_threads", "threads", A, "blockDim.x × blockDim.y × blockDim.z",
       [](const L &in) { return in.launch && in.launch->block ? FeatureValue(double(in.launch->block->count())) : std::nullopt; }},
      {"dynamic_smem_bytes", "bytes", A, "dynamic shared memory per block of the launch",
       [](const L &in) { return in.launch ? known(in.launch->dynamicSmemBytes) : std::nullopt; }},
      {"waves", "waves", A, "grid blocks / (active blocks per SM × SMs of the assumed device), occupancy.waves",
       fromReport(&KernelReport::waves)},
      {"last_wave_fraction", "fraction", A,
       "how full the last wave is (occupancy.last_wave_fraction, 0..1; 1 when the grid is whole waves): the tail",
       fromReport(&KernelReport::lastWaveFraction)},
      {"theoretical_occupancy", "fraction", A, "active warps / maximum warps per SM (occupancy.theoretical)",
       fromReport(&KernelReport::theoretical)},
      {"active_blocks_per_sm", "blocks", A, "resident blocks per SM (occupancy.active_blocks_per_sm)",
       fromReport(&KernelReport::activeBlocksPerSM)},
      {"limiter_registers", "0/1", A, "1 when registers limit occupancy (occupancy.limiter), else 0", limiter("registers")},
      {"limiter_shared_memory", "0/1", A, "1 when shared memory limits occupancy", limiter("shared-memory")},
      {"limiter_warps", "0/1", A, "1 when warp slots limit occupancy", limiter("warps")},
      {"limiter_blocks", "0/1", A, "1 when the resident-block limit limits occupancy", limiter("blocks")},
      {"limiter_barriers", "0/1", A, "1 when hardware barriers limit occupancy", limiter("barriers")},
      {"limiter_block_size", "0/1", A, "1 when the block cannot launch at all", limiter("block-size")},
      {"registers_per_thread", "registers", A, "registers per thread (resources.registers: ptxas, or the estimate)",
       fromReport(&KernelReport::registers)},
      {"spill_bytes", "bytes", A, "spill stores + spill loads per thread (resources)",
       [](const L &in) {
         return in.report ? sum({known(in.report->spillStoreBytes), known(in.report->spillLoadBytes)}) : std::nullopt;
       }},
      {"local_bytes", "bytes", A, "local memory per thread (resources.local_bytes)", fromReport(&KernelReport::localBytes)},
      {"smem_bytes_per_block", "bytes", A, "static (resources) + dynamic shared memory per block",
       [](const L &in) {
         return in.report && in.launch ? sum({known(in.report->staticSmemBytes), known(in.launch->dynamicSmemBytes)})
                                       : std::nullopt;
       }},
      {"coalescing_efficiency", "fraction", A,
       "Σ ideal × w / Σ predicted sectors per request × w over global accesses with both, w = bytes × "
       "executions per thread (1 where unknown); 1 = every warp request moves the fewest sectors",
       [](const L &in) -> FeatureValue {
         if (!in.report)
           return std::nullopt;
         double ideal = 0, predicted = 0;
         for (const AccessReport &a : in.report->accesses)
           if (a.space == "global" && a.sectorsPerRequest && a.idealSectorsPerRequest && *a.sectorsPerRequest > 0) {
             double w = a.bytes * executions(a);
             ideal += *a.idealSectorsPerRequest * w;
             predicted += *a.sectorsPerRequest * w;
           }
         return predicted > 0 ? FeatureValue(std::min(1.0, ideal / predicted)) : std::nullopt;
       }},
      {"global_sectors_per_request", "sectors", A,
       "predicted 32-byte sectors per warp request of global accesses, weighted by executions per thread",
       [](const L &in) {
         return accessMean(in.report, "global", [](const AccessReport &a) { return a.sectorsPerRequest; }, executions);
       }},
      {"bank_conflict_ways", "wavefronts", A,
       "predicted shared-memory wavefronts per warp request, weighted by requests (executions per thread); "
       "missing without predicted shared accesses",
       [](const L &in) {
         return accessMean(in.report, "shared", [](const AccessReport &a) { return a.bankConflictWays; }, executions);
       }},
      {"barriers_per_thread", "barriers", A, "block-wide barriers one thread executes (sync.barriers_per_thread)",
       fromReport(&KernelReport::barriersPerThread)},
      {"divergent_barriers", "barriers", A, "barriers under a thread-divergent condition (sync.divergent_barriers)",
       fromReport(&KernelReport::divergentBarriers)},
      {"missing_barriers", "sites", A, "shared reads of another thread's write without a barrier between "
       "(sync.missing_barrier_sites)", fromReport(&KernelReport::missingBarriers)},
      {"flops", "FLOP", A, "floating-point operations of the launch (work.flops.total; FMA = 2)",
       fromReport(&KernelReport::flops)},
      {"dram_bytes", "bytes", A, "DRAM bytes estimate: work.dram_read_bytes_estimate + dram_write_bytes_estimate",
       [](const L &in) { return in.report ? sum({in.report->dramReadBytes, in.report->dramWriteBytes}) : std::nullopt; }},
      {"arithmetic_intensity", "FLOP/byte", A, "FLOP / DRAM bytes estimate (work.arithmetic_intensity)",
       fromReport(&KernelReport::arithmeticIntensity)},
      {"roofline_time_us", "µs", A, "roofline lower bound on the launch's time on the arch's device (work.roofline_time_us)",
       fromReport(&KernelReport::rooflineTimeUs)},
      {"memory_bound", "0/1", A, "1 when the roofline bound is memory, 0 when compute (work.bound)",
       [](const L &in) { return in.report ? oneHot(in.report->bound, "memory") : std::nullopt; }},
      {"measured_duration_us", "µs", K, "gpu__time_duration.sum / 1000 of the joined kernel (counter pass)",
       [](const L &in) { return measuredDurationUs(in.counters); }},
      {"measured_global_sectors_per_request", "sectors", K,
       "(global ld + st sectors) / (global ld + st requests), l1tex__t_{sectors,requests}_pipe_lsu_mem_global_op_*; "
       "missing without requests",
       [](const L &in) {
         return ratio(metricSum(in.counters, {metric::kGlobalLoadSectors, metric::kGlobalStoreSectors}),
                      metricSum(in.counters, {metric::kGlobalLoadRequests, metric::kGlobalStoreRequests}));
       }},
      {"measured_shared_wavefronts_per_request", "wavefronts", K,
       "(shared ld + st wavefronts) / (shared ld + st warp instructions); missing without shared instructions",
       [](const L &in) {
         return ratio(metricSum(in.counters, {metric::kSharedLoadWavefronts, metric::kSharedStoreWavefronts}),
                      metricSum(in.counters, {metric::kSharedLoadInstructions, metric::kSharedStoreInstructions}));
       }},
      {"measured_dram_bytes", "bytes", K, "dram__bytes_read.sum + dram__bytes_write.sum",
       [](const L &in) { return measuredDram(in.counters); }},
      {"measured_achieved_occupancy", "fraction", K, "sm__warps_active.avg.pct_of_peak_sustained_active / 100",
       [](const L &in) {
         auto pct = metricSum(in.counters, {metric::kAchievedOccupancy});
         return pct ? FeatureValue(*pct / 100) : std::nullopt;
       }},
      {"measured_flops", "FLOP", K,
       "add + mul + 2 × fma thread instructions of fp32, fp64 and fp16 (smsp__sass_thread_inst_executed_op_*); "
       "fp16 only where the analysis predicts fp16 arithmetic",
       [](const L &in) { return measuredFlops(in.counters, in.report); }},
      {"measured_registers_per_thread", "registers", K, "launch__registers_per_thread (the function attribute)",
       [](const L &in) { return metricSum(in.counters, {metric::kRegisters}); }},
      {"measured_roofline_time_us", "µs", K,
       "roofline lower bound of the measured FLOPs and DRAM bytes on the measuring GPU (GPU table of lib/Support)",
       [](const L &in) { return measuredRooflineUs(in.counters, in.report, in.peaks); }},
      {"achieved_roofline_fraction", "fraction", K,
       "measured_roofline_time_us / measured_duration_us: how close the kernel runs to its roofline",
       [](const L &in) {
         return ratio(measuredRooflineUs(in.counters, in.report, in.peaks), measuredDurationUs(in.counters));
       }},
  };
}

// --- the configuration table ------------------------------------------------------------------

size_t launchIndex(const char *name) {
  static const std::map<std::string, size_t> index = [] {
    std::map<std::string, size_t> m;
    const auto &specs = launchFeatureSpecs();
    for (size_t i = 0; i < specs.size(); ++i)
      m[specs[i].name] = i;
    return m;
  }();
  auto it = index.find(name);
  if (it == index.end())
    throw std::logic_error(std::string("no launch feature ") + name);
  return it->second;
}

bool analysed(const C &in) { return in.analysis && in.analysis->entryFound && in.launchFeatures; }

// Σ over launches of a launch feature; missing when any launch lacks it or nothing was analysed.
FeatureValue launchSum(const C &in, const char *name) {
  if (!analysed(in))
    return std::nullopt;
  size_t i = launchIndex(name);
  double s = 0;
  for (const FeatureValues &f : *in.launchFeatures) {
    if (!f.values[i])
      return std::nullopt;
    s += *f.values[i];
  }
  return s;
}

// Σ value × weight / Σ weight over launches where both are known.
FeatureValue launchMean(const C &in, const char *name, const char *weight) {
  if (!analysed(in))
    return std::nullopt;
  size_t v = launchIndex(name), w = launchIndex(weight);
  double num = 0, den = 0;
  for (const FeatureValues &f : *in.launchFeatures)
    if (f.values[v] && f.values[w] && *f.values[w] > 0) {
      num += *f.values[v] * *f.values[w];
      den += *f.values[w];
    }
  return den > 0 ? FeatureValue(num / den) : std::nullopt;
}

FeatureValue launchMax(const C &in, const char *name) {
  if (!analysed(in))
    return std::nullopt;
  size_t i = launchIndex(name);
  FeatureValue best;
  for (const FeatureValues &f : *in.launchFeatures) {
    if (!f.values[i])
      return std::nullopt;
    best = best ? std::max(*best, *f.values[i]) : *f.values[i];
  }
  return best; // missing when there is no launch
}

// Every kernel the counter pass measured at this configuration (library kernels too).
const std::vector<MeasuredKernel> *measuredKernels(const C &in) {
  if (!in.measured || !in.measured->counters || !in.measured->counters->available)
    return nullptr;
  return &in.measured->counters->kernels;
}

template <typename F> FeatureValue measuredTotal(const C &in, F perKernel) {
  const std::vector<MeasuredKernel> *ks = measuredKernels(in);
  if (!ks)
    return std::nullopt;
  double s = 0;
  for (const MeasuredKernel &k : *ks) {
    FeatureValue v = perKernel(k);
    if (!v)
      return std::nullopt;
    s += *v;
  }
  return s;
}

// The report of the launch a measured kernel joined, for the fp16 rule of measured FLOPs.
const KernelReport *joinedReport(const C &in, const MeasuredKernel &k) {
  if (!in.join || !in.analysis)
    return nullptr;
  for (const JoinedLaunch &j : in.join->launches)
    if (j.measured && j.measured->counters == &k && size_t(j.staticIndex) < in.analysis->launches.size())
      return in.analysis->reportOf(in.analysis->launches[size_t(j.staticIndex)]);
  return nullptr;
}

FeatureValue measuredMetricRatio(const C &in, std::initializer_list<const char *> num,
                                 std::initializer_list<const char *> den) {
  FeatureValue n = measuredTotal(in, [&](const MeasuredKernel &k) { return metricSum(&k, num); });
  FeatureValue d = measuredTotal(in, [&](const MeasuredKernel &k) { return metricSum(&k, den); });
  return ratio(n, d);
}

FeatureValue outcomeIs(const C &in, schema::Outcome outcome) {
  return in.result ? FeatureValue(in.result->unknownOutcome.empty() && in.result->outcome == outcome ? 1.0 : 0.0)
                   : std::nullopt;
}

FeatureValue candidateMedianMs(const C &in) {
  return in.measured && in.measured->candidate ? FeatureValue(in.measured->candidate->medianMs) : std::nullopt;
}

FeatureValue measuredRooflineTotalUs(const C &in) {
  const support::RooflinePeaks *p = in.peaks;
  return measuredTotal(in, [&](const MeasuredKernel &k) { return measuredRooflineUs(&k, joinedReport(in, k), p); });
}

std::vector<FeatureSpec<C>> buildConfigurationSpecs() {
  auto mean = [](const char *name) { return [name](const C &in) { return launchMean(in, name, "roofline_time_us"); }; };
  auto outcome = [](schema::Outcome o) { return [o](const C &in) { return outcomeIs(in, o); }; };
  return {
      {"launches", "launches", A, "launches of the entry point at this configuration",
       [](const C &in) { return analysed(in) ? FeatureValue(double(in.analysis->launches.size())) : std::nullopt; }},
      {"launches_unresolved", "launches", A, "launches whose grid, block or shared memory the analyzer could not evaluate",
       [](const C &in) -> FeatureValue {
         if (!analysed(in))
           return std::nullopt;
         double n = 0;
         for (const LaunchReport &l : in.analysis->launches)
           n += l.resolved ? 0 : 1;
         return n;
       }},
      {"launches_complete", "0/1", A, "1 when the analyzer followed the entry point to its end (launches_complete)",
       [](const C &in) { return in.analysis ? FeatureValue(in.analysis->launchesComplete && in.analysis->entryFound ? 1.0 : 0.0) : std::nullopt; }},
      {"kernels", "kernels", A, "distinct kernels launched",
       [](const C &in) -> FeatureValue {
         if (!analysed(in))
           return std::nullopt;
         std::set<std::string> names;
         for (const LaunchReport &l : in.analysis->launches)
           names.insert(l.mangledName);
         return double(names.size());
       }},
      {"total_flops", "FLOP", A, "Σ flops over the launches", [](const C &in) { return launchSum(in, "flops"); }},
      {"total_dram_bytes", "bytes", A, "Σ dram_bytes over the launches", [](const C &in) { return launchSum(in, "dram_bytes"); }},
      {"arithmetic_intensity", "FLOP/byte", A, "total_flops / total_dram_bytes",
       [](const C &in) { return ratio(launchSum(in, "flops"), launchSum(in, "dram_bytes")); }},
      {"total_roofline_time_us", "µs", A, "Σ roofline_time_us over the launches: the analyzer's lower bound on the call",
       [](const C &in) { return launchSum(in, "roofline_time_us"); }},
      {"memory_bound_fraction", "fraction", A, "share of total_roofline_time_us in memory-bound launches",
       mean("memory_bound")},
      {"mean_theoretical_occupancy", "fraction", A, "theoretical_occupancy weighted by roofline_time_us",
       mean("theoretical_occupancy")},
      {"mean_waves", "waves", A, "waves weighted by roofline_time_us", mean("waves")},
      {"mean_last_wave_fraction", "fraction", A, "last_wave_fraction weighted by roofline_time_us", mean("last_wave_fraction")},
      {"mean_coalescing_efficiency", "fraction", A, "coalescing_efficiency weighted by roofline_time_us",
       mean("coalescing_efficiency")},
      {"mean_global_sectors_per_request", "sectors", A, "global_sectors_per_request weighted by roofline_time_us",
       mean("global_sectors_per_request")},
      {"mean_bank_conflict_ways", "wavefronts", A, "bank_conflict_ways weighted by roofline_time_us",
       mean("bank_conflict_ways")},
      {"mean_registers_per_thread", "registers", A, "registers_per_thread weighted by roofline_time_us",
       mean("registers_per_thread")},
      {"mean_barriers_per_thread", "barriers", A, "barriers_per_thread weighted by roofline_time_us",
       mean("barriers_per_thread")},
      {"max_registers_per_thread", "registers", A, "largest registers_per_thread of the launches",
       [](const C &in) { return launchMax(in, "registers_per_thread"); }},
      {"max_spill_bytes", "bytes", A, "largest spill_bytes of the launches", [](const C &in) { return launchMax(in, "spill_bytes"); }},
      {"max_divergent_barriers", "barriers", A, "largest divergent_barriers of the launches",
       [](const C &in) { return launchMax(in, "divergent_barriers"); }},
      {"max_missing_barriers", "sites", A, "largest missing_barriers of the launches",
       [](const C &in) { return launchMax(in, "missing_barriers"); }},
      {"warnings", "diagnostics", A, "warning diagnostics of the checks at this configuration",
       [](const C &in) -> FeatureValue {
         if (!analysed(in))
           return std::nullopt;
         double n = 0;
         for (const Diagnostic &d : in.analysis->diagnostics)
           n += d.severity == "warning" || d.severity == "error" ? 1 : 0;
         return n;
       }},
      {"launches_joined", "launches", K, "static launches joined to a measured kernel",
       [](const C &in) { return in.join && in.join->measuredAvailable ? FeatureValue(double(in.join->joined)) : std::nullopt; }},
      {"join_complete", "0/1", K, "1 when every launch joined, nothing measured was left over and launch shapes agree",
       [](const C &in) { return in.join && in.join->measuredAvailable ? FeatureValue(in.join->complete() ? 1.0 : 0.0) : std::nullopt; }},
      {"measured_total_duration_us", "µs", K, "Σ gpu__time_duration over every kernel of the counter pass (library kernels too)",
       [](const C &in) { return measuredTotal(in, [](const MeasuredKernel &k) { return measuredDurationUs(&k); }); }},
      {"measured_total_dram_bytes", "bytes", K, "Σ dram__bytes_read + write over every measured kernel",
       [](const C &in) { return measuredTotal(in, [](const MeasuredKernel &k) { return measuredDram(&k); }); }},
      {"measured_total_flops", "FLOP", K, "Σ measured FLOPs over every measured kernel",
       [](const C &in) {
         return measuredTotal(in, [&](const MeasuredKernel &k) { return measuredFlops(&k, joinedReport(in, k)); });
       }},
      {"measured_roofline_time_us", "µs", K, "Σ roofline lower bounds of each measured kernel's FLOPs and DRAM bytes",
       [](const C &in) { return measuredRooflineTotalUs(in); }},
      {"measured_mean_achieved_occupancy", "fraction", K, "achieved occupancy weighted by measured duration",
       [](const C &in) {
         FeatureValue num = measuredTotal(in, [](const MeasuredKernel &k) {
           auto pct = metricSum(&k, {metric::kAchievedOccupancy});
           auto us = measuredDurationUs(&k);
           return pct && us ? FeatureValue(*pct / 100 * *us) : std::nullopt;
         });
         return ratio(num, measuredTotal(in, [](const MeasuredKernel &k) { return measuredDurationUs(&k); }));
       }},
      {"measured_global_sectors_per_request", "sectors", K, "Σ global sectors / Σ global requests over measured kernels",
       [](const C &in) {
         return measuredMetricRatio(in, {metric::kGlobalLoadSectors, metric::kGlobalStoreSectors},
                                    {metric::kGlobalLoadRequests, metric::kGlobalStoreRequests});
       }},
      {"measured_shared_wavefronts_per_request", "wavefronts", K,
       "Σ shared wavefronts / Σ shared warp instructions over measured kernels",
       [](const C &in) {
         return measuredMetricRatio(in, {metric::kSharedLoadWavefronts, metric::kSharedStoreWavefronts},
                                    {metric::kSharedLoadInstructions, metric::kSharedStoreInstructions});
       }},
      {"outcome_ok", "0/1", E, "1 when the result's outcome is ok", outcome(schema::Outcome::Ok)},
      {"outcome_compile_error", "0/1", E, "1 for compile_error", outcome(schema::Outcome::CompileError)},
      {"outcome_launch_error", "0/1", E, "1 for launch_error", outcome(schema::Outcome::LaunchError)},
      {"outcome_runtime_fault", "0/1", E, "1 for runtime_fault", outcome(schema::Outcome::RuntimeFault)},
      {"outcome_timeout", "0/1", E, "1 for timeout", outcome(schema::Outcome::Timeout)},
      {"outcome_wrong_answer", "0/1", E, "1 for wrong_answer", outcome(schema::Outcome::WrongAnswer)},
      {"outcome_timing_violation", "0/1", E, "1 for timing_violation", outcome(schema::Outcome::TimingViolation)},
      {"outcome_internal_error", "0/1", E, "1 for internal_error", outcome(schema::Outcome::InternalError)},
      {"correct", "0/1", E, "configs[].correctness.pass",
       [](const C &in) { return in.measured && in.measured->correct ? FeatureValue(*in.measured->correct ? 1.0 : 0.0) : std::nullopt; }},
      {"median_ms", "ms", E, "the candidate's median time (configs[].candidate.median_ms)",
       [](const C &in) { return candidateMedianMs(in); }},
      {"spread", "fraction", E, "(p90 − p10) / median of the candidate's times",
       [](const C &in) { return in.measured && in.measured->candidate ? FeatureValue(in.measured->candidate->spread) : std::nullopt; }},
      {"baseline_median_ms", "ms", E, "the task baseline's median time in the same worker",
       [](const C &in) { return in.measured && in.measured->baseline ? FeatureValue(in.measured->baseline->medianMs) : std::nullopt; }},
      {"speedup", "ratio", E, "configs[].speedup: baseline (or PyTorch eager) median / candidate median",
       [](const C &in) { return in.measured ? in.measured->speedup : std::nullopt; }},
      {"achieved_roofline_fraction", "fraction", E,
       "measured_roofline_time_us / (median_ms × 1000): the call's time against the roofline of what it measurably did",
       [](const C &in) {
         FeatureValue ms = candidateMedianMs(in);
         return ratio(measuredRooflineTotalUs(in), ms ? FeatureValue(*ms * 1000) : std::nullopt);
       }},
      {"predicted_roofline_fraction", "fraction", E,
       "total_roofline_time_us / (median_ms × 1000): the call's time against the analyzer's bound",
       [](const C &in) {
         FeatureValue ms = candidateMedianMs(in);
         return ratio(launchSum(in, "roofline_time_us"), ms ? FeatureValue(*ms * 1000) : std::nullopt);
       }},
  };
}

template <typename Inputs>
FeatureValues compute(const std::vector<FeatureSpec<Inputs>> &specs, const Inputs &in) {
  FeatureValues out;
  out.values.reserve(specs.size());
  for (const auto &s : specs) {
    FeatureValue v = s.compute(in);
    out.values.push_back(v && std::isfinite(*v) ? v : std::nullopt); // never NaN or inf in a value
  }
  return out;
}

template <typename Inputs>
FeatureValue byName(const std::vector<FeatureSpec<Inputs>> &specs, const FeatureValues &values, const std::string &name) {
  for (size_t i = 0; i < specs.size() && i < values.values.size(); ++i)
    if (name == specs[i].name)
      return values.values[i];
  throw FeaturesError("no feature called '" + name + "' in " + kFeaturesSchema);
}

} // namespace

const char *featureSourceName(FeatureSource s) {
  switch (s) {
  case FeatureSource::Analysis: return "analysis";
  case FeatureSource::Counters: return "counters";
  case FeatureSource::EvalResult: return "eval result";
  }
  return "unknown";
}

FeatureValues::Numeric FeatureValues::numeric() const {
  Numeric n;
  for (const FeatureValue &v : values) {
    n.values.push_back(v ? *v : std::numeric_limits<double>::quiet_NaN());
    n.mask.push_back(v ? 1 : 0);
  }
  return n;
}

const std::vector<FeatureSpec<LaunchInputs>> &launchFeatureSpecs() {
  static const std::vector<FeatureSpec<LaunchInputs>> specs = buildLaunchSpecs();
  return specs;
}

const std::vector<FeatureSpec<ConfigurationInputs>> &configurationFeatureSpecs() {
  static const std::vector<FeatureSpec<ConfigurationInputs>> specs = buildConfigurationSpecs();
  return specs;
}

FeatureValues computeLaunchFeatures(const LaunchInputs &in) { return compute(launchFeatureSpecs(), in); }

FeatureValues computeConfigurationFeatures(const ConfigurationInputs &in) {
  return compute(configurationFeatureSpecs(), in);
}

template <typename Inputs>
support::Json featuresToJson(const std::vector<FeatureSpec<Inputs>> &specs, const FeatureValues &values) {
  support::Json out = support::Json::object();
  for (size_t i = 0; i < specs.size(); ++i) {
    const FeatureValue &v = i < values.values.size() ? values.values[i] : FeatureValue();
    out[specs[i].name] = v ? support::Json(*v) : support::Json(nullptr);
  }
  return out;
}
template support::Json featuresToJson(const std::vector<FeatureSpec<LaunchInputs>> &, const FeatureValues &);
template support::Json featuresToJson(const std::vector<FeatureSpec<ConfigurationInputs>> &, const FeatureValues &);

FeatureValue launchFeature(const FeatureValues &values, const std::string &name) {
  return byName(launchFeatureSpecs(), values, name);
}

FeatureValue configurationFeature(const FeatureValues &values, const std::string &name) {
  return byName(configurationFeatureSpecs(), values, name);
}

namespace {
template <typename Inputs> std::string markdownTable(const std::vector<FeatureSpec<Inputs>> &specs) {
  std::string out = "| # | feature | unit | source | definition |\n| ---: | --- | --- | --- | --- |\n";
  for (size_t i = 0; i < specs.size(); ++i)
    out += "| " + std::to_string(i) + " | `" + specs[i].name + "` | " + specs[i].unit + " | " +
           featureSourceName(specs[i].source) + " | " + specs[i].definition + " |\n";
  return out;
}
} // namespace

std::string featureTablesMarkdown() {
  return "Per launch (`launches[].features`):\n\n" + markdownTable(launchFeatureSpecs()) +
         "\nPer candidate × configuration (`features`):\n\n" + markdownTable(configurationFeatureSpecs());
}

const support::RooflinePeaks *rooflinePeaksFor(const EvalResult *result, const std::string &analysisArch) {
  auto peaksOfArch = [](const std::string &arch) -> const support::RooflinePeaks * {
    auto cc = support::parseArch(arch);
    const support::GpuDevice *d = cc ? support::defaultRooflineDevice(cc->major, cc->minor) : nullptr;
    return d ? &*d->roofline : nullptr;
  };
  if (result) {
    std::string name = result->gpuName;
    if (name.rfind("NVIDIA ", 0) == 0)
      name = name.substr(7);
    if (const support::GpuDevice *d = support::findGpuDevice(name); d && d->roofline)
      return &*d->roofline;
    if (const support::RooflinePeaks *p = peaksOfArch(result->arch))
      return p;
  }
  return peaksOfArch(analysisArch);
}

} // namespace cudaperf::features
