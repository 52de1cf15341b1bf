// extractCodeBlock: the rule in CodeExtraction.h, which docs/reward.md states and
// test/reward/CodeExtractionTest.cpp checks case by case.
#include "cudaperf/Reward/CodeExtraction.h"

#include <cctype>

namespace cudaperf::reward {

namespace {

constexpr std::string_view kFence = "```";

bool atLineStart(std::string_view text, size_t pos) { return pos == 0 || text[pos - 1] == '\n'; }

// The next fence at the start of a line, from `pos`; npos when there is none.
size_t nextFence(std::string_view text, size_t pos) {
  while ((pos = text.find(kFence, pos)) != std::string_view::npos && !atLineStart(text, pos))
    pos += kFence.size();
  return pos;
}

std::string normalizedTag(std::string_view tag) {
  std::string t(tag);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\r' || t.back() == '\t'))
    t.pop_back();
  for (char &c : t)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  return t;
}

bool isCodeTag(const std::string &tag) {
  return tag.empty() || tag == "cuda" || tag == "cu" || tag == "c++" || tag == "cpp" || tag == "c";
}

} // namespace

std::optional<ExtractedCode> extractCodeBlock(std::string_view text) {
  int index = 0;
  for (size_t open = nextFence(text, 0); open != std::string_view::npos; ++index) {
    size_t lineEnd = text.find('\n', open);
    if (lineEnd == std::string_view::npos)
      return std::nullopt; // "```cuda" and nothing after it
    std::string tag = normalizedTag(text.substr(open + kFence.size(), lineEnd - open - kFence.size()));
    size_t bodyStart = lineEnd + 1;
    size_t close = nextFence(text, bodyStart);
    if (isCodeTag(tag)) {
      ExtractedCode out;
      out.language = tag;
      out.blockIndex = index;
      out.terminated = close != std::string_view::npos;
      out.code = std::string(text.substr(bodyStart, out.terminated ? close - bodyStart : std::string_view::npos));
      return out;
    }
    if (close == std::string_view::npos)
      return std::nullopt; // another language's block, left open
    open = nextFence(text, close + kFence.size()); // skip the other language's block
  }
  return std::nullopt;
}

std::string noCodeBlockReason(std::string_view text) {
  size_t fences = 0;
  for (size_t pos = nextFence(text, 0); pos != std::string_view::npos; pos = nextFence(text, pos + kFence.size()))
    ++fences;
  if (fences == 0)
    return "the completion has no fenced code block (``` at the start of a line)";
  return "the completion has no ```cuda (or cu, c++, cpp, c, unlabeled) code block: " + std::to_string(fences) +
         " fence" + (fences == 1 ? "" : "s") + ", of other languages or with no line after the fence";
}

} // namespace cudaperf::reward
