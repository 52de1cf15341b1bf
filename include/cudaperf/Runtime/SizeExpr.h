// Element counts of task arguments are integer expressions over the task's size parameters:
// "n", "rows * cols", "(n + 255) / 256". Parsed once when the task is loaded, evaluated per
// input configuration with overflow checks.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>

namespace cudaperf::runtime {

class SizeExprError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class SizeExpr {
public:
  SizeExpr() = default;
  static SizeExpr parse(const std::string &text); // throws SizeExprError

  int64_t evaluate(const std::map<std::string, double> &params) const; // throws SizeExprError
  const std::set<std::string> &names() const { return names_; }
  const std::string &text() const { return text_; }

  struct Node;

private:
  std::shared_ptr<const Node> root_;
  std::set<std::string> names_;
  std::string text_;
};

} // namespace cudaperf::runtime
