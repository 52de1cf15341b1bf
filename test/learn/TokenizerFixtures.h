// Reading test/learn/fixtures/tokenizer (README.md there): the cases, the variants applied to a
// tokenizer.json, the expected ids Hugging Face tokenizers produced, and the FNV-1a digests.
#pragma once

#include "cudaperf/Learn/Tokenizer.h"
#include "cudaperf/Support/Subprocess.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cudaperf::learn::testing {

using Json = nlohmann::ordered_json;

inline std::filesystem::path fixtureDir() {
  return std::filesystem::path(CUDAPERF_SOURCE_DIR) / "test/learn/fixtures/tokenizer";
}

inline std::string readBytes(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline Json readJson(const std::filesystem::path &path) { return Json::parse(readBytes(path)); }

// FNV-1a, 64 bits, as 16 hex digits (what the fixture scripts write).
inline std::string fnv1a(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char b : bytes)
    h = (h ^ b) * 0x100000001b3ull;
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

// A repository file as it was when the fixtures were trained and written: the working tree's copy when its digest
// is the recorded one, else the blob at the commit the fixtures were made from (repo-sources.json), read with
// `git cat-file` from the source tree's history, when its digest is the recorded one. nullopt when neither is
// (no git, no history as in a source tarball, or a path the commit lacks), so the caller skips with a reason.
// Kept per path and digest: several tests ask for the same files.
inline std::optional<std::string> recordedSource(const std::string &path, const std::string &digest) {
  static std::map<std::string, std::optional<std::string>> known;
  const std::string key = digest + " " + path;
  if (auto it = known.find(key); it != known.end())
    return it->second;
  const std::filesystem::path root(CUDAPERF_SOURCE_DIR);
  std::optional<std::string> &found = known[key];
  if (std::filesystem::is_regular_file(root / path)) {
    std::string text = readBytes(root / path);
    if (fnv1a(text) == digest)
      return found = std::move(text);
  }
  static const std::string commit = [] {
    std::ifstream in(fixtureDir() / "repo-sources.json");
    return in ? nlohmann::json::parse(in, nullptr, false).value("commit", std::string()) : std::string();
  }();
  if (commit.empty())
    return found;
  support::ProcessOptions options;
  options.separateStderr = true;
  options.maxCapturedBytes = size_t(64) << 20;
  support::ProcessResult git =
      support::runProcess({"git", "-C", root.string(), "cat-file", "blob", commit + ":" + path}, options);
  if (git.succeeded() && !git.outputTruncated && fnv1a(git.output) == digest)
    found = std::move(git.output);
  return found;
}

inline std::string idsDigest(const std::vector<int32_t> &ids) {
  std::string joined;
  for (size_t i = 0; i < ids.size(); ++i)
    joined += (i ? "," : "") + std::to_string(ids[i]);
  return fnv1a(joined);
}

// variants.json's rules: appended added tokens take ids from the largest id + 1, then each dotted
// path is set, then template ids written as token contents are resolved.
inline Json applyVariant(Json doc, const Json &variant) {
  int64_t next = -1;
  for (const auto &entry : doc["model"]["vocab"].items())
    next = std::max<int64_t>(next, entry.value().get<int64_t>());
  for (const Json &token : doc["added_tokens"])
    next = std::max<int64_t>(next, token["id"].get<int64_t>());
  ++next;
  if (variant.contains("append_added_tokens"))
    for (const Json &token : variant["append_added_tokens"]) {
      Json added = {{"id", next++}};
      for (const auto &field : token.items())
        added[field.key()] = field.value();
      doc["added_tokens"].push_back(added);
    }
  if (variant.contains("set"))
    for (const auto &entry : variant["set"].items()) {
      Json *node = &doc;
      std::stringstream path(entry.key());
      std::vector<std::string> keys;
      for (std::string key; std::getline(path, key, '.');)
        keys.push_back(key);
      for (size_t i = 0; i + 1 < keys.size(); ++i)
        node = &(*node)[keys[i]];
      (*node)[keys.back()] = entry.value();
    }
  const auto idOf = [&](const std::string &content) -> int64_t {
    for (const Json &token : doc["added_tokens"])
      if (token["content"] == content)
        return token["id"].get<int64_t>();
    throw std::runtime_error("variants.json: no added token " + content);
  };
  std::function<void(Json &)> resolve = [&](Json &node) {
    if (!node.is_object())
      return;
    if (node.value("type", "") == "Sequence" && node.contains("processors"))
      for (Json &inner : node["processors"])
        resolve(inner);
    if (node.value("type", "") == "TemplateProcessing")
      for (auto &entry : node["special_tokens"].items())
        for (Json &id : entry.value()["ids"])
          if (id.is_string())
            id = idOf(id.get<std::string>());
  };
  resolve(doc["post_processor"]);
  return doc;
}

inline Tokenizer variantTokenizer(const std::string &tokenizerName, const std::string &variantName) {
  const Json base = readJson(fixtureDir() / tokenizerName / "tokenizer.json");
  const Json variants = readJson(fixtureDir() / "variants.json")["variants"];
  return Tokenizer::fromJson(applyVariant(base, variants[variantName]).dump());
}

inline std::vector<std::string> fixtureCases() {
  return readJson(fixtureDir() / "cases.json")["cases"].get<std::vector<std::string>>();
}

// Printable form of a case for failure messages.
inline std::string escaped(const std::string &text) {
  std::string out = Json(text).dump(-1, ' ', true);
  return out.size() > 120 ? out.substr(0, 117) + "..." : out;
}

} // namespace cudaperf::learn::testing
