// The mains of cudaperf-lm and cudaperf-train: subcommand dispatch and the exit codes
// (docs/policy-model.md, docs/architecture.md "Errors and exit codes"): 0 ok, 1 failed input or run,
// 2 bad usage, 3 out of memory (so a memory-fit probe can tell "does not fit" from a failure),
// 70 internal error. The code follows the error's kind (support::errorKindOf), not which library threw.
#pragma once

#include "cudaperf/Learn/ModelConfig.h"
#include "cudaperf/Learn/Safetensors.h"
#include "cudaperf/Learn/Tokenizer.h"
#include "cudaperf/Learn/TorchCompat.h"
#include "cudaperf/Learn/Training.h"
#include "cudaperf/Learn/Transformer.h"
#include "cudaperf/Support/Error.h"
#include "cudaperf/Support/Subprocess.h"

#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace cudaperf::learn {

enum ExitCode { kExitOk = 0, kExitFailed = 1, kExitUsage = 2, kExitOutOfMemory = 3, kExitInternal = 70 };

// Runs a main's body and maps every exception to a message on stderr and an exit code: out of memory
// is 3, a LibTorch error 1, everything else by its kind (support::reportError: a UsageError is 2 with
// `usageHint` after it, a corrupt input file 1, a std::logic_error 70).
inline int runToolMain(const std::string &program, const std::function<int()> &body,
                       const std::function<std::string()> &usageHint = nullptr) {
  try {
    return body();
  } catch (const c10::Error &e) {
    std::string what = e.what_without_backtrace();
    if (compat::isOutOfMemory(e)) {
      std::cerr << program << ": out of memory: " << what.substr(0, what.find('\n')) << "\n";
      return kExitOutOfMemory;
    }
    std::cerr << program << ": LibTorch error: " << what.substr(0, 2000) << "\n";
    return kExitFailed;
  } catch (const std::bad_alloc &) {
    std::cerr << program << ": out of host memory\n";
    return kExitOutOfMemory;
  } catch (const std::exception &e) { // SupportError by its kind; ModelError, SafetensorsError, ...: input
    return support::reportError(program, e, usageHint ? usageHint() : std::string());
  }
}

struct Subcommand {
  std::string name, summary;
  std::function<int(const std::vector<std::string> &args)> run;
};

// PROGRAM COMMAND [options]: runs the command's handler under runToolMain; no command or an unknown
// one is bad usage, `help` / --help lists the commands.
inline int runSubcommands(const std::string &program, int argc, char **argv, const std::vector<Subcommand> &commands) {
  support::reportFatalSignals(program.c_str()); // a crash names itself and its stack, and takes its children along
  std::string command = argc > 1 ? argv[1] : "";
  std::vector<std::string> args(argv + std::min(argc, 2), argv + argc);
  std::string names;
  for (const Subcommand &c : commands) names += (names.empty() ? "" : "|") + c.name;
  std::string usage = "usage: " + program + " " + names + " [options]   (--help after a command)\n";
  if (command.empty() || command == "--help" || command == "-h" || command == "help") {
    std::cout << usage;
    for (const Subcommand &c : commands) std::cout << "  " << c.name << std::string(10 - std::min<size_t>(9, c.name.size()), ' ') << c.summary << "\n";
    std::cout << "Exit codes: 0 ok, 1 failed input or run, 2 bad usage, 3 out of memory, 70 internal error.\n";
    return command.empty() ? kExitUsage : kExitOk;
  }
  auto hint = [&] { return "Try '" + program + " " + command + " --help'."; };
  return runToolMain(program, [&]() -> int {
    for (const Subcommand &c : commands)
      if (c.name == command) return c.run(args);
    throw support::UsageError("unknown command '" + command + "'\n" + usage);
  }, hint);
}

} // namespace cudaperf::learn
