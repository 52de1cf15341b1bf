// C/C++/CUDA source with its comments removed, for models that read sources as tokens: the
// dataset's implementation files name their strategy in comments ("deliberately slow"), which a
// ranking model would otherwise learn instead of the code (docs/ranking.md, "The model").
#pragma once

#include <string>
#include <string_view>

namespace cudaperf::learn {

// Removes `//` comments (continued by a backslash at the end of a line, as the preprocessor does)
// and `/* */` comments, leaving string, character and raw string literals (`R"x(...)x"`, with the
// u8/u/U/L prefixes) and digit separators (`1'000`) untouched. A comment between code becomes one
// space; whitespace left before a removed comment at the end of a line goes with it, and lines that
// held only a comment disappear. An unterminated comment or literal runs to the
// end of the text (never an error: the text is untrusted and only tokenized).
std::string stripComments(std::string_view source);

} // namespace cudaperf::learn
