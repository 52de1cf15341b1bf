// A small JSON value with a strict parser and a deterministic writer. The runtime cannot use
// llvm::json (the GPU host has no LLVM), and keeping it dependency-free lets the worker build
// anywhere the CUDA toolkit is.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudaperf::json {

class Value;
using Array = std::vector<Value>;
// Insertion order is kept so written documents read in the order the writer built them.
class Object {
public:
  Value &operator[](const std::string &key);
  const Value *find(const std::string &key) const;
  Value *find(const std::string &key);
  bool contains(const std::string &key) const { return find(key) != nullptr; }
  const std::vector<std::pair<std::string, Value>> &items() const { return items_; }
  size_t size() const { return items_.size(); }

private:
  std::vector<std::pair<std::string, Value>> items_;
};

class ParseError : public std::runtime_error {
public:
  ParseError(const std::string &msg, size_t line, size_t column)
      : std::runtime_error(msg), line(line), column(column) {}
  size_t line, column;
};

class Value {
public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool b) : kind_(Kind::Bool), bool_(b) {}
  Value(int v) : kind_(Kind::Number), number_(v), isInteger_(true), integer_(v) {}
  Value(unsigned v) : kind_(Kind::Number), number_(v), isInteger_(true), integer_(v) {}
  Value(long v) : kind_(Kind::Number), number_(double(v)), isInteger_(true), integer_(v) {}
  Value(long long v) : kind_(Kind::Number), number_(double(v)), isInteger_(true), integer_(v) {}
  Value(unsigned long v) : Value((long long)v) {}
  Value(unsigned long long v) : Value((long long)v) {}
  Value(double v) : kind_(Kind::Number), number_(v) {}
  Value(const char *s) : kind_(Kind::String), string_(std::make_shared<std::string>(s)) {}
  Value(std::string s) : kind_(Kind::String), string_(std::make_shared<std::string>(std::move(s))) {}
  Value(Array a) : kind_(Kind::Array), array_(std::make_shared<Array>(std::move(a))) {}
  Value(Object o) : kind_(Kind::Object), object_(std::make_shared<Object>(std::move(o))) {}

  Kind kind() const { return kind_; }
  bool isNull() const { return kind_ == Kind::Null; }
  bool isBool() const { return kind_ == Kind::Bool; }
  bool isNumber() const { return kind_ == Kind::Number; }
  bool isInteger() const { return kind_ == Kind::Number && isInteger_; }
  bool isString() const { return kind_ == Kind::String; }
  bool isArray() const { return kind_ == Kind::Array; }
  bool isObject() const { return kind_ == Kind::Object; }

  // Accessors throw std::logic_error on a kind mismatch; callers validate with isX() first.
  bool asBool() const;
  double asNumber() const;
  int64_t asInteger() const;
  const std::string &asString() const;
  const Array &asArray() const;
  Array &asArray();
  const Object &asObject() const;
  Object &asObject();

  // Object convenience: a missing key yields nullptr.
  const Value *get(const std::string &key) const;

private:
  Kind kind_ = Kind::Null;
  bool bool_ = false;
  double number_ = 0;
  bool isInteger_ = false;
  int64_t integer_ = 0;
  // Shared so copies are cheap; the writer never mutates a value it did not build.
  std::shared_ptr<std::string> string_;
  std::shared_ptr<Array> array_;
  std::shared_ptr<Object> object_;
};

Value parse(const std::string &text); // throws ParseError
// indent < 0: one line (used for the worker's line protocol); otherwise pretty with that indent.
std::string write(const Value &value, int indent = -1);

} // namespace cudaperf::json
