// `cudaperf-train compact-state`: a trainer state's compact form (TrainerState.h), for an RL arm whose
// state crosses GPU sessions inside the device's 64 MiB working tree. A state or --out that is refused
// is bad usage here (exit 2, one line): the command was pointed at the wrong folder; nothing is written
// then. A failure while writing is a failed run (exit 1, by the error's kind in the tool's main).
#include "cudaperf/Learn/TrainerState.h"

#include "cudaperf/Support/ArgParser.h"
#include "cudaperf/Support/Error.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>

namespace cudaperf::learn {

namespace fs = std::filesystem;

namespace {

const char *kCommand = "cudaperf-train compact-state";

std::string sizeLine(const std::string &dir) {
  uintmax_t total = 0;
  std::string files;
  for (const auto &[name, bytes] : trainerStateFiles(dir)) {
    total += bytes;
    files += (files.empty() ? "" : ", ") + name + " " + std::to_string(bytes);
  }
  char mb[32];
  std::snprintf(mb, sizeof mb, "%.2f MB", double(total) / 1e6);
  return dir + ": " + std::to_string(total) + " bytes (" + mb + "): " + files;
}

int refuse(const std::string &message) {
  std::cerr << kCommand << ": " << message << "\n";
  return support::ExitCodes::usage;
}

} // namespace

int runCompactStateCommand(const std::vector<std::string> &argv) {
  std::string stateDir, outDir;
  support::ArgParser p(kCommand, {"--state DIR --out DIR"},
                       "Writes the compact form of a trainer state (cudaperf-trainer-state/1): trainable and rng "
                       "as they are, no master.safetensors (loading sets the fp32 masters from the trainable "
                       "weights), AdamW moments in bfloat16, trainer_state.json with \"compact\": true. Prints "
                       "the sizes before and after. Exit 0; 2 when the state or --out is refused.");
  p.option("--state", "DIR", "the trainer state (Trainer::save's folder)", stateDir);
  p.option("--out", "DIR", "where the compact state goes: a new or empty folder", outDir);
  if (p.parse(argv).helpRequested) return std::cout << p.help(), support::ExitCodes::ok;
  if (stateDir.empty() || outDir.empty()) throw support::UsageError("--state and --out are required");
  std::error_code ec;
  if (fs::exists(outDir, ec) && !(fs::is_directory(outDir, ec) && fs::is_empty(outDir, ec)))
    return refuse("--out " + outDir + ": exists and is not an empty directory");
  CompactTrainerState compact;
  try {
    compact = readCompactTrainerState(stateDir);
  } catch (const LearnError &e) {
    return refuse(e.what());
  } catch (const nlohmann::json::exception &e) { // a field of trainer_state.json of the wrong type
    return refuse(stateDir + "/trainer_state.json: " + e.what());
  }
  writeCompactTrainerState(compact, outDir);
  std::cout << "full    " << sizeLine(stateDir) << "\n"
            << "compact " << sizeLine(outDir) << "\n";
  return support::ExitCodes::ok;
}

} // namespace cudaperf::learn
