#include "cudaperf/Learn/SourceComments.h"

#include "cudaperf/Support/Comments.h"

namespace cudaperf::learn {

namespace {

void dropTrailingBlanks(std::string &out) {
  while (!out.empty() && (out.back() == ' ' || out.back() == '\t'))
    out.pop_back();
}

} // namespace

std::string stripComments(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  // Whether the current output line holds anything but blanks (a line that held only a comment goes).
  auto lineIsBlank = [&] {
    size_t start = out.rfind('\n');
    start = start == std::string::npos ? 0 : start + 1;
    return out.find_first_not_of(" \t", start) == std::string::npos;
  };
  size_t i = 0; // the next byte of `s` not yet copied or dropped
  for (const support::CommentSpan &comment : support::commentSpans(s)) {
    out.append(s.substr(i, comment.begin - i));
    bool blank = lineIsBlank();
    i = comment.end;
    if (comment.line) {
      dropTrailingBlanks(out);
      if (i < s.size()) {
        ++i; // with its newline when the line held only the comment
        if (!blank)
          out += '\n';
      }
      continue;
    }
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) // the comment and its blanks: one space
      ++i;
    bool atLineEnd = i >= s.size() || s[i] == '\n' || s[i] == '\r';
    if (atLineEnd) {
      dropTrailingBlanks(out);
      if (blank && i < s.size()) // the comment filled its lines: they go, with the newline
        i += s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n' ? 2 : 1;
    } else if (!blank) {
      dropTrailingBlanks(out);
      out += ' '; // between code: one space, as the preprocessor does
    }
  }
  out.append(s.substr(std::min(i, s.size())));
  return out;
}

} // namespace cudaperf::learn
