#include "cudaperf/Support/Comments.h"

#include <cctype>
#include <string>

namespace cudaperf::support {

namespace {

bool identifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Where a literal opened by the quote at `open` ends (one past its closing quote, or the end).
size_t quotedEnd(std::string_view s, size_t open) {
  char quote = s[open];
  size_t i = open + 1;
  while (i < s.size() && s[i] != quote && s[i] != '\n') {
    if (s[i] == '\\' && i + 1 < s.size())
      ++i;
    ++i;
  }
  return i < s.size() && s[i] == quote ? i + 1 : i;
}

// A raw string R"delim( ... )delim" whose R is at `r`: one past its end.
size_t rawEnd(std::string_view s, size_t r) {
  size_t paren = s.find('(', r + 2);
  if (paren == std::string_view::npos || paren - (r + 2) > 16)
    return quotedEnd(s, r + 1); // not a valid raw string: an ordinary one
  std::string close = ")" + std::string(s.substr(r + 2, paren - (r + 2))) + "\"";
  size_t end = s.find(close, paren + 1);
  return end == std::string_view::npos ? s.size() : end + close.size();
}

// A pp-number from `i` (a digit, or a dot before one): digits, letters, dots, digit separators,
// and the sign after an exponent letter.
size_t numberEnd(std::string_view s, size_t i) {
  ++i;
  while (i < s.size()) {
    char c = s[i];
    if ((c == '+' || c == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E' || s[i - 1] == 'p' || s[i - 1] == 'P'))
      ++i;
    else if (identifierChar(c) || c == '.')
      ++i;
    else if (c == '\'' && i + 1 < s.size() && identifierChar(s[i + 1]))
      i += 2;
    else
      break;
  }
  return i;
}

} // namespace

std::vector<CommentSpan> commentSpans(std::string_view s) {
  std::vector<CommentSpan> spans;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      size_t j = i + 2;
      while (j < s.size() && s[j] != '\n')
        j += s[j] == '\\' && j + 1 < s.size() && s[j + 1] == '\n' ? 2 : 1;
      spans.push_back({i, j, true});
      i = j;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t end = s.find("*/", i + 2);
      size_t stop = end == std::string_view::npos ? s.size() : end + 2;
      spans.push_back({i, stop, false});
      i = stop;
    } else if (c == '"' || c == '\'') {
      i = quotedEnd(s, i);
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      i = numberEnd(s, i);
    } else if (identifierChar(c)) {
      size_t end = i;
      while (end < s.size() && identifierChar(s[end]))
        ++end;
      std::string_view word = s.substr(i, end - i);
      i = end;
      if (i < s.size() && s[i] == '"' && word.back() == 'R' &&
          (word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR"))
        i = rawEnd(s, i - 1);
      // A prefixed literal (u8"x", L'x') continues with its quote at the next step.
    } else {
      ++i;
    }
  }
  return spans;
}

} // namespace cudaperf::support
