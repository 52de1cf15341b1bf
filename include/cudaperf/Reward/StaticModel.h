// A time estimate for each launch the analyzer found at a configuration, from its static report
// alone (docs/reward.md, "The static time model"):
//
//   core     = max(roofline time, DRAM time / coalescing efficiency, shared time x conflict factor)
//   modeled  = max(core / utilization, same-address atomics x their serialized cost) + launch overhead
//   utilization = min(1, theoretical occupancy / occupancy the launch needs) x wave efficiency
//
// It is what the structural terms and the static-only predicted speedup stand on; its absolute
// values are rough (latency, caches and instruction mix are not modelled), its ranking is what the
// validation measures.
#pragma once

#include "cudaperf/Features/Features.h"
#include "cudaperf/Reward/RewardConfig.h"
#include "cudaperf/Support/GpuTable.h"

#include <optional>
#include <string>
#include <vector>

namespace cudaperf::reward {

struct LaunchModel {
  int index = 0;
  std::string kernel;
  bool hasReport = false; // the analyzer analysed the kernel at this launch
  bool modeled = false;    // and its time could be modeled
  std::string reason;      // why not
  bool memoryBound = true;
  double rooflineUs = 0, dramUs = 0, sharedUs = 0, atomicUs = 0, coreUs = 0, modeledUs = 0;
  std::optional<double> coalescingEfficiency; // global accesses, bytes x executions weighted
  std::optional<double> bankEfficiency;       // ideal / actual shared wavefronts, bytes weighted
  double globalBytes = 0, sharedBytes = 0;    // requested by the launch
  std::optional<double> occupancy, waves, waveEfficiency;
  double neededOccupancy = 0, utilization = 1;
  int divergentBarriers = 0, missingBarriers = 0;
  double sameAddressAtomics = 0; // lane-level executions over the launch (guards counted when known)
  // Σ over global accesses with a prediction of (requests), (predicted sectors), (ideal sectors).
  double requests = 0, predictedSectors = 0, idealSectors = 0;
  std::vector<std::string> assumptions;
};

struct ConfigurationModel {
  std::string name;
  std::vector<LaunchModel> launches;
  bool modeled = false; // every launch modeled (and there is at least one)
  std::string reason;
  double modeledUs = 0, rooflineUs = 0;
  std::optional<double> predictedRooflineFraction; // roofline / modeled
  // Aggregates over launches: coalescing weighted by global bytes, bank efficiency by shared bytes
  // (1 when no launch uses shared memory), utilization by core time.
  std::optional<double> coalescingEfficiency, bankEfficiency, utilization;
  // Global sectors per warp request over the launches, weighted by requests: predicted and ideal.
  std::optional<double> predictedSectorsPerRequest, idealSectorsPerRequest;
  bool usesSharedMemory = false, usesGlobalMemory = false;
  int divergentBarriers = 0, missingBarriers = 0; // largest of any launch
  bool memoryBound = true;                        // most of the roofline time is memory-bound
  std::optional<double> fewestWaves;              // of the launches (null when one is unknown)
};

// `peaks`: of the device the candidate is judged for (lib/Features' rooflinePeaksFor); null
// leaves the DRAM time unknown (then only the analyzer's roofline time is used).
ConfigurationModel modelConfiguration(const features::ConfigurationRecord &record, const RewardConfig &config,
                                      const support::RooflinePeaks *peaks);

} // namespace cudaperf::reward
