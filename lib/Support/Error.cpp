#include "cudaperf/Support/Error.h"

#include <iostream>

namespace cudaperf::support {

int exitCodeFor(ErrorKind kind) {
  switch (kind) {
  case ErrorKind::Usage:
    return ExitCodes::usage;
  case ErrorKind::Input:
    return ExitCodes::input;
  case ErrorKind::Internal:
    return ExitCodes::internal;
  }
  return ExitCodes::internal;
}

const char *errorKindName(ErrorKind kind) {
  switch (kind) {
  case ErrorKind::Usage:
    return "usage";
  case ErrorKind::Input:
    return "input";
  case ErrorKind::Internal:
    return "internal";
  }
  return "internal";
}

ErrorKind errorKindOf(const std::exception &e) {
  if (const auto *s = dynamic_cast<const SupportError *>(&e))
    return s->kind();
  if (dynamic_cast<const std::logic_error *>(&e))
    return ErrorKind::Internal;
  return ErrorKind::Input;
}

int reportError(const std::string &program, const std::exception &e, const std::string &usageHint) {
  ErrorKind kind = errorKindOf(e);
  std::cerr << program << ": " << (kind == ErrorKind::Internal ? "internal error: " : "") << e.what() << "\n";
  if (kind == ErrorKind::Usage && !usageHint.empty())
    std::cerr << usageHint << (usageHint.back() == '\n' ? "" : "\n");
  return exitCodeFor(kind);
}

} // namespace cudaperf::support
