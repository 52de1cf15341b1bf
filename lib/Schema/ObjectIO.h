// lib/Schema's internal helpers (not installed): read one JSON object member by member with the
// field path in every error, keeping unknown keys and the key order, and write it back in the
// order it was read, so every document of lib/Schema round-trips exactly.
#pragma once

#include "cudaperf/Support/Json.h"
#include "cudaperf/Support/JsonReader.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cudaperf::schema::detail {

using support::Json;
using support::JsonField;
using KeyOrder = std::vector<std::string>;
template <class T> using Nullable = std::optional<std::optional<T>>;

// `object`'s members in `order` first (the order they were read), then the rest.
inline Json inReadOrder(Json object, const KeyOrder &order) {
  if (order.empty())
    return object;
  Json out = Json::object();
  for (const std::string &k : order)
    if (auto it = object.find(k); it != object.end())
      out[k] = it.value();
  for (const auto &kv : object.items())
    if (!out.contains(kv.key()))
      out[kv.key()] = kv.value();
  return out;
}

// Reads one object: each member taken by name, the rest kept in `extra`, the key order kept.
class ObjectReader {
public:
  ObjectReader(const JsonField &field, Json &extra, KeyOrder &order) : field_(field), extra_(extra) {
    if (!field.isObject())
      field.expected("an object");
    for (const auto &kv : field.json().items())
      order.push_back(kv.key());
  }
  std::optional<JsonField> take(const char *key) {
    taken_.insert(key);
    if (!field_.json().contains(key))
      return std::nullopt;
    return field_.require(key);
  }
  std::optional<std::string> string(const char *key) {
    auto f = take(key);
    return f ? std::optional<std::string>(f->string()) : std::nullopt;
  }
  std::optional<double> number(const char *key) {
    auto f = take(key);
    return f ? std::optional<double>(f->number()) : std::nullopt;
  }
  std::optional<int64_t> integer(const char *key) {
    auto f = take(key);
    return f ? std::optional<int64_t>(f->integer()) : std::nullopt;
  }
  std::optional<bool> boolean(const char *key) {
    auto f = take(key);
    return f ? std::optional<bool>(f->boolean()) : std::nullopt;
  }
  Nullable<double> nullableNumber(const char *key) {
    auto f = take(key);
    if (!f)
      return std::nullopt;
    return f->isNull() ? std::optional<double>() : std::optional<double>(f->number());
  }
  Nullable<int64_t> nullableInteger(const char *key) {
    auto f = take(key);
    if (!f)
      return std::nullopt;
    return f->isNull() ? std::optional<int64_t>() : std::optional<int64_t>(f->integer());
  }
  Nullable<bool> nullableBoolean(const char *key) {
    auto f = take(key);
    if (!f)
      return std::nullopt;
    return f->isNull() ? std::optional<bool>() : std::optional<bool>(f->boolean());
  }
  std::optional<Json> object(const char *key) {
    auto f = take(key);
    if (!f)
      return std::nullopt;
    if (!f->isObject())
      f->expected("an object");
    return f->json();
  }
  std::optional<Json> array(const char *key) {
    auto f = take(key);
    if (!f)
      return std::nullopt;
    if (!f->json().is_array())
      f->expected("an array");
    return f->json();
  }
  // Call last: whatever was not taken is kept.
  void keepRest() {
    for (const auto &kv : field_.json().items())
      if (!taken_.count(kv.key()))
        extra_[kv.key()] = kv.value();
  }

private:
  const JsonField &field_;
  Json &extra_;
  std::set<std::string, std::less<>> taken_;
};

// Writes one object in the writer's order; finish() adds the kept keys and restores a read order.
class ObjectWriter {
public:
  template <class T> void put(const char *key, const std::optional<T> &v) {
    if (v)
      out_[key] = *v;
  }
  template <class T> void put(const char *key, const Nullable<T> &v) {
    if (v)
      out_[key] = *v ? Json(**v) : Json();
  }
  void put(const char *key, const Json &v) { out_[key] = v; }

  Json finish(const Json &extra, const KeyOrder &order) {
    for (const auto &kv : extra.items())
      if (!out_.contains(kv.key()))
        out_[kv.key()] = kv.value();
    return inReadOrder(std::move(out_), order);
  }

private:
  Json out_ = Json::object();
};

} // namespace cudaperf::schema::detail
