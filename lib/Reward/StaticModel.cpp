#include "cudaperf/Reward/StaticModel.h"

#include <algorithm>
#include <cmath>

namespace cudaperf::reward {

namespace {

using features::AccessReport;
using features::KernelReport;

// Σ ideal × w / Σ actual × w over the accesses `select` picks, w = bytes × executions per thread
// (1 where unknown); nullopt when no access has both numbers.
template <typename Select, typename Ideal, typename Actual>
std::optional<double> weightedEfficiency(const KernelReport &r, Select select, Ideal ideal, Actual actual) {
  double num = 0, den = 0;
  for (const AccessReport &a : r.accesses) {
    if (!select(a))
      continue;
    std::optional<double> i = ideal(a), x = actual(a);
    if (!i || !x || *x <= 0)
      continue;
    double w = std::max(1, a.bytes) * a.executionsPerThread.value_or(1.0);
    num += *i * w;
    den += *x * w;
  }
  if (den <= 0)
    return std::nullopt;
  return std::min(1.0, num / den);
}

double requestedBytes(const KernelReport &r, const char *space) {
  double threads = r.threads.value_or(0);
  double bytes = 0;
  for (const AccessReport &a : r.accesses)
    if (a.space == space)
      bytes += double(std::max(1, a.bytes)) * a.executionsPerThread.value_or(1.0) * threads;
  return bytes;
}

LaunchModel modelLaunch(const features::LaunchReport &launch, const KernelReport *report,
                        const features::FeatureValues &values, const RewardConfig &config,
                        const support::RooflinePeaks *peaks) {
  LaunchModel m;
  m.index = launch.index;
  m.kernel = launch.kernel;
  auto feature = [&](const char *name) { return features::launchFeature(values, name); };
  if (!report) {
    m.reason = !launch.launchErrors.empty() ? "the launch fails before the kernel runs: " + launch.launchErrors[0]
               : !launch.noReportReason.empty() ? launch.noReportReason
                                                : "no report for this launch";
    return m;
  }
  m.hasReport = true;
  const StaticModelConfig &sm = config.staticModel;
  m.memoryBound = feature("memory_bound").value_or(1.0) > 0.5;
  m.globalBytes = requestedBytes(*report, "global");
  m.sharedBytes = requestedBytes(*report, "shared");
  m.coalescingEfficiency = feature("coalescing_efficiency");
  m.bankEfficiency = weightedEfficiency(
      *report, [](const AccessReport &a) { return a.space == "shared"; },
      [](const AccessReport &a) { return a.idealWavefronts ? a.idealWavefronts : std::optional<double>(1.0); },
      [](const AccessReport &a) { return a.bankConflictWays; });

  // DRAM time with every sector the warps' requests move: the estimate of distinct bytes, inflated
  // by the coalescing inefficiency (an uncoalesced request moves sectors it only partly uses).
  std::optional<double> dram = feature("dram_bytes");
  if (dram && peaks && peaks->bandwidth() > 0)
    m.dramUs = *dram / peaks->bandwidth() * 1e6 / std::max(1e-3, m.coalescingEfficiency.value_or(1.0));
  else
    m.assumptions.push_back("DRAM time unknown: the roofline time alone");
  // Shared memory: 32 banks x 4 bytes per cycle per SM; a conflict serializes wavefronts.
  int sms = int(report->sms.value_or(0));
  if (m.sharedBytes > 0 && sms > 0) {
    double bytesPerUs = sm.sharedBytesPerCyclePerSM * sm.smClockGHz * 1e3 * sms;
    m.sharedUs = m.sharedBytes / bytesPerUs / std::max(1e-3, m.bankEfficiency.value_or(1.0));
  }

  // Utilization: the warps the launch can keep resident (occupancy) over those it needs to reach
  // its bound (at most 1), times how much of its last wave is filled (a grid below one wave
  // leaves SMs idle).
  m.occupancy = feature("theoretical_occupancy");
  m.waves = feature("waves");
  if (m.waves && *m.waves > 0)
    m.waveEfficiency = *m.waves / std::ceil(*m.waves);
  m.neededOccupancy =
      m.memoryBound ? config.structural.neededOccupancyMemory : config.structural.neededOccupancyCompute;
  // More warps than needed do not help, but an idle SM in the last wave is lost whatever the
  // occupancy: the wave efficiency multiplies outside the cap.
  if (m.occupancy && m.waveEfficiency)
    m.utilization = std::max(1e-6, std::min(1.0, *m.occupancy / m.neededOccupancy) * *m.waveEfficiency);
  else
    m.assumptions.push_back("occupancy or waves unknown: full utilization assumed");

  // Atomics on one address are serialized at the L2, whatever the occupancy. Counted lane by lane
  // with the guards (the analyzer's lane_executions: `if (lane == 0) atomicAdd(...)` is one per
  // warp); without that count, every thread runs each one.
  double threads = report->threads.value_or(0);
  for (const AccessReport &a : report->accesses)
    if (a.space == "global" && a.op == "atomic" && a.pattern == "broadcast")
      m.sameAddressAtomics += a.laneExecutions ? *a.laneExecutions : threads * a.executionsPerThread.value_or(1.0);
  m.atomicUs = m.sameAddressAtomics * sm.sameAddressAtomicNs * 1e-3;

  m.divergentBarriers = int(feature("divergent_barriers").value_or(0));
  m.missingBarriers = int(feature("missing_barriers").value_or(0));
  for (const AccessReport &a : report->accesses)
    // Loads and stores only: the measured sectors per request (l1tex ld + st) do not count atomics.
    if (a.space == "global" && (a.op == "load" || a.op == "store") && a.sectorsPerRequest &&
        a.idealSectorsPerRequest) {
      double requests = threads / 32.0 * a.executionsPerThread.value_or(1.0);
      m.requests += requests;
      m.predictedSectors += *a.sectorsPerRequest * requests;
      m.idealSectors += *a.idealSectorsPerRequest * requests;
    }

  std::optional<double> roofline = feature("roofline_time_us");
  if (!roofline) {
    m.reason = "no roofline time (the grid or a trip count is unknown)";
    return m;
  }
  m.rooflineUs = *roofline;
  m.coreUs = std::max({m.rooflineUs, m.dramUs, m.sharedUs});
  // The L2 works through the serialized atomics while the SMs stream their loads (a reduction's
  // atomic is fire-and-forget RED): the launch takes the longer of the two, not their sum.
  m.modeledUs = std::max(m.coreUs / m.utilization, m.atomicUs) + sm.launchOverheadUs;
  m.modeled = true;
  return m;
}

} // namespace

ConfigurationModel modelConfiguration(const features::ConfigurationRecord &record, const RewardConfig &config,
                                      const support::RooflinePeaks *peaks) {
  ConfigurationModel c;
  const features::ConfigurationAnalysis &analysis = *record.analysis;
  c.name = analysis.name;
  for (size_t i = 0; i < analysis.launches.size(); ++i) {
    const features::LaunchReport &l = analysis.launches[i];
    c.launches.push_back(modelLaunch(l, analysis.reportOf(l), record.launchFeatures[i], config, peaks));
  }
  if (!analysis.entryFound) {
    c.reason = "the analyzer did not find the entry point" + (analysis.reason.empty() ? "" : ": " + analysis.reason);
    return c;
  }
  if (c.launches.empty()) {
    c.reason = "no launches found";
    return c;
  }
  double coalNum = 0, coalDen = 0, bankNum = 0, bankDen = 0, utilNum = 0, utilDen = 0, memoryUs = 0;
  double requests = 0, predictedSectors = 0, idealSectors = 0;
  bool all = true, wavesKnown = true;
  double fewestWaves = 1e300;
  for (const LaunchModel &m : c.launches) {
    if (m.waves)
      fewestWaves = std::min(fewestWaves, *m.waves);
    else
      wavesKnown = false;
    c.divergentBarriers = std::max(c.divergentBarriers, m.divergentBarriers);
    c.missingBarriers = std::max(c.missingBarriers, m.missingBarriers);
    if (!m.modeled) {
      if (all)
        c.reason = "launch " + std::to_string(m.index) + " (" + m.kernel + "): " + m.reason;
      all = false;
    } else {
      c.modeledUs += m.modeledUs;
      c.rooflineUs += m.rooflineUs;
      memoryUs += m.memoryBound ? m.rooflineUs : 0;
    }
    requests += m.requests;
    predictedSectors += m.predictedSectors;
    idealSectors += m.idealSectors;
    if (m.coalescingEfficiency && m.globalBytes > 0) {
      coalNum += *m.coalescingEfficiency * m.globalBytes;
      coalDen += m.globalBytes;
    }
    c.usesGlobalMemory |= m.globalBytes > 0;
    if (m.sharedBytes > 0) {
      c.usesSharedMemory = true;
      if (m.bankEfficiency) {
        bankNum += *m.bankEfficiency * m.sharedBytes;
        bankDen += m.sharedBytes;
      }
    }
    if (!m.hasReport)
      continue;
    double w = m.modeled ? std::max(m.coreUs, 1e-9) : 1.0;
    utilNum += m.utilization * w;
    utilDen += w;
  }
  if (requests > 0) {
    c.predictedSectorsPerRequest = predictedSectors / requests;
    c.idealSectorsPerRequest = idealSectors / requests;
  }
  if (coalDen > 0)
    c.coalescingEfficiency = coalNum / coalDen;
  else if (!c.usesGlobalMemory && std::any_of(c.launches.begin(), c.launches.end(),
                                               [](const LaunchModel &m) { return m.hasReport; }))
    c.coalescingEfficiency = 1.0;
  if (bankDen > 0)
    c.bankEfficiency = bankNum / bankDen;
  else if (!c.usesSharedMemory)
    c.bankEfficiency = 1.0;
  if (utilDen > 0)
    c.utilization = utilNum / utilDen;
  c.memoryBound = memoryUs * 2 >= c.rooflineUs;
  if (wavesKnown)
    c.fewestWaves = fewestWaves;
  c.modeled = all && analysis.launchesComplete;
  if (all && !analysis.launchesComplete)
    c.reason = "the analyzer stopped early" + (analysis.reason.empty() ? "" : ": " + analysis.reason);
  if (c.modeled && c.modeledUs > 0)
    c.predictedRooflineFraction = std::min(1.0, c.rooflineUs / c.modeledUs);
  return c;
}

} // namespace cudaperf::reward
