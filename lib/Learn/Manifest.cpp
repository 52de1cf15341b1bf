#include "cudaperf/Learn/Manifest.h"

#include "cudaperf/Schema/Manifest.h"
#include "cudaperf/Support/Json.h"

#include <filesystem>
#include <map>
#include <sstream>

namespace cudaperf::learn {

namespace fs = std::filesystem;

std::vector<ManifestTask> readManifest(const std::string &datasetDir) {
  fs::path path = fs::path(datasetDir) / "manifest.jsonl";
  std::string text;
  try {
    text = support::readRegularFile(path.string());
  } catch (const support::SupportError &) {
    throw LearnError(path.string() + ": cannot be read (a dataset folder: cudaperf-dataset generate)");
  }
  std::vector<ManifestTask> tasks;
  try {
    std::vector<schema::ManifestEntry> entries = schema::parseManifest(text, path.string());
    for (const schema::ManifestEntry &e : entries) {
      ManifestTask t;
      t.name = e.task;
      t.dir = (fs::path(datasetDir) / e.dir).string();
      t.family = e.family.value_or("");
      t.kind = e.kind.value_or("");
      t.split = e.split;
      // The trainers read the implementation files: a line without them is an error here.
      for (const schema::ManifestImplementation &impl : e.requireImplementations()) {
        t.implementations.push_back(impl.file);
        t.strategies.push_back(impl.strategies.value_or(std::vector<std::string>()));
        t.expected.push_back(impl.expected.value_or(""));
      }
      tasks.push_back(std::move(t));
    }
  } catch (const support::SupportError &e) {
    throw LearnError(e.what());
  }
  if (tasks.empty()) throw LearnError(path.string() + ": no tasks");
  return tasks;
}

std::set<std::string> familiesOf(const std::vector<ManifestTask> &tasks, const std::string &split) {
  std::set<std::string> families;
  for (const ManifestTask &t : tasks)
    if (t.split == split) families.insert(t.family);
  return families;
}

std::vector<const ManifestTask *> selectRoundRobin(const std::vector<ManifestTask> &tasks, const std::string &split,
                                                   const std::set<std::string> &kinds, FamilyFilter filter,
                                                   const std::set<std::string> &families, size_t count) {
  std::map<std::string, std::vector<const ManifestTask *>> byFamily;
  for (const ManifestTask &t : tasks) {
    bool known = families.count(t.family) > 0;
    bool passes = filter == FamilyFilter::Any || (filter == FamilyFilter::Within ? known : !known);
    if (t.split == split && (kinds.empty() || kinds.count(t.kind)) && passes) byFamily[t.family].push_back(&t);
  }
  std::vector<const ManifestTask *> chosen;
  for (size_t round = 0; chosen.size() < count; ++round) {
    bool any = false;
    for (auto &[family, list] : byFamily)
      if (round < list.size() && chosen.size() < count) {
        chosen.push_back(list[round]);
        any = true;
      }
    if (!any) break;
  }
  return chosen;
}

std::vector<std::string> splitList(const std::string &text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    size_t b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
  }
  return out;
}

} // namespace cudaperf::learn
