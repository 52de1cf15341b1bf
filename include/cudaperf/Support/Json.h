// JSON for the non-LLVM side: nlohmann's ordered_json (Debian's nlohmann-json3-dev), so written
// documents keep the order their writer built them in, plus the project's reading and writing
// rules: a strict parser whose errors say where (FILE:LINE:COLUMN, or the field path of a
// duplicate key), and a writer that spells non-finite numbers as strings (docs/eval-result.md) and never
// fails on bytes that are not UTF-8 (compiler logs and program output may hold any).
#pragma once

#include "cudaperf/Support/Error.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace cudaperf::support {

using Json = nlohmann::ordered_json;

// Deeper nesting than this is refused (no contract of ours comes close; a writer's recursion
// must not be driven by input).
constexpr int kMaxJsonDepth = 256;

// Files read by the project's tools are refused past this size (a document of ours is far smaller;
// /dev/zero or a runaway file must be an error, not an allocation of everything).
constexpr size_t kMaxInputFileBytes = size_t(1) << 30;

// Limits a reader checks while parsing, so no tree is built past them (docs/security.md).
struct JsonLimits {
  int maxDepth = kMaxJsonDepth;
  size_t maxValues = size_t(-1); // values of every kind (object members and array elements included)
  size_t maxBytes = size_t(-1);  // the text's size, checked before parsing
};

// One document, strictly: no trailing text, no duplicate keys, at most kMaxJsonDepth levels.
// Throws SupportError "WHAT:LINE:COLUMN: ..." (or "WHAT: duplicate key "k" in PATH").
Json parseJson(std::string_view text, const std::string &what = "JSON");
Json parseJson(std::string_view text, const std::string &what, const JsonLimits &limits);
// parseJson of a file's contents; an unreadable file is a SupportError naming it.
Json readJsonFile(const std::string &path);

// The contents of `path` if it is a regular file (after symbolic links) of at most maxBytes;
// otherwise a SupportError naming it ("is not a regular file", "is larger than ..."). Never blocks on
// a FIFO and never reads a device.
std::string readRegularFile(const std::string &path, size_t maxBytes = kMaxInputFileBytes);

// indent < 0: one line (JSON Lines, the worker's event protocol); otherwise pretty with that
// indent. NaN and infinities are written as the strings "nan", "inf", "-inf"; invalid UTF-8 in
// strings becomes U+FFFD.
std::string writeJson(const Json &value, int indent = -1);

// The member `key` of an object; null when `object` is not an object or has no such member.
const Json *member(const Json &object, std::string_view key);

// "null", "a boolean", "a number", "a string", "an array", "an object": for error messages.
const char *jsonTypeName(const Json &value);
// The value as a reader sees it in a message: short values in full, long ones cut with "...".
std::string jsonSnippet(const Json &value, size_t maxChars = 40);

} // namespace cudaperf::support
