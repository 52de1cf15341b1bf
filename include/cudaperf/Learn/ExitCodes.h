// Exit codes of cudaperf-lm and cudaperf-train (docs/policy-model.md): 0 ok, 1 failed input or run,
// 2 bad usage, 3 out of memory (so a memory-fit probe can tell "does not fit" from a failure).
#pragma once

#include "cudaperf/Learn/ModelConfig.h"
#include "cudaperf/Learn/Safetensors.h"
#include "cudaperf/Learn/Tokenizer.h"
#include "cudaperf/Learn/TorchCompat.h"
#include "cudaperf/Learn/Training.h"
#include "cudaperf/Learn/Transformer.h"
#include "cudaperf/Support/Error.h"

#include <functional>
#include <iostream>
#include <string>

namespace cudaperf::learn {

enum ExitCode { kExitOk = 0, kExitFailed = 1, kExitUsage = 2, kExitOutOfMemory = 3 };

// Runs a main's body and maps every exception to a message on stderr and an exit code.
// `usageHint` is printed after a usage error.
inline int runToolMain(const std::string &program, const std::function<int()> &body,
                       const std::function<std::string()> &usageHint = nullptr) {
  try {
    return body();
  } catch (const support::SupportError &e) { // the argv parser: bad usage
    std::cerr << program << ": " << e.what() << "\n";
    if (usageHint) std::cerr << usageHint() << "\n";
    return kExitUsage;
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
  } catch (const std::exception &e) { // ModelError, ModelConfigError, SafetensorsError, TokenizerError, ...
    std::cerr << program << ": " << e.what() << "\n";
    return kExitFailed;
  }
}

} // namespace cudaperf::learn
