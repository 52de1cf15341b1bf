// The key table behind a trainer's config struct (SftConfig, RlConfig): each key names one member, its type,
// the range or choices it accepts and what it means. One table gives the JSON a run writes back, reads a
// config file (unknown keys, wrong types, out-of-range values and unknown choices are LearnErrors that name
// the key), applies `--set KEY=VALUE` and lists the keys for --print-config and the docs. No LibTorch.
#pragma once

#include "cudaperf/Learn/Error.h"
#include "cudaperf/Support/Json.h"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace cudaperf::learn {

// A key with its type name ("string", "integer", "unsigned", "number", "boolean", "list of strings"),
// meaning and default, in the order of the table.
struct ConfigKeyInfo {
  std::string key, type, meaning;
  support::Json defaultValue;
};

template <class Config> struct ConfigField {
  using Member = std::variant<std::string Config::*, int64_t Config::*, uint64_t Config::*, double Config::*,
                              bool Config::*, std::vector<std::string> Config::*>;
  const char *name;
  Member member;
  double lo = 0, hi = 0;    // numbers: the range allowed
  const char *choices = ""; // strings: "a|b|c", or "" for any
  const char *meaning = "";

  ConfigField(const char *name, Member member, double lo, double hi, const char *meaning)
      : name(name), member(member), lo(lo), hi(hi), meaning(meaning) {}
  ConfigField(const char *name, Member member, double lo, double hi, const char *choices, const char *meaning)
      : name(name), member(member), lo(lo), hi(hi), choices(choices), meaning(meaning) {}
};

// `schema` is the document's schema string, `settings` names the settings in the not-an-object error
// ("SFT settings"), `lister` the command that lists the keys ("cudaperf-train sft --print-config").
template <class Config> class ConfigFields {
public:
  using Field = ConfigField<Config>;

  ConfigFields(std::string schema, std::string settings, std::string lister, std::vector<Field> fields)
      : schema_(std::move(schema)), settings_(std::move(settings)), lister_(std::move(lister)),
        fields_(std::move(fields)) {}

  const std::vector<Field> &fields() const { return fields_; }

  const Field *find(const std::string &name) const {
    for (const Field &f : fields_)
      if (name == f.name) return &f;
    return nullptr;
  }

  std::vector<ConfigKeyInfo> keys() const {
    Config defaults{};
    std::vector<ConfigKeyInfo> out;
    for (const Field &f : fields_) out.push_back({f.name, typeName(f), f.meaning, valueOf(defaults, f)});
    return out;
  }

  // {"schema": ..., every key in table order}.
  support::Json toJson(const Config &config) const {
    support::Json j = support::Json::object();
    j["schema"] = schema_;
    for (const Field &f : fields_) j[f.name] = valueOf(config, f);
    return j;
  }

  // Applies the keys of `doc` (an object) over `config`; errors name `source`, the key and the value.
  void apply(Config &config, const support::Json &doc, const std::string &source) const {
    if (!doc.is_object()) throw LearnError(source + ": expected a JSON object of " + settings_);
    for (auto it = doc.begin(); it != doc.end(); ++it) {
      if (it.key() == "schema") {
        if (!it.value().is_string() || it.value().template get<std::string>() != schema_)
          throw LearnError(source + ": schema: expected \"" + schema_ + "\", got " + support::jsonSnippet(it.value()));
        continue;
      }
      const Field *f = find(it.key());
      if (!f) throw LearnError(source + ": unknown key \"" + it.key() + "\" (" + lister_ + " lists them)");
      assign(config, *f, it.value(), source + ": " + it.key());
    }
  }

  // The defaults, then the file's keys; an unreadable file or bad JSON is a LearnError too.
  Config load(const std::string &path) const {
    support::Json doc;
    try {
      doc = support::readJsonFile(path);
    } catch (const std::exception &e) {
      throw LearnError(e.what());
    }
    Config config{};
    apply(config, doc, path);
    return config;
  }

  // KEY=VALUE: VALUE read as JSON when it parses, else as a string; a string key takes the text as
  // written ("--set out=1" is a folder named 1).
  void applyOverride(Config &config, const std::string &assignment) const {
    size_t eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0) throw LearnError("--set " + assignment + ": expected KEY=VALUE");
    std::string key = assignment.substr(0, eq), text = assignment.substr(eq + 1);
    const Field *f = find(key);
    support::Json value;
    if (f && f->member.index() == 0) {
      value = text;
    } else {
      try {
        value = support::parseJson(text, "--set " + key);
      } catch (const std::exception &) {
        value = text;
      }
    }
    apply(config, support::Json::object({{key, value}}), "--set");
  }

  static const char *typeName(const Field &f) {
    static const char *names[] = {"string", "integer", "unsigned", "number", "boolean", "list of strings"};
    return names[f.member.index()];
  }

private:
  static support::Json valueOf(const Config &c, const Field &f) {
    return std::visit([&](auto member) { return support::Json(c.*member); }, f.member);
  }

  static void assign(Config &c, const Field &f, const support::Json &v, const std::string &where) {
    auto bad = [&](const std::string &why) { throw LearnError(where + ": " + why + ", got " + support::jsonSnippet(v)); };
    auto range = [&](double x) {
      if (!(x >= f.lo && x <= f.hi))
        bad("expected a value in [" + support::writeJson(support::Json(f.lo)) + ", " +
            support::writeJson(support::Json(f.hi)) + "]");
    };
    switch (f.member.index()) {
    case 0: {
      if (!v.is_string()) bad("expected a string");
      std::string s = v.template get<std::string>();
      if (*f.choices && (std::string("|") + f.choices + "|").find("|" + s + "|") == std::string::npos)
        bad(std::string("expected one of ") + f.choices);
      c.*std::get<0>(f.member) = s;
      break;
    }
    case 1:
      if (!v.is_number_integer()) bad("expected a whole number");
      if (v.is_number_unsigned() && v.template get<uint64_t>() > uint64_t(INT64_MAX)) {
        range(double(v.template get<uint64_t>())); // out of every range a table gives, so named as such
        bad("expected a whole number");
      }
      range(double(v.template get<int64_t>()));
      c.*std::get<1>(f.member) = v.template get<int64_t>();
      break;
    case 2:
      if (!v.is_number_unsigned() && !(v.is_number_integer() && v.template get<int64_t>() >= 0))
        bad("expected a whole number >= 0");
      c.*std::get<2>(f.member) = v.template get<uint64_t>();
      break;
    case 3:
      if (!v.is_number()) bad("expected a number");
      range(v.template get<double>());
      c.*std::get<3>(f.member) = v.template get<double>();
      break;
    case 4:
      if (!v.is_boolean()) bad("expected true or false");
      c.*std::get<4>(f.member) = v.template get<bool>();
      break;
    default: {
      if (!v.is_array()) bad("expected a list of strings");
      std::vector<std::string> list;
      for (const support::Json &e : v) {
        if (!e.is_string()) bad("expected a list of strings");
        list.push_back(e.template get<std::string>());
      }
      c.*std::get<5>(f.member) = list;
    }
    }
  }

  std::string schema_, settings_, lister_;
  std::vector<Field> fields_;
};

} // namespace cudaperf::learn
