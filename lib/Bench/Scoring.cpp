#include "cudaperf/Bench/Scoring.h"
#include "cudaperf/Bench/LibraryPolicy.h"

#include <filesystem>

namespace cudaperf::bench {

const char *referenceName(Reference r) {
  switch (r) {
  case Reference::Baseline: return "baseline";
  case Reference::Eager: return "eager";
  case Reference::Compile: return "compile";
  }
  return "?";
}

std::vector<Reference> referencesOf(const SuiteTask &task, const TorchTimings *torch) {
  std::vector<Reference> refs;
  if (std::filesystem::is_regular_file(std::filesystem::path(task.dir) / "impls" / "baseline.cu"))
    refs.push_back(Reference::Baseline);
  if (task.kind == "pytorch-to-cuda") {
    refs.push_back(Reference::Eager);
    if (torch && !torch->compiled.empty())
      refs.push_back(Reference::Compile);
  }
  return refs;
}

namespace {

// The candidate's speedup over one reference, when every evaluated configuration has both timings.
std::optional<Speedup> speedupFor(Reference ref, const EvalResult &r, const TorchTimings *torch) {
  std::vector<std::pair<Timing, Timing>> pairs;
  for (const ConfigResult &c : r.configs) {
    if (!c.candidate)
      return std::nullopt;
    std::optional<Timing> reference;
    if (ref == Reference::Baseline)
      reference = c.baseline;
    else if (ref == Reference::Eager)
      reference = c.eager;
    else if (torch && torch->compiled.count(c.name))
      reference = torch->compiled.at(c.name);
    if (!reference)
      return std::nullopt;
    pairs.emplace_back(*reference, *c.candidate);
  }
  if (pairs.empty())
    return std::nullopt;
  return speedupOver(pairs);
}

} // namespace

CandidateScore scoreCandidate(const CandidateFile &file, const EvalResult *result, const SuiteTask &task,
                              const TorchTimings *torch, const std::string &source, bool sourceRead) {
  CandidateScore s;
  s.file = file;
  if (!result) {
    s.outcome = kOutcomeNotEvaluated;
    s.detail = "no evaluation result for " + file.path;
    return s;
  }
  s.outcome = result->outcomeText();
  s.detail = result->detail;
  if (!result->ok())
    return s;

  std::vector<std::string> kernels;
  for (const ConfigResult &c : result->configs)
    kernels.insert(kernels.end(), c.launchedKernels.begin(), c.launchedKernels.end());
  if (task.disallowedLibraries.empty()) {
    s.libraryCheck = "nothing disallowed";
  } else if (!sourceRead && kernels.empty()) {
    s.libraryCheck = "not checked: the source could not be read and no launches were recorded";
  } else {
    s.libraryCheck = sourceRead ? (kernels.empty() ? "source" : "source and kernels") : "kernels";
    if (auto use = findDisallowedLibrary(sourceRead ? source : "", kernels, task.disallowedLibraries)) {
      s.outcome = kOutcomeDisallowed;
      s.detail = use->library + " is disallowed by the suite: " + use->evidence;
      return s;
    }
  }
  s.correct = true;
  for (Reference ref : referencesOf(task, torch))
    if (auto sp = speedupFor(ref, *result, torch))
      s.speedups[ref] = *sp;
  return s;
}

CandidateScore missingCandidate(const std::string &task, const std::string &sample) {
  CandidateScore s;
  s.file.task = task;
  s.file.sample = sample;
  s.file.turn = 1;
  s.outcome = kOutcomeMissing;
  s.detail = "no candidate file for sample " + sample;
  return s;
}

} // namespace cudaperf::bench
