// The numeric feature vectors `cudaperf-features/1` (docs/features.md): one per launch and one per
// candidate × configuration. Each feature is a row of a table (name, unit, source, definition,
// and the function that computes it), so the documentation, the JSON names and the numeric order
// cannot drift apart. A value that cannot be known is missing: null in JSON, NaN with mask 0 in the
// numeric form; never 0 by accident.
#pragma once

#include "cudaperf/Features/AnalysisDocument.h"
#include "cudaperf/Features/EvalDocument.h"
#include "cudaperf/Features/Join.h"
#include "cudaperf/Support/GpuTable.h"
#include "cudaperf/Support/Json.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::features {

constexpr const char *kFeaturesSchema = "cudaperf-features/1";

// Where a feature's value comes from.
enum class FeatureSource { Analysis, Counters, EvalResult };
const char *featureSourceName(FeatureSource s); // "analysis", "counters", "eval result"

// What one launch's features are computed from.
struct LaunchInputs {
  const LaunchReport *launch = nullptr;
  const KernelReport *report = nullptr;       // the kernel analysed at exactly this launch
  const MeasuredLaunch *measuredLaunch = nullptr;
  const MeasuredKernel *counters = nullptr;   // the joined kernel's counters
  const support::RooflinePeaks *peaks = nullptr; // of the measuring GPU (or the analysis's arch)
};

using FeatureValue = std::optional<double>;

template <typename Inputs> struct FeatureSpec {
  const char *name;
  const char *unit;
  FeatureSource source;
  const char *definition;
  std::function<FeatureValue(const Inputs &)> compute;
};

// Values aligned with a spec table.
struct FeatureValues {
  std::vector<FeatureValue> values;

  // NaN where missing, with mask 0 there and 1 elsewhere.
  struct Numeric {
    std::vector<double> values;
    std::vector<unsigned char> mask;
  };
  Numeric numeric() const;
};

const std::vector<FeatureSpec<LaunchInputs>> &launchFeatureSpecs();
FeatureValues computeLaunchFeatures(const LaunchInputs &inputs);

// What one candidate × configuration's features are computed from.
struct ConfigurationInputs {
  const ConfigurationAnalysis *analysis = nullptr;
  const std::vector<FeatureValues> *launchFeatures = nullptr; // per launch, in order
  const JoinReport *join = nullptr;
  const EvalResult *result = nullptr;                // null without --result
  const EvalConfiguration *measured = nullptr;       // this configuration in the result
  const support::RooflinePeaks *peaks = nullptr;     // as LaunchInputs::peaks
};

const std::vector<FeatureSpec<ConfigurationInputs>> &configurationFeatureSpecs();
FeatureValues computeConfigurationFeatures(const ConfigurationInputs &inputs);

// {"name": value or null, ...} in table order.
template <typename Inputs>
support::Json featuresToJson(const std::vector<FeatureSpec<Inputs>> &specs, const FeatureValues &values);

// The value of the feature called `name` in `values` (for callers that want one by name);
// throws FeaturesError for a name the table does not have.
FeatureValue launchFeature(const FeatureValues &values, const std::string &name);
FeatureValue configurationFeature(const FeatureValues &values, const std::string &name);

// Both tables as Markdown (index, name, unit, source, definition): docs/features.md carries this
// text verbatim (a test checks), `cudaperf-features --list-features` prints it.
std::string featureTablesMarkdown();

// The peaks used for measured roofline times: the device the result names ("NVIDIA H200" ->
// H200), else the default device of its arch, else of the analysis's arch; null when none has peaks.
const support::RooflinePeaks *rooflinePeaksFor(const EvalResult *result, const std::string &analysisArch);

} // namespace cudaperf::features
