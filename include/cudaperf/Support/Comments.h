// Where the comments of a C/C++/CUDA source are, by a small lexer that knows string, character and
// raw string literals (`R"x(...)x"`, with the u8/u/U/L prefixes) and digit separators (`1'000`), so
// that a `//` or `/*` inside them is not a comment. Shared by the benchmark's library check
// (lib/Bench, comments blanked) and the ranking model's token path (lib/Learn, comments removed).
#pragma once

#include <string_view>
#include <vector>

namespace cudaperf::support {

// A comment as the half-open byte range [begin, end) of the source. A `//` comment ends before
// its newline (a backslash at the end of a line continues it, as the preprocessor does); a `/* */`
// comment ends after its `*/`. An unterminated comment or literal runs to the end of the text
// (never an error: the text may be untrusted).
struct CommentSpan {
  size_t begin = 0, end = 0;
  bool line = false; // `//` rather than `/* */`
};

std::vector<CommentSpan> commentSpans(std::string_view source);

} // namespace cudaperf::support
