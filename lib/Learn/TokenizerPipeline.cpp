#include "TokenizerPipeline.h"

#include "TokenizerUtf8.h"
#include "cudaperf/Learn/Tokenizer.h"

#include <algorithm>
#include <cstdlib>

#include <utf8proc.h>

namespace cudaperf::learn {

std::string Normalizer::apply(std::string_view text) const {
  std::string current(text);
  if (std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }))
    return current; // ASCII is the same in every normalization form
  for (UnicodeForm form : forms) {
    int options = UTF8PROC_STABLE;
    switch (form) {
    case UnicodeForm::NFC: options |= UTF8PROC_COMPOSE; break;
    case UnicodeForm::NFD: options |= UTF8PROC_DECOMPOSE; break;
    case UnicodeForm::NFKC: options |= UTF8PROC_COMPOSE | UTF8PROC_COMPAT; break;
    case UnicodeForm::NFKD: options |= UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT; break;
    }
    utf8proc_uint8_t *result = nullptr;
    const utf8proc_ssize_t length =
        utf8proc_map(reinterpret_cast<const utf8proc_uint8_t *>(current.data()),
                     static_cast<utf8proc_ssize_t>(current.size()), &result,
                     static_cast<utf8proc_option_t>(options));
    if (length < 0)
      throw TokenizerError(std::string("Unicode normalization failed: ") + utf8proc_errmsg(length));
    current.assign(reinterpret_cast<const char *>(result), static_cast<size_t>(length));
    std::free(result);
  }
  return current;
}

namespace {

struct Span {
  size_t begin, end;
  bool isMatch;
};

// Hugging Face's NormalizedString::split: the matches and the text between them, merged or
// dropped as the behavior says; empty pieces are dropped (as PreTokenizedString::split does).
void splitPiece(std::string_view piece, const PreTokenizerRegex &regex, SplitBehavior behavior, bool invert,
                std::vector<std::string_view> &out) {
  thread_local std::vector<std::pair<size_t, size_t>> matches;
  thread_local std::vector<Span> spans;
  regex.findAll(piece, matches);
  spans.clear();
  size_t previous = 0;
  for (const auto &[begin, end] : matches) {
    if (previous != begin)
      spans.push_back({previous, begin, false});
    spans.push_back({begin, end, true});
    previous = end;
  }
  if (previous != piece.size())
    spans.push_back({previous, piece.size(), false});
  if (invert)
    for (Span &s : spans)
      s.isMatch = !s.isMatch;

  thread_local std::vector<Span> kept; // isMatch now means "remove"
  kept.clear();
  bool previousMatch = false;
  switch (behavior) {
  case SplitBehavior::Removed:
    kept = spans;
    break;
  case SplitBehavior::Isolated:
    for (const Span &s : spans)
      kept.push_back({s.begin, s.end, false});
    break;
  case SplitBehavior::Contiguous:
    for (const Span &s : spans) {
      if (s.isMatch == previousMatch && !kept.empty())
        kept.back().end = s.end;
      else
        kept.push_back({s.begin, s.end, false});
      previousMatch = s.isMatch;
    }
    break;
  case SplitBehavior::MergedWithPrevious:
    for (const Span &s : spans) {
      if (s.isMatch && !previousMatch && !kept.empty())
        kept.back().end = s.end;
      else
        kept.push_back({s.begin, s.end, false});
      previousMatch = s.isMatch;
    }
    break;
  case SplitBehavior::MergedWithNext:
    for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
      if (it->isMatch && !previousMatch && !kept.empty())
        kept.back().begin = it->begin;
      else
        kept.push_back({it->begin, it->end, false});
      previousMatch = it->isMatch;
    }
    std::reverse(kept.begin(), kept.end());
    break;
  }
  for (const Span &s : kept)
    if (!s.isMatch && s.end > s.begin)
      out.push_back(piece.substr(s.begin, s.end - s.begin));
}

} // namespace

void PreTokenizer::apply(std::vector<std::string_view> &pieces, std::deque<std::string> &arena) const {
  std::vector<std::string_view> next;
  for (const auto &step : steps) {
    next.clear();
    for (std::string_view piece : pieces) {
      if (const auto *split = std::get_if<SplitStep>(&step)) {
        splitPiece(piece, *split->regex, split->behavior, split->invert, next);
        continue;
      }
      const auto &byteLevel = std::get<ByteLevelStep>(step);
      if (byteLevel.addPrefixSpace && piece.front() != ' ') {
        arena.push_back(" " + std::string(piece));
        piece = arena.back();
      }
      if (byteLevel.useRegex)
        splitPiece(piece, *byteLevel.gpt2Regex, SplitBehavior::Isolated, false, next);
      else
        next.push_back(piece);
    }
    pieces.swap(next);
  }
}

void LiteralMatcher::add(const std::string &literal, int32_t id) {
  if (literal.empty())
    return;
  uint32_t node = 0;
  for (unsigned char byte : literal) {
    auto &children = nodes_[node].children;
    auto it = std::lower_bound(children.begin(), children.end(), byte,
                               [](const auto &child, unsigned char b) { return child.first < b; });
    if (it == children.end() || it->first != byte) {
      const auto child = static_cast<uint32_t>(nodes_.size());
      it = children.insert(it, {byte, child});
      nodes_.emplace_back(); // invalidates `children`, not the index just stored
      node = child;
    } else
      node = it->second;
  }
  nodes_[node].id = id;
  firstByte_[static_cast<unsigned char>(literal[0])] = true;
}

std::pair<size_t, int32_t> LiteralMatcher::longestAt(std::string_view text, size_t pos) const {
  if (!firstByte_[static_cast<unsigned char>(text[pos])])
    return {0, -1};
  std::pair<size_t, int32_t> best{0, -1};
  uint32_t node = 0;
  for (size_t i = pos; i < text.size(); ++i) {
    const auto &children = nodes_[node].children;
    const unsigned char byte = static_cast<unsigned char>(text[i]);
    auto it = std::lower_bound(children.begin(), children.end(), byte,
                               [](const auto &child, unsigned char b) { return child.first < b; });
    if (it == children.end() || it->first != byte)
      break;
    node = it->second;
    if (nodes_[node].id >= 0)
      best = {i + 1 - pos, nodes_[node].id};
  }
  return best;
}

const AddedToken *AddedVocabulary::find(int32_t id) const {
  auto it = std::lower_bound(tokens.begin(), tokens.end(), id,
                             [](const AddedToken &token, int32_t wanted) { return token.id < wanted; });
  return it != tokens.end() && it->id == id ? &*it : nullptr;
}

namespace {
bool endsWithWord(std::string_view text, size_t end) {
  size_t start;
  return end > 0 && utf8::isWordCharacter(utf8::decodeBefore(text, end, start));
}
bool startsWithWord(std::string_view text, size_t begin) {
  return begin < text.size() && utf8::isWordCharacter(utf8::decodeAt(text, begin));
}
// Where the whitespace that ends text[0, end) begins.
size_t whiteSpaceRunBefore(std::string_view text, size_t end) {
  size_t start = end;
  while (start > 0) {
    size_t charStart;
    if (!utf8::isWhiteSpace(utf8::decodeBefore(text, start, charStart)))
      break;
    start = charStart;
  }
  return start;
}
// Where the whitespace that starts text[begin, ...) ends.
size_t whiteSpaceRunAfter(std::string_view text, size_t begin) {
  size_t end = begin;
  while (end < text.size() && utf8::isWhiteSpace(utf8::decodeAt(text, end)))
    end += utf8::sequenceLength(static_cast<unsigned char>(text[end]));
  return end;
}
} // namespace

void AddedVocabulary::split(std::string_view text, bool normalizedTokens, std::vector<Segment> &out) const {
  const LiteralMatcher &matcher = normalizedTokens ? normalizedMatcher : rawMatcher;
  if (matcher.empty()) {
    if (!text.empty())
      out.push_back({0, text.size(), -1});
    return;
  }
  size_t startOffset = 0;
  for (size_t pos = 0; pos < text.size();) {
    if (!matcher.mayStartWith(static_cast<unsigned char>(text[pos]))) {
      ++pos;
      continue;
    }
    const auto [length, id] = matcher.longestAt(text, pos);
    if (length == 0) {
      ++pos;
      continue;
    }
    size_t start = pos, stop = pos + length;
    pos = stop;
    const AddedToken &token = *find(id);
    if (token.singleWord && (endsWithWord(text, start) || startsWithWord(text, stop)))
      continue;
    if (token.lstrip)
      start = std::max(whiteSpaceRunBefore(text, start), startOffset);
    if (token.rstrip)
      stop = whiteSpaceRunAfter(text, stop);
    if (startOffset < start)
      out.push_back({startOffset, start, -1});
    out.push_back({start, stop, id});
    startOffset = stop;
  }
  if (startOffset != text.size())
    out.push_back({startOffset, text.size(), -1});
}

void PostProcessor::apply(std::vector<int32_t> &ids) const {
  for (const auto &pieces : templates) {
    std::vector<int32_t> processed;
    processed.reserve(ids.size() + pieces.size());
    for (const Piece &piece : pieces) {
      if (piece.isSequence)
        processed.insert(processed.end(), ids.begin(), ids.end());
      else
        processed.insert(processed.end(), piece.ids.begin(), piece.ids.end());
    }
    ids.swap(processed);
  }
}

} // namespace cudaperf::learn
