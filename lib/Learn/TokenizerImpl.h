// What a Tokenizer holds: the stages of tokenizer.json, built once by parseTokenizerJson and
// never changed afterwards, so one Impl serves every copy and thread.
#pragma once

#include "BpeModel.h"
#include "TokenizerPipeline.h"
#include "cudaperf/Learn/Tokenizer.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace cudaperf::learn {

struct Tokenizer::Impl {
  std::string json; // the document, as read or as the trainer wrote it
  Normalizer normalizer;
  PreTokenizer preTokenizer;
  std::unique_ptr<BpeModel> model;
  AddedVocabulary added;
  std::unordered_map<std::string, int32_t> addedIds;      // content -> id
  std::unordered_map<int32_t, std::string> addedSurface;  // id -> token string (normalized content)
  std::unordered_set<std::string> specialContents;
  PostProcessor postProcessor;
  DecoderKind decoder = DecoderKind::None;
  int32_t maxId = -1;

  const std::string *tokenOf(int32_t id) const; // added token first, then the model's
};

// Throws TokenizerError naming the field at fault ("model.merges[3]: ...").
std::shared_ptr<Tokenizer::Impl> parseTokenizerJson(const std::string &text);

} // namespace cudaperf::learn
