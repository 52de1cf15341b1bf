#include "cudaperf/Runtime/EvalResult.h"
#include "TaskWithoutBaseline.h"

#include <cmath>
#include <csignal>
#include <gtest/gtest.h>

using namespace cudaperf;
using namespace cudaperf::runtime;
using cudaperf::support::Json;
using cudaperf::support::member;
using cudaperf::support::parseJson;

namespace {

struct ResultFixture : testing::Test {
  Task task = loadTask(std::string(CUDAPERF_SOURCE_DIR) + "/data/tasks/vector_add");
  EvalRecord rec;
  void SetUp() override {
    rec.task = &task;
    rec.candidatePath = "cand.cu";
    rec.arch = "sm_90";
    rec.candidateBuild.ok = true;
    rec.workerRan = true;
    rec.worker.started = true;
    rec.worker.exited = true;
    rec.worker.exitCode = 0;
    rec.seed = 1;
    rec.sets = 3;
    rec.stallSeconds = 10;
  }
  static std::string okBaseline() {
    return R"({"event":"start"}
{"event":"device","name":"NVIDIA H200","arch":"sm_90","driver_version":13000,"runtime_version":13000}
{"event":"reference","config":"small","set":0,"seed":11,"ms":0.5}
{"event":"reference","config":"small","set":1,"seed":12,"ms":0.7}
{"event":"reference","config":"small","set":2,"seed":13,"ms":0.6}
{"event":"timing","impl":"baseline","config":"small","median_ms":0.02,"min_ms":0.019,"runs":20}
{"event":"timing","impl":"baseline","config":"medium","median_ms":0.04,"min_ms":0.039,"runs":20}
{"event":"timing","impl":"baseline","config":"large","median_ms":0.09,"min_ms":0.08,"runs":20}
{"event":"verdict","impl":"baseline","outcome":"ok"}
)";
  }
  std::string outcome(const Json &v) { return member(v, "outcome")->get<std::string>(); }
  std::string detail(const Json &v) { return member(v, "detail")->get<std::string>(); }
};

} // namespace

TEST_F(ResultFixture, OkWithSpeedups) {
  rec.events = okBaseline() + R"({"event":"phase","impl":"candidate","config":"small","step":"correctness","set":0}
{"event":"check","impl":"candidate","config":"small","set":0,"seed":11,"step":"correctness","pass":true}
{"event":"timing","impl":"candidate","config":"small","median_ms":0.01,"runs":20}
{"event":"timing","impl":"candidate","config":"medium","median_ms":0.04,"runs":20}
{"event":"timing","impl":"candidate","config":"large","median_ms":0.045,"runs":20}
{"event":"verdict","impl":"candidate","outcome":"ok"}
{"event":"done"})";
  Json r = assembleResult(rec);
  EXPECT_EQ(outcome(r), "ok");
  const Json &cfgs = r.at("configs");
  ASSERT_EQ(cfgs.size(), 3u);
  EXPECT_DOUBLE_EQ(member(cfgs[0], "speedup")->get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(member(cfgs[0], "reference_ms")->get<double>(), 0.6); // median of the sets
  EXPECT_EQ(member(cfgs[0], "params")->at("n").get<int64_t>(), 1000);
  EXPECT_TRUE(member(cfgs[0], "correctness")->at("pass").get<bool>());
  EXPECT_NEAR(member(r, "speedup")->get<double>(), std::cbrt(2.0 * 1.0 * 2.0), 1e-12); // geometric mean
  EXPECT_EQ(member(r, "gpu")->at("name").get<std::string>(), "NVIDIA H200");
  EXPECT_EQ(member(r, "schema")->get<std::string>(), kResultSchema);
}

TEST_F(ResultFixture, WorkerVerdictIsTheOutcome) {
  rec.events = okBaseline() + R"({"event":"check","impl":"candidate","config":"medium","set":1,"seed":22,"pass":false,"argument":"c","index":7,"got":"nan","expected":1.5}
{"event":"verdict","impl":"candidate","outcome":"wrong_answer","detail":"c[7] = nan, expected 1.5","config":"medium"}
{"event":"done"})";
  Json r = assembleResult(rec);
  EXPECT_EQ(outcome(r), "wrong_answer");
  EXPECT_EQ(detail(r), "c[7] = nan, expected 1.5");
  EXPECT_TRUE(member(r, "speedup")->is_null());
  EXPECT_FALSE(member(r, "configs")->at(1).at("correctness").at("pass").get<bool>());
}

TEST_F(ResultFixture, CrashDuringCandidateIsRuntimeFault) {
  rec.events = okBaseline() + R"({"event":"phase","impl":"candidate","config":"small","step":"correctness","set":0})";
  rec.worker.exited = false;
  rec.worker.signal = SIGABRT;
  Json r = assembleResult(rec);
  EXPECT_EQ(outcome(r), "runtime_fault");
  EXPECT_NE(detail(r).find("signal 6"), std::string::npos) << detail(r);
  EXPECT_NE(detail(r).find("correctness of the candidate, config small, input set 0"), std::string::npos) << detail(r);
}

TEST_F(ResultFixture, ExitWithoutVerdictIsRuntimeFault) {
  rec.events = okBaseline() + R"({"event":"phase","impl":"candidate","config":"small","step":"correctness","set":0})";
  Json r = assembleResult(rec);
  EXPECT_EQ(outcome(r), "runtime_fault");
  EXPECT_NE(detail(r).find("exit status 0"), std::string::npos);
}

TEST_F(ResultFixture, VerdictWithoutDoneIsNotTrusted) {
  rec.events = okBaseline() + R"({"event":"phase","impl":"candidate","config":"small","step":"correctness","set":0}
{"event":"verdict","impl":"candidate","outcome":"ok"})";
  rec.worker.exited = false;
  rec.worker.signal = SIGSEGV;
  EXPECT_EQ(outcome(assembleResult(rec)), "runtime_fault");
}

TEST_F(ResultFixture, StallIsTimeout) {
  rec.events = okBaseline() + R"({"event":"phase","impl":"candidate","config":"small","step":"correctness","set":0}
{"event":"check","impl":"candidate","config":"small","set":0,"seed":1,"pa)"; // torn last line
  rec.worker.exited = false;
  rec.worker.timedOut = true;
  rec.worker.stalled = true;
  rec.worker.signal = SIGKILL;
  Json r = assembleResult(rec);
  EXPECT_EQ(outcome(r), "timeout");
  EXPECT_NE(detail(r).find("no progress for 10 s"), std::string::npos) << detail(r);
}

TEST_F(ResultFixture, BaselineOrSetUpFailureIsInternalError) {
  rec.events = R"({"event":"error","detail":"no usable CUDA device: cudaErrorNoDevice"}
{"event":"done"})";
  EXPECT_EQ(outcome(assembleResult(rec)), "internal_error");
  rec.events = R"({"event":"phase","impl":"baseline","config":"small","step":"correctness","set":0})";
  rec.worker.exited = false;
  rec.worker.signal = SIGSEGV;
  Json r = assembleResult(rec);
  EXPECT_EQ(outcome(r), "internal_error");
  EXPECT_NE(detail(r).find("before the candidate ran"), std::string::npos);
}

TEST_F(ResultFixture, CompileErrorAndCompileOnly) {
  rec.candidateBuild.ok = false;
  rec.candidateBuild.log = "candidate.cu(3): error: expected a \";\"\n";
  Json r = assembleResult(rec);
  EXPECT_EQ(outcome(r), "compile_error");
  EXPECT_EQ(detail(r), "candidate.cu(3): error: expected a \";\"");
  rec.candidateBuild.ok = true;
  rec.compileOnly = true;
  r = assembleResult(rec);
  EXPECT_EQ(outcome(r), "ok");
  EXPECT_TRUE(member(r, "compile_only")->get<bool>());
  EXPECT_EQ(resultOutcome(r), Outcome::Ok);
}

TEST_F(ResultFixture, CountersPerConfiguration) {
  rec.events = okBaseline() + R"ev({"event":"timing","impl":"candidate","config":"small","median_ms":0.01,"runs":20}
{"event":"verdict","impl":"candidate","outcome":"ok"}
{"event":"counters","impl":"candidate","config":"small","available":true,"reason":"","kernels":[{"name":"_Z3addPf","demangled":"add(float*)","launch":0,"metrics":{"dram__bytes_read.sum":8000}}]}
{"event":"counters","impl":"candidate","config":"medium","available":false,"reason":"profiling not permitted"}
{"event":"done"})ev";
  Json r = assembleResult(rec);
  EXPECT_EQ(outcome(r), "ok");
  const Json &cfgs = r.at("configs");
  const Json *c0 = member(cfgs[0], "counters");
  ASSERT_NE(c0, nullptr);
  EXPECT_TRUE(member(*c0, "available")->get<bool>());
  EXPECT_DOUBLE_EQ(member(*c0, "kernels")->at(0).at("metrics").at("dram__bytes_read.sum").get<double>(), 8000);
  EXPECT_EQ(member(*c0, "config"), nullptr); // the event's routing keys are not copied
  EXPECT_EQ(member(cfgs[1], "counters")->at("reason").get<std::string>(), "profiling not permitted");
  EXPECT_EQ(member(cfgs[2], "counters"), nullptr);
}

TEST_F(ResultFixture, PyTorchEagerIsWhatTheSpeedupIsAgainst) {
  Json eager = parseJson(R"({"configs": {"small": {"median_ms": 0.05, "runs": 30},
                                                   "medium": {"median_ms": 0.08, "runs": 30},
                                                   "large": {"median_ms": 0.18, "runs": 30}}})");
  rec.pytorchEager = &eager;
  rec.events = okBaseline() + R"({"event":"timing","impl":"candidate","config":"small","median_ms":0.01,"runs":20}
{"event":"timing","impl":"candidate","config":"medium","median_ms":0.04,"runs":20}
{"event":"timing","impl":"candidate","config":"large","median_ms":0.09,"runs":20}
{"event":"verdict","impl":"candidate","outcome":"ok"}
{"event":"done"})";
  Json r = assembleResult(rec);
  const Json &cfgs = r.at("configs");
  EXPECT_DOUBLE_EQ(member(cfgs[0], "speedup")->get<double>(), 5.0);             // eager 0.05 / 0.01
  EXPECT_DOUBLE_EQ(member(cfgs[0], "speedup_vs_baseline")->get<double>(), 2.0); // baseline 0.02 / 0.01
  EXPECT_DOUBLE_EQ(member(cfgs[0], "reference_ms")->get<double>(), 0.05);
  EXPECT_DOUBLE_EQ(member(cfgs[2], "speedup")->get<double>(), 2.0);
  EXPECT_NEAR(member(r, "speedup")->get<double>(), std::cbrt(5.0 * 2.0 * 2.0), 1e-9);
}

TEST_F(ResultFixture, WithoutABaselineEagerIsTheOnlyRatio) {
  TaskWithoutBaseline copy;
  Task relu = loadTask(copy.dir);
  rec.task = &relu;
  Json eager = parseJson(R"({"configs": {"small": {"median_ms": 0.05, "runs": 30},
                                                   "medium": {"median_ms": 0.08, "runs": 30},
                                                   "large": {"median_ms": 0.18, "runs": 30}}})");
  rec.pytorchEager = &eager;
  // The worker's events without a baseline: no baseline timing, no baseline verdict.
  rec.events = R"({"event":"start","t":0}
{"event":"device","name":"NVIDIA H200","arch":"sm_90","t":0.5}
{"event":"reference","config":"small","set":0,"seed":11,"ms":0.5,"t":0.75}
{"event":"timing","impl":"candidate","config":"small","median_ms":0.01,"runs":20,"t":1.0}
{"event":"timing","impl":"candidate","config":"medium","median_ms":0.04,"runs":20,"t":1.5}
{"event":"timing","impl":"candidate","config":"large","median_ms":0.09,"runs":20,"t":2.0}
{"event":"verdict","impl":"candidate","outcome":"ok","t":2.25}
{"event":"done","t":2.5})";
  Json r = assembleResult(rec);
  EXPECT_EQ(outcome(r), "ok") << r.dump();
  const Json &cfgs = r.at("configs");
  ASSERT_EQ(cfgs.size(), 3u);
  EXPECT_DOUBLE_EQ(member(cfgs[0], "speedup")->get<double>(), 5.0); // eager 0.05 / 0.01
  ASSERT_NE(member(cfgs[0], "speedup_vs_baseline"), nullptr) << "present, and null: there is no baseline";
  EXPECT_TRUE(member(cfgs[0], "speedup_vs_baseline")->is_null());
  EXPECT_EQ(member(cfgs[0], "baseline"), nullptr);
  EXPECT_NEAR(member(r, "speedup")->get<double>(), std::cbrt(5.0 * 2.0 * 2.0), 1e-9);
  EXPECT_FALSE(member(r, "baseline_cached")->get<bool>());
  const Json &stages = r.at("worker").at("stage_seconds");
  EXPECT_EQ(member(stages, "baseline"), nullptr);
  EXPECT_DOUBLE_EQ(member(stages, "candidate")->get<double>(), 1.75); // from the reference (0.75) to the end
}

TEST_F(ResultFixture, ContextSetUpAndItsWaitAreWorkerStages) {
  // A pool worker whose context was ready 0.3 s after its start; the job waited 0.05 s for it.
  rec.events = R"({"event":"start","pool":true,"context_seconds":0.3,"context_wait_seconds":0.05,"t":0.4}
{"event":"device","name":"NVIDIA H200","arch":"sm_90","t":0.41}
)" + okBaseline().substr(okBaseline().find("{\"event\":\"reference\"")) +
               R"({"event":"verdict","impl":"candidate","outcome":"ok"}
{"event":"done"})";
  Json r = assembleResult(rec);
  const Json &stages = r.at("worker").at("stage_seconds");
  EXPECT_DOUBLE_EQ(stages.at("context").get<double>(), 0.3);
  EXPECT_DOUBLE_EQ(stages.at("context_wait").get<double>(), 0.05);
  EXPECT_DOUBLE_EQ(stages.at("start_and_context").get<double>(), 0.41);
  // An older worker's events (no context figures): the keys are absent, not 0.
  rec.events = okBaseline() + R"({"event":"done"})";
  Json old = assembleResult(rec);
  if (const Json *ws = member(old.at("worker"), "stage_seconds")) {
    EXPECT_EQ(member(*ws, "context"), nullptr);
    EXPECT_EQ(member(*ws, "context_wait"), nullptr);
  }
}

TEST_F(ResultFixture, PhaseSecondsRunFromEachPhaseToTheNext) {
  // Two configurations' timing phases of the candidate are summed; a phase ends at the next phase,
  // the verdict or the end; events without a time stamp end nothing.
  rec.events = R"({"event":"start","t":0}
{"event":"device","name":"NVIDIA H200","arch":"sm_90","t":0.5}
{"event":"reference","config":"small","set":0,"seed":11,"ms":0.5,"t":0.75}
{"event":"verdict","impl":"baseline","outcome":"ok","t":1.0}
{"event":"phase","impl":"candidate","step":"load","t":1.0}
{"event":"phase","impl":"candidate","config":"small","step":"timing","t":1.25}
{"event":"timing","impl":"candidate","config":"small","median_ms":0.01,"runs":20,"t":1.5}
{"event":"phase","impl":"candidate","config":"small","step":"wall-clock check","t":2.0}
{"event":"phase","impl":"candidate","config":"large","step":"timing"}
{"event":"phase","impl":"candidate","config":"large","step":"timing","t":2.5}
{"event":"verdict","impl":"candidate","outcome":"ok","t":3.5}
{"event":"done","t":4.0})";
  Json r = assembleResult(rec);
  const Json &phases = r.at("worker").at("phase_seconds");
  EXPECT_DOUBLE_EQ(phases.at("candidate load").get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(phases.at("candidate timing").get<double>(), 0.75 + 1.0);
  EXPECT_DOUBLE_EQ(phases.at("candidate wall-clock check").get<double>(), 0.5);
  EXPECT_EQ(phases.size(), 3u) << phases.dump(); // the verdict closes, it opens nothing
  // Without phase events the key is absent.
  rec.events = okBaseline() + R"({"event":"done"})";
  EXPECT_EQ(member(assembleResult(rec).at("worker"), "phase_seconds"), nullptr);
}

TEST_F(ResultFixture, CountersAreAStageOfTheirOwnAndConnectionsAreRecorded) {
  // The counters follow the candidate's verdict (t 2.0) to the end (t 3.5): 1.5 s of the candidate's 2.5 s.
  rec.counters = true;
  rec.maxConnections = 2;
  rec.events = R"({"event":"start","t":0}
{"event":"device","name":"NVIDIA H200","arch":"sm_90","t":0.5}
{"event":"reference","config":"small","set":0,"seed":11,"ms":0.5,"t":0.75}
{"event":"verdict","impl":"baseline","outcome":"ok","t":1.0}
{"event":"timing","impl":"candidate","config":"small","median_ms":0.01,"runs":20,"t":1.5}
{"event":"verdict","impl":"candidate","outcome":"ok","t":2.0}
{"event":"counters","impl":"candidate","config":"small","available":true,"reason":"","kernels":[],"t":3.0}
{"event":"done","t":3.5})";
  Json r = assembleResult(rec);
  const Json &stages = r.at("worker").at("stage_seconds");
  EXPECT_DOUBLE_EQ(stages.at("candidate").get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(stages.at("counters").get<double>(), 1.5);
  EXPECT_EQ(r.at("worker").at("max_connections").get<int>(), 2);
  // Without counters there is no such stage, and an unrecorded connection count is absent.
  rec.counters = false;
  rec.maxConnections = 0;
  Json plain = assembleResult(rec);
  EXPECT_EQ(member(plain.at("worker").at("stage_seconds"), "counters"), nullptr);
  EXPECT_EQ(member(plain.at("worker"), "max_connections"), nullptr);
}

TEST(Outcome, NamesRoundTrip) {
  for (Outcome o : {Outcome::Ok, Outcome::CompileError, Outcome::LaunchError, Outcome::RuntimeFault, Outcome::Timeout,
                    Outcome::WrongAnswer, Outcome::TimingViolation, Outcome::InternalError})
    EXPECT_EQ(parseOutcome(outcomeName(o)), o);
  EXPECT_FALSE(parseOutcome("fine").has_value());
}

TEST_F(ResultFixture, LaunchesMemoryAndCachedBaseline) {
  std::string cachedBaseline = okBaseline();
  size_t at = 0;
  while ((at = cachedBaseline.find("\"runs\":20}", at)) != std::string::npos) {
    cachedBaseline.replace(at, 10, "\"runs\":20,\"cached\":true}");
    at += 10;
  }
  rec.events = cachedBaseline + R"({"event":"audit","impl":"candidate","config":"small","kernels":1,"launches":[{"kernel":"_Z1kPKfS0_Pfi","grid":[4,1,1],"block":[256,1,1],"dynamic_smem_bytes":0,"stream":"timed"}],"launches_truncated":false}
{"event":"timing","impl":"candidate","config":"small","median_ms":0.01,"runs":20,"spread":0.3}
{"event":"timing","impl":"candidate","config":"medium","median_ms":0.04,"runs":20}
{"event":"timing","impl":"candidate","config":"large","median_ms":0.045,"runs":20}
{"event":"memory","impl":"candidate","device_bytes":1048576,"held_bytes":1048576,"refused_frees":0}
{"event":"shared_data","after":"candidate","intact":true}
{"event":"retry","impl":"candidate","config":"small","set":0,"reason":"x","pause_seconds":0.5}
{"event":"verdict","impl":"candidate","outcome":"ok"}
{"event":"done"})";
  GpuSharing sharing = summarizeSharing({GpuSample{0, {{1, 10}, {99, 8ull << 30}}, 90, 10, 0}}, {1}, 1);
  rec.sharing = &sharing;
  rec.stageSeconds = Json{{"build", 1.5}};
  Json r = assembleResult(rec);
  EXPECT_EQ(outcome(r), "ok");
  const Json &small = r.at("configs")[0];
  ASSERT_EQ(small.at("launches").size(), 1u);
  EXPECT_EQ(small.at("launches")[0].at("kernel"), "_Z1kPKfS0_Pfi");
  EXPECT_EQ(small.at("launches")[0].at("grid")[0], 4);
  EXPECT_FALSE(small.at("launches_truncated").get<bool>());
  EXPECT_FALSE(small.at("audit").contains("launches")); // not twice
  EXPECT_TRUE(r.at("baseline_cached").get<bool>());
  EXPECT_EQ(r.at("memory").at("held_bytes"), 1048576);
  EXPECT_EQ(r.at("worker").at("retries"), 1);
  EXPECT_TRUE(r.at("worker").at("shared_data_intact").get<bool>());
  EXPECT_TRUE(r.at("gpu_shared").get<bool>());
  EXPECT_EQ(r.at("gpu_activity").at("other_processes")[0].at("pid"), 99);
  EXPECT_DOUBLE_EQ(r.at("gpu_activity").at("timing_spread_max").get<double>(), 0.3);
  EXPECT_EQ(r.at("stage_seconds").at("build"), 1.5);
}

TEST_F(ResultFixture, UnknownSharingIsNullAndRetryableSetUpIsSeen) {
  rec.events = R"({"event":"start"}
{"event":"error","detail":"CUDA context creation failed: cudaErrorMemoryAllocation","retryable":true}
{"event":"done"})";
  GpuSharing none;
  none.reason = "libnvidia-ml.so.1 not loaded";
  rec.sharing = &none;
  Json r = assembleResult(rec);
  EXPECT_EQ(outcome(r), "internal_error");
  EXPECT_TRUE(r.at("gpu_shared").is_null());
  EXPECT_FALSE(r.at("gpu_activity").at("available").get<bool>());
  EXPECT_TRUE(retryableSetupError(rec.events));
  EXPECT_FALSE(retryableSetupError(R"({"event":"error","detail":"no task"})"));
}

// The wire order of a full result (docs/eval-result.md; every stored run has it): assembleResult
// fills schema::EvalResult, whose writer must give the order the events used to give.
TEST_F(ResultFixture, AFullResultKeepsTheStoredKeyOrder) {
  rec.events = okBaseline() + R"({"event":"sandbox","isolation":"runner","pid":7}
{"event":"phase","impl":"candidate","config":"small","step":"correctness","set":0}
{"event":"check","impl":"candidate","config":"small","set":0,"seed":11,"step":"correctness","pass":true}
{"event":"audit","impl":"candidate","config":"small","kernels":1,"launches":[{"kernel":"k"}],"launches_truncated":false}
{"event":"timing","impl":"candidate","config":"small","median_ms":0.01,"min_ms":0.01,"max_ms":0.02,"mean_ms":0.01,"p10_ms":0.01,"p90_ms":0.02,"spread":0.1,"runs":20,"stable":true}
{"event":"counters","impl":"candidate","config":"small","available":false,"reason":"no"}
{"event":"timing","impl":"candidate","config":"medium","median_ms":0.04,"runs":20}
{"event":"timing","impl":"candidate","config":"large","median_ms":0.045,"runs":20}
{"event":"memory","impl":"candidate","device_bytes":0}
{"event":"verdict","impl":"candidate","outcome":"ok"}
{"event":"done"})";
  rec.stageSeconds = Json{{"queued", 0.0}};
  Json r = assembleResult(rec);
  auto keys = [](const Json &o) {
    std::string s;
    for (const auto &kv : o.items())
      s += (s.empty() ? "" : " ") + kv.key();
    return s;
  };
  EXPECT_EQ(keys(r), "schema task task_dir candidate candidate_sha256 outcome detail speedup compile compile_only seed "
                     "sets gpu sandbox worker baseline_cached memory stage_seconds configs tools evaluation_seconds");
  EXPECT_EQ(keys(r["compile"]), "ok cached seconds arch command log");
  EXPECT_EQ(keys(r["tools"]), "cudaperf_eval driver_version cuda_runtime_version");
  EXPECT_EQ(keys(r["worker"]), "status seconds output output_bytes output_truncated last_phase retries "
                               "memory_wait_seconds shared_data_intact");
  EXPECT_EQ(keys(r["configs"][0]),
            "name params baseline correctness launches launches_truncated audit candidate counters reference_ms speedup");
  EXPECT_EQ(keys(r["configs"][0]["candidate"]), "median_ms min_ms max_ms mean_ms p10_ms p90_ms spread runs stable");
  EXPECT_EQ(r["tools"]["driver_version"], 13000);
  EXPECT_TRUE(r["speedup"].is_number());
}

// Events that cannot make a configuration (a timing that is not a number) are the evaluator's
// failure, named, not a document the readers refuse.
TEST_F(ResultFixture, EventsOfTheWrongTypeAreAnInternalError) {
  rec.events = okBaseline() + R"({"event":"timing","impl":"candidate","config":"small","median_ms":"fast","runs":20}
{"event":"verdict","impl":"candidate","outcome":"ok"}
{"event":"done"})";
  Json r = assembleResult(rec);
  EXPECT_EQ(outcome(r), "internal_error");
  EXPECT_NE(detail(r).find("configs[0]: candidate.median_ms: expected a number"), std::string::npos) << detail(r);
}

// The worker's event file is untrusted (docs/security.md; schema::readWorkerEvents): a known field
// of the wrong type counts as absent, never as what it claims, and the copied check keeps it as
// written; an event of an unknown kind is passed over.
TEST_F(ResultFixture, ForgedFieldsOfTheWrongTypeCountAsAbsent) {
  rec.events = okBaseline() + R"({"event":"phase","impl":"candidate","config":"small","step":"timing","set":2.7}
{"event":"check","impl":"candidate","config":"small","set":0,"seed":11,"step":"correctness","pass":"true"}
{"event":"shared_data","after":"candidate","intact":1}
{"event":"a_kind_of_a_newer_worker"}
{"event":"verdict","impl":"candidate","outcome":["ok"]}
{"event":"done","t":"9"})";
  Json r = assembleResult(rec);
  EXPECT_EQ(outcome(r), "internal_error");
  EXPECT_EQ(detail(r), "");
  const Json &correctness = r.at("configs")[0].at("correctness");
  EXPECT_FALSE(correctness.at("pass").get<bool>());
  EXPECT_EQ(correctness.at("checks")[0].at("pass"), "true");
  EXPECT_FALSE(r.at("worker").at("shared_data_intact").get<bool>());
  EXPECT_EQ(r.at("worker").at("last_phase"), "timing of the candidate, config small, input set 2");
}
