#include "cudaperf/Schema/Manifest.h"

#include "ObjectIO.h"

#include "cudaperf/Support/JsonReader.h"

namespace cudaperf::schema {

using detail::ObjectReader;
using detail::ObjectWriter;
using support::JsonField;
using support::SupportError;

namespace {

bool hasControl(std::string_view s) {
  for (char c : s)
    if ((unsigned char)c < 0x20 || c == 0x7f)
      return true;
  return false;
}

std::vector<std::string> stringList(const JsonField &f) {
  std::vector<std::string> out;
  for (const JsonField &e : f.elements())
    out.push_back(e.string());
  return out;
}

ManifestImplementation readImplementation(const JsonField &f) {
  ManifestImplementation m;
  ObjectReader r(f, m.extra, m.keyOrder);
  auto file = r.take("file");
  if (!file)
    f.require("file"); // throws "PATH.file: missing"
  m.file = file->string();
  if (std::string why = relativePathProblem(m.file); !why.empty())
    file->fail(support::jsonSnippet(file->json()) + " " + why);
  if (auto s = r.take("strategies"))
    m.strategies = stringList(*s);
  m.baseline = r.boolean("baseline");
  m.expected = r.string("expected");
  r.keepRest();
  return m;
}

// A manifest's task key: writers use plain names ("row_softmax_007") and folder-like ones
// ("pytorch/leaky_relu", test/learn/rl-cli-test.sh), so '/' is allowed; what could leave a folder a
// tool makes from it is not.
std::string taskKeyProblem(std::string_view task) {
  if (task.empty())
    return "is empty";
  if (task.size() > 200)
    return "is longer than 200 bytes";
  if (task.front() == '/')
    return "is absolute (a name, not a path)";
  if (hasControl(task) || task.find('\\') != std::string_view::npos)
    return hasControl(task) ? "holds a control character" : "holds a backslash";
  if (!relativePathProblem(task).empty())
    return "holds a \"..\" component";
  return "";
}

} // namespace

std::string plainNameProblem(std::string_view name) {
  if (name.empty())
    return "is empty";
  if (name.size() > 200)
    return "is longer than 200 bytes";
  if (name == "." || name == "..")
    return "is not a name";
  if (name.find('/') != std::string_view::npos || name.find('\\') != std::string_view::npos)
    return "holds a path separator (a name, not a path)";
  if (hasControl(name))
    return "holds a control character";
  return "";
}

std::string relativePathProblem(std::string_view path) {
  if (path.empty())
    return "is empty";
  if (path.front() == '/')
    return "is absolute (a path inside the task directory)";
  if (hasControl(path))
    return "holds a control character";
  size_t begin = 0;
  while (begin <= path.size()) {
    size_t end = path.find('/', begin);
    if (end == std::string_view::npos)
      end = path.size();
    if (path.substr(begin, end - begin) == "..")
      return "leaves the task directory";
    begin = end + 1;
  }
  return "";
}

ManifestEntry ManifestEntry::fromJson(const Json &line, const std::string &document) {
  JsonField root(line, document);
  ManifestEntry e;
  ObjectReader r(root, e.extra, e.keyOrder);
  // Required keys first, in the order the messages of the old readers named them.
  for (const char *key : {"task", "dir", "split"})
    if (!line.contains(key))
      root.require(key);
  e.task = r.take("task")->string();
  if (std::string why = taskKeyProblem(e.task); !why.empty())
    root.require("task").fail(support::jsonSnippet(line.at("task")) + " " + why);
  e.dir = r.take("dir")->string();
  if (e.dir.empty() || hasControl(e.dir))
    root.require("dir").fail(e.dir.empty() ? "is empty" : "holds a control character");
  e.split = r.take("split")->string();
  e.family = r.string("family");
  e.kind = r.string("kind");
  e.variant = r.string("variant");
  e.params = r.object("params");
  if (auto c = r.take("configs"))
    e.configs = stringList(*c);
  if (auto impls = r.take("implementations")) {
    e.implementations.emplace();
    for (const JsonField &i : impls->elements())
      e.implementations->push_back(readImplementation(i));
  }
  r.keepRest();
  return e;
}

Json ManifestEntry::toJson() const {
  ObjectWriter w;
  w.put("task", Json(task));
  w.put("dir", Json(dir));
  w.put("family", family);
  w.put("kind", kind);
  w.put("split", Json(split));
  w.put("variant", variant);
  w.put("params", params);
  w.put("configs", configs);
  if (implementations) {
    Json list = Json::array();
    for (const ManifestImplementation &m : *implementations) {
      ObjectWriter iw;
      iw.put("file", Json(m.file));
      iw.put("strategies", m.strategies);
      iw.put("baseline", m.baseline);
      iw.put("expected", m.expected);
      list.push_back(iw.finish(m.extra, m.keyOrder));
    }
    w.put("implementations", list);
  }
  return w.finish(extra, keyOrder);
}

const std::vector<ManifestImplementation> &ManifestEntry::requireImplementations() const {
  if (!implementations)
    throw SupportError((where.empty() ? "manifest line" : where) +
                       ": implementations: missing (this reader needs the task's implementation files)");
  return *implementations;
}

std::vector<ManifestEntry> parseManifest(std::string_view text, const std::string &path) {
  std::vector<ManifestEntry> entries;
  size_t number = 0;
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos)
      continue;
    std::string where = path + ":" + std::to_string(number);
    Json doc = support::parseJson(line, where);
    if (!doc.is_object())
      throw SupportError(where + ": expected a JSON object per line, got " + support::jsonSnippet(doc));
    entries.push_back(ManifestEntry::fromJson(doc, where));
    entries.back().where = where;
  }
  return entries;
}

std::vector<ManifestEntry> readManifestFile(const std::string &path) {
  return parseManifest(support::readRegularFile(path), path);
}

std::string writeManifest(const std::vector<ManifestEntry> &entries) {
  std::string out;
  for (const ManifestEntry &e : entries)
    out += support::writeJson(e.toJson()) + "\n";
  return out;
}

} // namespace cudaperf::schema
