#include "cudaperf/Dataset/Generator.h"

#include "TaskFiles.h"

#include <fmt/format.h>

#include <atomic>
#include <exception>
#include <filesystem>
#include <fnmatch.h>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

namespace cudaperf::dataset {

namespace {

bool matchesGlob(const std::string &globs, const std::string &name) {
  std::stringstream ss(globs);
  std::string g;
  while (std::getline(ss, g, ','))
    if (!g.empty() && fnmatch(g.c_str(), name.c_str(), 0) == 0)
      return true;
  return false;
}

std::string taskDirOf(const TaskSpec &t) { return std::string(kindName(t.kind)) + "/" + t.family + "/" + t.name; }

Json manifestEntry(const TaskSpec &t, const std::string &split) {
  Json impls = Json::array();
  for (const auto &i : t.impls)
    impls.push_back(Json{{"file", "impls/" + i.name + ".cu"}, {"strategies", i.strategies},
                         {"baseline", i.name == "baseline"}, {"expected", expectedName(i.expected)}});
  Json configs = Json::array();
  for (const auto &c : t.configs)
    configs.push_back(c.name);
  return Json{{"task", t.name},   {"dir", taskDirOf(t)}, {"family", t.family}, {"kind", kindName(t.kind)},
              {"split", split},   {"variant", t.variant}, {"params", t.params}, {"configs", configs},
              {"implementations", impls}};
}

void writeText(const std::string &path, const std::string &text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  if (!f.flush())
    throw DatasetError(path + ": cannot write");
}

// An earlier dataset in DIR is replaced (its c/ and pytorch/ trees removed first, so no task of
// another selection is left behind); any other non-empty DIR is refused.
void prepareOutputDir(const std::string &dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(dir, ec))
    return;
  if (!fs::is_directory(dir, ec))
    throw DatasetError(dir + ": exists and is not a directory");
  bool empty = fs::directory_iterator(dir, ec) == fs::directory_iterator();
  if (empty)
    return;
  if (!fs::exists(dir + "/dataset.json", ec))
    throw DatasetError(dir + ": not empty and not a dataset (no dataset.json); choose another --out");
  for (const char *sub : {"c", "pytorch"})
    fs::remove_all(dir + "/" + sub, ec);
  fs::remove(dir + "/manifest.jsonl", ec);
  fs::remove(dir + "/dataset.json", ec);
}

} // namespace

std::vector<const Family *> selectFamilies(const GenerateOptions &o) {
  if (o.kind != "all" && o.kind != "c" && o.kind != "pytorch")
    throw DatasetError("--kind must be c, pytorch or all, not '" + o.kind + "'");
  std::vector<const Family *> out;
  for (const auto &f : allFamilies())
    if ((o.kind == "all" || o.kind == kindName(f.kind)) && matchesGlob(o.familyGlob, f.name))
      out.push_back(&f);
  if (out.empty())
    throw DatasetError("no family matches '" + o.familyGlob + "' (kind " + o.kind +
                       "); cudaperf-dataset list-families lists them");
  return out;
}

TaskSpec makeTask(const Family &family, int index, uint64_t seed) {
  Rng rng(hashString(fmt::format("{}#{}", family.name, index), seed * 0x9e3779b97f4a7c15ull + 1));
  TaskSpec t;
  t.family = family.name;
  t.kind = family.kind;
  t.name = fmt::format("{}_{:03}", family.name, index);
  try {
    family.make(t, rng, index);
  } catch (const DatasetError &e) {
    throw DatasetError(fmt::format("{}: task {}: {}", family.name, t.name, e.what()));
  }
  if (t.variant.empty())
    t.variant = t.name;
  checkTaskSpec(t);
  return t;
}

std::string splitOf(const Family &family, const TaskSpec &task) {
  if (family.heldOut)
    return "test";
  switch (hashString(family.name + "/" + task.variant) % 10) {
  case 0: return "val";
  case 1: return "test";
  default: return "train";
  }
}

GenerateSummary generate(const GenerateOptions &o) {
  if (o.outDir.empty())
    throw DatasetError("--out DIR is required");
  std::vector<const Family *> families = selectFamilies(o);
  prepareOutputDir(o.outDir);
  struct Item {
    const Family *family;
    int index;
  };
  std::vector<Item> items;
  for (const Family *f : families)
    for (int i = 0; i < f->tasks && (o.limit < 0 || i < o.limit); ++i)
      items.push_back({f, i});

  std::vector<std::string> lines(items.size());
  std::vector<std::string> splits(items.size());
  std::vector<int> implCounts(items.size());
  std::atomic<size_t> next{0};
  std::exception_ptr firstError;
  std::mutex errorMutex;
  auto worker = [&] {
    for (size_t k; (k = next.fetch_add(1)) < items.size();) {
      try {
        TaskSpec t = makeTask(*items[k].family, items[k].index, o.seed);
        splits[k] = splitOf(*items[k].family, t);
        writeTaskFiles(t, o.outDir + "/" + taskDirOf(t));
        lines[k] = manifestEntry(t, splits[k]).dump() + "\n";
        implCounts[k] = int(t.impls.size());
      } catch (...) {
        std::lock_guard<std::mutex> lock(errorMutex);
        if (!firstError)
          firstError = std::current_exception();
        next = items.size();
      }
    }
  };
  std::vector<std::thread> threads;
  for (int j = 0; j < std::max(1, o.jobs); ++j)
    threads.emplace_back(worker);
  for (auto &t : threads)
    t.join();
  if (firstError)
    std::rethrow_exception(firstError);

  GenerateSummary summary;
  summary.tasks = int(items.size());
  summary.families = int(families.size());
  std::string manifest;
  std::map<std::string, int> byKind, bySplit;
  std::map<const Family *, std::map<std::string, int>> familySplits;
  for (size_t k = 0; k < items.size(); ++k) {
    manifest += lines[k];
    summary.implementations += implCounts[k];
    ++byKind[kindName(items[k].family->kind)];
    ++bySplit[splits[k]];
    ++familySplits[items[k].family][splits[k]];
  }
  writeText(o.outDir + "/manifest.jsonl", manifest);

  Json fams = Json::array();
  for (const Family *f : families) {
    Json counts = Json::object();
    for (const char *s : {"train", "val", "test"})
      counts[s] = familySplits[f][s];
    fams.push_back(Json{{"name", f->name}, {"kind", kindName(f->kind)}, {"held_out", f->heldOut},
                        {"tasks", counts["train"].get<int>() + counts["val"].get<int>() + counts["test"].get<int>()},
                        {"splits", counts}, {"description", f->description}});
    if (o.progress)
      o.progress(fmt::format("{:<28} {:>4} tasks{}", f->name, fams.back()["tasks"].get<int>(),
                             f->heldOut ? "  (held-out test family)" : ""));
  }
  Json splitCounts = Json::object(), kindCounts = Json::object();
  for (const char *s : {"train", "val", "test"})
    splitCounts[s] = bySplit[s];
  for (const char *s : {"c", "pytorch"})
    kindCounts[s] = byKind[s];
  Json doc{{"schema", kDatasetSchema},
           {"generator_version", kGeneratorVersion},
           {"seed", o.seed},
           {"selection", Json{{"families", o.familyGlob}, {"kind", o.kind}, {"limit", o.limit}}},
           {"counts", Json{{"tasks", summary.tasks}, {"implementations", summary.implementations},
                           {"by_kind", kindCounts}, {"by_split", splitCounts}}},
           {"manifest", Json{{"file", "manifest.jsonl"}, {"schema", kManifestSchema}}},
           {"families", fams}};
  writeText(o.outDir + "/dataset.json", doc.dump(2) + "\n");
  return summary;
}

} // namespace cudaperf::dataset
