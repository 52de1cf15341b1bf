#include "cudaperf/Support/SourceGate.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <sstream>

namespace cudaperf::support {

namespace {

// The text the compiler's later phases see, as far as directives go: trigraph and digraph spellings
// of '#' and '\' made plain, and backslash-newline splices removed; `lineOf[i]` is the original line
// of character i. Comments and string literals are left in: a directive found inside one is checked
// as well (over-refusing a string that reads like a hostile include is the safe error).
struct Spliced {
  std::string text;
  std::vector<int> lineOf;
};

Spliced splice(const std::string &source) {
  Spliced s;
  int line = 1;
  for (size_t i = 0; i < source.size();) {
    bool backslash = source[i] == '\\';
    size_t width = 1;
    if (source.compare(i, 3, "?\?/") == 0) {
      backslash = true;
      width = 3;
    }
    if (backslash) {
      size_t j = i + width;
      while (j < source.size() && (source[j] == ' ' || source[j] == '\t' || source[j] == '\r'))
        ++j; // gcc splices across trailing white space too
      if (j < source.size() && source[j] == '\n') {
        i = j + 1;
        ++line;
        continue;
      }
    }
    if (source.compare(i, 3, "?\?=") == 0 || source.compare(i, 2, "%:") == 0) {
      s.text += '#';
      s.lineOf.push_back(line);
      i += source[i] == '?' ? 3 : 2;
      continue;
    }
    if (source[i] == '\n')
      ++line;
    s.text += source[i];
    s.lineOf.push_back(line);
    ++i;
  }
  return s;
}

// Skips white space and /* */ comments on the same line from `i`.
size_t skipSpace(const std::string &t, size_t i) {
  for (;;) {
    while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\r' || t[i] == '\v' || t[i] == '\f'))
      ++i;
    if (t.compare(i, 2, "/*") == 0) {
      size_t end = t.find("*/", i + 2);
      if (end == std::string::npos)
        return t.size();
      i = end + 2;
      continue;
    }
    return i;
  }
}

bool identifierChar(char c) { return std::isalnum((unsigned char)c) || c == '_' || c == '$'; }

// Why the include operand at `i` is refused, or "".
std::string checkOperand(const std::string &t, size_t i) {
  if (i >= t.size() || (t[i] != '"' && t[i] != '<'))
    return "not a literal \"name\" or <name> (a computed include is refused)";
  char close = t[i] == '"' ? '"' : '>';
  size_t end = t.find_first_of(std::string(1, close) + "\n", i + 1);
  if (end == std::string::npos || t[end] != close)
    return "an unterminated file name";
  std::string name = t.substr(i + 1, end - i - 1);
  if (name.empty())
    return "an empty file name";
  if (name[0] == '/' || name[0] == '~')
    return "an absolute path (only the toolkit's headers and the candidate's own text may be used)";
  if (name.find('\\') != std::string::npos)
    return "a backslash in the file name";
  std::stringstream parts(name);
  for (std::string part; std::getline(parts, part, '/');)
    if (part == "..")
      return "a \"..\" component (only the toolkit's headers and the candidate's own text may be used)";
  for (char c : name)
    if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
      return "a control or non-ASCII character in the file name";
  return "";
}

std::string excerpt(const std::string &t, size_t from) {
  size_t end = t.find('\n', from);
  std::string s = t.substr(from, (end == std::string::npos ? t.size() : end) - from);
  if (s.size() > 80)
    s = s.substr(0, 77) + "...";
  while (!s.empty() && (s.back() == '\r' || s.back() == ' '))
    s.pop_back();
  return s;
}

} // namespace

std::optional<std::string> refuseHostileSource(const std::string &source) {
  Spliced s = splice(source);
  const std::string &t = s.text;
  auto refuse = [&](size_t at, const std::string &why) {
    return "line " + std::to_string(s.lineOf.empty() ? 1 : s.lineOf[std::min(at, s.lineOf.size() - 1)]) + ": " +
           excerpt(t, at) + ": " + why;
  };
  if (source.find('\0') != std::string::npos)
    return std::string("a NUL byte in the source");
  for (size_t at = t.find("__has_include"); at != std::string::npos; at = t.find("__has_include", at + 1))
    return refuse(at, "__has_include is refused (it would tell which server files exist)");
  for (size_t at = t.find("_Pragma"); at != std::string::npos; at = t.find("_Pragma", at + 1))
    if (at == 0 || !identifierChar(t[at - 1]))
      return refuse(at, "_Pragma is refused (write #pragma)");
  // Every '#', wherever it is (a directive's '#' must begin its line, but a comment may come before
  // it, and one that began lines earlier hides nothing from this scan).
  for (size_t hash = t.find('#'); hash != std::string::npos; hash = t.find('#', hash + 1)) {
    size_t i = skipSpace(t, hash + 1);
    if (i < t.size() && std::isdigit((unsigned char)t[i]) && (hash == 0 || t[hash - 1] == '\n' ||
                                                              skipSpace(t, t.rfind('\n', hash) + 1) == hash))
      return refuse(hash, "line markers are refused (messages must point into the candidate)");
    size_t word = i;
    while (i < t.size() && identifierChar(t[i]))
      ++i;
    std::string directive = t.substr(word, i - word);
    if (directive == "include" || directive == "include_next" || directive == "import" || directive == "embed") {
      std::string why = checkOperand(t, skipSpace(t, i));
      if (!why.empty())
        return refuse(hash, "#" + directive + " with " + why);
    } else if (directive == "line") {
      return refuse(hash, "#line is refused (messages must point into the candidate)");
    } else if (directive == "pragma") {
      std::string rest = excerpt(t, i);
      if (rest.find("dependency") != std::string::npos || rest.find("include_alias") != std::string::npos)
        return refuse(hash, "this #pragma names a file and is refused");
    }
  }
  return std::nullopt;
}

namespace {

// The file a message line is located in ("FILE(12): error", "FILE:12:3: warning", "In file
// included from FILE:3"), or "" for a line without a location.
std::string locatedIn(const std::string &line) {
  std::string l = line;
  for (const char *prefix : {"In file included from ", "                 from "})
    if (l.rfind(prefix, 0) == 0)
      l = l.substr(std::string(prefix).size());
  size_t start = l.find_first_not_of(' ');
  if (start == std::string::npos)
    return "";
  for (size_t i = start; i < l.size(); ++i) {
    char c = l[i];
    if ((c == '(' || c == ':') && i + 1 < l.size() && std::isdigit((unsigned char)l[i + 1]) && i > start) {
      // A file: a path, or a name with an extension ("candidate.cu", "cuda_fp16.hpp"), not "n:1024".
      std::string file = l.substr(start, i - start);
      size_t dot = file.rfind('.');
      bool extension = dot != std::string::npos && dot + 1 < file.size() && file.size() - dot <= 6 &&
                       std::all_of(file.begin() + dot + 1, file.end(), [](char x) { return std::isalpha((unsigned char)x); });
      return file.find('/') != std::string::npos || extension ? file : "";
    }
    if (c == ' ' || c == '\t' || c == '"' || c == '\'')
      return "";
  }
  return "";
}

} // namespace

std::string keepOwnDiagnostics(const std::string &log, const std::vector<std::string> &ownFiles) {
  std::istringstream in(log);
  std::string out;
  int removed = 0;
  bool dropping = false;
  for (std::string line; std::getline(in, line);) {
    std::string file = locatedIn(line);
    bool included = line.rfind("In file included from ", 0) == 0 || line.rfind("                 from ", 0) == 0;
    if (!file.empty()) {
      bool own = false;
      for (const std::string &f : ownFiles)
        own |= file == f || (file.size() > f.size() && file.compare(file.size() - f.size() - 1, f.size() + 1, "/" + f) == 0 &&
                             f.find('/') != std::string::npos);
      if (included || !own) {
        if (!included)
          ++removed;
        dropping = !included;
        continue;
      }
      dropping = false;
    } else if (dropping) {
      // The message's continuation: the quoted line and the caret, up to a blank line or a new message.
      if (line.empty()) {
        dropping = false;
      }
      continue;
    }
    out += line + "\n";
  }
  if (removed > 0)
    out += "(" + std::to_string(removed) + " message" + (removed == 1 ? "" : "s") +
           " located outside the candidate's own text omitted)\n";
  if (!log.empty() && log.back() != '\n' && !out.empty() && out.back() == '\n' && removed == 0)
    out.pop_back();
  return out;
}

bool resolveInside(const std::string &root, const std::string &path, std::string &resolved) {
  if (root.empty() || path.empty() || path.find('\0') != std::string::npos)
    return false;
  char rootBuf[PATH_MAX], pathBuf[PATH_MAX];
  if (!realpath(root.c_str(), rootBuf))
    return false;
  std::string joined = path[0] == '/' ? path : std::string(rootBuf) + "/" + path;
  if (!realpath(joined.c_str(), pathBuf))
    return false;
  std::string r = rootBuf, p = pathBuf;
  if (r != "/" && (p.size() <= r.size() || p.compare(0, r.size(), r) != 0 || p[r.size()] != '/'))
    return false;
  resolved = p;
  return true;
}

} // namespace cudaperf::support
