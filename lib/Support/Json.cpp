#include "cudaperf/Support/Json.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fstream>
#include <sstream>
#include <unordered_set>
#include <vector>

namespace cudaperf::support {

namespace {

// Builds the document from nlohmann's SAX events so that a duplicate key (which the DOM parser
// would silently resolve to the last value) and runaway nesting are errors.
class StrictBuilder {
public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  explicit StrictBuilder(const JsonLimits &limits) : limits_(limits) {}

  Json root;
  std::string error;    // set when a handler stopped the parse
  bool located = false; // error starts with "LINE:COLUMN: "

  bool null() { return add(Json(nullptr)); }
  bool boolean(bool b) { return add(Json(b)); }
  bool number_integer(number_integer_t v) { return add(Json(v)); }
  bool number_unsigned(number_unsigned_t v) { return add(Json(v)); }
  bool number_float(number_float_t v, const string_t &) { return add(Json(v)); }
  bool string(string_t &s) { return add(Json(std::move(s))); }
  bool binary(binary_t &) { return fail("binary values are not JSON"); }
  bool start_object(std::size_t) { return open(Json::object()); }
  bool start_array(std::size_t) { return open(Json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(string_t &k) {
    if (!stack_.back().keys.insert(k).second)
      return fail("duplicate key \"" + k + "\" in " + path());
    pendingKey_ = std::move(k);
    return true;
  }
  bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &ex) {
    // "[json.exception.parse_error.101] parse error at line 3, column 2: MESSAGE" becomes
    // "3:2: MESSAGE", so that "FILE:3:2: MESSAGE" reads like a compiler's diagnostic.
    std::string msg = ex.what();
    if (size_t tag = msg.find("] "); msg.rfind("[json.exception", 0) == 0 && tag != std::string::npos)
      msg = msg.substr(tag + 2);
    unsigned line = 0, column = 0;
    int consumed = 0;
    if (std::sscanf(msg.c_str(), "parse error at line %u, column %u: %n", &line, &column, &consumed) == 2 &&
        consumed > 0)
      msg = std::to_string(line) + ":" + std::to_string(column) + ": " + msg.substr(size_t(consumed));
    else if (msg.rfind("parse error", 0) == 0)
      msg = msg.substr(11 + (msg.size() > 11 && msg[11] == ':' ? 2 : 0));
    located = consumed > 0;
    error = msg;
    return false;
  }

private:
  struct Open {
    Json *container;
    std::unordered_set<std::string> keys; // of an object: duplicates are found in O(1)
  };
  std::vector<Open> stack_; // open containers, outermost first
  std::string pendingKey_;
  const JsonLimits &limits_;
  size_t values_ = 0;

  bool fail(const std::string &msg) {
    error = msg;
    return false;
  }
  // Where the value being added goes; null for the root.
  Json *place(Json value) {
    if (stack_.empty()) {
      root = std::move(value);
      return &root;
    }
    Json &parent = *stack_.back().container;
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return &parent.back();
    }
    // The key is known to be new: append without ordered_map's linear search, so a huge object
    // cannot make parsing quadratic.
    auto &members = *parent.get_ptr<Json::object_t *>();
    members.Container::emplace_back(std::move(pendingKey_), std::move(value));
    return &members.Container::back().second;
  }
  bool counted() {
    if (++values_ > limits_.maxValues)
      return fail("more than " + std::to_string(limits_.maxValues) + " values");
    return true;
  }
  bool add(Json value) {
    if (!counted())
      return false;
    place(std::move(value));
    return true;
  }
  bool open(Json container) {
    int maxDepth = std::min(limits_.maxDepth, kMaxJsonDepth);
    if (int(stack_.size()) >= maxDepth)
      return fail("nesting deeper than " + std::to_string(maxDepth) + " levels at " + path());
    if (!counted())
      return false;
    stack_.push_back({place(std::move(container)), {}});
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }
  // The open containers as a field path ("configs[2].candidate"): each is its parent's last
  // member, since a parent grows only after its open child closes.
  std::string path() const {
    std::string p;
    for (size_t i = 1; i < stack_.size(); ++i) {
      const Json &parent = *stack_[i - 1].container;
      if (parent.is_array())
        p += "[" + std::to_string(parent.size() - 1) + "]";
      else
        p += (p.empty() ? "" : ".") + parent.get_ptr<const Json::object_t *>()->back().first;
    }
    return p.empty() ? "the top level" : p;
  }
};

bool hasNonFinite(const Json &v) {
  if (v.is_number_float())
    return !std::isfinite(v.get<double>());
  if (v.is_structured())
    for (const Json &e : v)
      if (hasNonFinite(e))
        return true;
  return false;
}

void spellNonFinite(Json &v) {
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isnan(d))
      v = "nan";
    else if (std::isinf(d))
      v = d > 0 ? "inf" : "-inf";
  } else if (v.is_structured()) {
    for (Json &e : v)
      spellNonFinite(e);
  }
}

} // namespace

Json parseJson(std::string_view text, const std::string &what) { return parseJson(text, what, JsonLimits()); }

Json parseJson(std::string_view text, const std::string &what, const JsonLimits &limits) {
  if (text.size() > limits.maxBytes)
    throw SupportError(what + ": " + std::to_string(text.size()) + " bytes, more than the limit of " +
                       std::to_string(limits.maxBytes));
  StrictBuilder builder(limits);
  bool ok = Json::sax_parse(text.begin(), text.end(), &builder, nlohmann::detail::input_format_t::json,
                            /*strict=*/true);
  if (!ok)
    throw SupportError(what + (builder.located ? ":" : ": ") +
                       (builder.error.empty() ? "not valid JSON" : builder.error));
  return std::move(builder.root);
}

Json readJsonFile(const std::string &path) { return parseJson(readRegularFile(path), path); }

std::string readRegularFile(const std::string &path, size_t maxBytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below anyway.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    throw SupportError(path + ": cannot be read (" + std::strerror(errno) + ")");
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    throw SupportError(path + ": is not a regular file");
  }
  if (uint64_t(st.st_size) > maxBytes) {
    close(fd);
    throw SupportError(path + ": " + std::to_string(st.st_size) + " bytes, larger than the limit of " +
                       std::to_string(maxBytes));
  }
  int flags = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  std::string out;
  out.resize(size_t(st.st_size));
  size_t got = 0;
  for (;;) {
    if (got == out.size()) {
      if (out.size() >= maxBytes + 1)
        break;
      out.resize(std::min(maxBytes + 1, std::max<size_t>(4096, out.size() * 2))); // it grew meanwhile
    }
    ssize_t n = read(fd, &out[got], out.size() - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int e = errno;
      close(fd);
      throw SupportError(path + ": cannot be read (" + std::strerror(e) + ")");
    }
    if (n == 0)
      break;
    got += size_t(n);
  }
  close(fd);
  if (got > maxBytes)
    throw SupportError(path + ": larger than the limit of " + std::to_string(maxBytes) + " bytes");
  out.resize(got);
  return out;
}

std::string writeJson(const Json &value, int indent) {
  constexpr auto replace = Json::error_handler_t::replace;
  if (!hasNonFinite(value))
    return value.dump(indent, ' ', false, replace);
  Json copy = value;
  spellNonFinite(copy);
  return copy.dump(indent, ' ', false, replace);
}

const Json *member(const Json &object, std::string_view key) {
  if (!object.is_object())
    return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

const char *jsonTypeName(const Json &value) {
  switch (value.type()) {
  case Json::value_t::null: return "null";
  case Json::value_t::boolean: return "a boolean";
  case Json::value_t::number_integer:
  case Json::value_t::number_unsigned:
  case Json::value_t::number_float: return "a number";
  case Json::value_t::string: return "a string";
  case Json::value_t::array: return "an array";
  case Json::value_t::object: return "an object";
  default: return "a binary value";
  }
}

std::string jsonSnippet(const Json &value, size_t maxChars) {
  std::string s = writeJson(value);
  if (s.size() > maxChars)
    s = s.substr(0, maxChars) + "...";
  return s;
}

} // namespace cudaperf::support
