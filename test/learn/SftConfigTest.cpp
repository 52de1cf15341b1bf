// SftConfig (SftConfig.h): every key round-trips through JSON, the flags' defaults are the struct's,
// unknown keys and bad values are input errors that name the key, --set reads its value as JSON.
#include "cudaperf/Learn/SftConfig.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <unistd.h>

using namespace cudaperf;
using namespace cudaperf::learn;

namespace {

std::string errorOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const LearnError &e) {
    return e.what();
  }
  return "(no LearnError)";
}

} // namespace

TEST(SftConfig, DefaultsAreTheFlagsDefaults) {
  SftConfig c;
  EXPECT_EQ(c.kinds, "c,pytorch");
  EXPECT_EQ(c.device, "cuda");
  EXPECT_EQ(c.dtype, "bfloat16");
  EXPECT_EQ(c.vocab, 8192);
  EXPECT_EQ(c.batchTokens, 32768);
  EXPECT_EQ(c.microBatchTokens, 16384);
  EXPECT_EQ(c.maxSeqLen, 2048);
  EXPECT_EQ(c.warmup, 100);
  EXPECT_EQ(c.evalEvery, 200);
  EXPECT_EQ(c.evalBatches, 16);
  EXPECT_DOUBLE_EQ(c.epochs, 3);
  EXPECT_DOUBLE_EQ(c.lr, 1e-3);
  EXPECT_DOUBLE_EQ(c.minLrRatio, 0.1);
  EXPECT_DOUBLE_EQ(c.weightDecay, 0.1);
  EXPECT_DOUBLE_EQ(c.maxShardMb, 15);
  EXPECT_TRUE(c.refinementExamples);
  EXPECT_TRUE(c.repairExamples);
  EXPECT_FALSE(c.dryRun);
}

TEST(SftConfig, EveryKeyRoundTrips) {
  SftConfig c;
  c.dataset = "build/dataset";
  c.out = "/tmp/x";
  c.kinds = "c";
  c.refinementExamples = false;
  c.repairExamples = false;
  c.maxSeqLen = 1500;
  c.init = "data/models/sft";
  c.loraRank = 8;
  c.loraAlpha = 32;
  c.loraDropout = 0.05;
  c.loraTargets = "q_proj";
  c.gradientCheckpointing = true;
  c.steps = 7;
  c.maxSeconds = 300;
  c.lr = 2.5e-4;
  c.seed = 18446744073709551615ull; // the largest seed survives
  c.threads = 4;
  c.maxShardMb = 0.5;
  support::Json j = sftConfigToJson(c);
  EXPECT_EQ(j["schema"], "cudaperf-sft-config/1");
  EXPECT_EQ(j.size(), sftConfigKeys().size() + 1);
  SftConfig back = sftConfigFromJson(support::parseJson(support::writeJson(j), "test"), "test");
  EXPECT_EQ(support::writeJson(sftConfigToJson(back)), support::writeJson(j));
  EXPECT_EQ(back.seed, c.seed);
  EXPECT_EQ(back.loraTargets, "q_proj");
  EXPECT_FALSE(back.repairExamples);
  // Every key is in the document, with its default, and a partial document keeps the other defaults.
  for (const SftConfigKeyInfo &k : sftConfigKeys()) EXPECT_TRUE(j.contains(k.key)) << k.key;
  SftConfig partial = sftConfigFromJson(support::Json{{"steps", 3}}, "partial");
  EXPECT_EQ(partial.steps, 3);
  EXPECT_EQ(partial.vocab, 8192);
}

TEST(SftConfig, UnknownKeysAndBadValuesNameTheKey) {
  EXPECT_NE(errorOf([] { sftConfigFromJson(support::Json{{"learning_rate", 1}}, "cfg.json"); })
                .find("cfg.json: unknown key \"learning_rate\""),
            std::string::npos);
  EXPECT_NE(errorOf([] { sftConfigFromJson(support::Json{{"vocab", 10}}, "cfg.json"); }).find("cfg.json: vocab: expected a value in"),
            std::string::npos);
  EXPECT_NE(errorOf([] { sftConfigFromJson(support::Json{{"steps", "3"}}, "c"); }).find("steps: expected a whole number"),
            std::string::npos);
  EXPECT_NE(errorOf([] { sftConfigFromJson(support::Json{{"steps", 1.5}}, "c"); }).find("steps: expected a whole number"),
            std::string::npos);
  EXPECT_NE(errorOf([] { sftConfigFromJson(support::Json{{"seed", -1}}, "c"); }).find("seed: expected a whole number >= 0"),
            std::string::npos);
  EXPECT_NE(errorOf([] { sftConfigFromJson(support::Json{{"dry_run", "yes"}}, "c"); }).find("dry_run: expected true or false"),
            std::string::npos);
  EXPECT_NE(errorOf([] { sftConfigFromJson(support::Json{{"lr", nullptr}}, "c"); }).find("lr: expected a number"),
            std::string::npos);
  EXPECT_NE(errorOf([] { sftConfigFromJson(support::Json{{"schema", "cudaperf-rl-config/1"}}, "c"); }).find("schema"),
            std::string::npos);
  EXPECT_NE(errorOf([] { sftConfigFromJson(support::Json::array(), "c"); }).find("expected a JSON object"), std::string::npos);
}

TEST(SftConfig, Overrides) {
  SftConfig c;
  applySftConfigOverride(c, "steps=12");
  applySftConfigOverride(c, "out=123"); // a string key takes the text as written
  applySftConfigOverride(c, "repair_examples=false");
  applySftConfigOverride(c, "lora_targets=q_proj,v_proj");
  EXPECT_EQ(c.steps, 12);
  EXPECT_EQ(c.out, "123");
  EXPECT_FALSE(c.repairExamples);
  EXPECT_EQ(c.loraTargets, "q_proj,v_proj");
  EXPECT_NE(errorOf([&] { applySftConfigOverride(c, "bogus=1"); }).find("unknown key \"bogus\""), std::string::npos);
  EXPECT_NE(errorOf([&] { applySftConfigOverride(c, "steps"); }).find("expected KEY=VALUE"), std::string::npos);
  EXPECT_NE(errorOf([&] { applySftConfigOverride(c, "steps=many"); }).find("steps: expected a whole number"),
            std::string::npos);
}

TEST(SftConfig, LoadsAFile) {
  std::string path = testing::TempDir() + "sft-config-" + std::to_string(getpid()) + ".json";
  std::ofstream(path) << R"({"schema": "cudaperf-sft-config/1", "dataset": "d", "epochs": 12, "max_seconds": 240})";
  SftConfig c = loadSftConfig(path);
  EXPECT_EQ(c.dataset, "d");
  EXPECT_DOUBLE_EQ(c.epochs, 12);
  EXPECT_DOUBLE_EQ(c.maxSeconds, 240);
  std::ofstream(path) << "{\"epochs\": ";
  EXPECT_NE(errorOf([&] { loadSftConfig(path); }), "(no LearnError)");
  std::remove(path.c_str());
  EXPECT_NE(errorOf([&] { loadSftConfig(path); }), "(no LearnError)");
}
