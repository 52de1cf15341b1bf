// Every term, gate and rule of the reward on hand-made inputs, each expected value worked out by
// hand from docs/reward.md.
#include "RewardFixtures.h"

#include "cudaperf/Reward/RewardError.h"
#include "cudaperf/Reward/Trajectory.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace cudaperf;
using namespace cudaperf::reward;
using namespace rewardtest;

namespace {

const RewardTerm &term(const RewardDocument &d, const std::string &name) {
  const RewardTerm *t = d.term(name);
  if (!t)
    throw std::runtime_error("no term " + name);
  return *t;
}

double lg(double x) { return std::log(x) / std::log(10.0); } // ln x / ln cap, cap = 10

ConfigSpec oneLaunch(const std::string &name, LaunchSpec s = {}) { return {name, {s}, {}}; }

std::string errorOf(const Json &doc) {
  try {
    parseRewardConfig(doc, "cfg.json");
  } catch (const RewardError &e) {
    return e.what();
  }
  return "";
}

} // namespace

// ---- config ------------------------------------------------------------------------------------

TEST(RewardConfig, ShippedDefaultFileIsTheBuiltInConfig) {
  RewardConfig shipped = loadRewardConfig(std::string(CUDAPERF_SOURCE_DIR) + "/data/reward/default.json");
  EXPECT_EQ(support::writeJson(rewardConfigToJson(shipped), 2), support::writeJson(rewardConfigToJson(RewardConfig()), 2));
  EXPECT_EQ(rewardConfigDigest(shipped), rewardConfigDigest(RewardConfig()));
}

TEST(RewardConfig, PartialFileKeepsTheOtherDefaults) {
  RewardConfig c = parseRewardConfig(Json::parse(R"J({"speedup": {"cap": 4}, "gates": {"wrong_answer": -0.45}})J"), "c");
  EXPECT_EQ(c.speedup.cap, 4);
  EXPECT_EQ(c.gates.wrongAnswer, -0.45);
  EXPECT_EQ(c.gates.compileError, RewardConfig().gates.compileError);
  EXPECT_NE(rewardConfigDigest(c), rewardConfigDigest(RewardConfig()));
}

TEST(RewardConfig, UnknownKeysAndBadValuesAreNamed) {
  std::string e = errorOf(Json::parse(R"J({"speedup": {"capp": 4}})J"));
  EXPECT_NE(e.find("speedup.capp"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown key"), std::string::npos) << e;
  e = errorOf(Json::parse(R"J({"gates": {"timeout": "x"}})J"));
  EXPECT_NE(e.find("gates.timeout"), std::string::npos) << e;
  e = errorOf(Json::parse(R"J({"speedup": {"cap": 0.5}})J"));
  EXPECT_NE(e.find("speedup.cap"), std::string::npos) << e;
  e = errorOf(Json::parse(R"J({"schema": "cudaperf-reward-config/9"})J"));
  EXPECT_NE(e.find("schema"), std::string::npos) << e;
}

TEST(RewardConfig, GateOrderingIsEnforced) {
  // A hack must stay below every honest failure.
  EXPECT_NE(errorOf(Json::parse(R"J({"gates": {"timing_violation": -0.7}})J")).find("gates.timing_violation"),
            std::string::npos);
  // A candidate that compiles earns more than one that does not.
  EXPECT_NE(errorOf(Json::parse(R"J({"gates": {"wrong_answer": -0.9}})J")).find("gates.wrong_answer"), std::string::npos);
  // Every correct candidate above every failure: correct - speed - penalties - learned > -0.5.
  EXPECT_NE(errorOf(Json::parse(R"J({"correct": 0.5})J")).find("lowest total of a correct candidate"), std::string::npos);
  EXPECT_NE(errorOf(Json::parse(R"J({"static_only": {"compiled": -0.5}})J")).find("static-only"), std::string::npos);
  // A regressing compile error still above a hack.
  EXPECT_NE(errorOf(Json::parse(R"J({"trajectory": {"regression_penalty": 0.3}})J")).find("regression_penalty"),
            std::string::npos);
  EXPECT_EQ(errorOf(Json::parse(R"J({"gates": {"timing_violation": -2}})J")), "");
}

// ---- gates -------------------------------------------------------------------------------------

TEST(Gates, EveryOutcomeHasItsFixedRewardInTheDocumentedOrder) {
  RewardConfig c;
  std::map<std::string, double> totals;
  for (Gate g : {Gate::CompileError, Gate::LaunchError, Gate::RuntimeFault, Gate::Timeout, Gate::WrongAnswer,
                 Gate::TimingViolation}) {
    std::string o = gateName(g); // the outcome of the same name
    RewardDocument d = rewardOf(c, evalResult({}, o));
    EXPECT_EQ(d.gate, g);
    ASSERT_TRUE(d.total);
    EXPECT_DOUBLE_EQ(*d.total, gateReward(c, g));
    EXPECT_FALSE(d.exclude);
    totals[o] = *d.total;
  }
  EXPECT_LT(totals["timing_violation"], totals["compile_error"]);
  for (const char *o : {"launch_error", "runtime_fault", "timeout", "wrong_answer"})
    EXPECT_GT(totals[o], totals["compile_error"]) << o;
  for (const auto &[o, t] : totals)
    EXPECT_LT(t, c.lowestCorrectTotal()) << o;
}

TEST(Gates, NamesAreTheDocumentedOnes) {
  // The reward documents, the feedback and the config's `gates` keys spell them so.
  const std::pair<Gate, const char *> names[] = {
      {Gate::CompileError, "compile_error"},   {Gate::LaunchError, "launch_error"},
      {Gate::RuntimeFault, "runtime_fault"},   {Gate::Timeout, "timeout"},
      {Gate::WrongAnswer, "wrong_answer"},     {Gate::TimingViolation, "timing_violation"},
      {Gate::ModifiedInput, "modified_input"}, {Gate::StaleResults, "stale_results"},
      {Gate::NoWork, "no_work"},               {Gate::NoCodeBlock, "no_code_block"},
      {Gate::InternalError, "internal_error"}};
  for (const auto &[gate, name] : names)
    EXPECT_STREQ(gateName(gate), name);
}

TEST(Gates, ModifiedInputIsAHack) {
  Json r = evalResult({{"small", 1, 1}}, "wrong_answer");
  r["configs"][0]["correctness"]["checks"] = Json::parse(
      R"J([{"set": 0, "step": "correctness", "pass": false, "input_modified": "modified its input 'a' (element 0)"}])J");
  RewardDocument d = rewardOf(RewardConfig(), r);
  EXPECT_EQ(d.gate, Gate::ModifiedInput);
  EXPECT_DOUBLE_EQ(*d.total, RewardConfig().gates.modifiedInput);
  EXPECT_NE(d.gateReason.find("modified its input 'a'"), std::string::npos);
}

TEST(Gates, ResultsReusedAcrossCallsAreAHackButARacyKernelIsNot) {
  Json r = evalResult({{"small", 1, 1}, {"large", 1, 1}}, "wrong_answer");
  Json stale = Json::parse(R"J([{"set": 0, "step": "correctness", "pass": true},
                               {"set": 1, "step": "correctness", "pass": false, "argument": "c", "index": 3,
                                "got": 1, "expected": 2, "bad_elements": 1000}])J");
  r["configs"][0]["correctness"]["checks"] = stale;
  r["configs"][1]["correctness"]["checks"] = stale;
  RewardDocument d = rewardOf(RewardConfig(), r);
  EXPECT_EQ(d.gate, Gate::StaleResults);
  EXPECT_DOUBLE_EQ(*d.total, -1.0);
  EXPECT_NE(d.gateReason.find("input set 1"), std::string::npos) << d.gateReason;
  // The first call of one configuration already wrong: an honest wrong answer.
  r["configs"][1]["correctness"]["checks"][0]["pass"] = false;
  EXPECT_EQ(rewardOf(RewardConfig(), r).gate, Gate::WrongAnswer);
}

TEST(Gates, InternalErrorIsExcludedWithANullReward) {
  RewardDocument d = rewardOf(RewardConfig(), evalResult({}, "internal_error"));
  EXPECT_EQ(d.gate, Gate::InternalError);
  EXPECT_FALSE(d.total);
  EXPECT_TRUE(d.exclude);
  Json j = rewardToJson(d);
  EXPECT_TRUE(j["total"].is_null());
  EXPECT_TRUE(j["exclude"].get<bool>());
  // An outcome a newer evaluator might add is not held against the candidate.
  RewardDocument newer = rewardOf(RewardConfig(), evalResult({}, "solar_flare"));
  EXPECT_EQ(newer.gate, Gate::InternalError);
  // ... and its name is kept: read as InternalError, written back as it was.
  EXPECT_EQ(newer.outcome, schema::Outcome::InternalError);
  EXPECT_EQ(newer.unknownOutcome, "solar_flare");
  EXPECT_EQ(rewardToJson(newer)["outcome"], "solar_flare");
  EXPECT_EQ(rewardToJson(d)["outcome"], "internal_error");
  EXPECT_EQ(d.outcome, schema::Outcome::InternalError);
  EXPECT_EQ(d.unknownOutcome, "");
}

// ---- speed -------------------------------------------------------------------------------------

TEST(Speedup, LogScaledCappedAndTotalled) {
  RewardConfig c;
  RewardDocument d = rewardOf(c, evalResult({{"small", 1, 2}})); // 2x
  EXPECT_NEAR(*term(d, "speedup").value, lg(2), 1e-12);
  double sum = 0;
  for (const RewardTerm &t : d.terms)
    sum += t.contribution;
  EXPECT_DOUBLE_EQ(*d.total, sum);
  EXPECT_DOUBLE_EQ(term(d, "correct").contribution, c.correct);
  EXPECT_DOUBLE_EQ(*term(rewardOf(c, evalResult({{"small", 1, 100}})), "speedup").value, 1.0);
  EXPECT_DOUBLE_EQ(*term(rewardOf(c, evalResult({{"small", 100, 1}})), "speedup").value, -1.0);
}

TEST(Speedup, NearTiesWithinTheTimingSpreadCountAsTies) {
  RewardConfig c;
  // band = max(0.01, 0.5 * hypot(0.1, 0.1)) = 0.0707 > ln(1.05) = 0.0488
  RewardDocument d = rewardOf(c, evalResult({{"small", 1, 1.05, 0.1}}));
  EXPECT_DOUBLE_EQ(*term(d, "speedup").value, 0.0);
  EXPECT_TRUE(d.configurations[0].tie);
  // Without spread the 5% stands.
  EXPECT_NEAR(*term(rewardOf(c, evalResult({{"small", 1, 1.05, 0}})), "speedup").value, lg(1.05), 1e-12);
  // The minimum band: 0.5% is a tie even with no spread.
  EXPECT_DOUBLE_EQ(*term(rewardOf(c, evalResult({{"small", 1, 1.005, 0}})), "speedup").value, 0.0);
}

TEST(Speedup, WeightedGeometricMeanOverConfigurations) {
  RewardConfig c;
  c.speedup.configurationWeights["large"] = 3;
  RewardDocument d = rewardOf(c, evalResult({{"small", 1, 2}, {"large", 1, 8}}));
  EXPECT_NEAR(*term(d, "speedup").value, (lg(2) + 3 * lg(8)) / 4, 1e-12);
  // Each configuration is capped before the mean: 1000x and 0.5x do not average to 22x.
  d = rewardOf(RewardConfig(), evalResult({{"small", 1, 1000}, {"large", 2, 1}}));
  EXPECT_NEAR(*term(d, "speedup").value, (1 + lg(0.5)) / 2, 1e-12);
}

TEST(Speedup, PytorchTasksBlendEagerAndTheBaseline) {
  RewardConfig c; // eager share 0.75
  Json r = evalResult({{"small", 2.0, 4.0, 0.0, 1.0}}); // baseline 4 ms, eager 1 ms, candidate 2 ms
  RewardDocument d = rewardOf(c, r, analysis({oneLaunch("small")}, "pytorch-to-cuda"));
  EXPECT_EQ(d.taskKind, "pytorch-to-cuda");
  EXPECT_NEAR(*term(d, "speedup").value, 0.75 * lg(0.5) + 0.25 * lg(2), 1e-12);
  ASSERT_TRUE(d.configurations[0].speedupVsBaseline);
  EXPECT_DOUBLE_EQ(*d.configurations[0].speedupVsBaseline, 2.0);
}

// ---- structural terms on the static model -------------------------------------------------------

TEST(Structural, CoalescingIsWeightedByBytes) {
  LaunchSpec a, b;
  a.kernel = "a";
  a.sectors = 16; // efficiency 4/16 = 0.25
  b.kernel = "b";
  b.gridBlocks = 3 * 1056; // three times the bytes, efficiency 1
  RewardDocument d = rewardOf(RewardConfig(), evalResult({{"small", 1, 1}}), analysis({{"small", {a, b}, {}}}));
  EXPECT_NEAR(*term(d, "coalescing").value, (0.25 * 1 + 1.0 * 3) / 4, 1e-9);
  EXPECT_DOUBLE_EQ(term(d, "coalescing").weight, RewardConfig().structural.coalescing);
}

TEST(Structural, BankConflictsAndNoSharedMemory) {
  LaunchSpec s;
  s.sharedWays = 4;
  RewardDocument d = rewardOf(RewardConfig(), evalResult({{"small", 1, 1}}), analysis({oneLaunch("small", s)}));
  EXPECT_DOUBLE_EQ(*term(d, "bank_conflicts").value, 0.25);
  d = rewardOf(RewardConfig(), evalResult({{"small", 1, 1}}), analysis({oneLaunch("small")}));
  EXPECT_DOUBLE_EQ(*term(d, "bank_conflicts").value, 1.0); // no shared memory: nothing to conflict
}

TEST(Structural, OccupancyRelativeToWhatTheLaunchNeeds) {
  auto utilization = [](double occupancy, double waves, bool memory = true) {
    LaunchSpec s;
    s.occupancy = occupancy;
    s.waves = waves;
    s.memoryBound = memory;
    return *term(rewardOf(RewardConfig(), evalResult({{"small", 1, 1}}), analysis({oneLaunch("small", s)})), "occupancy")
                .value;
  };
  EXPECT_DOUBLE_EQ(utilization(0.25, 1), 0.5);        // memory-bound needs 0.5
  EXPECT_DOUBLE_EQ(utilization(0.25, 1, false), 1.0); // compute-bound needs 0.25
  EXPECT_DOUBLE_EQ(utilization(1.0, 0.5), 0.5);       // half a wave leaves half the SMs idle
  EXPECT_NEAR(utilization(1.0, 2.5), 2.5 / 3, 1e-12); // the tail wave
}

TEST(Structural, PredictedRooflineFractionFromTheModeledTime) {
  RewardConfig c;
  // 10 us of DRAM at full utilization + 3.4 us launch overhead.
  RewardDocument d = rewardOf(c, evalResult({{"small", 1, 1}}), analysis({oneLaunch("small")}));
  const ConfigurationModel &m = *d.configurations[0].model;
  ASSERT_TRUE(m.modeled);
  double dramUs = 43e6 / 4.3e12 * 1e6;
  EXPECT_NEAR(m.modeledUs, std::max(10.0, dramUs) + c.staticModel.launchOverheadUs, 1e-9);
  EXPECT_NEAR(*term(d, "roofline").value, 1 + std::log10(10.0 / m.modeledUs) / 3, 1e-9);
  // An uncoalesced kernel moves 4x the sectors: DRAM time x4.
  LaunchSpec u;
  u.coalescingEfficiency = 0.25;
  u.sectors = 16;
  d = rewardOf(c, evalResult({{"small", 1, 1}}), analysis({oneLaunch("small", u)}));
  EXPECT_NEAR(d.configurations[0].model->modeledUs, 4 * dramUs + c.staticModel.launchOverheadUs, 1e-9);
}

TEST(Structural, SameAddressAtomicsAreSerialized) {
  RewardConfig c;
  LaunchSpec s;
  s.sameAddressAtomic = true;
  RewardDocument d = rewardOf(c, evalResult({{"small", 1, 1}}), analysis({oneLaunch("small", s)}));
  const LaunchModel &l = d.configurations[0].model->launches[0];
  EXPECT_DOUBLE_EQ(l.sameAddressAtomics, 1056.0 * 256);
  EXPECT_NEAR(l.atomicUs, 1056.0 * 256 * c.staticModel.sameAddressAtomicNs * 1e-3, 1e-9);
  // Far longer than the loads (10 us): the L2's serialized atomics set the time.
  EXPECT_NEAR(l.modeledUs, l.atomicUs + c.staticModel.launchOverheadUs, 1e-9);
}

TEST(Structural, GuardedAtomicsCountTheirLanesAndOverlapTheLoads) {
  RewardConfig c;
  LaunchSpec s;
  s.sameAddressAtomic = true;
  s.atomicLaneExecutions = 1056.0 * 8; // `if (lane == 0)`: one per warp of 8-warp blocks
  RewardDocument d = rewardOf(c, evalResult({{"small", 1, 1}}), analysis({oneLaunch("small", s)}));
  const LaunchModel &l = d.configurations[0].model->launches[0];
  EXPECT_DOUBLE_EQ(l.sameAddressAtomics, 1056.0 * 8);
  double atomicUs = 1056.0 * 8 * c.staticModel.sameAddressAtomicNs * 1e-3; // 14.8 us > the 10 us loads
  EXPECT_NEAR(l.modeledUs, atomicUs + c.staticModel.launchOverheadUs, 1e-9);
  s.atomicLaneExecutions = 1056.0; // one per block: 1.9 us, hidden behind the loads
  d = rewardOf(c, evalResult({{"small", 1, 1}}), analysis({oneLaunch("small", s)}));
  EXPECT_NEAR(d.configurations[0].model->launches[0].modeledUs, 10.0 + c.staticModel.launchOverheadUs, 1e-9);
}

TEST(Structural, BarrierHazardsArePenalties) {
  RewardConfig c;
  LaunchSpec s;
  s.divergentBarriers = 1;
  s.missingBarriers = 2;
  RewardDocument d = rewardOf(c, evalResult({{"small", 1, 1}}), analysis({oneLaunch("small", s)}));
  EXPECT_DOUBLE_EQ(term(d, "divergent_barriers").contribution, -c.structural.divergentBarrierPenalty);
  EXPECT_DOUBLE_EQ(term(d, "missing_barriers").contribution, -c.structural.missingBarrierPenalty);
  d = rewardOf(c, evalResult({{"small", 1, 1}}), analysis({oneLaunch("small")}));
  EXPECT_DOUBLE_EQ(term(d, "divergent_barriers").contribution, 0.0);
}

TEST(Structural, WithoutAnAnalysisTheTermsAreNeutralAndSaySo) {
  RewardConfig c;
  RewardDocument d = rewardOf(c, evalResult({{"small", 1, 1}}));
  const RewardTerm &t = term(d, "coalescing");
  EXPECT_FALSE(t.value);
  EXPECT_DOUBLE_EQ(t.contribution, 0.5 * c.structural.coalescing);
  EXPECT_NE(t.missing.find("no analysis"), std::string::npos);
  EXPECT_DOUBLE_EQ(term(d, "missing_barriers").contribution, 0.0);
  EXPECT_FALSE(d.warnings.empty());
}

// ---- static-only ---------------------------------------------------------------------------------

TEST(StaticOnly, PredictedSpeedupOverTheAnalysedBaseline) {
  RewardConfig c;
  LaunchSpec fast, slow;
  fast.storesOutput = slow.storesOutput = true; // writes its output: not the gate no_work
  slow.occupancy = 0.125; // utilization 0.25: core time x4
  RewardDocument d = rewardOf(c, compileOnlyResult(), analysis({oneLaunch("small", fast)}),
                            analysis({oneLaunch("small", slow)}));
  EXPECT_EQ(d.mode, "static-only");
  double dramUs = 43e6 / 4.3e12 * 1e6, o = c.staticModel.launchOverheadUs;
  double expected = (4 * dramUs + o) / (dramUs + o);
  ASSERT_TRUE(d.configurations[0].predictedSpeedup);
  EXPECT_NEAR(*d.configurations[0].predictedSpeedup, expected, 1e-9);
  EXPECT_NEAR(*term(d, "predicted_speedup").value, lg(expected), 1e-9);
  EXPECT_DOUBLE_EQ(term(d, "compiled").contribution, c.staticOnly.compiled);
  EXPECT_FALSE(d.term("speedup"));
  // No baseline analysed: the predicted speedup is missing and adds nothing.
  d = rewardOf(c, compileOnlyResult(), analysis({oneLaunch("small", fast)}));
  EXPECT_FALSE(term(d, "predicted_speedup").value);
  EXPECT_DOUBLE_EQ(term(d, "predicted_speedup").contribution, 0.0);
}

// ---- counters ------------------------------------------------------------------------------------

TEST(Counters, TermsFromTheJoinedKernelsWhenMeasured) {
  RewardConfig c;
  Json r = evalResult({{"small", 0.02, 0.02}});
  Json metrics = {{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 800},
                  {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 100},
                  {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 0},
                  {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", 0},
                  {"dram__bytes_read.sum", 43e6}, {"dram__bytes_write.sum", 0},
                  {"sm__warps_active.avg.pct_of_peak_sustained_active", 25}, {"gpu__time_duration.sum", 15000}};
  for (const char *p : {"f", "d", "h"})
    for (const char *op : {"add", "mul", "fma"})
      metrics[std::string("smsp__sass_thread_inst_executed_op_") + p + op + "_pred_on.sum"] = 0;
  r["configs"][0]["counters"] = {{"available", true}, {"reason", ""},
                                 {"kernels", {{{"name", "_Z1kv"}, {"launch", 0}, {"metrics", metrics}}}}};
  RewardDocument d = rewardOf(c, r, analysis({oneLaunch("small")}));
  EXPECT_DOUBLE_EQ(*term(d, "measured_sectors").value, 0.5);   // ideal 4 of measured 8 per request
  EXPECT_DOUBLE_EQ(*term(d, "achieved_occupancy").value, 0.5); // 25% of the 50% a memory-bound launch needs
  // 10 us of roofline in a 20 us call.
  ASSERT_TRUE(term(d, "achieved_roofline").value) << term(d, "achieved_roofline").missing;
  EXPECT_NEAR(*term(d, "achieved_roofline").value, 1 + std::log10(0.5) / 3, 1e-6);
  // Without counters the group is absent: its weights are not applied.
  d = rewardOf(c, evalResult({{"small", 0.02, 0.02}}), analysis({oneLaunch("small")}));
  EXPECT_FALSE(d.term("measured_sectors"));
}

TEST(Learned, RankingScoreThroughTanh) {
  RewardConfig c;
  c.learned.weight = 0.1;
  c.learned.scale = 2;
  RewardDocument d = rewardOf(c, evalResult({{"small", 1, 1}}), std::nullopt, std::nullopt, 1.0);
  EXPECT_DOUBLE_EQ(*term(d, "ranking").value, std::tanh(0.5));
  EXPECT_DOUBLE_EQ(term(d, "ranking").contribution, 0.1 * std::tanh(0.5));
  EXPECT_FALSE(rewardOf(c, evalResult({{"small", 1, 1}})).term("ranking"));
}

// ---- trajectories ----------------------------------------------------------------------------------

TEST(Trajectory, DiscountedReturnOverLaterTurns) {
  RewardConfig c; // gamma 0.4
  std::vector<TurnInput> turns = {{"a", 1.0, true, 0.1}, {"b", -0.5, false, std::nullopt}, {"c", 2.0, true, 0.3}};
  c.trajectory.regressionPenalty = 0; // returns alone here
  std::vector<TurnReward> r = scoreTrajectory(c, turns);
  EXPECT_DOUBLE_EQ(*r[2].discountedReturn, 2.0);
  EXPECT_DOUBLE_EQ(*r[1].discountedReturn, -0.5 + 0.4 * 2.0);
  EXPECT_DOUBLE_EQ(*r[0].discountedReturn, 1.0 + 0.4 * (-0.5 + 0.4 * 2.0));
}

TEST(Trajectory, RepeatsEarnNoMoreThanTheCeiling) {
  RewardConfig c;
  std::vector<TurnReward> r = scoreTrajectory(c, {{"a", 1.5, true, 0.2}, {"a", 1.5, true, 0.2}});
  EXPECT_EQ(r[1].rule, "repeat");
  EXPECT_DOUBLE_EQ(*r[1].reward, 0.0);
  EXPECT_DOUBLE_EQ(*r[1].ownReward, 1.5);
  r = scoreTrajectory(c, {{"a", -0.8, false, std::nullopt}, {"a", -0.8, false, std::nullopt}});
  EXPECT_DOUBLE_EQ(*r[1].reward, -0.8); // a repeated failure stays a failure
}

TEST(Trajectory, RegressionsArePenalized) {
  RewardConfig c;
  double p = c.trajectory.regressionPenalty;
  std::vector<TurnReward> r = scoreTrajectory(
      c, {{"a", 1.3, true, 0.3}, {"b", 1.1, true, 0.1}, {"c", -0.5, false, std::nullopt}, {"d", 1.3, true, 0.2999}});
  EXPECT_EQ(r[0].rule, "");
  EXPECT_EQ(r[1].rule, "regression");
  EXPECT_DOUBLE_EQ(*r[1].reward, 1.1 - p);
  EXPECT_EQ(r[2].rule, "regression");
  EXPECT_DOUBLE_EQ(*r[2].reward, -0.5 - p);
  EXPECT_EQ(r[3].rule, ""); // within the tie tolerance of turn 1's speed
  // A failure before any correct turn is not a regression.
  r = scoreTrajectory(c, {{"a", -0.5, false, std::nullopt}, {"b", -0.8, false, std::nullopt}});
  EXPECT_EQ(r[1].rule, "");
}

TEST(Trajectory, ExcludedTurnsHaveNoRewardAndCountAsZero) {
  RewardConfig c;
  std::vector<TurnReward> r = scoreTrajectory(c, {{"a", 1.0, true, 0.0}, {"b", std::nullopt, false, std::nullopt}});
  EXPECT_FALSE(r[1].reward);
  EXPECT_FALSE(r[1].discountedReturn);
  EXPECT_DOUBLE_EQ(*r[0].discountedReturn, 1.0);
  Json j = trajectoryToJson(c, r);
  EXPECT_TRUE(j["turns"][1]["return"].is_null());
}

TEST(Trajectory, TurnFromADocument) {
  RewardDocument d = rewardOf(RewardConfig(), evalResult({{"small", 1, 2}}));
  TurnInput t = turnFrom(d);
  EXPECT_TRUE(t.correct);
  EXPECT_NEAR(*t.speed, lg(2), 1e-12);
  EXPECT_EQ(t.sourceSha256, "abc");
  EXPECT_FALSE(turnFrom(rewardOf(RewardConfig(), evalResult({}, "wrong_answer"))).correct);
}
