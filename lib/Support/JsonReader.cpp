#include "cudaperf/Support/JsonReader.h"

#include <cmath>
#include <limits>

namespace cudaperf::support {

JsonField JsonField::child(const Json &value, std::string_view key) const {
  return JsonField(value, document_, path_.empty() ? std::string(key) : path_ + "." + std::string(key));
}

JsonField JsonField::child(const Json &value, size_t index) const {
  return JsonField(value, document_, path_ + "[" + std::to_string(index) + "]");
}

void JsonField::fail(const std::string &what) const {
  std::string where = path_.empty() ? "the top level" : path_;
  throw SupportError((document_.empty() ? "" : document_ + ": ") + where + ": " + what);
}

void JsonField::expected(const std::string &type) const {
  std::string got = value_->is_structured() ? std::string(jsonTypeName(*value_)) : jsonSnippet(*value_);
  fail("expected " + type + ", got " + got);
}

JsonField JsonField::require(std::string_view key) const {
  if (!value_->is_object())
    expected("an object");
  const Json *v = member(*value_, key);
  if (!v) {
    std::string where = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
    throw SupportError((document_.empty() ? "" : document_ + ": ") + where + ": missing");
  }
  return child(*v, key);
}

std::optional<JsonField> JsonField::get(std::string_view key) const {
  if (!value_->is_object())
    expected("an object");
  const Json *v = member(*value_, key);
  if (!v || v->is_null())
    return std::nullopt;
  return child(*v, key);
}

std::vector<std::pair<std::string, JsonField>> JsonField::members() const {
  if (!value_->is_object())
    expected("an object");
  std::vector<std::pair<std::string, JsonField>> out;
  for (auto it = value_->begin(); it != value_->end(); ++it)
    out.emplace_back(it.key(), child(it.value(), it.key()));
  return out;
}

std::vector<JsonField> JsonField::elements() const {
  if (!value_->is_array())
    expected("an array");
  std::vector<JsonField> out;
  out.reserve(value_->size());
  for (size_t i = 0; i < value_->size(); ++i)
    out.push_back(child((*value_)[i], i));
  return out;
}

std::string JsonField::string() const {
  if (!value_->is_string())
    expected("a string");
  return value_->get<std::string>();
}

bool JsonField::boolean() const {
  if (!value_->is_boolean())
    expected("true or false");
  return value_->get<bool>();
}

double JsonField::number() const {
  if (value_->is_number())
    return value_->get<double>();
  if (value_->is_string()) {
    const std::string &s = value_->get_ref<const std::string &>();
    if (s == "nan")
      return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf")
      return std::numeric_limits<double>::infinity();
    if (s == "-inf")
      return -std::numeric_limits<double>::infinity();
  }
  expected("a number");
}

int64_t JsonField::integer(int64_t min, int64_t max) const {
  int64_t v = 0;
  if (value_->is_number_integer()) {
    if (value_->is_number_unsigned() && value_->get<uint64_t>() > uint64_t(INT64_MAX))
      fail("expected a whole number, got " + jsonSnippet(*value_) + " (too large)");
    v = value_->get<int64_t>();
  } else if (value_->is_number_float() && std::isfinite(value_->get<double>()) &&
             value_->get<double>() == std::floor(value_->get<double>()) &&
             std::fabs(value_->get<double>()) < 9.2e18) {
    v = int64_t(value_->get<double>()); // 4.0 is a whole number
  } else {
    expected("a whole number");
  }
  if (v < min || v > max)
    fail("expected a whole number " +
         (min == INT64_MIN ? "at most " + std::to_string(max)
          : max == INT64_MAX ? "at least " + std::to_string(min)
                             : "from " + std::to_string(min) + " to " + std::to_string(max)) +
         ", got " + std::to_string(v));
  return v;
}

std::optional<std::string> JsonField::optionalString(std::string_view key) const {
  auto f = get(key);
  return f ? std::optional<std::string>(f->string()) : std::nullopt;
}

std::optional<double> JsonField::optionalNumber(std::string_view key) const {
  auto f = get(key);
  return f ? std::optional<double>(f->number()) : std::nullopt;
}

std::optional<int64_t> JsonField::optionalInteger(std::string_view key, int64_t min, int64_t max) const {
  auto f = get(key);
  return f ? std::optional<int64_t>(f->integer(min, max)) : std::nullopt;
}

std::optional<bool> JsonField::optionalBoolean(std::string_view key) const {
  auto f = get(key);
  return f ? std::optional<bool>(f->boolean()) : std::nullopt;
}

} // namespace cudaperf::support
