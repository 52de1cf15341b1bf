#include "cudaperf/Bench/Candidates.h"
#include "cudaperf/Bench/BenchError.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>

namespace cudaperf::bench {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void candidateError(const std::string &message) {
  throw BenchError(BenchError::Kind::Candidates, message);
}

const std::regex kSampleName(R"([A-Za-z0-9][A-Za-z0-9_.-]*)");
const std::regex kTurnFile(R"(turn([1-9][0-9]{0,5})\.cu)");

bool isHidden(const fs::path &p) { return p.filename().string().rfind('.', 0) == 0; }

std::vector<fs::directory_entry> sortedEntries(const fs::path &dir) {
  std::vector<fs::directory_entry> entries;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    entries.push_back(*it);
  if (ec)
    candidateError(dir.string() + ": cannot be listed (" + ec.message() + ")");
  std::sort(entries.begin(), entries.end(),
            [](const auto &a, const auto &b) { return a.path().filename() < b.path().filename(); });
  return entries;
}

bool isNumber(const std::string &s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

} // namespace

bool sampleLess(const std::string &a, const std::string &b) {
  if (isNumber(a) && isNumber(b) && a.size() != b.size())
    return a.size() < b.size();
  return a < b;
}

CandidateSet scanCandidates(const std::string &dirText, const Suite &suite, const CandidateOptions &options) {
  fs::path dir = fs::absolute(dirText).lexically_normal();
  if (!fs::is_directory(dir))
    candidateError(dirText + ": no such candidate directory");
  CandidateSet set;
  set.dir = dir.string();

  // task -> sample -> turn -> path
  std::map<std::string, std::map<std::string, std::map<int, std::string>>> found;
  auto unknownTask = [&](const std::string &task, const fs::path &where) {
    candidateError(where.string() + ": a candidate for \"" + task + "\", which suite " + suite.name +
                   " does not have (candidates are named by task: <task>.cu, <task>/<sample>.cu, "
                   "<task>/<sample>/turn<t>.cu)");
  };
  auto add = [&](const std::string &task, const std::string &sample, int turn, const fs::path &p) {
    if (options.turns > 0 && turn > options.turns) {
      set.notes.push_back(p.string() + ": turn " + std::to_string(turn) + " is past --turns " +
                          std::to_string(options.turns) + "; not used");
      return;
    }
    found[task][sample][turn] = fs::absolute(p).lexically_normal().string();
  };

  for (const auto &entry : sortedEntries(dir)) {
    const fs::path &p = entry.path();
    if (isHidden(p))
      continue;
    std::string name = p.filename().string();
    if (entry.is_regular_file()) {
      if (p.extension() != ".cu") {
        set.notes.push_back(p.string() + ": not a .cu file; skipped");
        continue;
      }
      std::string task = p.stem().string();
      if (!suite.find(task))
        unknownTask(task, p);
      if (fs::is_directory(dir / task))
        candidateError(p.string() + ": task \"" + task + "\" has both " + name + " and a folder " + task +
                       "/; use one layout per task");
      add(task, "0", 1, p);
    } else if (entry.is_directory()) {
      if (!suite.find(name))
        unknownTask(name, p);
      for (const auto &s : sortedEntries(p)) {
        const fs::path &sp = s.path();
        if (isHidden(sp))
          continue;
        std::string sname = sp.filename().string();
        if (s.is_regular_file()) {
          if (sp.extension() != ".cu") {
            set.notes.push_back(sp.string() + ": not a .cu file; skipped");
            continue;
          }
          std::string sample = sp.stem().string();
          if (!std::regex_match(sample, kSampleName))
            candidateError(sp.string() + ": \"" + sample + "\" is not a sample name (letters, digits, _ . -)");
          if (fs::is_directory(p / sample))
            candidateError(sp.string() + ": sample \"" + sample + "\" has both " + sname + " and a folder " + sample +
                           "/ of turns");
          add(name, sample, 1, sp);
        } else if (s.is_directory()) {
          if (!std::regex_match(sname, kSampleName))
            candidateError(sp.string() + ": \"" + sname + "\" is not a sample name (letters, digits, _ . -)");
          bool any = false;
          for (const auto &t : sortedEntries(sp)) {
            if (isHidden(t.path()))
              continue;
            std::smatch m;
            std::string tname = t.path().filename().string();
            if (!t.is_regular_file() || !std::regex_match(tname, m, kTurnFile))
              candidateError(t.path().string() + ": a sample folder holds turn<t>.cu files (t = 1, 2, ...) only");
            add(name, sname, std::stoi(m[1].str()), t.path());
            any = true;
          }
          if (!any)
            candidateError(sp.string() + ": an empty sample folder (expected turn1.cu, turn2.cu, ...)");
        }
      }
    }
  }
  if (found.empty())
    candidateError(set.dir + ": no candidates (expected <task>.cu, <task>/<sample>.cu or <task>/<sample>/turn<t>.cu "
                             "for tasks of suite " + suite.name + ")");

  for (const auto &[task, samples] : found) {
    if (options.samples > 0)
      for (const auto &[sample, turns] : samples) {
        if (!isNumber(sample) || (sample.size() > 1 && sample[0] == '0') ||
            sample.size() > 9 || std::stoi(sample) >= options.samples)
          candidateError(set.dir + "/" + task + ": sample \"" + sample + "\" is not one of 0.." +
                         std::to_string(options.samples - 1) + " (--samples " + std::to_string(options.samples) + ")");
      }
    set.samples = std::max(set.samples, int(samples.size()));
    for (const auto &[sample, turns] : samples)
      set.turns = std::max(set.turns, turns.rbegin()->first);
  }
  if (options.samples > 0)
    set.samples = options.samples;
  if (options.turns > 0)
    set.turns = options.turns;

  for (const SuiteTask &t : suite.tasks) {
    auto it = found.find(t.name);
    if (it == found.end())
      continue;
    std::vector<std::string> names;
    for (const auto &kv : it->second)
      names.push_back(kv.first);
    std::sort(names.begin(), names.end(), sampleLess);
    for (const std::string &s : names)
      for (const auto &[turn, path] : it->second.at(s))
        set.files.push_back({t.name, s, turn, path});
  }
  return set;
}

CandidateFile candidateFromPath(const std::string &path, const std::string &task) {
  CandidateFile f;
  f.task = task;
  f.path = path;
  fs::path p(path);
  std::smatch m;
  std::string file = p.filename().string();
  fs::path parent = p.parent_path();
  if (std::regex_match(file, m, kTurnFile) && parent.parent_path().filename() == task) {
    f.sample = parent.filename().string();
    f.turn = std::stoi(m[1].str());
  } else if (p.extension() == ".cu" &&
             (parent.filename() == task || (parent.filename() == "impls" && parent.parent_path().filename() == task))) {
    f.sample = p.stem().string();
  }
  return f;
}

CandidateSet implCandidates(const Suite &suite) {
  CandidateSet set;
  for (const SuiteTask &t : suite.tasks) {
    if (!t.present || !fs::is_directory(fs::path(t.dir) / "impls"))
      continue;
    for (const auto &e : sortedEntries(fs::path(t.dir) / "impls"))
      if (e.is_regular_file() && e.path().extension() == ".cu" && !isHidden(e.path()))
        set.files.push_back({t.name, e.path().stem().string(), 1, e.path().lexically_normal().string()});
  }
  if (set.files.empty())
    candidateError("no task of suite " + suite.name + " has implementations in impls/");
  std::map<std::string, int> perTask;
  for (const CandidateFile &f : set.files)
    set.samples = std::max(set.samples, ++perTask[f.task]);
  set.turns = 1;
  set.dir = "impls/ of each task";
  return set;
}

} // namespace cudaperf::bench
