#include "BenchQueue.h"

#include "cudaperf/Bench/BenchError.h"
#include "cudaperf/Schema/Protocol.h"
#include "cudaperf/Support/Json.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace cudaperf::benchtool {

using namespace cudaperf::bench;
namespace fs = std::filesystem;

std::vector<std::string> runThroughQueue(const std::string &evalPath, const QueueSettings &c, const CandidateSet &candidates,
                                         const Suite &suite, const std::string &workDir, const std::string &resultsPath) {
  auto fail = [](const std::string &m) -> void { throw BenchError(BenchError::Kind::Run, m); };
  std::vector<std::string> travel;
  for (size_t i = 0; i < c.evalArgs.size(); ++i) {
    const std::string &a = c.evalArgs[i];
    if ((a == "--configs" || a == "--devices") && i + 1 < c.evalArgs.size()) {
      if (a == "--configs")
        travel.insert(travel.end(), {a, c.evalArgs[i + 1]});
      ++i;
    } else if (a.rfind("--configs=", 0) == 0 || a == "--counters") {
      travel.push_back(a);
    } else if (a.rfind("--devices=", 0) != 0) {
      fail("--queue: the evaluator argument '" + a.substr(0, 100) +
           "' cannot travel in a queued request; give it to the workers (cudaperf-eval --worker URL " + a.substr(0, 100) + ")");
    }
  }
  std::error_code ec;
  fs::create_directories(workDir, ec);
  std::string batch = (fs::path(workDir) / "queue.batch").string(), messages = (fs::path(workDir) / "queue-messages.jsonl").string();
  std::ofstream out(batch);
  std::vector<std::pair<std::string, std::string>> byId; // id -> task dir, candidate path
  for (const CandidateFile &f : candidates.files) {
    const SuiteTask *t = suite.find(f.task);
    if (!t || !t->present)
      continue;
    schema::serve::Request evaluate;
    evaluate.id = byId.size();
    evaluate.taskDir = t->dir;
    evaluate.candidatePath = f.path;
    out << support::writeJson(schema::serve::requestToJson(evaluate)) << "\n";
    byId.emplace_back(t->dir, f.path);
  }
  out.close();
  if (!out)
    fail(batch + ": cannot be written");
  if (byId.empty())
    fail("no candidate belongs to a task that is present in suite " + suite.name);
  char wait[32];
  std::snprintf(wait, sizeof wait, "%g", c.queueWait);
  std::vector<std::string> argv = {evalPath, "--submit", c.queueUrl, "--batch", batch, "--output", messages, "--queue-wait", wait};
  argv.insert(argv.end(), travel.begin(), travel.end());
  std::string why;
  int rc = runInheritingOutput(argv, why);
  if (rc < 0)
    fail(evalPath + " " + why);
  if (rc == 127)
    fail(evalPath + ": cannot be run (use --eval PATH)");
  if (rc != 0) // 1: results missing after --queue-wait or Redis unreachable; 2: a bad URL or request
    fail(evalPath + " --submit exited with status " + std::to_string(rc) + " (its reason is above); messages so far in " + messages);
  std::ifstream in(messages);
  std::ofstream results(resultsPath, std::ios::trunc);
  size_t written = 0, errors = 0;
  std::string firstError;
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    namespace serve = schema::serve;
    support::Json doc;
    try {
      doc = support::parseJson(line, messages);
    } catch (const std::exception &e) {
      fail(e.what());
    }
    serve::Message m;
    try {
      m = serve::messageFromJson(doc, messages);
    } catch (const std::exception &e) { // a line that is no serve message answers nothing: counted as an error
      if (errors++ == 0)
        firstError = std::string("bad_message: ") + e.what();
      continue;
    }
    const support::Json *id = m.id ? &*m.id : nullptr;
    if (!id || !id->is_number_unsigned() || id->get<size_t>() >= byId.size())
      continue;
    const serve::Result *answered = m.as<serve::Result>();
    if (!answered) {
      const serve::Error *error = m.as<serve::Error>();
      std::string code = error ? error->code.value_or("") : "", text = error ? error->message.value_or("") : "";
      if (errors++ == 0)
        firstError = code + ": " + text.substr(0, 300);
      continue;
    }
    support::Json r = answered->result;
    r["task_dir"] = byId[id->get<size_t>()].first;
    r["candidate"] = byId[id->get<size_t>()].second;
    results << support::writeJson(r) << "\n";
    ++written;
  }
  results.close();
  if (!results)
    fail(resultsPath + ": cannot be written");
  std::cerr << "cudaperf-bench: " << written << " results through " << c.queueUrl << (errors ? ", " : "")
            << (errors ? std::to_string(errors) + " answered with an error (first: " + firstError + ")" : std::string()) << "\n";
  if (written == 0)
    fail("no result came back through the queue" + (errors ? " (first error: " + firstError + ")" : std::string()));
  return argv;
}

} // namespace cudaperf::benchtool
