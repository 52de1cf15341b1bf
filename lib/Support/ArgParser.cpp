#include "cudaperf/Support/ArgParser.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace cudaperf::support {

namespace {

std::vector<std::string> splitNames(const std::string &names) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= names.size()) {
    size_t comma = names.find(',', start);
    if (comma == std::string::npos)
      comma = names.size();
    if (comma > start)
      out.push_back(names.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

size_t editDistance(const std::string &a, const std::string &b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// Indents continuation lines of a help text to `column`.
std::string indentLines(const std::string &text, size_t column) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\n')
      out.append(column, ' ');
  }
  return out;
}

std::string formatNumber(double d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", d);
  return buf;
}

// "at least 1", "at most 9", "from 1 to 9", for a range whose open ends are the type's limits.
template <typename T> std::string rangeText(T min, T max, T lowest, T highest, std::string (*str)(T)) {
  if (min == lowest)
    return "at most " + str(max);
  if (max == highest)
    return "at least " + str(min);
  return "from " + str(min) + " to " + str(max);
}

std::string integerText(int64_t v) { return std::to_string(v); }

} // namespace

ArgParser::ArgParser(std::string program, std::vector<std::string> usage, std::string description)
    : program_(std::move(program)), usage_(std::move(usage)), description_(std::move(description)) {}

ArgParser &ArgParser::flag(const std::string &names, const std::string &help, std::function<void()> onSet) {
  specs_.push_back({splitNames(names), "", help, [onSet](const std::string &) { onSet(); }});
  return *this;
}

ArgParser &ArgParser::flag(const std::string &names, const std::string &help, bool &target) {
  return flag(names, help, [&target] { target = true; });
}

ArgParser &ArgParser::option(const std::string &names, const std::string &valueName,
                             const std::string &help, std::function<void(const std::string &)> onValue) {
  specs_.push_back({splitNames(names), valueName.empty() ? "VALUE" : valueName, help, std::move(onValue)});
  return *this;
}

ArgParser &ArgParser::option(const std::string &names, const std::string &valueName,
                             const std::string &help, std::string &target) {
  return option(names, valueName, help, [&target](const std::string &v) { target = v; });
}

ArgParser &ArgParser::epilog(std::string text) {
  epilog_ = std::move(text);
  return *this;
}

const ArgParser::Spec *ArgParser::findSpec(const std::string &name) const {
  for (const Spec &s : specs_)
    if (std::find(s.names.begin(), s.names.end(), name) != s.names.end())
      return &s;
  return nullptr;
}

std::string ArgParser::suggest(const std::string &name) const {
  std::string best;
  size_t bestDistance = 3; // closer than this to be worth suggesting
  for (const Spec &s : specs_)
    for (const std::string &n : s.names)
      if (size_t d = editDistance(name, n); d < bestDistance) {
        bestDistance = d;
        best = n;
      }
  return best;
}

ParsedArgs ArgParser::parse(int argc, const char *const *argv) const {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i)
    args.emplace_back(argv[i]);
  return parse(args);
}

ParsedArgs ArgParser::parse(const std::vector<std::string> &args) const {
  ParsedArgs parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &arg = args[i];
    if (arg == "--") {
      parsed.positional.insert(parsed.positional.end(), args.begin() + i + 1, args.end());
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      parsed.positional.push_back(arg);
      continue;
    }
    std::string name = arg, value;
    bool inlineValue = false;
    if (size_t eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inlineValue = true;
    }
    if ((name == "--help" || name == "-h") && !findSpec(name)) {
      parsed.helpRequested = true;
      continue;
    }
    const Spec *spec = findSpec(name);
    if (!spec) {
      std::string hint = suggest(name);
      throw UsageError("unknown option '" + name + "'" +
                         (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
    if (spec->valueName.empty()) {
      if (inlineValue)
        throw UsageError("option '" + name + "' takes no value (got '" + value + "')");
    } else if (!inlineValue) {
      if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0)
        throw UsageError("option '" + name + "' needs a value (" + spec->valueName + ")");
      value = args[++i];
    }
    try {
      spec->onValue(value);
    } catch (const SupportError &e) { // whatever a handler refuses is a bad value: usage
      throw UsageError("option '" + name + "': " + e.what());
    }
  }
  return parsed;
}

ParsedArgs ArgParser::parseOrExit(int argc, const char *const *argv, int usageExit) const {
  ParsedArgs parsed;
  try {
    parsed = parse(argc, argv);
  } catch (const SupportError &e) {
    usageError(e.what(), usageExit);
  }
  if (parsed.helpRequested) {
    std::fputs(help().c_str(), stdout);
    std::exit(0);
  }
  return parsed;
}

void ArgParser::usageError(const std::string &message, int usageExit) const {
  std::fprintf(stderr, "%s: %s\n%s", program_.c_str(), message.c_str(), usageHint().c_str());
  std::exit(usageExit);
}

std::string ArgParser::help() const {
  std::string out;
  for (size_t i = 0; i < usage_.size(); ++i)
    out += (i ? "       " : "usage: ") + program_ + " " + usage_[i] + "\n";
  if (!description_.empty())
    out += "\n" + description_ + "\n";
  std::vector<std::string> labels;
  size_t width = 0;
  for (const Spec &s : specs_) {
    std::string label;
    for (const std::string &n : s.names)
      label += (label.empty() ? "" : ", ") + n;
    if (!s.valueName.empty())
      label += " " + s.valueName;
    width = std::max(width, label.size());
    labels.push_back(label);
  }
  width = std::min<size_t>(width, 26);
  out += "\noptions:\n";
  for (size_t i = 0; i < specs_.size(); ++i) {
    std::string line = "  " + labels[i];
    if (labels[i].size() > width)
      line += "\n" + std::string(width + 4, ' ');
    else
      line.append(width + 4 - line.size(), ' ');
    out += line + indentLines(specs_[i].help, width + 4) + "\n";
  }
  std::string helpLabel = "-h, --help";
  out += "  " + helpLabel + std::string(width + 2 > helpLabel.size() ? width + 2 - helpLabel.size() : 1, ' ') +
         "this text\n";
  if (!epilog_.empty())
    out += "\n" + epilog_ + (epilog_.back() == '\n' ? "" : "\n");
  return out;
}

std::string ArgParser::usageHint() const {
  std::string out;
  for (size_t i = 0; i < usage_.size(); ++i)
    out += (i ? "       " : "usage: ") + program_ + " " + usage_[i] + "\n";
  return out + "Try '" + program_ + " --help' for more.\n";
}

double parseNumber(const std::string &text, double min, double max) {
  errno = 0;
  char *end = nullptr;
  double d = std::strtod(text.c_str(), &end);
  if (text.empty() || *end || errno == ERANGE || !std::isfinite(d))
    throw UsageError("expected a number, got '" + text + "'");
  if (d < min || d > max)
    throw UsageError("expected a number " + rangeText<double>(min, max, -1e308, 1e308, formatNumber) +
                       ", got '" + text + "'");
  return d;
}

int64_t parseInteger(const std::string &text, int64_t min, int64_t max) {
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end || errno == ERANGE)
    throw UsageError("expected a whole number, got '" + text + "'");
  if (v < min || v > max)
    throw UsageError("expected a whole number " +
                       rangeText<int64_t>(min, max, INT64_MIN, INT64_MAX, integerText) + ", got '" + text + "'");
  return v;
}

bool parseOnOff(const std::string &text) {
  if (text != "on" && text != "off")
    throw UsageError("expected on or off, got '" + text + "'");
  return text == "on";
}

uint64_t parseUnsigned(const std::string &text) {
  errno = 0;
  char *end = nullptr;
  if (text.empty() || text[0] == '-')
    throw UsageError("expected a whole number >= 0, got '" + text + "'");
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (*end || errno == ERANGE)
    throw UsageError("expected a whole number >= 0, got '" + text + "'");
  return v;
}

} // namespace cudaperf::support
