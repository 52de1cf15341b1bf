#include "cudaperf/Reward/EvalDetails.h"
#include "cudaperf/Reward/RewardError.h"
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
    JsonField root(result, source);
    d.compileOnly = root.optionalBoolean("compile_only").value_or(false);
    if (auto compile = root.get("compile")) {
      d.compileLog = compile->optionalString("log").value_or("");
      d.compileCommand = compile->optionalString("command").value_or("");
    }
    d.gpuShared = root.optionalBoolean("gpu_shared");
    if (auto configs = root.get("configs"))
      for (const JsonField &c : configs->elements()) {
        ConfigurationChecks cc;
        cc.name = c.require("name").string();
        if (auto params = c.get("params"))
          for (const auto &[name, value] : params->members())
            cc.params.emplace_back(name, value.number());
        if (auto correctness = c.get("correctness"))
          if (auto checks = correctness->get("checks"))
            for (const JsonField &check : checks->elements())
              cc.checks.push_back(readCheck(check));
        d.configs.push_back(std::move(cc));
      }
  } catch (const support::SupportError &e) {
    throw RewardError(e.what());
  }
  return d;
}

} // namespace cudaperf::reward
