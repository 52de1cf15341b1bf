// A pre-tokenizer regex on PCRE2 (UTF + UCP, JIT-compiled where available). Hugging Face runs
// these patterns on Oniguruma; the two agree on the patterns of GPT-2, Qwen2 and Llama 3 once
// \s means Unicode White_Space (PCRE2's UCP \s also takes U+180E), which the pattern is rewritten
// to say. Matches are iterated as Hugging Face's onig binding does (an empty match right after
// a match is skipped).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>
#include <memory>
#include <string>
#include <string_view>

namespace cudaperf::learn {

class PreTokenizerRegex {
public:
  explicit PreTokenizerRegex(const std::string &pattern); // throws TokenizerError
  // The matches in valid UTF-8 `subject`, left to right, as (begin, end) byte offsets.
  void findAll(std::string_view subject, std::vector<std::pair<size_t, size_t>> &matches) const;
  const std::string &pattern() const { return pattern_; }

private:
  std::string pattern_;
  std::shared_ptr<void> code_; // pcre2_code_8, freed by pcre2_code_free
  bool jit_ = false;           // JIT-compiled: matched with pcre2_jit_match, without pcre2_match's checks
};

// `pattern` with \s (anywhere) and \S (outside classes) spelled as Unicode White_Space sets.
std::string withUnicodeWhiteSpace(const std::string &pattern);

// A literal Split pattern as a regex (Hugging Face escapes it the same way).
std::string escapeRegexLiteral(std::string_view literal);

} // namespace cudaperf::learn
