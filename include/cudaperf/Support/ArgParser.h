// The command-line parser of the non-LLVM mains (cudaperf-eval, its worker, cudaperf-torch-
// reference, cudaperf-features, ...): options declared once with their help, so the loop, the
// error messages and --help cannot disagree.
//
//   --opt value and --opt=value; a value that starts with "--" is taken only in the = form;
//   an option given twice calls its handler twice (handlers that collect, collect);
//   "--" ends the options: everything after it is a positional argument;
//   "-" alone is a positional argument (stdin, by convention);
//   errors are UsageError (a SupportError of kind Usage): "unknown option '--x' (did you mean '--y'?)", "option '--arch'
//   needs a value (sm_XX)", "option '--jobs': expected a whole number, got 'x'".
#pragma once

#include "cudaperf/Support/Error.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace cudaperf::support {

struct ParsedArgs {
  std::vector<std::string> positional; // in order, including those after "--"
  bool helpRequested = false;          // -h or --help: print help() and exit 0
};

class ArgParser {
public:
  // `usage` lines follow "usage: PROGRAM " (one per form); `description` is a paragraph.
  ArgParser(std::string program, std::vector<std::string> usage, std::string description);

  // `names`: "--name" or "--name,-n". A handler may throw SupportError for a bad value; the
  // parser names the option in front of its message and throws it as a UsageError.
  ArgParser &flag(const std::string &names, const std::string &help, std::function<void()> onSet);
  ArgParser &flag(const std::string &names, const std::string &help, bool &target);
  ArgParser &option(const std::string &names, const std::string &valueName, const std::string &help,
                    std::function<void(const std::string &)> onValue);
  ArgParser &option(const std::string &names, const std::string &valueName, const std::string &help,
                    std::string &target);
  // A paragraph printed after the options (exit codes, examples).
  ArgParser &epilog(std::string text);

  // Throws UsageError on bad usage; the caller prints it with usageHint() and exits 2.
  ParsedArgs parse(int argc, const char *const *argv) const;
  ParsedArgs parse(const std::vector<std::string> &args) const; // without argv[0]
  // parse() for a main: --help prints help() on stdout and exits 0; bad usage prints
  // "PROGRAM: MESSAGE" and usageHint() on stderr and exits `usageExit`.
  ParsedArgs parseOrExit(int argc, const char *const *argv, int usageExit = 2) const;
  // "PROGRAM: MESSAGE" and usageHint() on stderr, then exit(usageExit).
  [[noreturn]] void usageError(const std::string &message, int usageExit = 2) const;

  std::string help() const;
  // "usage: ...\nTry 'PROGRAM --help' for more." for after an error message.
  std::string usageHint() const;
  const std::string &program() const { return program_; }

private:
  struct Spec {
    std::vector<std::string> names;
    std::string valueName; // empty: a flag
    std::string help;
    std::function<void(const std::string &)> onValue;
  };
  const Spec *findSpec(const std::string &name) const;
  std::string suggest(const std::string &name) const;

  std::string program_;
  std::vector<std::string> usage_;
  std::string description_;
  std::string epilog_;
  std::vector<Spec> specs_;
};

// Value conversions for option handlers; each throws UsageError "expected ..., got 'TEXT'".
double parseNumber(const std::string &text, double min = -1e308, double max = 1e308);
int64_t parseInteger(const std::string &text, int64_t min = INT64_MIN, int64_t max = INT64_MAX);
uint64_t parseUnsigned(const std::string &text);
bool parseOnOff(const std::string &text); // "on" or "off"

} // namespace cudaperf::support
