#include "cudaperf/Learn/Manifest.h"

#include "cudaperf/Support/Json.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace cudaperf::learn {

namespace fs = std::filesystem;

std::vector<ManifestTask> readManifest(const std::string &datasetDir) {
  fs::path path = fs::path(datasetDir) / "manifest.jsonl";
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LearnError(path.string() + ": cannot be read (a dataset folder: cudaperf-dataset generate)");
  std::vector<ManifestTask> tasks;
  std::string line;
  size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      support::Json j = support::parseJson(line);
      ManifestTask t;
      t.name = j.at("task").get<std::string>();
      t.dir = (fs::path(datasetDir) / j.at("dir").get<std::string>()).string();
      t.family = j.value("family", std::string());
      t.kind = j.value("kind", std::string());
      t.split = j.at("split").get<std::string>();
      for (const support::Json &impl : j.at("implementations")) {
        t.implementations.push_back(impl.at("file").get<std::string>());
        t.strategies.push_back(impl.value("strategies", std::vector<std::string>()));
        t.expected.push_back(impl.value("expected", std::string()));
      }
      tasks.push_back(std::move(t));
    } catch (const std::exception &e) {
      throw LearnError(path.string() + ": line " + std::to_string(number) + ": " + e.what());
    }
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
