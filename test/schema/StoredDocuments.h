// What the schema round-trip tests share: every stored document of one schema in the repository
// (data/**, test/**: plain, .gz, .xz, .zst and .tar.gz; documents nested in others are found too) read
// and written back, and the ownership rule's scan for the schema's string literal outside lib/Schema.
#pragma once

#include "cudaperf/Support/Json.h"
#include "cudaperf/Support/Subprocess.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace cudaperf::schema_test {

namespace fs = std::filesystem;
using support::Json;

struct StoredDocumentTally {
  size_t files = 0, documents = 0;
  std::map<std::string, size_t> perFile; // documents per file, by its path under the source root
  std::vector<std::string> failures;
};

// Reads a document (`where` names it) and writes it back; a failure to read throws.
using RewriteDocument = std::function<Json(const Json &document, const std::string &where)>;

inline bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

class StoredDocumentWalk {
public:
  StoredDocumentWalk(std::string schemaText, RewriteDocument rewrite)
      : schemaText_(std::move(schemaText)), rewrite_(std::move(rewrite)) {}

  StoredDocumentTally run() {
    for (const char *dir : {"data", "test"})
      checkDirectory(fs::path(CUDAPERF_SOURCE_DIR) / dir, dir);
    return tally_;
  }

private:
  static std::string decompressed(const std::string &path) {
    std::string tool = endsWith(path, ".xz") ? "xz" : endsWith(path, ".zst") ? "zstd" : "gzip";
    support::ProcessOptions options;
    options.separateStderr = true;
    options.maxCapturedBytes = size_t(512) << 20;
    options.timeoutSeconds = 60;
    auto r = support::runProcess({tool, "-dc", "--", path}, options);
    if (!r.succeeded())
      ADD_FAILURE() << tool << " -dc " << path << ": " << r.describe() << " " << r.errorOutput;
    return r.output;
  }

  // Checks every document of the schema in `v` (the value itself or nested); `where` names it in failures.
  void checkTree(const Json &v, const std::string &where) {
    if (v.is_object()) {
      if (const Json *s = support::member(v, "schema"); s && s->is_string() && *s == schemaText_) {
        ++tally_.documents;
        try {
          std::string before = support::writeJson(v);
          std::string after = support::writeJson(rewrite_(v, where));
          if (before != after && tally_.failures.size() < 20) {
            size_t i = std::mismatch(before.begin(), before.end(), after.begin(), after.end()).first - before.begin();
            size_t from = i > 60 ? i - 60 : 0;
            tally_.failures.push_back(where + ": differs at byte " + std::to_string(i) + "\n  read:    ..." +
                                      before.substr(from, 160) + "\n  written: ..." + after.substr(from, 160));
          }
        } catch (const std::exception &e) {
          tally_.failures.push_back(where + ": " + e.what());
        }
        return;
      }
      for (const auto &kv : v.items())
        checkTree(kv.value(), where);
    } else if (v.is_array()) {
      for (const Json &x : v)
        checkTree(x, where);
    }
  }

  // A JSON document, or JSON Lines.
  void checkText(const std::string &text, const std::string &where) {
    if (text.find(schemaText_) == std::string::npos)
      return;
    ++tally_.files;
    size_t before = tally_.documents;
    try {
      checkTree(support::parseJson(text, where), where);
    } catch (const support::SupportError &) {
      size_t start = 0, line = 0;
      while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos)
          end = text.size();
        ++line;
        std::string_view l(text.data() + start, end - start);
        if (l.find(schemaText_) != std::string_view::npos) {
          std::string at = where + ":" + std::to_string(line);
          try {
            checkTree(support::parseJson(l, at), at);
          } catch (const support::SupportError &e) {
            tally_.failures.push_back(at + ": not JSON: " + e.what());
          }
        }
        start = end + 1;
      }
    }
    tally_.perFile[where] = tally_.documents - before;
  }

  void checkFile(const fs::path &p, const std::string &shown) {
    std::string name = p.filename().string();
    if (endsWith(name, ".tar.gz") || endsWith(name, ".tgz")) {
      std::string dir = (fs::temp_directory_path() / ("schema-roundtrip-" + std::to_string(getpid()))).string();
      fs::remove_all(dir);
      fs::create_directories(dir);
      support::ProcessOptions options;
      options.timeoutSeconds = 120;
      auto r = support::runProcess({"tar", "-xzf", p.string(), "-C", dir}, options);
      if (!r.succeeded())
        ADD_FAILURE() << "tar -xzf " << p << ": " << r.describe() << " " << r.output;
      else
        checkDirectory(fs::path(dir), shown + "!");
      fs::remove_all(dir);
    } else if (endsWith(name, ".json.gz") || endsWith(name, ".jsonl.gz") || endsWith(name, ".json.xz") ||
               endsWith(name, ".jsonl.xz") || endsWith(name, ".json.zst") || endsWith(name, ".jsonl.zst")) {
      checkText(decompressed(p.string()), shown);
    } else if (endsWith(name, ".json") || endsWith(name, ".jsonl")) {
      checkText(support::readRegularFile(p.string()), shown);
    }
  }

  void checkDirectory(const fs::path &root, const std::string &shown) {
    std::vector<fs::path> files;
    for (const auto &e : fs::recursive_directory_iterator(root))
      if (e.is_regular_file())
        files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path &p : files)
      checkFile(p, shown + "/" + fs::relative(p, root).string());
  }

  std::string schemaText_;
  RewriteDocument rewrite_;
  StoredDocumentTally tally_;
};

// Issue 37's rule: a document is built in one place. The C++ sources (files ending in one of
// `extensions`) under lib/, tools/ and include/ outside lib/Schema that spell `literal` (the schema's
// string with its quotes) are writing or checking the document by hand.
inline std::vector<std::string> sourcesSpellingOutsideSchema(const std::string &literal,
                                                             const std::vector<std::string> &extensions) {
  std::vector<std::string> offenders;
  for (const char *dir : {"lib", "tools", "include"})
    for (const auto &e : fs::recursive_directory_iterator(fs::path(CUDAPERF_SOURCE_DIR) / dir)) {
      std::string p = e.path().string();
      if (!e.is_regular_file() ||
          std::none_of(extensions.begin(), extensions.end(), [&](const std::string &x) { return endsWith(p, x); }))
        continue;
      std::string rel = fs::relative(e.path(), CUDAPERF_SOURCE_DIR).string();
      if (rel.rfind("lib/Schema/", 0) == 0 || rel.rfind("include/cudaperf/Schema/", 0) == 0)
        continue;
      if (support::readRegularFile(p).find(literal) != std::string::npos)
        offenders.push_back(rel);
    }
  return offenders;
}

} // namespace cudaperf::schema_test
