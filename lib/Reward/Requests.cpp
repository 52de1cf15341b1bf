#include "cudaperf/Reward/Requests.h"
#include "cudaperf/Reward/CodeExtraction.h"
#include "cudaperf/Reward/RewardError.h"
#include "cudaperf/Schema/EvalResult.h"
#include "cudaperf/Support/JsonReader.h"
#include "cudaperf/Support/Sha256.h"
#include "cudaperf/Support/SourceGate.h"

#include <filesystem>

namespace cudaperf::reward {

namespace fs = std::filesystem;
using support::Json;
using support::JsonField;

namespace {

std::string resolveTask(const JsonField &f, const RequestPolicy &policy) {
  std::string task = f.string();
  if (task.empty())
    f.fail("expected a task directory, got \"\"");
  if (policy.taskRoot.empty())
    return task;
  fs::path p(task);
  if (p.is_absolute())
    f.fail("must be relative to the task root, got \"" + task + "\"");
  for (const fs::path &part : p)
    if (part == "..")
      f.fail("may not leave the task root (\"..\"), got \"" + task + "\"");
  // After symbolic links too: a link inside the root may not lead out of it.
  std::string resolved;
  if (!support::resolveInside(policy.taskRoot, task, resolved))
    f.fail("no task directory \"" + task + "\" under the task root");
  return resolved;
}

// {"source": TEXT}, or {"candidate": PATH} where the service names a candidate root and the path
// resolves inside it: the file is read here, so what follows only ever sees text.
void readCandidate(const JsonField &f, CandidateRequest &c, const RequestPolicy &policy) {
  auto candidate = f.get("candidate");
  auto source = f.get("source");
  auto completion = f.get("completion"); // a model's answer: the pipeline extracts its code block
  if (int(bool(candidate)) + int(bool(source)) + int(bool(completion)) != 1)
    f.fail("expected exactly one of \"candidate\" (a file), \"source\" (the text) and \"completion\" (a model's "
           "answer with a ```cuda block)");
  if (completion) {
    c.completion = completion->string();
    if (c.completion->size() > policy.maxSourceBytes)
      completion->fail("longer than " + std::to_string(policy.maxSourceBytes) + " bytes");
    // Extracted here, so that what follows (the source gate included) sees the code that is compiled.
    if (std::optional<ExtractedCode> code = extractCodeBlock(*c.completion))
      c.source = code->code;
  } else if (candidate) {
    std::string path = candidate->string();
    if (path.empty())
      candidate->fail("expected a file name, got \"\"");
    if (policy.candidateRoot.empty())
      candidate->fail("file names are refused by this service: send the text as \"source\" (or start it with "
                      "--candidate-root DIR)");
    std::string resolved;
    if (!support::resolveInside(policy.candidateRoot, path, resolved))
      candidate->fail("no file \"" + path + "\" under the candidate root");
    try {
      c.source = support::readRegularFile(resolved, policy.maxSourceBytes);
    } catch (const support::SupportError &) {
      candidate->fail("\"" + path + "\" is not a regular file of at most " + std::to_string(policy.maxSourceBytes) +
                      " bytes under the candidate root");
    }
    if (c.source.empty())
      candidate->fail("\"" + path + "\" is empty");
  } else {
    c.source = source->string();
    if (c.source.empty())
      source->fail("expected the candidate's source text, got \"\"");
    if (c.source.size() > policy.maxSourceBytes)
      source->fail("longer than " + std::to_string(policy.maxSourceBytes) + " bytes");
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

RewardRequest parseRewardRequest(const Json &request, const std::string &where, const RequestPolicy &policy) {
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
    std::string task = resolveTask(f.require("task"), policy);
    r.candidate.taskDir = task;
    readCandidate(f, r.candidate, policy);
    r.candidate.rankingScore = f.optionalNumber("ranking_score");
    if (auto turns = f.get("turns")) {
      if (turns->elements().size() > kMaxTurns)
        turns->fail("more than " + std::to_string(kMaxTurns) + " turns");
      for (const JsonField &t : turns->elements()) {
        if (!t.isObject())
          t.expected("an object with \"candidate\" or \"source\"");
        rejectUnknown(t, {"candidate", "source", "completion"});
        CandidateRequest c;
        c.taskDir = task;
        readCandidate(t, c, policy);
        r.earlier.push_back(std::move(c));
      }
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

namespace {

// The reward of a candidate refused before compiling: a compile_error whose log says why, so the
// trainer gets the same gate and feedback as for any source that does not build.
CandidateResult refusedCandidate(RewardPipeline &pipeline, const CandidateRequest &c, const std::string &why) {
  std::string log = "[cudaperf-reward] candidate.cu was refused before compiling: " + why + "\n";
  schema::EvalResult refused =
      schema::EvalResult::synthetic(fs::path(c.taskDir).filename().string(), "", "candidate.cu",
                                    support::sha256Hex(c.source), schema::Outcome::CompileError, log, log, false);
  refused.taskDir.reset(); // the service's requests name no server path
  Json result = refused.toJson();
  return rewardFromDocuments(pipeline.config(), result, "the request", std::nullopt, std::nullopt, c.rankingScore,
                             "not analysed: refused before compiling");
}

// Every string of the record, with the work directory's file names of the candidates (absolute
// temporary paths) replaced by "candidate.cu", other temporary paths by "<temporary>", and messages
// located outside the candidate dropped (support::keepOwnDiagnostics).
void sanitizeString(std::string &text, const std::vector<std::string> &hashes) {
  for (const std::string &h : hashes)
    for (size_t at; (at = text.find(h + ".cu")) != std::string::npos;) {
      size_t from = at;
      while (from > 0 && text[from - 1] != ' ' && text[from - 1] != '"' && text[from - 1] != '\'' &&
             text[from - 1] != '\n' && text[from - 1] != '(' && text[from - 1] != '\t')
        --from;
      text.replace(from, at + h.size() + 3 - from, "candidate.cu");
    }
  for (const char *prefix : {"/tmp/cudaperf-", "/tmp/tmpxft_"})
    for (size_t at; (at = text.find(prefix)) != std::string::npos;) {
      size_t end = at;
      while (end < text.size() && text[end] != ' ' && text[end] != '"' && text[end] != '\'' && text[end] != '\n' &&
             text[end] != ':' && text[end] != '(' && text[end] != ')' && text[end] != '\t')
        ++end;
      text.replace(at, end - at, "<temporary>");
    }
  if (text.find('\n') != std::string::npos || text.find(':') != std::string::npos)
    text = support::keepOwnDiagnostics(text, {"candidate.cu", "shim.cu"});
}

void sanitizeValue(Json &value, const std::vector<std::string> &hashes, int depth) {
  if (depth > support::kMaxJsonDepth)
    return;
  if (value.is_string()) {
    std::string text = value.get<std::string>();
    sanitizeString(text, hashes);
    value = text;
  } else if (value.is_structured()) {
    for (auto &member : value)
      sanitizeValue(member, hashes, depth + 1);
  }
}

} // namespace

void sanitizeRecord(Json &record, const std::vector<std::string> &sources) {
  std::vector<std::string> hashes;
  for (const std::string &s : sources)
    hashes.push_back(support::sha256Hex(s).substr(0, 24)); // RewardPipeline's file names
  sanitizeValue(record, hashes, 0);
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
    auto runOne = [&](const CandidateRequest &c) {
      if (std::optional<std::string> why = support::refuseHostileSource(c.source))
        return refusedCandidate(pipeline, c, *why); // never compiled, never analysed
      return pipeline.run(c);
    };
    for (const CandidateRequest &c : request.earlier)
      turns.push_back(runOne(c));
    turns.push_back(runOne(request.candidate));
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
    // The reward's components by name (NeMo Gym's `reward_components`, for trainers that normalize
    // each component on its own, GDPO-style): each term's contribution to the last turn's document,
    // summing to its total (a trajectory's total weighs the turns: see "trajectory").
    Json components = Json::object();
    for (const RewardTerm &t : last.reward.terms)
      components[t.name] = components.value(t.name, 0.0) + t.contribution;
    record["reward_components"] = std::move(components);
    if (withResult)
      record["result"] = last.resultJson;
    std::vector<std::string> sources;
    for (const CandidateRequest &c : request.earlier)
      sources.push_back(c.source);
    sources.push_back(request.candidate.source);
    sanitizeRecord(record, sources);
    return record;
  } catch (const std::exception &e) {
    return errorRecord(request.id, 500, e.what());
  }
}

} // namespace cudaperf::reward
