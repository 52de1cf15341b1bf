// The queue-backed reward::Evaluator: one candidate, one job (its task's files travel with it),
// through lib/Queue's submitter, so `cudaperf-eval --submit` and the reward tools share one path.
#include "cudaperf/Queue/RewardEvaluator.h"

#include "cudaperf/Queue/Worker.h"
#include "cudaperf/Reward/RewardError.h"
#include "cudaperf/Schema/Protocol.h"
#include "cudaperf/Support/Sha256.h"

#include <future>
#include <map>
#include <mutex>
#include <optional>

namespace cudaperf::queue {

namespace {

using reward::RewardError;
using support::Json;

std::vector<std::string> splitList(const std::string &text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty())
      out.push_back(item);
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return out;
}

class QueueEvaluator : public reward::Evaluator {
public:
  explicit QueueEvaluator(QueueEvaluatorOptions o) : options_(std::move(o)) {
    try {
      url_ = parseRedisUrl(options_.url);
    } catch (const QueueError &e) {
      throw RewardError(std::string("--queue: ") + e.what());
    }
    counters_ = options_.counters;
    const std::vector<std::string> &a = options_.extraArgs;
    for (size_t i = 0; i < a.size(); ++i) {
      auto value = [&](const std::string &flag) -> std::optional<std::string> {
        if (a[i] == flag) {
          if (i + 1 >= a.size())
            throw RewardError("--queue: " + flag + " needs a value");
          return a[++i];
        }
        if (a[i].rfind(flag + "=", 0) == 0)
          return a[i].substr(flag.size() + 1);
        return std::nullopt;
      };
      if (auto v = value("--configs")) {
        configs_ = splitList(*v);
        if (configs_.empty())
          throw RewardError("--queue: --configs needs at least one name");
      } else if (value("--devices")) {
        // the workers' GPUs are theirs to choose
      } else if (a[i] == "--counters") {
        counters_ = true;
      } else if (a[i] == "--compile-only") {
        if (!options_.compileOnly)
          throw RewardError("--queue: --compile-only is the workers' flag; give --static-only to this run");
      } else {
        throw RewardError("--queue: the evaluator argument '" + a[i].substr(0, 100) +
                          "' cannot travel in a queued request; give it to the workers (cudaperf-eval --worker " +
                          url_.text() + " " + a[i].substr(0, 100) + ")");
      }
    }
    try { // unreachable or not a Redis: said now, before any candidate is generated
      WorkQueue q(url_, options_.config);
      q.ensureGroup();
    } catch (const QueueError &e) {
      throw RewardError(url_.text() + ": " + e.what());
    }
  }

  std::string describe() const override {
    return "the work queue " + url_.text() + (options_.compileOnly ? " (compile-only workers)" : "") +
           (counters_ ? ", counters" : "");
  }

  Json evaluate(const std::string &taskDir, const std::string &candidatePath) override {
    std::string source;
    try {
      source = support::readRegularFile(candidatePath, size_t(64) << 20);
    } catch (const support::SupportError &e) {
      throw RewardError(e.what());
    }
    // The same candidate asked for twice at once by this process waits on one job (two submitters
    // of one key would race for its single result).
    std::string key = taskDir + "\n" + support::sha256Hex(source);
    std::shared_future<Json> shared;
    bool mine = false;
    std::promise<Json> promise;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = inFlight_.find(key);
      if (it == inFlight_.end()) {
        shared = promise.get_future().share();
        inFlight_.emplace(key, shared);
        mine = true;
      } else {
        shared = it->second;
      }
    }
    if (mine) {
      try {
        promise.set_value(run(taskDir, source));
      } catch (...) {
        promise.set_exception(std::current_exception());
      }
      std::lock_guard<std::mutex> lock(mutex_);
      inFlight_.erase(key);
    }
    Json result = shared.get(); // rethrows the job's RewardError
    // The paths the caller knows, not the worker's unpacked copy.
    result["candidate"] = candidatePath;
    result["task_dir"] = taskDir;
    return result;
  }

private:
  Json run(const std::string &taskDir, const std::string &source) {
    namespace serve = schema::serve;
    serve::Request evaluate;
    evaluate.id = 1;
    evaluate.taskDir = taskDir;
    evaluate.source = source;
    evaluate.name = "candidate.cu";
    if (!configs_.empty())
      evaluate.configs = configs_;
    if (counters_)
      evaluate.counters = true;
    Json request = serve::requestToJson(evaluate);
    SubmitOptions so;
    so.timeoutSeconds = options_.timeoutSeconds;
    so.unreachableSeconds = options_.unreachableSeconds;
    so.quiet = true;
    so.who = "queue";
    SubmitStats stats;
    std::optional<Json> message;
    int rc = submitAndWait(url_, options_.config, {request}, so, [&](const Json &m) { message = m; }, stats);
    if (rc != 0 || !message)
      throw RewardError(url_.text() + ": " + (stats.error.empty() ? std::string("no result") : stats.error));
    serve::Message answer;
    try {
      answer = serve::messageFromJson(*message, "the worker's answer");
    } catch (const support::SupportError &e) {
      throw RewardError(url_.text() + ": " + e.what());
    }
    const serve::Result *answered = answer.as<serve::Result>();
    if (!answered) {
      const serve::Error *error = answer.as<serve::Error>();
      std::string code = error ? error->code.value_or("") : "", text = error ? error->message.value_or("") : "";
      throw RewardError(url_.text() + ": the worker answered " + answer.type + ": " + code + " " + text.substr(0, 400));
    }
    const Json *result = &answered->result;
    if (const Json *c = support::member(*result, "compile_only"); c && c->is_boolean() && c->get<bool>() != options_.compileOnly)
      throw RewardError(url_.text() + ": a worker answered with a " +
                        std::string(c->get<bool>() ? "compile-only" : "measured") + " result, but this run is " +
                        (options_.compileOnly ? "static-only" : "measured") +
                        " (use a queue whose workers run the same mode)");
    return *result;
  }

  QueueEvaluatorOptions options_;
  RedisUrl url_;
  std::vector<std::string> configs_;
  bool counters_ = false;
  std::mutex mutex_;
  std::map<std::string, std::shared_future<Json>> inFlight_;
};

} // namespace

std::unique_ptr<reward::Evaluator> makeQueueEvaluator(const QueueEvaluatorOptions &options) {
  return std::make_unique<QueueEvaluator>(options);
}

} // namespace cudaperf::queue
