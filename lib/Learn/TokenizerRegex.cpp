#include "TokenizerRegex.h"

#include "TokenizerUtf8.h"
#include "cudaperf/Learn/Tokenizer.h"

#include <pcre2.h>

namespace cudaperf::learn {

namespace {
constexpr const char *kWhiteSpaceSet =
    R"(\t-\r\x{20}\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000})";

std::string pcre2Message(int code) {
  PCRE2_UCHAR buffer[256];
  pcre2_get_error_message(code, buffer, sizeof buffer);
  return reinterpret_cast<const char *>(buffer);
}

// One per thread: pcre2_match needs scratch space, and encode() may run on several threads.
// One ovector pair is enough, since only the whole match is read.
pcre2_match_data *threadMatchData() {
  thread_local std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> data(
      pcre2_match_data_create(1, nullptr), &pcre2_match_data_free);
  return data.get();
}
} // namespace

std::string withUnicodeWhiteSpace(const std::string &pattern) {
  std::string out;
  out.reserve(pattern.size() + 64);
  bool inClass = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      const char next = pattern[++i];
      if (next == 's')
        out += inClass ? std::string(kWhiteSpaceSet) : "[" + std::string(kWhiteSpaceSet) + "]";
      else if (next == 'S' && !inClass)
        out += "[^" + std::string(kWhiteSpaceSet) + "]";
      else {
        out += c;
        out += next;
      }
      continue;
    }
    if (!inClass && c == '[') {
      inClass = true;
      out += c;
      // A ']' right after '[' or '[^' is a literal member, not the end of the class.
      if (i + 1 < pattern.size() && pattern[i + 1] == '^')
        out += pattern[++i];
      if (i + 1 < pattern.size() && pattern[i + 1] == ']')
        out += pattern[++i];
      continue;
    }
    if (inClass && c == '[' && i + 1 < pattern.size() && pattern[i + 1] == ':') {
      const size_t close = pattern.find(":]", i + 2);
      if (close != std::string::npos) { // a POSIX class such as [:alpha:]
        out.append(pattern, i, close + 2 - i);
        i = close + 1;
        continue;
      }
    }
    if (inClass && c == ']')
      inClass = false;
    out += c;
  }
  return out;
}

std::string escapeRegexLiteral(std::string_view literal) {
  std::string out;
  for (char c : literal) {
    if (std::string_view("\\.+*?()|[]{}^$#&-~").find(c) != std::string_view::npos)
      out += '\\'; // a backslash before punctuation makes it literal in PCRE2
    out += c;
  }
  return out;
}

PreTokenizerRegex::PreTokenizerRegex(const std::string &pattern) : pattern_(pattern) {
  const std::string translated = withUnicodeWhiteSpace(pattern);
  int error = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code *code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(),
                                   PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
  if (!code)
    throw TokenizerError("regex \"" + pattern + "\" does not compile (PCRE2): " + pcre2Message(error) +
                         " at offset " + std::to_string(offset));
  jit_ = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0; // else the interpreter runs
  code_.reset(code, [](void *p) { pcre2_code_free(static_cast<pcre2_code *>(p)); });
}

void PreTokenizerRegex::findAll(std::string_view subject, std::vector<std::pair<size_t, size_t>> &matches) const {
  matches.clear();
  auto *code = static_cast<pcre2_code *>(code_.get());
  pcre2_match_data *data = threadMatchData();
  const auto *text = reinterpret_cast<PCRE2_SPTR>(subject.data());
  size_t searchFrom = 0;
  size_t lastMatchEnd = std::string_view::npos;
  while (searchFrom <= subject.size()) {
    const int rc = jit_ ? pcre2_jit_match(code, text, subject.size(), searchFrom, 0, data, nullptr)
                        : pcre2_match(code, text, subject.size(), searchFrom, PCRE2_NO_UTF_CHECK, data, nullptr);
    if (rc == PCRE2_ERROR_NOMATCH)
      return;
    if (rc < 0)
      throw TokenizerError("regex \"" + pattern_ + "\" failed on the input: " + pcre2Message(rc));
    const PCRE2_SIZE *ovector = pcre2_get_ovector_pointer(data);
    const size_t begin = ovector[0], end = ovector[1];
    if (begin == end && end == lastMatchEnd) {
      if (searchFrom >= subject.size())
        return;
      searchFrom += utf8::sequenceLength(static_cast<unsigned char>(subject[searchFrom]));
      continue;
    }
    searchFrom = end;
    lastMatchEnd = end;
    matches.emplace_back(begin, end);
  }
}

} // namespace cudaperf::learn
