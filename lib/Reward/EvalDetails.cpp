#include "cudaperf/Reward/EvalDetails.h"
#include "cudaperf/Reward/RewardError.h"
#include "cudaperf/Schema/EvalResult.h"
#include "cudaperf/Support/JsonReader.h"

namespace cudaperf::reward {

using support::JsonField;

namespace {

CorrectnessCheck readCheck(const JsonField &f) {
  CorrectnessCheck c;
  c.set = int(f.optionalInteger("set", 0, 1 << 20).value_or(0));
  c.step = f.optionalString("step").value_or("correctness");
  c.pass = f.optionalBoolean("pass").value_or(true);
  c.argument = f.optionalString("argument").value_or("");
  c.index = f.optionalInteger("index");
  c.badElements = f.optionalInteger("bad_elements", 0);
  c.nanElements = f.optionalInteger("nan_elements", 0);
  c.got = f.optionalNumber("got");
  c.expected = f.optionalNumber("expected");
  c.inputModified = f.optionalString("input_modified").value_or("");
  return c;
}

} // namespace

EvalDetails readEvalDetails(const support::Json &result, const std::string &source) {
  EvalDetails d;
  try {
    schema::EvalResult doc = schema::EvalResult::fromJson(result, source);
    d.compileOnly = doc.compileOnly.value_or(false);
    if (doc.compile) {
      d.compileLog = doc.compile->log.value_or("");
      d.compileCommand = doc.compile->command.value_or("");
    }
    d.gpuShared = doc.gpuShared ? *doc.gpuShared : std::nullopt;
    if (doc.configs) {
      // The checks and the sizes are the worker's payloads: read here, with their paths.
      std::vector<JsonField> fields = JsonField(result, source).require("configs").elements();
      for (size_t i = 0; i < doc.configs->size(); ++i) {
        const schema::ConfigResult &typed = (*doc.configs)[i];
        const JsonField &c = fields[i];
        ConfigurationChecks cc;
        if (!typed.name)
          c.require("name");
        cc.name = *typed.name;
        if (auto params = c.get("params"))
          for (const auto &[name, value] : params->members())
            cc.params.emplace_back(name, value.number());
        if (typed.correctness && typed.correctness->checks)
          for (const JsonField &check : c.require("correctness").require("checks").elements())
            cc.checks.push_back(readCheck(check));
        d.configs.push_back(std::move(cc));
      }
    }
  } catch (const support::SupportError &e) {
    throw RewardError(e.what());
  }
  return d;
}

} // namespace cudaperf::reward
