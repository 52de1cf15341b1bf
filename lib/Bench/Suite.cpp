#include "cudaperf/Bench/Suite.h"
#include "cudaperf/Bench/BenchError.h"
#include "cudaperf/Bench/LibraryPolicy.h"

#include "cudaperf/Schema/Manifest.h"
#include "cudaperf/Schema/TaskSpec.h"
#include "cudaperf/Support/Json.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace cudaperf::bench {

namespace fs = std::filesystem;
using support::Json;

namespace {

constexpr const char *kSuiteSchema = "cudaperf-suite/1";

[[noreturn]] void suiteError(const std::string &message) { throw BenchError(BenchError::Kind::Suite, message); }

std::string readText(const std::string &path, const char *what) {
  std::ifstream in(path);
  if (!in)
    suiteError(path + ": cannot be read (" + what + ")");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Json parseJson(const std::string &text, const std::string &path) {
  try {
    return support::parseJson(text, path);
  } catch (const support::SupportError &e) {
    suiteError(std::string(e.what()) + " (not JSON)");
  }
}

std::string absoluteText(const fs::path &p) { return fs::absolute(p).lexically_normal().string(); }

std::string stringField(const Json &obj, const std::string &key, const std::string &where, bool required) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (required)
      suiteError(where + ": missing \"" + key + "\"");
    return "";
  }
  if (!it->is_string())
    suiteError(where + "." + key + ": expected a string, got " + support::jsonSnippet(*it));
  return it->get<std::string>();
}

std::vector<std::string> libraryList(const Json &obj, const std::string &where, const std::vector<std::string> &fallback) {
  auto it = obj.find("disallowed_libraries");
  if (it == obj.end())
    return fallback;
  if (!it->is_array())
    suiteError(where + ".disallowed_libraries: expected an array of library names");
  std::vector<std::string> names;
  for (size_t i = 0; i < it->size(); ++i) {
    const Json &v = (*it)[i];
    std::string at = where + ".disallowed_libraries[" + std::to_string(i) + "]";
    if (!v.is_string())
      suiteError(at + ": expected a string, got " + support::jsonSnippet(v));
    if (!isKnownLibrary(v.get<std::string>())) {
      std::string known;
      for (const auto &k : knownLibraries())
        known += (known.empty() ? "" : ", ") + k;
      suiteError(at + ": unknown library \"" + v.get<std::string>() + "\" (known: " + known + ")");
    }
    names.push_back(v.get<std::string>());
  }
  return names;
}

// "root": a path relative to the suite file, or "${VAR}" / "${VAR:-default}": the variable's value
// (relative to the working directory, as the user typed it) or the default (relative to the suite).
fs::path resolveRoot(const std::string &text, const fs::path &suiteDir, const std::string &where) {
  static const std::regex var(R"(^\$\{([A-Za-z_][A-Za-z0-9_]*)(:-(.*))?\}$)");
  std::smatch m;
  if (std::regex_match(text, m, var)) {
    if (const char *value = std::getenv(m[1].str().c_str()); value && *value)
      return fs::absolute(value);
    if (!m[2].matched)
      suiteError(where + ".root: environment variable " + m[1].str() + " is not set");
    return (suiteDir / m[3].str()).lexically_normal();
  }
  if (text.find("${") != std::string::npos)
    suiteError(where + ".root: \"" + text + "\": only a whole \"${VAR}\" or \"${VAR:-default}\" is expanded");
  return (suiteDir / text).lexically_normal();
}

struct Entry {
  std::string dir;    // absolute
  std::string name;   // expected name ("" for task.json's)
  std::string source;
  std::vector<std::string> disallowed;
  std::string where;
};

// The entries of a dataset manifest (schema::ManifestEntry: "task", "dir" relative to the manifest
// and "split" required) whose split is the one asked for.
std::vector<Entry> manifestEntries(const fs::path &manifest, const std::string &split, const std::string &where,
                                   const std::vector<std::string> &disallowed) {
  std::string text;
  try {
    text = support::readRegularFile(manifest.string());
  } catch (const support::SupportError &) {
    suiteError(where + ": manifest " + manifest.string() + " cannot be read (generate the dataset first: make dataset)");
  }
  std::vector<schema::ManifestEntry> lines;
  try {
    lines = schema::parseManifest(text, manifest.string());
  } catch (const support::SupportError &e) {
    suiteError(e.what());
  }
  std::vector<Entry> entries;
  for (const schema::ManifestEntry &line : lines) {
    if (line.split != split)
      continue;
    Entry e;
    e.name = line.task;
    e.dir = absoluteText(manifest.parent_path() / line.dir);
    e.source = line.family.value_or("");
    e.disallowed = disallowed;
    e.where = line.where;
    entries.push_back(std::move(e));
  }
  if (entries.empty())
    suiteError(where + ": manifest " + manifest.string() + " has no task in split \"" + split + "\"");
  return entries;
}

} // namespace

const SuiteTask *Suite::find(const std::string &taskName) const {
  for (const SuiteTask &t : tasks)
    if (t.name == taskName)
      return &t;
  return nullptr;
}

size_t Suite::presentCount() const {
  return size_t(std::count_if(tasks.begin(), tasks.end(), [](const SuiteTask &t) { return t.present; }));
}

SuiteTask readSuiteTask(const std::string &taskDir) {
  std::string path = (fs::path(taskDir) / "task.json").string();
  Json doc = parseJson(readText(path, "the task's description"), path);
  // The name, kind and configuration names under the task format's rules (schema::TaskSpec); the
  // rest of the task is the evaluator's to check when it loads it.
  schema::TaskSummary summary;
  try {
    summary = schema::readTaskSummary(doc, path);
  } catch (const support::SupportError &e) {
    suiteError(e.what());
  }
  SuiteTask t;
  t.dir = absoluteText(taskDir);
  t.name = summary.name;
  t.kind = summary.kind;
  t.configs = summary.configs;
  return t;
}

Suite loadSuite(const std::string &path, const SuiteOptions &options) {
  Json doc = parseJson(readText(path, "the suite"), path);
  if (!doc.is_object())
    suiteError(path + ": expected a JSON object");
  std::string schema = stringField(doc, "schema", path, true);
  if (schema != kSuiteSchema)
    suiteError(path + ".schema: \"" + schema + "\" is not " + kSuiteSchema);
  Suite suite;
  suite.path = absoluteText(path);
  suite.name = stringField(doc, "name", path, true);
  suite.description = stringField(doc, "description", path, false);
  static const std::set<std::string> known = {"schema", "name", "description", "root", "disallowed_libraries",
                                              "tasks", "tasks_from"};
  for (const auto &item : doc.items())
    if (!known.count(item.key()))
      suiteError(path + ": unknown key \"" + item.key() + "\"");
  std::vector<std::string> suiteLibraries = libraryList(doc, path, {});

  fs::path suiteDir = fs::path(suite.path).parent_path();
  fs::path root = options.rootOverride.empty()
                      ? resolveRoot(doc.contains("root") ? stringField(doc, "root", path, true) : ".", suiteDir, path)
                      : fs::absolute(options.rootOverride);

  std::vector<Entry> entries;
  bool hasList = doc.contains("tasks"), hasManifest = doc.contains("tasks_from");
  if (hasList == hasManifest)
    suiteError(path + ": needs exactly one of \"tasks\" (a list) and \"tasks_from\" (a dataset manifest)");
  if (hasList) {
    const Json &list = doc["tasks"];
    if (!list.is_array() || list.empty())
      suiteError(path + ".tasks: expected a non-empty array");
    for (size_t i = 0; i < list.size(); ++i) {
      std::string at = path + ".tasks[" + std::to_string(i) + "]";
      const Json &item = list[i];
      Entry e;
      e.where = at;
      e.disallowed = suiteLibraries;
      if (item.is_string()) {
        e.dir = absoluteText(root / item.get<std::string>());
      } else if (item.is_object()) {
        for (const auto &kv : item.items())
          if (kv.key() != "dir" && kv.key() != "name" && kv.key() != "source" && kv.key() != "disallowed_libraries")
            suiteError(at + ": unknown key \"" + kv.key() + "\"");
        e.dir = absoluteText(root / stringField(item, "dir", at, true));
        e.name = stringField(item, "name", at, false);
        e.source = stringField(item, "source", at, false);
        e.disallowed = libraryList(item, at, suiteLibraries);
      } else {
        suiteError(at + ": expected a task directory (string) or an object with \"dir\"");
      }
      entries.push_back(std::move(e));
    }
  } else {
    const Json &from = doc["tasks_from"];
    std::string at = path + ".tasks_from";
    if (!from.is_object())
      suiteError(at + ": expected {\"manifest\": PATH, \"split\": NAME}");
    fs::path manifest = resolveRoot(stringField(from, "manifest", at, true), suiteDir, at);
    if (!options.rootOverride.empty())
      manifest = root / "manifest.jsonl";
    entries = manifestEntries(manifest, stringField(from, "split", at, true), at, suiteLibraries);
  }

  std::set<std::string> names;
  for (const Entry &e : entries) {
    SuiteTask task;
    if (!fs::is_regular_file(fs::path(e.dir) / "task.json")) {
      std::string why;
      if (!fs::is_directory(e.dir))
        why = "no such task directory " + e.dir;
      else
        why = e.dir + "/task.json: missing";
      // A refused import leaves its reason beside where task.json would be (scripts/import-kernelbench.py).
      std::ifstream refused(fs::path(e.dir) / "import-error.txt");
      std::string reason;
      if (refused && std::getline(refused, reason) && !reason.empty())
        why += " (import refused: " + reason + ")";
      if (!options.allowMissing)
        suiteError(e.where + ": " + why);
      task.dir = e.dir;
      task.name = e.name.empty() ? fs::path(e.dir).filename().string() : e.name;
      task.present = false;
      task.missingReason = why;
    } else {
      task = readSuiteTask(e.dir);
      if (!e.name.empty() && e.name != task.name)
        suiteError(e.where + ": the suite names the task \"" + e.name + "\" but " + e.dir + "/task.json says \"" +
                   task.name + "\"");
    }
    task.source = e.source;
    task.disallowedLibraries = e.disallowed;
    if (!names.insert(task.name).second)
      suiteError(e.where + ": a second task named \"" + task.name + "\" (candidate files are named by task)");
    suite.tasks.push_back(std::move(task));
  }
  return suite;
}

Suite suiteFromTaskDirs(const std::vector<std::string> &taskDirs) {
  Suite suite;
  suite.name = "tasks of the results";
  std::set<std::string> seen;
  for (const std::string &dir : taskDirs) {
    std::string abs = absoluteText(dir);
    if (!seen.insert(abs).second)
      continue;
    SuiteTask t = readSuiteTask(abs);
    if (suite.find(t.name))
      suiteError(abs + ": a second task named \"" + t.name + "\" among the results' task directories");
    suite.tasks.push_back(std::move(t));
  }
  return suite;
}

} // namespace cudaperf::bench
