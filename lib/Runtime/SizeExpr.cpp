#include "cudaperf/Runtime/SizeExpr.h"

#include <cctype>
#include <cmath>
#include <vector>

namespace cudaperf::runtime {

struct SizeExpr::Node {
  char op = 0; // 0: literal, 'n': name, otherwise + - * / %
  int64_t literal = 0;
  std::string name;
  std::shared_ptr<const Node> lhs, rhs;
};

namespace {

using NodePtr = std::shared_ptr<const SizeExpr::Node>;

// A task's count is a short formula ("n*n", "(m+1)*k"): longer or deeper ones are refused before
// the recursive parser, evaluator and destructor below could exhaust the stack on them.
constexpr size_t kMaxExprChars = 1024;
constexpr int kMaxExprDepth = 32;

// Recursive descent: expr := term (('+'|'-') term)*, term := factor (('*'|'/'|'%') factor)*,
// factor := integer | name | '(' expr ')'.
class ExprParser {
public:
  ExprParser(const std::string &text, std::set<std::string> &names) : text_(text), names_(names) {}

  NodePtr parseAll() {
    if (text_.size() > kMaxExprChars)
      throw SizeExprError("size expression of " + std::to_string(text_.size()) + " characters: longer than " +
                          std::to_string(kMaxExprChars));
    NodePtr n = parseExpr();
    skip();
    if (pos_ != text_.size())
      fail("unexpected '" + std::string(1, text_[pos_]) + "'");
    return n;
  }

private:
  const std::string &text_;
  std::set<std::string> &names_;
  size_t pos_ = 0;
  int depth_ = 0;

  [[noreturn]] void fail(const std::string &msg) {
    throw SizeExprError("size expression \"" + text_ + "\": " + msg + " at offset " +
                        std::to_string(pos_));
  }
  void skip() {
    while (pos_ < text_.size() && std::isspace((unsigned char)text_[pos_]))
      ++pos_;
  }
  static NodePtr binary(char op, NodePtr l, NodePtr r) {
    auto n = std::make_shared<SizeExpr::Node>();
    n->op = op;
    n->lhs = std::move(l);
    n->rhs = std::move(r);
    return n;
  }
  NodePtr parseExpr() {
    NodePtr l = parseTerm();
    while (true) {
      skip();
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) {
        char op = text_[pos_++];
        l = binary(op, l, parseTerm());
      } else {
        return l;
      }
    }
  }
  NodePtr parseTerm() {
    NodePtr l = parseFactor();
    while (true) {
      skip();
      if (pos_ < text_.size() && (text_[pos_] == '*' || text_[pos_] == '/' || text_[pos_] == '%')) {
        char op = text_[pos_++];
        l = binary(op, l, parseFactor());
      } else {
        return l;
      }
    }
  }
  NodePtr parseFactor() {
    skip();
    if (pos_ >= text_.size())
      fail("unexpected end");
    char c = text_[pos_];
    if (c == '(') {
      if (++depth_ > kMaxExprDepth)
        fail("parentheses nested deeper than " + std::to_string(kMaxExprDepth));
      ++pos_;
      NodePtr n = parseExpr();
      --depth_;
      skip();
      if (pos_ >= text_.size() || text_[pos_] != ')')
        fail("expected ')'");
      ++pos_;
      return n;
    }
    auto n = std::make_shared<SizeExpr::Node>();
    if (std::isdigit((unsigned char)c)) {
      int64_t v = 0;
      while (pos_ < text_.size() && std::isdigit((unsigned char)text_[pos_])) {
        if (v > (INT64_MAX - 9) / 10)
          fail("integer literal too large");
        v = v * 10 + (text_[pos_++] - '0');
      }
      n->literal = v;
      return n;
    }
    if (std::isalpha((unsigned char)c) || c == '_') {
      size_t start = pos_;
      while (pos_ < text_.size() && (std::isalnum((unsigned char)text_[pos_]) || text_[pos_] == '_'))
        ++pos_;
      n->op = 'n';
      n->name = text_.substr(start, pos_ - start);
      names_.insert(n->name);
      return n;
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }
};

int64_t eval(const SizeExpr::Node &n, const std::map<std::string, double> &params,
             const std::string &text) {
  auto fail = [&](const std::string &msg) -> int64_t {
    throw SizeExprError("size expression \"" + text + "\": " + msg);
  };
  if (n.op == 0)
    return n.literal;
  if (n.op == 'n') {
    auto it = params.find(n.name);
    if (it == params.end())
      return fail("parameter '" + n.name + "' is not set by this configuration");
    double v = it->second;
    if (v != std::floor(v) || std::fabs(v) > 9.0e15)
      return fail("parameter '" + n.name + "' is not an integer");
    return int64_t(v);
  }
  int64_t a = eval(*n.lhs, params, text), b = eval(*n.rhs, params, text), r = 0;
  switch (n.op) {
  case '+': if (__builtin_add_overflow(a, b, &r)) fail("overflow"); return r;
  case '-': if (__builtin_sub_overflow(a, b, &r)) fail("overflow"); return r;
  case '*': if (__builtin_mul_overflow(a, b, &r)) fail("overflow"); return r;
  case '/': if (b == 0) fail("division by zero"); return a / b;
  case '%': if (b == 0) fail("division by zero"); return a % b;
  }
  return fail("bad operator");
}

} // namespace

SizeExpr SizeExpr::parse(const std::string &text) {
  SizeExpr e;
  e.text_ = text;
  ExprParser p(text, e.names_);
  e.root_ = p.parseAll();
  return e;
}

int64_t SizeExpr::evaluate(const std::map<std::string, double> &params) const {
  if (!root_)
    throw SizeExprError("empty size expression");
  return eval(*root_, params, text_);
}

} // namespace cudaperf::runtime
