// Typed reading of a JSON document with the field path in every error: a JsonField is a value and
// where it sits ("configs[1].candidate.median_ms"), so a reader that expects a number and finds
// "abc" fails with `result.json: configs[1].candidate.median_ms: expected a number, got "abc"`.
// Unknown keys are never an error (contracts add keys); a missing required key, a wrong type or a
// value out of range is.
#pragma once

#include "cudaperf/Support/Json.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudaperf::support {

class JsonField {
public:
  // `document` names the input in messages ("result.json"); the root's path is empty.
  JsonField(const Json &value, std::string document) : value_(&value), document_(std::move(document)) {}

  const Json &json() const { return *value_; }
  const std::string &path() const { return path_; } // "" at the root
  bool isNull() const { return value_->is_null(); }
  bool isObject() const { return value_->is_object(); }

  // Object members. require(): present (null allowed); get(): nullopt when absent or null.
  JsonField require(std::string_view key) const;
  std::optional<JsonField> get(std::string_view key) const;
  bool has(std::string_view key) const { return get(key).has_value(); }
  // Every member of an object, in document order.
  std::vector<std::pair<std::string, JsonField>> members() const;
  // Array elements.
  std::vector<JsonField> elements() const;

  // Conversions; each fails with the path when the value has another type.
  std::string string() const;
  bool boolean() const;
  // A number; also the strings "nan", "inf", "-inf" that cudaperf's writers use for non-finite values.
  double number() const;
  // A whole number within [min, max].
  int64_t integer(int64_t min = INT64_MIN, int64_t max = INT64_MAX) const;

  // Optional members with a type: nullopt when absent or null, an error when of another type.
  std::optional<std::string> optionalString(std::string_view key) const;
  std::optional<double> optionalNumber(std::string_view key) const;
  std::optional<int64_t> optionalInteger(std::string_view key, int64_t min = INT64_MIN,
                                         int64_t max = INT64_MAX) const;
  std::optional<bool> optionalBoolean(std::string_view key) const;

  // Throws SupportError "DOCUMENT: PATH: WHAT".
  [[noreturn]] void fail(const std::string &what) const;
  // "expected TYPE, got VALUE".
  [[noreturn]] void expected(const std::string &type) const;

private:
  JsonField(const Json &value, std::string document, std::string path)
      : value_(&value), document_(std::move(document)), path_(std::move(path)) {}
  JsonField child(const Json &value, std::string_view key) const;
  JsonField child(const Json &value, size_t index) const;

  const Json *value_;
  std::string document_;
  std::string path_;
};

} // namespace cudaperf::support
