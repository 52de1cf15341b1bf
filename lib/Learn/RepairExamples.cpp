// SFT's repair examples (include/cudaperf/Learn/RepairExamples.h, docs/training.md "Repair examples").
//
// The logs below are nvcc's (13.0) as the evaluator's build records them (lib/Runtime/Build.cpp): shim.cu
// is `#include "candidate.cu"` followed by the shim's own extern "C" function at line 5, so a candidate
// cut off inside a function body leaves the shim's definition inside the open block. nvcc's front end
// (EDG, through cudafe++) works on the host preprocessor's output, so the source line it quotes under a
// diagnostic has its comments removed, every run of blanks between tokens made one space, object-like
// macros expanded and CUDA's execution-space keywords written as the attributes they are macros for.
// A line is only quoted here when every token on it is of a kind whose preprocessed text is known;
// test/learn/repair-nvcc-test.sh compiles a sample of the mutations with nvcc and compares.
#include "cudaperf/Learn/RepairExamples.h"

#include "cudaperf/Reward/Pipeline.h"
#include "cudaperf/Reward/RewardConfig.h"
#include "cudaperf/Runtime/Build.h"
#include "cudaperf/Schema/EvalResult.h"
#include "cudaperf/Support/Hash.h"
#include "cudaperf/Support/Json.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <set>

namespace cudaperf::learn {

namespace {

using support::Json;
constexpr size_t kNone = size_t(-1);

struct Token {
  enum Kind { Ident, Number, Punct, String } kind = Punct;
  std::string text;
  int line = 0;     // 1-based
  size_t col = 0;   // byte offset in its line
  size_t begin = 0; // offsets in the source
  size_t end = 0;
};

// The source as tokens outside comments and preprocessor lines, and what makes a line unquotable.
struct Scan {
  std::vector<std::string> lines; // without their '\n'
  std::vector<size_t> lineStart;
  std::vector<Token> tokens;
  std::vector<bool> unquotable;    // by line: a preprocessor line, a block comment, a tab, a continuation
  std::vector<bool> endsInComment; // by line: the line ends inside a block comment
  std::map<std::string, std::optional<std::string>> macros; // object-like with a one-token body: it; else none
  std::set<std::string> preprocessorIdentifiers;
  bool ok = true; // false: an unterminated string, character or comment
};

bool identStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

Scan scan(const std::string &src) {
  Scan s;
  size_t start = 0;
  for (size_t i = 0; i <= src.size(); ++i)
    if (i == src.size() || src[i] == '\n') {
      s.lineStart.push_back(start);
      s.lines.push_back(src.substr(start, i - start));
      start = i + 1;
      if (i == src.size()) break;
    }
  // lines[k] is line k + 1; a final '\n' leaves an empty last line, harmless.
  s.unquotable.assign(s.lines.size() + 1, false);
  s.endsInComment.assign(s.lines.size() + 1, false);
  int line = 1;
  bool lineHasToken = false; // a token (or anything but blanks) already on this line: '#' is not a directive
  auto bad = [&](int l) {
    if (l >= 1 && size_t(l) < s.unquotable.size()) s.unquotable[size_t(l)] = true;
  };
  for (size_t i = 0; i < src.size();) {
    char c = src[i];
    if (c == '\n') {
      ++line;
      lineHasToken = false;
      ++i;
      continue;
    }
    if (c == ' ') {
      ++i;
      continue;
    }
    if (c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      bad(line);
      ++i;
      continue;
    }
    if (c == '\\' && i + 1 < src.size() && src[i + 1] == '\n') { // a continued line
      bad(line);
      bad(line + 1);
      ++line;
      i += 2;
      continue;
    }
    if (c == '#' && !lineHasToken) { // a directive, with its continuation lines
      size_t end = i;
      int first = line;
      while (end < src.size() && src[end] != '\n') {
        if (src[end] == '\\' && end + 1 < src.size() && src[end + 1] == '\n') {
          ++line;
          end += 2;
          continue;
        }
        ++end;
      }
      for (int l = first; l <= line; ++l) bad(l);
      std::string text = src.substr(i + 1, end - i - 1);
      if (size_t comment = text.find("//"); comment != std::string::npos) text.resize(comment);
      for (size_t k = 0; k < text.size();) {
        if (identStart(text[k])) {
          size_t e = k;
          while (e < text.size() && identChar(text[e])) ++e;
          s.preprocessorIdentifiers.insert(text.substr(k, e - k));
          k = e;
        } else {
          ++k;
        }
      }
      size_t k = text.find_first_not_of(' ');
      if (k != std::string::npos && text.compare(k, 6, "define") == 0) {
        k = text.find_first_not_of(' ', k + 6);
        size_t e = k;
        while (e < text.size() && identChar(text[e])) ++e;
        if (k != std::string::npos && e > k) {
          std::string name = text.substr(k, e - k);
          std::optional<std::string> body;
          if (e >= text.size() || text[e] != '(') { // object-like
            std::string b = text.substr(e);
            size_t b0 = b.find_first_not_of(' '), b1 = b.find_last_not_of(' ');
            b = b0 == std::string::npos ? "" : b.substr(b0, b1 - b0 + 1);
            bool oneToken =
                !b.empty() && std::all_of(b.begin(), b.end(), [](char ch) { return identChar(ch) || ch == '.'; });
            if (oneToken) body = b;
          }
          s.macros[name] = body;
        }
      }
      i = end;
      continue;
    }
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '/') { // to the end of the line
      while (i < src.size() && src[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '*') {
      bad(line);
      size_t close = src.find("*/", i + 2);
      if (close == std::string::npos) {
        s.ok = false;
        return s;
      }
      for (size_t k = i; k < close; ++k)
        if (src[k] == '\n') {
          s.endsInComment[size_t(line)] = true;
          ++line;
          bad(line);
        }
      i = close + 2;
      lineHasToken = true;
      continue;
    }
    Token t;
    t.line = line;
    t.begin = i;
    t.col = i - s.lineStart[size_t(line - 1)];
    if (c == '"' || c == '\'') {
      size_t k = i + 1;
      while (k < src.size() && src[k] != c && src[k] != '\n') k += src[k] == '\\' ? 2 : 1;
      if (k >= src.size() || src[k] != c) {
        s.ok = false;
        return s;
      }
      t.kind = Token::String;
      t.end = k + 1;
    } else if (identStart(c)) {
      size_t k = i;
      while (k < src.size() && identChar(src[k])) ++k;
      t.kind = Token::Ident;
      t.end = k;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < src.size() && std::isdigit(static_cast<unsigned char>(src[i + 1])))) {
      size_t k = i + 1;
      while (k < src.size() && (identChar(src[k]) || src[k] == '.' ||
                                ((src[k] == '+' || src[k] == '-') && std::strchr("eEpP", src[k - 1]))))
        ++k;
      t.kind = Token::Number;
      t.end = k;
    } else {
      t.kind = Token::Punct;
      bool two = i + 1 < src.size() && ((c == '-' && src[i + 1] == '>') || (c == ':' && src[i + 1] == ':'));
      t.end = i + (two ? 2 : 1);
    }
    t.text = src.substr(t.begin, t.end - t.begin);
    s.tokens.push_back(t);
    lineHasToken = true;
    i = t.end;
  }
  return s;
}

const std::set<std::string> &keywords() {
  static const std::set<std::string> k = {
      "alignas", "alignof", "asm", "auto", "bool", "break", "case", "catch", "char", "class", "const", "constexpr",
      "const_cast", "continue", "decltype", "default", "delete", "do", "double", "dynamic_cast", "else", "enum",
      "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int", "long",
      "mutable", "namespace", "new", "noexcept", "nullptr", "operator", "private", "protected", "public",
      "register", "reinterpret_cast", "restrict", "return", "short", "signed", "sizeof", "static", "static_assert",
      "static_cast", "struct", "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef",
      "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while"};
  return k;
}

// Names the CUDA runtime's headers (with the C library's they include) declare at file scope and that a
// generated implementation could plausibly use as a parameter name; none may be the undeclared name.
// repair-nvcc-test.sh checks every name the mutations use against the headers themselves.
const std::set<std::string> &headerNames() {
  static const std::set<std::string> k = {
      "abs", "acos", "asin", "atan", "atan2", "blockDim", "blockIdx", "cbrt", "ceil", "clock", "cos", "cosh",
      "dim3", "div", "erf", "erfc", "exit", "exp", "exp2", "expm1", "fabs", "floor", "fma", "fmax", "fmin", "fmod",
      "free", "frexp", "gamma", "gridDim", "hypot", "index", "j0", "j1", "jn", "ldexp", "lgamma", "log", "log10",
      "log1p", "log2", "malloc", "max", "min", "modf", "nan", "norm", "pow", "rand", "rindex", "rint", "round",
      "rsqrt", "signal", "sin", "sinh", "sqrt", "tan", "tanh", "threadIdx", "time", "trunc", "warpSize", "y0",
      "y1", "yn"};
  return k;
}

bool allCaps(const std::string &s) {
  if (s.size() < 2 || !std::isupper(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  });
}

enum class BlockKind { Function, Control, Block, Other };

struct OpenBrace {
  size_t token = kNone;
  BlockKind kind = BlockKind::Other;
};

struct Function {
  size_t headerStart = 0, paramOpen = kNone, paramClose = kNone, bodyOpen = kNone, bodyClose = kNone;
  std::vector<std::string> params;
  bool returnsVoid = false; // nvcc warns of a missing return when a non-void function is cut off
};

// Braces and parentheses matched; every function definition at file scope; the open blocks after each line.
struct Structure {
  std::vector<size_t> match;                // token -> matching bracket token (kNone when none)
  std::vector<Function> functions;          // in source order
  std::map<int, std::vector<OpenBrace>> cuts; // line -> open blocks after it, where the source may be cut
  std::set<std::string> fileScopeNames;     // identifiers at file scope outside parentheses, macros included
  std::set<std::string> declaredParams;     // every parameter name of every function
};

std::vector<std::string> paramNames(const std::vector<Token> &tokens, size_t open, size_t close) {
  std::vector<std::string> names;
  size_t segment = open + 1;
  int depth = 0;
  for (size_t k = open + 1; k <= close; ++k) {
    const std::string &t = tokens[k].text;
    if (k < close && (t == "(" || t == "[")) ++depth;
    if (k < close && (t == ")" || t == "]")) --depth;
    if (k == close || (depth == 0 && t == ",")) {
      if (k > segment + 1 && tokens[k - 1].kind == Token::Ident && !keywords().count(tokens[k - 1].text))
        names.push_back(tokens[k - 1].text);
      segment = k + 1;
    }
  }
  return names;
}

Structure structure(const Scan &s) {
  Structure st;
  const std::vector<Token> &tk = s.tokens;
  st.match.assign(tk.size(), kNone);
  std::vector<size_t> parens; // open ( and [
  std::vector<OpenBrace> braces;
  size_t headerStart = 0;
  for (size_t k = 0; k < tk.size(); ++k) {
    const std::string &t = tk[k].text;
    if (tk[k].kind == Token::Ident && braces.empty() && parens.empty()) st.fileScopeNames.insert(t);
    if (t == "(" || t == "[") {
      parens.push_back(k);
    } else if (t == ")" || t == "]") {
      if (!parens.empty()) {
        st.match[k] = parens.back();
        st.match[parens.back()] = k;
        parens.pop_back();
      }
    } else if (t == "{") {
      OpenBrace b{k, BlockKind::Other};
      if (k > 0 && parens.empty()) {
        const std::string &prev = tk[k - 1].text;
        if (prev == ")" && st.match[k - 1] != kNone) {
          size_t open = st.match[k - 1];
          std::string before = open > 0 ? tk[open - 1].text : "";
          if (before == "if" || before == "for" || before == "while") b.kind = BlockKind::Control;
          else if (before == "switch") b.kind = BlockKind::Other;
          else if (braces.empty() && open > 0 && tk[open - 1].kind == Token::Ident && tk[k - 1].text == ")") {
            b.kind = BlockKind::Function;
            Function f;
            f.headerStart = headerStart;
            f.paramOpen = open;
            f.paramClose = k - 1;
            f.bodyOpen = k;
            f.params = paramNames(tk, open, k - 1);
            f.returnsVoid = open >= 2 && tk[open - 2].text == "void";
            for (const std::string &p : f.params) st.declaredParams.insert(p);
            st.functions.push_back(f);
          }
        } else if (prev == "else" && !braces.empty()) {
          b.kind = BlockKind::Control;
        } else if ((prev == "{" || prev == ";" || prev == "}") && !braces.empty()) {
          b.kind = BlockKind::Block;
        }
      }
      braces.push_back(b);
    } else if (t == "}") {
      if (!braces.empty()) {
        st.match[k] = braces.back().token;
        st.match[braces.back().token] = k;
        if (braces.size() == 1 && braces.back().kind == BlockKind::Function) st.functions.back().bodyClose = k;
        braces.pop_back();
      }
      if (braces.empty()) headerStart = k + 1;
    } else if (t == ";" && braces.empty() && parens.empty()) {
      headerStart = k + 1;
    }
    // The end of a line: may the source be cut here?
    bool lastOnLine = k + 1 == tk.size() || tk[k + 1].line != tk[k].line;
    if (lastOnLine && (t == ";" || t == "{" || t == "}") && parens.empty() && !braces.empty() &&
        braces.front().kind == BlockKind::Function && st.functions.back().returnsVoid &&
        std::all_of(braces.begin(), braces.end(), [](const OpenBrace &b) { return b.kind != BlockKind::Other; }) &&
        !s.endsInComment[size_t(tk[k].line)] && s.lines[size_t(tk[k].line - 1)].back() != '\\')
      st.cuts[tk[k].line] = braces;
  }
  for (const std::string &n : s.preprocessorIdentifiers) st.fileScopeNames.insert(n);
  return st;
}

// A line as nvcc quotes it under a diagnostic (the host preprocessor's output of that line), with the
// column of each of its tokens there; nullopt when a token's preprocessed text is not known. `replace`:
// one token written otherwise (the renamed use).
struct Quoted {
  std::string text;
  std::map<size_t, size_t> column; // token index -> column in text
};

std::optional<Quoted> quoteLine(const Scan &s, const Structure &st, int line, size_t replaceToken = kNone,
                                const std::string &replacement = "") {
  if (line < 1 || size_t(line) > s.lines.size() || s.unquotable[size_t(line)]) return std::nullopt;
  const std::string &raw = s.lines[size_t(line - 1)];
  Quoted q;
  q.text = raw.substr(0, raw.find_first_not_of(' '));
  const Token *prev = nullptr;
  auto first = std::lower_bound(s.tokens.begin(), s.tokens.end(), line,
                                [](const Token &t, int l) { return t.line < l; });
  for (auto it = first; it != s.tokens.end() && it->line == line; ++it) {
    const Token &t = *it;
    size_t index = size_t(it - s.tokens.begin());
    std::string text = t.text;
    if (index == replaceToken) {
      text = replacement;
    } else if (t.kind == Token::Ident) {
      auto macro = s.macros.find(t.text);
      if (macro != s.macros.end()) {
        if (!macro->second) return std::nullopt;
        text = *macro->second;
      } else if (t.text == "__global__") {
        text = "__attribute__((global))";
      } else if (t.text == "__device__") {
        text = "__attribute__((device))";
      } else if (t.text == "__host__") {
        text = "__attribute__((host))";
      } else if (t.text == "__forceinline__") {
        text = "__inline__ __attribute__((always_inline))";
      } else if (t.text == "__restrict__") {
        // a keyword of the front end: as written
      } else if (t.text.size() > 4 && t.text.compare(0, 2, "__") == 0 &&
                 t.text.compare(t.text.size() - 2, 2, "__") == 0) {
        return std::nullopt; // another CUDA macro (__shared__, __launch_bounds__, ...)
      } else if (allCaps(t.text) && !st.declaredParams.count(t.text)) {
        return std::nullopt; // perhaps a header's macro (INFINITY, FLT_MAX, CUDART_...)
      } else if (t.text == "assert" || t.text == "offsetof") {
        return std::nullopt;
      }
    }
    if (prev && t.begin > prev->end) q.text += ' '; // blanks (or a comment) between tokens: one space
    q.column[index] = q.text.size();
    q.text += text;
    prev = &t;
  }
  if (!prev) return std::nullopt;
  return q;
}

std::string shimLine(const runtime::Task &task, int line) {
  std::string shim = runtime::generateEntryShim(task);
  size_t begin = 0;
  for (int l = 1; l < line; ++l) begin = shim.find('\n', begin) + 1;
  return shim.substr(begin, shim.find('\n', begin) - begin);
}

std::string caret(size_t column) { return std::string(2 + column, ' ') + "^\n"; }

std::string errorsDetected(int n) {
  return std::to_string(n) + (n == 1 ? " error" : " errors") + " detected in the compilation of \"shim.cu\".\n";
}

// The log of a source cut after `line` with these blocks open (outermost first); nullopt when an open
// brace's line cannot be quoted.
std::optional<std::string> truncatedLog(const runtime::Task &task, const Scan &s, const Structure &st,
                                        const std::vector<OpenBrace> &open) {
  std::string entry = shimLine(task, 5);
  std::string log = "shim.cu(5): error: linkage specification is not allowed\n  " + entry + "\n" + caret(0) + "\n";
  log += "shim.cu(5): error: expected a \";\"\n  " + entry + "\n" + caret(entry.rfind('{')) + "\n";
  for (auto it = open.rbegin(); it != open.rend(); ++it) {
    const Token &brace = s.tokens[it->token];
    std::optional<Quoted> q = quoteLine(s, st, brace.line);
    if (!q) return std::nullopt;
    log += "At end of source: error: expected a \"}\"\ncandidate.cu(" + std::to_string(brace.line) +
           "): note #3196-D: to match this \"{\"\n  " + q->text + "\n" + caret(q->column.at(it->token)) + "\n";
  }
  log += errorsDetected(2 + int(open.size()));
  log += "\n[cudaperf-eval] shim.cu calls the entry point; every implementation must define\n  " +
         runtime::entrySignature(task) + "\n";
  return log;
}

} // namespace

const char *repairMutationName(RepairMutation mutation) {
  return mutation == RepairMutation::Truncation ? "truncation" : "undeclared_identifier";
}

std::vector<BrokenAnswer> truncations(const runtime::Task &task, const std::string &source) {
  std::vector<BrokenAnswer> out;
  Scan s = scan(source);
  if (!s.ok) return out;
  Structure st = structure(s);
  for (const auto &[line, open] : st.cuts) {
    std::optional<std::string> log = truncatedLog(task, s, st, open);
    if (!log) continue;
    BrokenAnswer b;
    b.mutation = RepairMutation::Truncation;
    size_t end = size_t(line) < s.lines.size() ? s.lineStart[size_t(line)] : source.size();
    b.source = source.substr(0, end);
    b.compileLog = *log;
    b.line = line;
    b.openBlocks = int(open.size());
    out.push_back(std::move(b));
  }
  return out;
}

std::optional<std::string> truncationLog(const runtime::Task &task, const std::string &truncated) {
  Scan s = scan(truncated);
  if (!s.ok || s.tokens.empty()) return std::nullopt;
  // After the last token only the rest of its line (blanks, a // comment) and blanks (what generation left
  // after a line end).
  size_t after = s.tokens.back().end;
  size_t lineEnd = std::min(truncated.find('\n', after), truncated.size());
  std::string rest = truncated.substr(after, lineEnd - after);
  size_t text = rest.find_first_not_of(' ');
  if (text != std::string::npos && rest.compare(text, 2, "//") != 0) return std::nullopt;
  if (truncated.find_first_not_of(" \n", lineEnd) != std::string::npos) return std::nullopt;
  Structure st = structure(s);
  auto cut = st.cuts.find(s.tokens.back().line);
  if (cut == st.cuts.end()) return std::nullopt;
  return truncatedLog(task, s, st, cut->second);
}

std::vector<BrokenAnswer> undeclaredIdentifiers(const runtime::Task &, const std::string &source,
                                                const std::vector<std::string> &otherSources) {
  std::vector<BrokenAnswer> out;
  Scan s = scan(source);
  if (!s.ok) return out;
  Structure st = structure(s);
  const std::vector<Token> &tk = s.tokens;
  // Replacement names: parameters of the other implementations' functions and of this one's.
  std::set<std::string> pool;
  for (const std::string &other : otherSources) {
    Scan o = scan(other);
    if (!o.ok) continue;
    for (const Function &f : structure(o).functions) pool.insert(f.params.begin(), f.params.end());
  }
  for (const Function &f : st.functions) pool.insert(f.params.begin(), f.params.end());
  auto typeLike = [](const std::string &t) {
    static const std::set<std::string> types = {"int", "float", "double", "char", "short", "long", "unsigned",
                                                "signed", "bool", "void", "const", "size_t", "auto"};
    if (types.count(t)) return true;
    size_t k = t.size();
    while (k > 0 && std::isdigit(static_cast<unsigned char>(t[k - 1]))) --k;
    return k < t.size(); // float4, int2, uchar4, ...
  };
  static const std::set<std::string> expressionKeywords = {"return", "case", "sizeof", "else", "do", "throw",
                                                           "delete", "new"};
  for (const Function &f : st.functions) {
    if (f.bodyClose == kNone) continue;
    std::set<std::string> inFunction;
    for (size_t k = f.headerStart; k <= f.bodyClose; ++k)
      if (tk[k].kind == Token::Ident) inFunction.insert(tk[k].text);
    std::vector<std::string> names;
    for (const std::string &n : pool)
      if (!inFunction.count(n) && !st.fileScopeNames.count(n) && !keywords().count(n) && !headerNames().count(n) &&
          n.compare(0, 2, "__") != 0)
        names.push_back(n);
    if (names.empty()) continue;
    for (const std::string &param : f.params) {
      std::vector<size_t> uses;
      bool redeclared = false;
      for (size_t k = f.bodyOpen + 1; k < f.bodyClose; ++k) {
        if (tk[k].kind != Token::Ident || tk[k].text != param) continue;
        const Token &prev = tk[k - 1];
        if (prev.text == "." || prev.text == "->" || prev.text == "::") continue; // a member of that name
        if (prev.kind == Token::Ident && !expressionKeywords.count(prev.text)) redeclared = true;
        if ((prev.text == "*" || prev.text == "&") && k >= 2 && tk[k - 2].kind == Token::Ident &&
            typeLike(tk[k - 2].text))
          redeclared = true;
        uses.push_back(k);
      }
      if (redeclared || uses.size() < 2) continue; // the parameter stays used: nvcc has nothing else to say
      for (size_t use : uses) {
        for (const std::string &name : names) {
          std::optional<Quoted> q = quoteLine(s, st, tk[use].line, use, name);
          if (!q) break; // the line cannot be quoted whatever the name
          BrokenAnswer b;
          b.mutation = RepairMutation::UndeclaredIdentifier;
          b.source = source.substr(0, tk[use].begin) + name + source.substr(tk[use].end);
          b.compileLog = "candidate.cu(" + std::to_string(tk[use].line) + "): error: identifier \"" + name +
                         "\" is undefined\n  " + q->text + "\n" + caret(q->column.at(use)) + "\n" + errorsDetected(1);
          b.line = tk[use].line;
          b.identifier = name;
          b.replaced = param;
          out.push_back(std::move(b));
        }
      }
    }
  }
  return out;
}

std::string repairFeedback(const runtime::Task &task, const std::string &compileLog) {
  // The evaluator's result for a build that failed, as cudaperf-eval writes it (the fields the reward reads).
  Json result = schema::EvalResult::synthetic(task.name, task.dir, "candidate.cu", "", schema::Outcome::CompileError,
                                              compileLog, compileLog, false)
                    .toJson();
  return reward::rewardFromDocuments(reward::RewardConfig(), result, "repair example", std::nullopt, std::nullopt,
                                     std::nullopt, "the candidate does not compile")
      .reward.feedback;
}

std::optional<RepairChoice> chooseRepair(const runtime::Task &task, const std::vector<std::string> &sources,
                                         uint64_t seed) {
  uint64_t base = support::splitmix64(seed ^ support::fnv1a64(task.name));
  auto draw = [&](uint64_t salt, size_t n) { return size_t(support::splitmix64(base + salt) % uint64_t(n)); };
  RepairMutation first = draw(1, 5) == 0 ? RepairMutation::UndeclaredIdentifier : RepairMutation::Truncation;
  RepairMutation second =
      first == RepairMutation::Truncation ? RepairMutation::UndeclaredIdentifier : RepairMutation::Truncation;
  for (RepairMutation kind : {first, second}) {
    std::vector<std::pair<size_t, std::vector<BrokenAnswer>>> eligible;
    for (size_t i = 0; i < sources.size(); ++i) {
      std::vector<BrokenAnswer> found;
      if (kind == RepairMutation::Truncation) {
        found = truncations(task, sources[i]);
        // As at a token cap: late in the answer, where there is an eligible cut there.
        int lines = int(std::count(sources[i].begin(), sources[i].end(), '\n'));
        std::vector<BrokenAnswer> late;
        for (BrokenAnswer &b : found)
          if (2 * b.line > lines) late.push_back(std::move(b));
        if (!late.empty()) found = std::move(late);
      } else {
        std::vector<std::string> others;
        for (size_t j = 0; j < sources.size(); ++j)
          if (j != i) others.push_back(sources[j]);
        found = undeclaredIdentifiers(task, sources[i], others);
      }
      if (!found.empty()) eligible.emplace_back(i, std::move(found));
    }
    if (eligible.empty()) continue;
    auto &[implementation, found] = eligible[draw(2, eligible.size())];
    RepairChoice choice;
    choice.implementation = implementation;
    choice.broken = std::move(found[draw(3, found.size())]);
    choice.broken.feedback = repairFeedback(task, choice.broken.compileLog);
    return choice;
  }
  return std::nullopt;
}

} // namespace cudaperf::learn
