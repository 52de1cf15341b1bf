// The reward document, `cudaperf-reward/1` (docs/reward.md): what lib/Reward computes for one
// candidate and cudaperf-reward writes (one document, a --batch record's "reward", the service's
// response, the RL trainer's `reward_document`). One typed definition that the writer fills and
// every reader reads.
//
// The wire format as lib/Reward writes it: most keys are always written, some with null when the
// value is unknown (`total`, a term's `value`, a configuration's `speedup`, ...): those are
// std::optional and required on read (present, null allowed). Keys written only in some cases
// (`gate_reason`, `exclude_reason`, `feedback`, a term's `missing`, a configuration's `static`,
// `measured`, `speedup_vs_baseline`, ...) are optional on read and written only when set;
// `provisional` is absent from documents written before issue 33. A term's `inputs` is kept as JSON:
// each term names its own inputs.
//
// The round trip is exact: fromJson keeps unknown keys (`extra`) and each object's key order
// (`keyOrder`), and toJson writes them back where they were, so a stored document reads and writes
// back byte-identically (test/schema pins this over every stored reward document in the
// repository). Readers fail with the field path: `configurations[1].static.launches[0].index:
// expected a whole number, got "x"`.
#pragma once

#include "cudaperf/Support/Json.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cudaperf::schema {

using support::Json;

inline constexpr const char *kRewardSchema = "cudaperf-reward/1";

// The keys of an object in the order they were read; empty: the writer's own order.
using KeyOrder = std::vector<std::string>;

// terms[i]: one weighted term; the total is the sum of the contributions.
struct RewardTerm {
  std::string name;            // "speedup", "coalescing", ...
  std::string group;           // "outcome", "speed", "structural", "penalty", "counters", "learned"
  std::optional<double> value; // null: unknown (it then counts as neutral, docs/reward.md)
  double weight = 0;
  double contribution = 0;     // what it adds to the total
  std::string missing;         // why value is unknown; written when not empty
  Json inputs = Json::object(); // what the term used; each term its own keys
  Json extra = Json::object();
  KeyOrder keyOrder;
};

// configurations[i].static.launches[j]: the static time model of one launch.
struct RewardLaunch {
  int64_t index = 0;
  std::string kernel;
  bool modeled = false;
  std::optional<std::string> reason; // why not modeled
  // Written when modeled.
  std::optional<double> modeledTimeUs, rooflineTimeUs, dramTimeUs, sharedTimeUs, atomicTimeUs;
  double utilization = 1;
  std::optional<std::vector<std::string>> assumptions; // written when not empty
  Json extra = Json::object();
  KeyOrder keyOrder;
};

// configurations[i].static: the static time model at one configuration.
struct RewardStaticModel {
  bool modeled = false;
  std::optional<std::string> reason;
  // Always written, null when unknown (the times are null when not modeled).
  std::optional<double> modeledTimeUs, rooflineTimeUs, predictedRooflineFraction, coalescingEfficiency,
      bankEfficiency, utilization, predictedSectorsPerRequest, idealSectorsPerRequest;
  int64_t divergentBarriers = 0, missingBarriers = 0;
  std::vector<RewardLaunch> launches;
  Json extra = Json::object();
  KeyOrder keyOrder;
};

// configurations[i].measured: the counters (written when collected); each null when unknown.
struct RewardMeasured {
  std::optional<double> sectorsPerRequest, achievedOccupancy, achievedRooflineFraction;
  Json extra = Json::object();
  KeyOrder keyOrder;
};

// configurations[i]: one configuration as the reward saw it.
struct RewardConfiguration {
  std::string name;
  double weight = 1;
  std::vector<std::pair<std::string, double>> params; // in the document's order
  std::optional<bool> correct;                          // null: not run
  std::optional<double> speedup;                        // null when unknown
  bool tie = false;
  std::optional<double> speedupVsBaseline; // pytorch-to-cuda: written with tie_vs_baseline
  std::optional<bool> tieVsBaseline;
  std::optional<double> medianMs, spread, predictedSpeedup; // null when unknown
  std::optional<RewardStaticModel> staticModel;             // "static"
  std::optional<RewardMeasured> measured;
  Json extra = Json::object();
  KeyOrder keyOrder;
};

// `config`: the reward config the document was computed with.
struct RewardConfigIdentity {
  std::string name, sha256;
  Json extra = Json::object();
  KeyOrder keyOrder;
};

struct RewardDocument {
  std::string schema = kRewardSchema;
  std::string task, taskKind, candidate, candidateSha256;
  std::string mode;    // "measured", "static-only" or "not-run"
  std::string outcome; // the eval result's outcome, or "no_code_block"
  std::string detail;
  std::optional<std::string> gate;       // null: passed every gate
  std::optional<std::string> gateReason; // written when gated
  std::optional<double> total;           // null: excluded (internal_error)
  bool exclude = false;
  std::optional<bool> provisional;         // always written since issue 33
  std::optional<std::string> excludeReason; // written when excluded
  std::vector<RewardTerm> terms;
  std::vector<RewardConfiguration> configurations;
  std::vector<std::string> warnings;
  RewardConfigIdentity config;
  std::optional<std::string> feedback; // written when not empty
  Json extra = Json::object();         // unknown keys, kept for the round trip
  KeyOrder keyOrder;

  // Reads a document; `document` names it in errors ("reward.json"). Throws support::SupportError
  // "DOCUMENT: PATH: WHAT" for a wrong schema, a missing required key or a wrong type.
  static RewardDocument fromJson(const Json &doc, const std::string &document = "reward document");
  Json toJson() const;

  const RewardTerm *term(const std::string &name) const;
};

} // namespace cudaperf::schema
