// The ranking model on a synthetic dataset whose order is known (time = exp(2a − b), so a is bad
// and b good): training reaches the order on groups it never saw, the loss falls, save/load is exact
// (tokens kind too), and bad input gets a clear error.
#include "cudaperf/Learn/RankingModel.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

using namespace cudaperf::learn;
namespace fs = std::filesystem;

namespace {

struct Synthetic {
  std::vector<RankExample> examples;
  std::vector<RankGroup> train, test;
};

fs::path scratch(const std::string &name) {
  fs::path dir = fs::temp_directory_path() / ("rank-model-test-" + std::to_string(::getpid())) / name;
  fs::create_directories(dir);
  return dir;
}

// 24 tasks of 4 implementations; features a (uniform) and b (uniform ×100, log-scaled), one more
// feature missing at random. Each source's code says what its features are, for the tokens kind
// (in code, not in a comment: the tokens model reads no comments).
Synthetic synthetic(const fs::path &sourceDir) {
  Synthetic s;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  for (int t = 0; t < 24; ++t)
    for (int i = 0; i < 4; ++i) {
      RankExample e;
      e.set = "dataset";
      e.task = "task_" + std::to_string(t);
      e.family = "family";
      e.split = t < 16 ? "train" : "test";
      e.configuration = "large";
      e.implementation = "impl" + std::to_string(i) + ".cu";
      e.outcome = "ok";
      e.correct = true;
      double a = u(rng), b = 100 * u(rng);
      e.features["a"] = a;
      e.features["b"] = b;
      e.features["sometimes"] = u(rng) < 0.5 ? std::nan("") : u(rng);
      e.medianMs = std::exp(2 * a - std::log1p(b));
      e.spread = 0.01;
      fs::path src = sourceDir / (e.task + "_" + e.implementation);
      std::ofstream(src) << "__global__ void k() { int a = " << int(a * 10) << ", b = " << int(b / 10) << "; }\n";
      e.sourcePath = src.string();
      e.sourceSha256 = e.task + e.implementation;
      s.examples.push_back(e);
    }
  s.train = rankGroups(s.examples, [](const RankExample &e) { return e.split == "train"; });
  s.test = rankGroups(s.examples, [](const RankExample &e) { return e.split == "test"; });
  return s;
}

std::vector<RankExample> trainingExamples(const Synthetic &s) {
  std::vector<RankExample> out;
  for (const RankGroup &g : s.train)
    for (size_t i : g.members) out.push_back(s.examples[i]);
  return out;
}

RankModelConfig configFor(RankModelKind kind, const Synthetic &s) {
  RankModelConfig c;
  c.kind = kind;
  c.hidden = 8;
  c.seed = 3;
  c.inputs = fitFeatureInputs({"a", "b", "sometimes"}, [](const std::string &n) { return n == "b"; }, trainingExamples(s));
  return c;
}

std::shared_ptr<const Tokenizer> tinyTokenizer(const Synthetic &s) {
  std::vector<std::string> texts;
  for (const RankExample &e : s.examples) {
    std::ifstream in(e.sourcePath);
    texts.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  BpeTrainingOptions o;
  o.vocabSize = 320;
  return std::make_shared<const Tokenizer>(trainByteLevelBpe(texts, o));
}

} // namespace

TEST(RankingModel, LearnsAKnownOrderOnUnseenGroupsAndTheLossFalls) {
  torch::set_num_threads(1);
  Synthetic s = synthetic(scratch("order"));
  for (RankModelKind kind : {RankModelKind::Linear, RankModelKind::Mlp}) {
    RankModel model(configFor(kind, s));
    RankMetrics before = evaluateScores(s.examples, s.test, model.scores(s.examples));
    RankTrainOptions o;
    o.epochs = 200;
    o.learningRate = 0.05;
    std::vector<RankCurvePoint> curve = trainRankModel(model, s.examples, s.train, s.test, o);
    ASSERT_EQ(curve.size(), 200u);
    EXPECT_LT(curve.back().trainLoss, 0.5 * curve.front().trainLoss) << rankModelKindName(kind);
    EXPECT_LT(curve.back().validationLoss, curve.front().validationLoss) << rankModelKindName(kind);
    RankMetrics after = evaluateScores(s.examples, s.test, model.scores(s.examples));
    EXPECT_GE(after.pairAccuracy(), 0.95) << rankModelKindName(kind);
    EXPECT_GT(after.pairAccuracy(), before.pairAccuracy()) << rankModelKindName(kind);
    EXPECT_GT(after.kendallTau(), 0.85) << rankModelKindName(kind);
    // What weighed most: the two features the time depends on, never the noise feature.
    auto top = model.attributions({s.examples[0]}, 2)[0];
    ASSERT_EQ(top.size(), 2u);
    for (const auto &a : top) EXPECT_NE(a.feature, "sometimes");
  }
}

TEST(RankingModel, SaveLoadRoundTripIsExact) {
  torch::set_num_threads(1);
  Synthetic s = synthetic(scratch("roundtrip-src"));
  std::shared_ptr<const Tokenizer> tokenizer = tinyTokenizer(s);
  for (RankModelKind kind : {RankModelKind::Linear, RankModelKind::Mlp, RankModelKind::Tokens}) {
    RankModel model(configFor(kind, s), tokenizer);
    RankTrainOptions o;
    o.epochs = 5;
    trainRankModel(model, s.examples, s.train, {}, o);
    fs::path dir = scratch(std::string("roundtrip-") + rankModelKindName(kind));
    model.save(dir.string());
    RankModel loaded = RankModel::load(dir.string());
    EXPECT_EQ(loaded.config().kind, kind);
    EXPECT_EQ(loaded.parameterCount(), model.parameterCount());
    std::vector<double> a = model.scores(s.examples), b = loaded.scores(s.examples);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]) << rankModelKindName(kind) << " example " << i;
  }
}

TEST(RankingModel, TheTokensModelReadsNoComments) {
  torch::set_num_threads(1);
  Synthetic s = synthetic(scratch("comments-src"));
  RankModel model(configFor(RankModelKind::Tokens, s), tinyTokenizer(s));
  RankExample plain = s.examples[0], fast = plain, slow = plain, other = plain;
  plain.sourceText = "__global__ void k() { int a = 3, b = 5; }\n";
  fast.sourceText = "// tiled, vectorized: fast\n__global__ void k() { int a = 3, b = 5; } // the best one\n";
  slow.sourceText = "/* deliberately slow */ __global__ void k() { int a = 3, /* uncoalesced */ b = 5; }\n";
  other.sourceText = "__global__ void k() { int a = 9, b = 1; }\n";
  int i = 0;
  for (RankExample *e : {&plain, &fast, &slow, &other})
    e->sourceSha256 = "text" + std::to_string(i++); // distinct sources, not one cached encoding
  std::vector<double> v = model.scores({plain, fast, slow, other});
  EXPECT_EQ(v[0], v[1]);
  EXPECT_EQ(v[0], v[2]);
  EXPECT_NE(v[0], v[3]); // the code is read
}

// The reward's static score is an input by name (kStaticScoreInput): when the time depends only on
// it, a model with that input learns the order and one without it cannot; a missing static score is
// a masked value, not an error.
TEST(RankingModel, TheStaticScoreIsAnInputByName) {
  torch::set_num_threads(1);
  Synthetic s = synthetic(scratch("static-src"));
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0, 1);
  for (RankExample &e : s.examples) {
    e.staticScore = u(rng);
    e.medianMs = std::exp(-3 * e.staticScore); // a and b no longer tell anything
  }
  s.train = rankGroups(s.examples, [](const RankExample &e) { return e.split == "train"; });
  s.test = rankGroups(s.examples, [](const RankExample &e) { return e.split == "test"; });
  auto accuracy = [&](std::vector<std::string> names) {
    RankModelConfig c = configFor(RankModelKind::Linear, s);
    c.inputs = fitFeatureInputs(names, [](const std::string &n) { return n == "b"; }, trainingExamples(s));
    RankModel model(c);
    RankTrainOptions o;
    o.epochs = 200;
    o.learningRate = 0.05;
    trainRankModel(model, s.examples, s.train, {}, o);
    return evaluateScores(s.examples, s.test, model.scores(s.examples)).pairAccuracy();
  };
  EXPECT_GE(accuracy({"a", "b", kStaticScoreInput}), 0.95);
  EXPECT_LT(accuracy({"a", "b"}), 0.75);
  RankExample missing = s.examples[0];
  missing.staticScore = std::nan("");
  ASSERT_TRUE(missing.input(kStaticScoreInput).has_value());
  EXPECT_TRUE(std::isnan(*missing.input(kStaticScoreInput)));
  EXPECT_FALSE(missing.input("no_such_feature").has_value());
  RankModelConfig c = configFor(RankModelKind::Mlp, s);
  c.inputs = fitFeatureInputs({"a", kStaticScoreInput}, [](const std::string &) { return false; }, trainingExamples(s));
  RankModel model(c);
  EXPECT_TRUE(std::isfinite(model.scores({missing})[0]));
}

TEST(RankingModel, BadInputGetsAClearError) {
  Synthetic s = synthetic(scratch("bad-src"));
  RankModel model(configFor(RankModelKind::Linear, s));
  // An example without a feature the model was trained on.
  RankExample lacking = s.examples[0];
  lacking.features.erase("b");
  try {
    model.scores({lacking});
    FAIL() << "an example without feature b was scored";
  } catch (const LearnError &e) {
    EXPECT_NE(std::string(e.what()).find("feature 'b' is absent"), std::string::npos) << e.what();
  }
  // A checkpoint of another version.
  fs::path dir = scratch("version");
  model.save(dir.string());
  std::ifstream in(dir / "config.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  std::string key = "\"version\": " + std::to_string(kRankModelVersion);
  ASSERT_NE(text.find(key), std::string::npos);
  // Another version is refused; version 1 (whose tokens model read the comments) says so.
  for (auto [version, message] : {std::pair<int, std::string>{99, "checkpoint version 99"},
                                  {1, "read the sources with their comments"}}) {
    std::string edited = text;
    edited.replace(edited.find(key), key.size(), "\"version\": " + std::to_string(version));
    std::ofstream(dir / "config.json") << edited;
    try {
      RankModel::load(dir.string());
      FAIL() << "a version-" << version << " checkpoint was loaded";
    } catch (const LearnError &e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(RankModel::load(scratch("empty").string()), LearnError);
  // No labelled pairs: every pair within noise.
  std::vector<RankExample> flat = s.examples;
  for (RankExample &e : flat) e.medianMs = 1.0;
  RankModel fresh(configFor(RankModelKind::Linear, s));
  EXPECT_THROW(trainRankModel(fresh, flat, rankGroups(flat, [](const RankExample &) { return true; }), {}, {}), LearnError);
  // The tokens kind without a tokenizer.
  EXPECT_THROW(RankModel(configFor(RankModelKind::Tokens, s)), LearnError);
  fs::remove_all(fs::temp_directory_path() / ("rank-model-test-" + std::to_string(::getpid())));
}
