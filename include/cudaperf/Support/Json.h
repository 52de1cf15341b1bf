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

// One document, strictly: no trailing text, no duplicate keys, at most kMaxJsonDepth levels.
// Throws SupportError "WHAT:LINE:COLUMN: ..." (or "WHAT: duplicate key "k" in PATH").
Json parseJson(std::string_view text, const std::string &what = "JSON");
// parseJson of a file's contents; an unreadable file is a SupportError naming it.
Json readJsonFile(const std::string &path);

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
