#include "cudaperf/Reward/Requests.h"
#include "cudaperf/Reward/RewardError.h"
#include "cudaperf/Support/JsonReader.h"

#include <filesystem>

namespace cudaperf::reward {

namespace fs = std::filesystem;
using support::Json;
using support::JsonField;

namespace {

std::string resolveTask(const JsonField &f, const std::string &taskRoot) {
  std::string task = f.string();
  if (task.empty())
    f.fail("expected a task directory, got \"\"");
  if (taskRoot.empty())
    return task;
  fs::path p(task);
  if (p.is_absolute())
    f.fail("must be relative to the task root " + taskRoot + ", got \"" + task + "\"");
  for (const fs::path &part : p)
    if (part == "..")
      f.fail("may not leave the task root (\"..\"), got \"" + task + "\"");
  return (fs::path(taskRoot) / p).string();
}

// {"candidate": PATH}, {"source": TEXT} or {"completion": TEXT} (a model's answer, its code
// block extracted by the pipeline), exactly one.
void readCandidate(const JsonField &f, CandidateRequest &c) {
  auto candidate = f.get("candidate");
  auto source = f.get("source");
  auto completion = f.get("completion");
  if (int(bool(candidate)) + int(bool(source)) + int(bool(completion)) != 1)
    f.fail("expected exactly one of \"candidate\" (a file), \"source\" (the text) and \"completion\" (a model's "
           "answer with a ```cuda block)");
  if (completion) {
    c.completion = completion->string();
  } else if (candidate) {
    c.candidatePath = candidate->string();
    if (c.candidatePath.empty())
      candidate->fail("expected a file name, got \"\"");
  } else {
    c.source = source->string();
    if (c.source.empty())
      source->fail("expected the candidate's source text, got \"\"");
  }
}

void rejectUnknown(const JsonField &f, std::initializer_list<const char *> known) {
  for (const auto &[key, value] : f.members()) {
    bool ok = false;
    std::string list;
    for (const char *k : known) {
      ok |= key == k;
      list += (list.empty() ? "" : ", ") + std::string(k);
    }
    if (!ok)
      value.fail("unknown key (a request has: " + list + ")");
  }
}

} // namespace

RewardRequest parseRewardRequest(const Json &request, const std::string &where, const std::string &taskRoot) {
  RewardRequest r;
  try {
    JsonField f(request, where);
    if (!f.isObject())
      f.expected("a request object");
    rejectUnknown(f, {"id", "task", "candidate", "source", "completion", "turns", "ranking_score"});
    if (auto id = f.get("id")) {
      if (!id->json().is_string() && !id->json().is_number_integer())
        id->expected("a string or an integer");
      r.id = id->json();
    }
    std::string task = resolveTask(f.require("task"), taskRoot);
    r.candidate.taskDir = task;
    readCandidate(f, r.candidate);
    r.candidate.rankingScore = f.optionalNumber("ranking_score");
    if (auto turns = f.get("turns"))
      for (const JsonField &t : turns->elements()) {
        if (!t.isObject())
          t.expected("an object with \"candidate\" or \"source\"");
        rejectUnknown(t, {"candidate", "source", "completion"});
        CandidateRequest c;
        c.taskDir = task;
        readCandidate(t, c);
        r.earlier.push_back(std::move(c));
      }
  } catch (const support::SupportError &e) {
    throw RewardError(e.what());
  }
  return r;
}

void checkRequestPaths(const RewardRequest &request) {
  if (!fs::exists(fs::path(request.candidate.taskDir) / "task.json"))
    throw RewardError("task: " + request.candidate.taskDir + " has no task.json");
  auto checkFile = [](const CandidateRequest &c) {
    if (c.source.empty() && !c.completion && !fs::is_regular_file(c.candidatePath))
      throw RewardError("candidate: " + c.candidatePath + " is not a file");
  };
  for (const CandidateRequest &c : request.earlier)
    checkFile(c);
  checkFile(request.candidate);
}

Json errorRecord(const Json &id, int status, const std::string &message) {
  return Json::object({{"id", id}, {"ok", false}, {"status", status}, {"error", message}});
}

Json serveRewardRequest(RewardPipeline &pipeline, const RewardRequest &request, bool withResult) {
  try {
    checkRequestPaths(request);
  } catch (const RewardError &e) {
    return errorRecord(request.id, 422, e.what());
  }
  try {
    std::vector<CandidateResult> turns;
    for (const CandidateRequest &c : request.earlier)
      turns.push_back(pipeline.run(c));
    turns.push_back(pipeline.run(request.candidate));
    const CandidateResult &last = turns.back();
    Json record = Json::object();
    record["id"] = request.id;
    record["ok"] = true;
    record["total"] = last.reward.total ? Json(*last.reward.total) : Json(nullptr);
    record["exclude"] = last.reward.exclude;
    record["feedback"] = last.reward.feedback;
    if (!request.earlier.empty()) {
      std::vector<TurnReward> scored = pipeline.trajectory(turns);
      const TurnReward &t = scored.back();
      record["total"] = t.reward ? Json(*t.reward) : Json(nullptr);
      record["trajectory"] = trajectoryToJson(pipeline.config(), scored);
    }
    record["reward"] = pipeline.documentJson(last);
    if (withResult)
      record["result"] = last.resultJson;
    return record;
  } catch (const std::exception &e) {
    return errorRecord(request.id, 500, e.what());
  }
}

} // namespace cudaperf::reward
