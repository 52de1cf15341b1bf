// The stages a text goes through before and after the BPE model, each as Hugging Face
// tokenizers defines it: added tokens split out first, normalizer, pre-tokenizer, then (after
// the model) the post-processor's template; and the decoder on the way back. Built from
// tokenizer.json by TokenizerJson.cpp.
#pragma once

#include "TokenizerRegex.h"
#include "cudaperf/Learn/Tokenizer.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace cudaperf::learn {

enum class UnicodeForm { NFC, NFD, NFKC, NFKD };

class Normalizer {
public:
  std::vector<UnicodeForm> forms; // applied in order; none: text unchanged
  bool empty() const { return forms.empty(); }
  std::string apply(std::string_view validText) const;
};

enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

struct SplitStep {
  std::shared_ptr<const PreTokenizerRegex> regex;
  SplitBehavior behavior = SplitBehavior::Isolated;
  bool invert = false;
};
struct ByteLevelStep {
  bool addPrefixSpace = false;
  bool useRegex = true;
  std::shared_ptr<const PreTokenizerRegex> gpt2Regex; // set when useRegex
};

class PreTokenizer {
public:
  std::vector<std::variant<SplitStep, ByteLevelStep>> steps; // ByteLevel can only be last
  bool byteLevel() const { return !steps.empty() && std::holds_alternative<ByteLevelStep>(steps.back()); }
  // Replaces `pieces` (non-empty views) by their pre-tokens; new text (a prefix space) is kept
  // in `arena`, whose elements never move.
  void apply(std::vector<std::string_view> &pieces, std::deque<std::string> &arena) const;
};

// A run of text, or an added token found in it (id >= 0).
struct Segment {
  size_t begin = 0, end = 0;
  int32_t id = -1;
};

// Leftmost-longest matching of a set of strings, as an Aho-Corasick automaton in that mode would.
class LiteralMatcher {
public:
  void add(const std::string &literal, int32_t id);
  bool empty() const { return nodes_.size() <= 1; }
  bool mayStartWith(unsigned char byte) const { return firstByte_[byte]; }
  // The longest literal starting at pos: its length and id, or length 0.
  std::pair<size_t, int32_t> longestAt(std::string_view text, size_t pos) const;

private:
  struct Node {
    std::vector<std::pair<unsigned char, uint32_t>> children; // sorted by byte
    int32_t id = -1;
  };
  std::vector<Node> nodes_{Node{}};
  bool firstByte_[256] = {};
};

class AddedVocabulary {
public:
  std::vector<AddedToken> tokens; // sorted by id; content as written

  LiteralMatcher rawMatcher, normalizedMatcher;

  const AddedToken *find(int32_t id) const;
  // Hugging Face's find_matches: added tokens of one matcher in `text`, with the single_word,
  // lstrip and rstrip rules; the text between them as id -1 segments.
  void split(std::string_view text, bool normalizedTokens, std::vector<Segment> &out) const;
};

// TemplateProcessing's "single" template (Llama 3: <|begin_of_text|> $A); no template: $A alone.
struct PostProcessor {
  struct Piece {
    bool isSequence = false;     // $A
    std::vector<int32_t> ids;    // a special token's ids
  };
  std::vector<std::vector<Piece>> templates; // applied in order, as a Sequence of processors is
  void apply(std::vector<int32_t> &ids) const;
};

enum class DecoderKind { None, ByteLevel };

} // namespace cudaperf::learn
