// The one table of hardware metrics that cudaperf collects per kernel launch (docs/counters.md). The metric
// name (Perfworks / Nsight Compute spelling) is the key everywhere: in the collector's configuration, in the
// result documents, in the cross-check against ncu. Pure C++: no CUDA needed to read it.
#pragma once

#include <string>
#include <vector>

namespace cudaperf::counters {

// Where a value comes from. Counters go through the CUPTI range profiler; a function attribute is read from
// the launched function (cuFuncGetAttribute, or cuKernelGetAttribute for a CUkernel handle); an occupancy-API
// value is computed from the launch (cuOccupancyMaxActiveBlocksPerMultiprocessor, Occupancy.h). Only counters
// are sent to the CUPTI configuration or need a pass.
enum class MetricSource { Counter, FunctionAttribute, OccupancyApi };

struct MetricInfo {
  const char *name;        // Perfworks / ncu metric name: the key
  const char *feature;     // short snake_case name for feature vectors
  const char *unit;        // unit of the value as reported
  MetricSource source;
  const char *description; // one line; docs/counters.md repeats it verbatim
};

const std::vector<MetricInfo> &metricTable();
// nullptr when the name is not in the table.
const MetricInfo *findMetric(const std::string &name);
// Every name of the table, in table order.
std::vector<std::string> allMetricNames();
const char *metricSourceName(MetricSource source); // "counter" | "function attribute" | "occupancy API"

} // namespace cudaperf::counters
