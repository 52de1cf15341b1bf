// Supervised fine-tuning's configuration (docs/training.md, "cudaperf-train sft"): one struct holding every
// option of `cudaperf-train sft`, read from a JSON config file (snake_case keys named after the flags;
// unknown keys are errors that name the key), the flags and `--set KEY=VALUE` overrides, and written back
// whole into OUT/sft-config.json and sft-report.json so a run says what it was. No LibTorch. The
// data-parallel options (rank, world size, store) are the process's, not the run's: they stay outside.
#pragma once

#include "cudaperf/Learn/ConfigFields.h"
#include "cudaperf/Learn/Error.h"
#include "cudaperf/Support/Json.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cudaperf::learn {

struct SftConfig {
  // Data.
  std::string dataset;                   // manifest.jsonl of cudaperf-dataset generate (required)
  std::string out;                       // output folder (required)
  std::string kinds = "c,pytorch";
  bool refinementExamples = true;        // a slow implementation with its feedback, then a fast one
  bool repairExamples = true;            // a broken implementation with its feedback, then the intact one
  std::string measuredExamples = "none"; // folder of measured results: slowest measured + its real feedback, then fastest
  int64_t maxSeqLen = 2048;              // longer examples are dropped
  std::string dumpExamples;              // JSON Lines of the examples kept; empty: none
  bool dryRun = false;                   // build and count the examples, write the report, stop before the model
  // Tokenizer and model.
  std::string init;                      // a Hugging Face checkpoint to fine-tune; empty: a new model
  std::string tokenizer;                 // a folder with tokenizer.json; empty: trained here (unless init/resume)
  std::string modelConfig;               // config.json of a new model; empty: the built-in ~23M shape
  int64_t vocab = 8192;                  // vocabulary of a tokenizer trained here
  double tokenizerSampleMb = 8;
  std::string device = "cuda";
  std::string dtype = "bfloat16";
  int64_t loraRank = 0;                  // 0: full fine-tuning
  double loraAlpha = 0;                  // 0: 2 x rank
  double loraDropout = 0;
  std::string loraTargets;               // empty: q_proj,k_proj,v_proj,o_proj
  bool gradientCheckpointing = false;
  // The run.
  double epochs = 3;                     // unless steps
  int64_t steps = 0;                     // 0: from epochs
  double maxSeconds = 0;                 // 0: no time budget
  int64_t batchTokens = 32768;
  int64_t microBatchTokens = 16384;
  double lr = 1e-3;
  int64_t warmup = 100;
  double minLrRatio = 0.1;
  double weightDecay = 0.1;
  double gradClip = 1.0;
  int64_t evalEvery = 200;
  int64_t evalBatches = 16;
  int64_t saveEvery = 0;                 // 0: the state only at the end
  std::string resume;                    // a trainer state folder to continue from
  int64_t stopAfterSteps = 0;            // 0: run the schedule to its end
  uint64_t seed = 0;
  int64_t threads = 1;
  double maxShardMb = 15;
};

// Every key with its type, meaning and default, in the order of the table.
using SftConfigKeyInfo = ConfigKeyInfo;
std::vector<SftConfigKeyInfo> sftConfigKeys();

// {"schema": "cudaperf-sft-config/1", every key}.
support::Json sftConfigToJson(const SftConfig &config);
// Applies the keys of `doc` (an object) over `config`; throws LearnError naming `source`, the key and the
// value (unknown key, wrong type, out of range).
void applySftConfigJson(SftConfig &config, const support::Json &doc, const std::string &source);
// Defaults, then the keys of `doc`.
SftConfig sftConfigFromJson(const support::Json &doc, const std::string &source);
SftConfig loadSftConfig(const std::string &path); // defaults, then the file
// KEY=VALUE: VALUE read as JSON when it parses, else as a string (strings are always taken as written).
void applySftConfigOverride(SftConfig &config, const std::string &assignment);

} // namespace cudaperf::learn
