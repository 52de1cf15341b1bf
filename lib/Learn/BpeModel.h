// The BPE model of tokenizer.json: a pre-token's characters (bytes, for byte-level tokenizers)
// looked up in the vocabulary, then merged pair by pair, the lowest-ranked pair first and the
// leftmost of equal ones, as Hugging Face's Word::merge_all does. Results are cached per thread
// for each distinct pre-token.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace cudaperf::learn {

struct BpeOptions {
  std::optional<std::string> unkToken;
  bool fuseUnk = false;
  bool ignoreMerges = false; // a pre-token that is itself in the vocabulary is one token
  bool byteLevelInput = false; // pre-tokens are raw bytes, each standing for its byte-level symbol
};

class BpeModel {
public:
  // merges in rank order; a pair listed twice keeps its last rank (as Hugging Face's map does).
  // Throws TokenizerError naming a merge whose tokens are not in the vocabulary.
  BpeModel(std::unordered_map<std::string, int32_t> vocab,
           const std::vector<std::pair<std::string, std::string>> &merges, BpeOptions options);

  void tokenize(std::string_view preToken, std::vector<int32_t> &out) const;

  std::optional<int32_t> tokenToId(std::string_view token) const;
  const std::string *idToToken(int32_t id) const; // nullptr where no token has this id
  size_t size() const { return vocab_.size(); }   // entries of the vocabulary
  int32_t maxId() const { return static_cast<int32_t>(idToToken_.size()) - 1; }

private:
  struct Merge {
    uint32_t rank;
    int32_t newId;
  };
  static uint64_t pairKey(int32_t a, int32_t b) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
  }
  void initialSymbols(std::string_view preToken, std::vector<int32_t> &symbols) const;
  void mergeAll(std::vector<int32_t> &symbols) const;

  std::unordered_map<std::string, int32_t> vocab_;
  std::vector<const std::string *> idToToken_;
  // Merges by pair: open addressing with linear probing on a power-of-two table (the merge loop's
  // lookups were an eighth of encoding time in std::unordered_map, which divides by a prime).
  struct MergeSlot {
    uint64_t key = kEmptyKey;
    Merge merge{};
  };
  static constexpr uint64_t kEmptyKey = ~0ull; // (-1, -1): no pair of real ids
  std::vector<MergeSlot> mergeTable_;
  uint64_t mergeMask_ = 0;
  int mergeShift_ = 64;
  size_t slotOf(uint64_t key) const { return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> mergeShift_); }
  const Merge *findMerge(int32_t a, int32_t b) const;
  void insertMerge(uint64_t key, Merge merge);
  BpeOptions options_;
  std::optional<int32_t> unkId_;
  std::array<int32_t, 256> byteIds_{}; // byte-level input: each byte's symbol id, -1 if absent
  std::unordered_map<std::string, int32_t> rawVocab_; // byte-level input with ignoreMerges: raw bytes -> id
  uint64_t cacheOwner_;                                // tells this model's cache entries apart
};

} // namespace cudaperf::learn
