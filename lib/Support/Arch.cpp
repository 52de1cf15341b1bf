#include "cudaperf/Support/Arch.h"

#include <cctype>

namespace cudaperf::support {

namespace {

bool allDigits(std::string_view s) {
  if (s.empty())
    return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
  return true;
}

int toInt(std::string_view digits) {
  int n = 0;
  for (char c : digits)
    n = n * 10 + (c - '0');
  return n;
}

} // namespace

std::string ComputeCapability::smName() const { return "sm_" + std::to_string(number()) + suffix; }

std::optional<ComputeCapability> parseArch(std::string_view s) {
  for (std::string_view prefix : {"sm_", "compute_", "sm", "compute"})
    if (s.substr(0, prefix.size()) == prefix) {
      s.remove_prefix(prefix.size());
      break;
    }
  ComputeCapability cc;
  if (size_t dot = s.find('.'); dot != std::string_view::npos) { // "9.0"
    std::string_view major = s.substr(0, dot), minor = s.substr(dot + 1);
    if (!allDigits(major) || !allDigits(minor) || major.size() > 2 || minor.size() > 1)
      return std::nullopt;
    cc.major = toInt(major);
    cc.minor = toInt(minor);
    return cc;
  }
  size_t digits = 0; // "90", "90a", "100f"
  while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits])))
    ++digits;
  if (digits < 2 || digits > 3)
    return std::nullopt;
  std::string_view rest = s.substr(digits);
  if (!(rest.empty() || rest == "a" || rest == "f"))
    return std::nullopt;
  int number = toInt(s.substr(0, digits));
  cc.major = number / 10;
  cc.minor = number % 10;
  cc.suffix = std::string(rest);
  return cc;
}

std::optional<ComputeCapability> parseSmTarget(std::string_view text) {
  if (text.substr(0, 3) != "sm_" || text.find('.') != std::string_view::npos)
    return std::nullopt;
  std::optional<ComputeCapability> cc = parseArch(text);
  if (!cc || cc->suffix == "f" || cc->number() < 30 || cc->number() >= 200)
    return std::nullopt;
  return cc;
}

} // namespace cudaperf::support
