#include "cudaperf/Learn/RlAdvantages.h"

#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

namespace cudaperf::learn {

std::vector<std::optional<double>> groupAdvantages(const std::vector<TurnReturn> &returns, const std::string &scale) {
  if (scale != "std" && scale != "none") throw std::invalid_argument("advantage_scale: unknown \"" + scale + "\"");
  struct Moments {
    double sum = 0, sumSquares = 0;
    size_t count = 0;
  };
  std::map<std::pair<size_t, size_t>, Moments> byGroupTurn;
  for (const TurnReturn &r : returns)
    if (r.value) {
      Moments &m = byGroupTurn[{r.group, r.turn}];
      m.sum += *r.value;
      m.sumSquares += *r.value * *r.value;
      ++m.count;
    }
  std::vector<std::optional<double>> out(returns.size());
  for (size_t i = 0; i < returns.size(); ++i) {
    const TurnReturn &r = returns[i];
    if (!r.value) continue;
    const Moments &m = byGroupTurn[{r.group, r.turn}];
    if (m.count < 2) {
      out[i] = 0.0; // nothing to compare with: no signal
      continue;
    }
    double mean = m.sum / double(m.count);
    double variance = std::max(0.0, m.sumSquares / double(m.count) - mean * mean);
    double a = *r.value - mean;
    if (scale == "std") a /= std::sqrt(variance) + 1e-6;
    out[i] = a;
  }
  return out;
}

std::vector<double> lossTokenWeights(const std::vector<size_t> &tokens, const std::vector<size_t> &group,
                                     const std::string &normalization) {
  if (tokens.size() != group.size()) throw std::invalid_argument("lossTokenWeights: tokens and group differ in size");
  std::vector<double> w(tokens.size(), 0.0);
  if (normalization == "token") {
    size_t total = 0;
    for (size_t n : tokens) total += n;
    for (size_t i = 0; i < tokens.size(); ++i)
      if (tokens[i]) w[i] = 1.0 / double(total);
  } else if (normalization == "sequence") {
    size_t count = 0;
    for (size_t n : tokens) count += n > 0;
    for (size_t i = 0; i < tokens.size(); ++i)
      if (tokens[i]) w[i] = 1.0 / (double(count) * double(tokens[i]));
  } else if (normalization == "group") {
    std::map<size_t, size_t> groupTokens;
    for (size_t i = 0; i < tokens.size(); ++i)
      if (tokens[i]) groupTokens[group[i]] += tokens[i];
    for (size_t i = 0; i < tokens.size(); ++i)
      if (tokens[i]) w[i] = 1.0 / (double(groupTokens.size()) * double(groupTokens[group[i]]));
  } else {
    throw std::invalid_argument("loss_normalization: unknown \"" + normalization + "\" (token, sequence or group)");
  }
  return w;
}

} // namespace cudaperf::learn
