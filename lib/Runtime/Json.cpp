#include "cudaperf/Runtime/Json.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace cudaperf::json {

Value &Object::operator[](const std::string &key) {
  if (Value *v = find(key))
    return *v;
  items_.emplace_back(key, Value());
  return items_.back().second;
}

const Value *Object::find(const std::string &key) const {
  for (const auto &kv : items_)
    if (kv.first == key)
      return &kv.second;
  return nullptr;
}

Value *Object::find(const std::string &key) {
  for (auto &kv : items_)
    if (kv.first == key)
      return &kv.second;
  return nullptr;
}

static void expectKind(bool ok, const char *what) {
  if (!ok)
    throw std::logic_error(std::string("json: value is not ") + what);
}

bool Value::asBool() const { expectKind(isBool(), "a bool"); return bool_; }
double Value::asNumber() const { expectKind(isNumber(), "a number"); return number_; }
int64_t Value::asInteger() const {
  expectKind(isNumber(), "a number");
  return isInteger_ ? integer_ : int64_t(number_);
}
const std::string &Value::asString() const { expectKind(isString(), "a string"); return *string_; }
const Array &Value::asArray() const { expectKind(isArray(), "an array"); return *array_; }
const Object &Value::asObject() const { expectKind(isObject(), "an object"); return *object_; }
// Copy on write: values share storage until one of them is changed.
Array &Value::asArray() {
  expectKind(isArray(), "an array");
  if (array_.use_count() > 1)
    array_ = std::make_shared<Array>(*array_);
  return *array_;
}
Object &Value::asObject() {
  expectKind(isObject(), "an object");
  if (object_.use_count() > 1)
    object_ = std::make_shared<Object>(*object_);
  return *object_;
}
const Value *Value::get(const std::string &key) const {
  return isObject() ? object_->find(key) : nullptr;
}

namespace {

class Parser {
public:
  explicit Parser(const std::string &text) : text_(text) {}

  Value parseDocument() {
    skipSpace();
    Value v = parseValue(0);
    skipSpace();
    if (pos_ != text_.size())
      fail("unexpected text after the JSON value");
    return v;
  }

private:
  const std::string &text_;
  size_t pos_ = 0;

  [[noreturn]] void fail(const std::string &msg) const {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') { ++line; col = 1; } else { ++col; }
    }
    throw ParseError(msg, line, col);
  }
  void skipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool consume(const char *word) {
    size_t n = std::strlen(word);
    if (text_.compare(pos_, n, word) == 0) { pos_ += n; return true; }
    return false;
  }

  Value parseValue(int depth) {
    if (depth > 128)
      fail("nesting deeper than 128");
    if (pos_ >= text_.size())
      fail("unexpected end of input");
    char c = text_[pos_];
    if (c == '{') return parseObject(depth);
    if (c == '[') return parseArray(depth);
    if (c == '"') return Value(parseString());
    if (consume("true")) return Value(true);
    if (consume("false")) return Value(false);
    if (consume("null")) return Value();
    if (c == '-' || (c >= '0' && c <= '9')) return parseNumber();
    fail(std::string("unexpected character '") + c + "'");
  }

  Value parseObject(int depth) {
    ++pos_;
    Object obj;
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == '}') { ++pos_; return Value(std::move(obj)); }
    while (true) {
      skipSpace();
      if (pos_ >= text_.size() || text_[pos_] != '"')
        fail("expected a string key");
      std::string key = parseString();
      if (obj.contains(key))
        fail("duplicate key \"" + key + "\"");
      skipSpace();
      if (pos_ >= text_.size() || text_[pos_] != ':')
        fail("expected ':'");
      ++pos_;
      skipSpace();
      obj[key] = parseValue(depth + 1);
      skipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') { ++pos_; continue; }
      if (pos_ < text_.size() && text_[pos_] == '}') { ++pos_; break; }
      fail("expected ',' or '}'");
    }
    return Value(std::move(obj));
  }

  Value parseArray(int depth) {
    ++pos_;
    Array arr;
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == ']') { ++pos_; return Value(std::move(arr)); }
    while (true) {
      skipSpace();
      arr.push_back(parseValue(depth + 1));
      skipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') { ++pos_; continue; }
      if (pos_ < text_.size() && text_[pos_] == ']') { ++pos_; break; }
      fail("expected ',' or ']'");
    }
    return Value(std::move(arr));
  }

  static void appendUtf8(std::string &out, unsigned cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }

  unsigned parseHex4() {
    if (pos_ + 4 > text_.size())
      fail("truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= c - '0';
      else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
      else fail("bad \\u escape");
    }
    return v;
  }

  std::string parseString() {
    ++pos_;
    std::string out;
    while (true) {
      if (pos_ >= text_.size())
        fail("unterminated string");
      char c = text_[pos_++];
      if (c == '"')
        break;
      if ((unsigned char)c < 0x20)
        fail("control character in string");
      if (c != '\\') { out += c; continue; }
      if (pos_ >= text_.size())
        fail("unterminated escape");
      char e = text_[pos_++];
      switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        unsigned cp = parseHex4();
        if (cp >= 0xD800 && cp < 0xDC00 && consume("\\u")) {
          unsigned low = parseHex4();
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        appendUtf8(out, cp);
        break;
      }
      default: fail(std::string("bad escape \\") + e);
      }
    }
    return out;
  }

  Value parseNumber() {
    size_t start = pos_;
    bool integral = true;
    if (text_[pos_] == '-') ++pos_;
    while (pos_ < text_.size() && std::isdigit((unsigned char)text_[pos_])) ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      integral = false;
      ++pos_;
      while (pos_ < text_.size() && std::isdigit((unsigned char)text_[pos_])) ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      integral = false;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      while (pos_ < text_.size() && std::isdigit((unsigned char)text_[pos_])) ++pos_;
    }
    std::string token = text_.substr(start, pos_ - start);
    if (token == "-" || token.empty())
      fail("bad number");
    if (integral && token.size() < 19)
      return Value((long long)std::stoll(token));
    return Value(std::strtod(token.c_str(), nullptr));
  }
};

void writeString(std::string &out, const std::string &s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default:
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += char(c);
      }
    }
  }
  out += '"';
}

void writeNumber(std::string &out, const Value &v) {
  if (v.isInteger()) {
    out += std::to_string(v.asInteger());
    return;
  }
  double d = v.asNumber();
  // JSON has no NaN or infinity; they are written as strings so a reader sees what happened.
  if (std::isnan(d)) { out += "\"nan\""; return; }
  if (std::isinf(d)) { out += d > 0 ? "\"inf\"" : "\"-inf\""; return; }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", d);
  out += buf;
  if (!std::strpbrk(buf, ".eE"))
    out += ".0";
}

void writeValue(std::string &out, const Value &v, int indent, int depth) {
  auto newline = [&](int d) {
    if (indent < 0) return;
    out += '\n';
    out.append(size_t(indent * d), ' ');
  };
  switch (v.kind()) {
  case Value::Kind::Null: out += "null"; break;
  case Value::Kind::Bool: out += v.asBool() ? "true" : "false"; break;
  case Value::Kind::Number: writeNumber(out, v); break;
  case Value::Kind::String: writeString(out, v.asString()); break;
  case Value::Kind::Array: {
    const Array &a = v.asArray();
    out += '[';
    for (size_t i = 0; i < a.size(); ++i) {
      if (i) out += indent < 0 ? "," : ",";
      newline(depth + 1);
      writeValue(out, a[i], indent, depth + 1);
    }
    if (!a.empty()) newline(depth);
    out += ']';
    break;
  }
  case Value::Kind::Object: {
    const Object &o = v.asObject();
    out += '{';
    bool first = true;
    for (const auto &kv : o.items()) {
      if (!first) out += ',';
      first = false;
      newline(depth + 1);
      writeString(out, kv.first);
      out += indent < 0 ? ":" : ": ";
      writeValue(out, kv.second, indent, depth + 1);
    }
    if (o.size()) newline(depth);
    out += '}';
    break;
  }
  }
}

} // namespace

Value parse(const std::string &text) { return Parser(text).parseDocument(); }

std::string write(const Value &value, int indent) {
  std::string out;
  writeValue(out, value, indent, 0);
  return out;
}

} // namespace cudaperf::json
