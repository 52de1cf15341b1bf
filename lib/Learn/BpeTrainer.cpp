// Byte-level BPE training with the same steps and merge order as Hugging Face's BpeTrainer, so
// both give the same vocabulary on the same texts: words are the pre-tokens of Qwen2's pipeline
// (NFC, Qwen2's regex, bytes), counted over all texts; the most frequent adjacent pair is merged
// until the vocabulary is full or no pair is seen minFrequency times. As in Hugging Face, a queue
// entry carries the words its pair was seen in, a stale count is refreshed when popped, and ties
// go to the smaller pair of ids.
#include "TokenizerByteLevel.h"
#include "TokenizerPipeline.h"
#include "TokenizerUtf8.h"
#include "cudaperf/Learn/Tokenizer.h"

#include <algorithm>
#include <map>
#include <queue>
#include <set>
#include <unordered_map>

#include <nlohmann/json.hpp>

namespace cudaperf::learn {

namespace {

constexpr const char *kQwen2Pattern = R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

using Pair = std::pair<int32_t, int32_t>;

struct QueueEntry {
  int64_t count;
  Pair pair;
  std::vector<uint32_t> words; // sorted, the words the pair was seen in when queued
  bool operator<(const QueueEntry &o) const { // the priority queue's top is the largest
    return count != o.count ? count < o.count : pair > o.pair;
  }
};

struct PairChange {
  Pair pair;
  int change;
};

// Hugging Face's Word::merge: every non-overlapping occurrence of (a, b), left to right, becomes
// `merged`; the changes to the neighbouring pairs are reported (not those of (a, b) itself).
void mergeWord(std::vector<int32_t> &word, int32_t a, int32_t b, int32_t merged, std::vector<PairChange> &changes) {
  for (size_t i = 0; i + 1 < word.size(); ++i) {
    if (word[i] != a || word[i + 1] != b)
      continue;
    if (i > 0) {
      changes.push_back({{word[i - 1], a}, -1});
      changes.push_back({{word[i - 1], merged}, +1});
    }
    word[i] = merged;
    word.erase(word.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    if (i + 1 < word.size()) {
      changes.push_back({{b, word[i + 1]}, -1});
      changes.push_back({{merged, word[i + 1]}, +1});
    }
  }
}

void sortUnique(std::vector<uint32_t> &v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

nlohmann::ordered_json byteLevelStage(const char *type) {
  return {{"type", type}, {"add_prefix_space", false}, {"trim_offsets", false}, {"use_regex", false}};
}

} // namespace

Tokenizer trainByteLevelBpe(const std::vector<std::string> &texts, const BpeTrainingOptions &options) {
  std::set<std::string> distinctSpecials;
  for (const std::string &special : options.specialTokens) {
    if (special.empty())
      throw TokenizerError("an empty string cannot be a special token");
    if (!utf8::isValid(special))
      throw TokenizerError("special token \"" + special + "\" is not valid UTF-8");
    if (!distinctSpecials.insert(special).second)
      throw TokenizerError("special token \"" + special + "\" is listed twice");
  }
  if (options.vocabSize < options.specialTokens.size() + 256)
    throw TokenizerError("vocabulary size " + std::to_string(options.vocabSize) + " is smaller than the " +
                         std::to_string(options.specialTokens.size()) + " special tokens and 256 byte symbols");
  const auto report = [&](const std::string &line) {
    if (options.progress)
      options.progress(line);
  };

  // 1. Words: the pre-tokens of every text, as raw bytes, with their counts.
  const PreTokenizerRegex regex(kQwen2Pattern);
  Normalizer nfc;
  nfc.forms = {UnicodeForm::NFC};
  std::map<std::string, uint64_t> wordCounts; // ordered: word indices do not depend on hashing
  uint64_t totalBytes = 0;
  std::vector<std::pair<size_t, size_t>> matches;
  for (const std::string &input : texts) {
    const std::string text = nfc.apply(utf8::isValid(input) ? input : utf8::toValid(input));
    totalBytes += text.size();
    size_t previous = 0;
    const auto count = [&](size_t begin, size_t end) {
      if (end > begin)
        ++wordCounts[text.substr(begin, end - begin)];
    };
    regex.findAll(text, matches);
    for (const auto &[begin, end] : matches) {
      count(previous, begin);
      count(begin, end);
      previous = end;
    }
    count(previous, text.size());
  }
  report("pre-tokenized " + std::to_string(texts.size()) + " texts (" + std::to_string(totalBytes) +
         " bytes): " + std::to_string(wordCounts.size()) + " distinct words");

  // 2. Vocabulary: special tokens, then the byte symbols in code point order (which is the
  // order GPT-2's table lists the bytes in).
  std::vector<std::string> idToToken;
  std::unordered_map<std::string, int32_t> tokenToId;
  const auto addToken = [&](const std::string &token) {
    auto [it, inserted] = tokenToId.emplace(token, static_cast<int32_t>(idToToken.size()));
    if (inserted)
      idToToken.push_back(token);
    return it->second;
  };
  for (const std::string &special : options.specialTokens)
    addToken(special);
  std::vector<std::pair<char32_t, uint8_t>> alphabet;
  for (unsigned b = 0; b < 256; ++b)
    alphabet.emplace_back(bytelevel::codePointOfByte(static_cast<uint8_t>(b)), static_cast<uint8_t>(b));
  std::sort(alphabet.begin(), alphabet.end());
  std::array<int32_t, 256> byteId{};
  for (const auto &[codePoint, byte] : alphabet)
    byteId[byte] = addToken(bytelevel::symbols()[byte]);

  // 3. Words as symbol ids, and the pairs in them.
  std::vector<std::vector<int32_t>> words;
  std::vector<int64_t> counts;
  words.reserve(wordCounts.size());
  for (const auto &[word, count] : wordCounts) {
    std::vector<int32_t> symbols;
    for (unsigned char byte : word)
      symbols.push_back(byteId[byte]);
    words.push_back(std::move(symbols));
    counts.push_back(static_cast<int64_t>(count));
  }
  std::map<Pair, int64_t> pairCounts;
  std::map<Pair, std::vector<uint32_t>> pairWords;
  for (uint32_t w = 0; w < words.size(); ++w)
    for (size_t i = 0; i + 1 < words[w].size(); ++i) {
      const Pair pair{words[w][i], words[w][i + 1]};
      pairCounts[pair] += counts[w];
      pairWords[pair].push_back(w);
    }
  std::priority_queue<QueueEntry> queue;
  for (auto &[pair, where] : pairWords) {
    sortUnique(where);
    if (pairCounts[pair] > 0)
      queue.push({pairCounts[pair], pair, std::move(where)});
  }

  // 4. Merges.
  std::vector<Pair> merges;
  std::vector<PairChange> changes;
  std::map<Pair, std::vector<uint32_t>> touched;
  while (idToToken.size() < options.vocabSize && !queue.empty()) {
    QueueEntry top = queue.top();
    queue.pop();
    const int64_t current = pairCounts[top.pair];
    if (top.count != current) {
      top.count = current;
      queue.push(std::move(top));
      continue;
    }
    if (top.count < 1 || static_cast<int64_t>(options.minFrequency) > top.count)
      break;
    const int32_t merged = addToken(idToToken[static_cast<size_t>(top.pair.first)] +
                                    idToToken[static_cast<size_t>(top.pair.second)]);
    merges.push_back(top.pair);
    touched.clear();
    for (uint32_t w : top.words) {
      changes.clear();
      mergeWord(words[w], top.pair.first, top.pair.second, merged, changes);
      for (const PairChange &c : changes) {
        pairCounts[c.pair] += c.change * counts[w];
        if (c.change > 0)
          touched[c.pair].push_back(w);
      }
    }
    for (auto &[pair, where] : touched) {
      sortUnique(where);
      if (pairCounts[pair] > 0)
        queue.push({pairCounts[pair], pair, std::move(where)});
    }
    if (merges.size() % 1000 == 0)
      report("merges: " + std::to_string(merges.size()) + ", vocabulary " + std::to_string(idToToken.size()) +
             " of " + std::to_string(options.vocabSize) + " (last pair seen " + std::to_string(top.count) + " times)");
  }
  report("trained: " + std::to_string(idToToken.size()) + " tokens, " + std::to_string(merges.size()) + " merges");

  // 5. tokenizer.json of Qwen2's form, as Hugging Face writes one.
  using Json = nlohmann::ordered_json;
  Json added = Json::array();
  for (const std::string &special : options.specialTokens)
    added.push_back({{"id", tokenToId[special]},
                     {"content", special},
                     {"single_word", false},
                     {"lstrip", false},
                     {"rstrip", false},
                     {"normalized", false},
                     {"special", true}});
  // The vocabulary and the merges are written one entry a line (pretty-printing would take four
  // lines per merge), in id and rank order, as Hugging Face orders them.
  std::string vocabText = "{\n";
  for (size_t id = 0; id < idToToken.size(); ++id)
    vocabText += "      " + Json(idToToken[id]).dump() + ": " + std::to_string(id) + (id + 1 < idToToken.size() ? ",\n" : "\n");
  vocabText += "    }";
  std::string mergesText = merges.empty() ? "[" : "[\n";
  for (size_t i = 0; i < merges.size(); ++i)
    mergesText += "      [" + Json(idToToken[static_cast<size_t>(merges[i].first)]).dump() + ", " +
                  Json(idToToken[static_cast<size_t>(merges[i].second)]).dump() + "]" + (i + 1 < merges.size() ? ",\n" : "\n");
  mergesText += merges.empty() ? "]" : "    ]";
  Json doc;
  doc["version"] = "1.0";
  doc["truncation"] = nullptr;
  doc["padding"] = nullptr;
  doc["added_tokens"] = std::move(added);
  doc["normalizer"] = {{"type", "NFC"}};
  doc["pre_tokenizer"] = {
      {"type", "Sequence"},
      {"pretokenizers",
       Json::array({Json{{"type", "Split"}, {"pattern", {{"Regex", kQwen2Pattern}}}, {"behavior", "Isolated"}, {"invert", false}},
                    byteLevelStage("ByteLevel")})}};
  doc["post_processor"] = byteLevelStage("ByteLevel");
  doc["decoder"] = byteLevelStage("ByteLevel");
  doc["model"] = {{"type", "BPE"},
                  {"dropout", nullptr},
                  {"unk_token", nullptr},
                  {"continuing_subword_prefix", nullptr},
                  {"end_of_word_suffix", nullptr},
                  {"fuse_unk", false},
                  {"byte_fallback", false},
                  {"ignore_merges", false},
                  {"vocab", "@VOCAB@"},
                  {"merges", "@MERGES@"}};
  std::string text = doc.dump(2, ' ', false) + "\n";
  text.replace(text.find("\"@VOCAB@\""), 9, vocabText);
  text.replace(text.find("\"@MERGES@\""), 10, mergesText);
  return Tokenizer::fromJson(text);
}

} // namespace cudaperf::learn
