// The error model of the non-LLVM side (docs/architecture.md, "Errors and exit codes"): every
// error says what failed -- the command line (usage), an input file or document (input), or the
// program itself (internal) -- and a main turns that kind, not the exception's type, into its exit
// code. SupportError is lib/Support's one exception type and carries the kind; its message names
// the input at fault (the file, the JSON field path or line, the option) and what was wrong with it.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

namespace cudaperf::support {

enum class ErrorKind {
  Usage,    // bad flags or arguments: exit 2, with the "Try 'PROGRAM --help'" hint
  Input,    // a file or document that is missing, unreadable, corrupt or invalid; a run that failed: exit 1
  Internal, // a bug or broken invariant of ours (std::logic_error included): exit 70, "internal error"
};

// The exit codes every non-LLVM main shares. Tools may add their own codes above 2 (documented in
// their --help and docs page, e.g. 3 "out of memory" for cudaperf-lm/-train); 70 is EX_SOFTWARE of
// sysexits.h.
struct ExitCodes {
  static constexpr int ok = 0, input = 1, usage = 2, internal = 70;
};

int exitCodeFor(ErrorKind kind);
const char *errorKindName(ErrorKind kind); // "usage", "input", "internal"

class SupportError : public std::runtime_error {
public:
  // Most of lib/Support's errors are about an input (parseJson, readRegularFile, JsonReader): the default.
  explicit SupportError(const std::string &message, ErrorKind kind = ErrorKind::Input)
      : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

private:
  ErrorKind kind_;
};

// Bad usage: what the argv parser and a main's argument checks throw.
class UsageError : public SupportError {
public:
  explicit UsageError(const std::string &message) : SupportError(message, ErrorKind::Usage) {}
};

// The kind of any exception: a SupportError's own kind; a std::logic_error (std::out_of_range from
// .at(), std::invalid_argument, ...) is a bug: Internal; any other exception is Input -- the
// libraries' own error types (runtime::TaskError, features::FeaturesError, learn::LearnError, ...)
// report bad inputs and failed runs, nlohmann's exceptions a document of the wrong shape, and
// std::bad_alloc a run that failed (a tool may give out of memory its own code, as cudaperf-lm's 3).
ErrorKind errorKindOf(const std::exception &e);

// Runs `body` and, when it throws, throws a SupportError with "CONTEXT: " in front of the message
// and the error's kind (errorKindOf): the way to name the file, line or field an error came from
// without changing what failed. The exception's own type is not kept, so wrap only code whose
// errors are all about the input (parsing a file or a line), not code that may run out of memory.
template <class Body> auto withErrorContext(const std::string &context, Body &&body) -> decltype(body()) {
  try {
    return std::forward<Body>(body)();
  } catch (const std::exception &e) {
    throw SupportError(context + ": " + e.what(), errorKindOf(e));
  }
}

// The boundary of a main: prints "PROGRAM: MESSAGE" (Usage: followed by `usageHint` when given;
// Internal: "PROGRAM: internal error: MESSAGE") on stderr and returns exitCodeFor(errorKindOf(e)).
int reportError(const std::string &program, const std::exception &e, const std::string &usageHint = "");

} // namespace cudaperf::support
