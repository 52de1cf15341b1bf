#include "EvalModes.h"

#include "cudaperf/Support/Json.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

namespace cudaperf::evaltool {

using namespace cudaperf::runtime;

namespace {

std::string stringMember(const support::Json &r, const char *key) {
  const support::Json *v = support::member(r, key);
  return v && v->is_string() ? v->get<std::string>() : "";
}

std::string summaryLine(const support::Json &r) {
  char speed[32] = "-";
  if (const support::Json *s = support::member(r, "speedup"); s && s->is_number())
    snprintf(speed, sizeof speed, "%.2fx", s->get<double>());
  std::string detail = stringMember(r, "detail");
  if (size_t nl = detail.find('\n'); nl != std::string::npos)
    detail = detail.substr(0, nl);
  return stringMember(r, "candidate") + ": " + stringMember(r, "outcome") + " speedup " + speed +
         (detail.empty() ? "" : " (" + detail + ")");
}

} // namespace

std::unique_ptr<Evaluator> startEvaluator(const EvalOptions &opt, const std::string &nvcc) {
  Toolchain tc;
  try {
    tc = findToolchain(nvcc);
  } catch (const std::exception &e) {
    std::cerr << "cudaperf-eval: " << e.what() << "\n";
    return nullptr;
  }
  auto evaluator = std::make_unique<Evaluator>(opt, tc);
  if (std::string err = evaluator->prepare(); !err.empty()) {
    std::cerr << "cudaperf-eval: " << err << "\n";
    return nullptr;
  }
  return evaluator;
}

int runValidateMode(const std::vector<std::string> &positional, const UsageError &usageError) {
  if (positional.empty())
    usageError("--validate needs task directories");
  int rc = kExitOk;
  for (const auto &dir : positional) {
    try {
      Task t = loadTask(dir);
      std::cout << dir << ": ok (" << t.name << ", " << t.args.size() << " arguments, " << t.configs.size()
                << " configurations, impls:";
      for (const auto &n : t.implNames())
        std::cout << " " << n;
      std::cout << ")\n";
    } catch (const TaskError &e) {
      std::cerr << dir << ": " << e.what() << "\n";
      rc = kExitInvalidTask;
    }
  }
  return rc;
}

std::vector<EvalJob> readBatchJobs(const std::string &batchFile, const UsageError &usageError) {
  std::vector<EvalJob> jobs;
  std::ifstream in(batchFile);
  if (!in)
    usageError("cannot read " + batchFile);
  std::string line;
  int lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    std::stringstream ss(line);
    EvalJob job;
    if (!(ss >> job.taskDir) || job.taskDir[0] == '#')
      continue;
    if (!(ss >> job.candidatePath))
      usageError(batchFile + ":" + std::to_string(lineNo) + ": expected \"TASK_DIR CANDIDATE.cu\"");
    jobs.push_back(job);
  }
  return jobs;
}

int runJobs(const std::vector<EvalJob> &jobs, const EvalOptions &opt, const std::string &nvcc,
            const std::string &outputPath, bool jsonl, bool summary, const UsageError &usageError) {
  std::unique_ptr<Evaluator> started = startEvaluator(opt, nvcc);
  if (!started)
    return kExitInternal;
  Evaluator &evaluator = *started;

  std::ofstream file;
  if (!outputPath.empty()) {
    file.open(outputPath, std::ios::trunc);
    if (!file)
      usageError("cannot write " + outputPath);
  }
  std::ostream &out = outputPath.empty() ? std::cout : file;
  bool pretty = jobs.size() == 1 && !jsonl;
  int rc = kExitOk;
  evaluator.run(jobs, [&](size_t, const support::Json &r) {
    out << support::writeJson(r, pretty ? 2 : -1) << "\n";
    out.flush();
    if (summary)
      std::cerr << summaryLine(r) << "\n";
    if (resultOutcome(r) == Outcome::InternalError)
      rc = kExitInternal;
  });
  return rc;
}

} // namespace cudaperf::evaltool
