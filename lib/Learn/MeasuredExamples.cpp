#include "cudaperf/Learn/MeasuredExamples.h"

#include "cudaperf/Learn/Error.h"
#include "cudaperf/Learn/ResultFiles.h"
#include "cudaperf/Reward/Pipeline.h"
#include "cudaperf/Reward/RewardConfig.h"
#include "cudaperf/Schema/Outcome.h"

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace cudaperf::learn {

namespace {

std::string text(const support::Json &doc, const char *key) {
  auto it = doc.find(key);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool endsWith(const std::string &s, const std::string &tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

} // namespace

MeasuredResults readMeasuredResults(const std::string &dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw LearnError(dir + ": not a folder of measured results");
  std::vector<std::string> files;
  for (const fs::directory_entry &e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (e.is_regular_file(ec) && (endsWith(name, ".jsonl") || endsWith(name, ".jsonl.zst"))) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end()); // results-<UTC stamp>: name order is time order
  if (files.empty()) throw LearnError(dir + ": no *.jsonl or *.jsonl.zst results");
  MeasuredResults out;
  for (const std::string &file : files)
    for (support::Json &doc : readResultDocuments(file)) {
      ++out.documents;
      std::string task = text(doc, "dataset_task"), impl = text(doc, "dataset_impl");
      auto speedup = doc.find("speedup");
      if (task.empty() || impl.empty() || schema::parseOutcome(text(doc, "outcome")) != schema::Outcome::Ok ||
          speedup == doc.end() || !speedup->is_number() ||
          !(speedup->get<double>() > 0) || impl.find('/') != std::string::npos) {
        // a later failed measurement makes an earlier ok one stale
        auto t = out.byTask.find(task);
        if (t != out.byTask.end()) t->second.erase(impl);
        continue;
      }
      MeasuredImplementation m;
      m.file = impl;
      m.sha256 = text(doc, "candidate_sha256");
      m.speedup = speedup->get<double>();
      m.result = std::move(doc);
      out.byTask[task][impl] = std::move(m);
    }
  for (const auto &[task, impls] : out.byTask) out.kept += impls.size();
  return out;
}

std::optional<MeasuredPair> chooseMeasuredPair(const std::map<std::string, MeasuredImplementation> &measured,
                                               const std::map<std::string, std::string> &currentSha256,
                                               double minRatio) {
  const MeasuredImplementation *slow = nullptr, *fast = nullptr;
  for (const auto &[file, m] : measured) {
    auto now = currentSha256.find(file);
    if (now == currentSha256.end() || now->second != m.sha256) continue; // not the file measured
    if (!slow || m.speedup < slow->speedup) slow = &m;
    if (!fast || m.speedup > fast->speedup) fast = &m;
  }
  if (!slow || slow == fast || fast->speedup < minRatio * slow->speedup) return std::nullopt;
  MeasuredPair p;
  p.slower = slow->file;
  p.faster = fast->file;
  p.slowerSpeedup = slow->speedup;
  p.fasterSpeedup = fast->speedup;
  // RL's feedback on this result: the reward's text for the measured document, without an analysis (the
  // static terms neutral), as the environment builds it before the analyzer's and ranker's lines.
  // The stored documents name the implementation in dataset_impl; the reward's reader wants "candidate".
  support::Json document = slow->result;
  if (!document.contains("candidate")) document["candidate"] = slow->file;
  std::string feedback = reward::rewardFromDocuments(reward::RewardConfig(), document, "measured example",
                                                     std::nullopt, std::nullopt, std::nullopt, "no analysis")
                             .reward.feedback;
  // Its "Static analysis unavailable" line says nothing about the code (RL's has the analyzer's findings there).
  std::string line;
  for (size_t start = 0; start <= feedback.size();) {
    size_t end = feedback.find('\n', start);
    if (end == std::string::npos) end = feedback.size();
    line = feedback.substr(start, end - start);
    if (line.rfind("Static analysis unavailable:", 0) != 0) p.feedback += (p.feedback.empty() ? "" : "\n") + line;
    start = end + 1;
  }
  return p;
}

} // namespace cudaperf::learn
