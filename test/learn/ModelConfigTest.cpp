#include "cudaperf/Learn/ModelConfig.h"
#include "cudaperf/Learn/Schedule.h"
#include "cudaperf/Learn/SvgPlot.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>

using namespace cudaperf::learn;

namespace {

std::string errorOf(const std::string &text) {
  try {
    ModelConfig::fromJson(text, "c.json");
  } catch (const ModelConfigError &e) {
    return e.what();
  }
  return "";
}

// Qwen2.5-0.5B's published shape (transformers 4 form).
const char *kQwen25Half = R"({"architectures":["Qwen2ForCausalLM"],"model_type":"qwen2","vocab_size":151936,
 "hidden_size":896,"intermediate_size":4864,"num_hidden_layers":24,"num_attention_heads":14,"num_key_value_heads":2,
 "max_position_embeddings":32768,"rms_norm_eps":1e-06,"rope_theta":1000000.0,"rope_scaling":null,
 "tie_word_embeddings":true,"torch_dtype":"bfloat16","use_sliding_window":false,"sliding_window":32768,
 "max_window_layers":21,"bos_token_id":151643,"eos_token_id":151643,"hidden_act":"silu"})";

} // namespace

TEST(ModelConfig, ParsesQwen2AndCountsParameters) {
  ModelConfig c = ModelConfig::fromJson(kQwen25Half);
  EXPECT_EQ(c.headDim, 64);
  EXPECT_TRUE(c.qkvBias);
  EXPECT_FALSE(c.outputBias);
  EXPECT_FALSE(c.qkNorm);
  EXPECT_TRUE(c.tieWordEmbeddings);
  EXPECT_EQ(c.rope.theta, 1e6);
  EXPECT_EQ(c.rope.type, "default");
  EXPECT_EQ(c.dtype, "bfloat16");
  ASSERT_EQ(c.eosTokenIds.size(), 1u);
  // Qwen2.5-0.5B has 494,032,768 parameters (its model card: 0.49B).
  EXPECT_EQ(c.parameterCount(), 494032768);
  EXPECT_EQ(c.kvCacheBytesPerToken(2), 2 * 24 * 2 * 64 * 2);
}

TEST(ModelConfig, TransformersFiveRopeParametersAndQwen3) {
  ModelConfig c = ModelConfig::fromJson(R"({"model_type":"qwen3","vocab_size":100,"hidden_size":32,
    "intermediate_size":64,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,"head_dim":16,
    "rope_parameters":{"rope_type":"default","rope_theta":5000.0},"eos_token_id":[1,2],"dtype":"float32",
    "layer_types":["full_attention","full_attention"]})");
  EXPECT_EQ(c.headDim, 16); // explicit head_dim, not hidden / heads
  EXPECT_TRUE(c.qkNorm);
  EXPECT_FALSE(c.qkvBias);
  EXPECT_EQ(c.rope.theta, 5000.0);
  EXPECT_EQ(c.eosTokenIds, (std::vector<int64_t>{1, 2}));
  // Written and read back: the same shape.
  ModelConfig back = ModelConfig::fromJson(c.toJson());
  EXPECT_EQ(back.toJson(), c.toJson());
  auto written = nlohmann::json::parse(c.toJson());
  EXPECT_EQ(written["rope_parameters"]["rope_theta"], 5000.0);
  EXPECT_EQ(written["architectures"][0], "Qwen3ForCausalLM");
}

TEST(ModelConfig, Llama3RopeScaling) {
  ModelConfig c = ModelConfig::fromJson(R"({"model_type":"llama","vocab_size":100,"hidden_size":32,
    "intermediate_size":64,"num_hidden_layers":1,"num_attention_heads":4,"attention_bias":true,"mlp_bias":true,
    "rope_theta":500000.0,"rope_scaling":{"rope_type":"llama3","factor":8.0,"low_freq_factor":1.0,
    "high_freq_factor":4.0,"original_max_position_embeddings":8192}})");
  EXPECT_EQ(c.rope.type, "llama3");
  EXPECT_EQ(c.rope.factor, 8.0);
  EXPECT_EQ(c.rope.originalMaxPositions, 8192);
  EXPECT_TRUE(c.qkvBias);
  EXPECT_TRUE(c.outputBias);
  EXPECT_TRUE(c.mlpBias);
  EXPECT_EQ(c.numKvHeads, 4);
  ModelConfig back = ModelConfig::fromJson(c.toJson());
  EXPECT_EQ(back.rope.type, "llama3");
  EXPECT_EQ(back.rope.lowFreqFactor, 1.0);
}

TEST(ModelConfig, UnsupportedFieldsAreNamed) {
  std::string base = R"("vocab_size":10,"hidden_size":8,"intermediate_size":8,"num_hidden_layers":1,"num_attention_heads":2)";
  EXPECT_NE(errorOf("{\"model_type\":\"gpt2\"," + base + "}").find("model_type: 'gpt2'"), std::string::npos);
  EXPECT_NE(errorOf(R"({"model_type":"qwen2","rope_scaling":{"type":"yarn","factor":4},)" + base + "}")
                .find("'yarn' is not supported"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"model_type":"qwen2","use_sliding_window":true,)" + base + "}").find("use_sliding_window"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"model_type":"llama","hidden_act":"gelu",)" + base + "}").find("hidden_act"), std::string::npos);
  EXPECT_NE(errorOf(R"({"model_type":"llama","num_key_value_heads":3,)" + base + "}").find("does not divide"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"model_type":"llama","vocab_size":10})").find("hidden_size: missing"), std::string::npos);
  EXPECT_NE(errorOf(R"({"model_type":"llama","vocab_size":10,"hidden_size":"big"})")
                .find("expected an integer"),
            std::string::npos);
  EXPECT_NE(errorOf("[1,2]").find("JSON object"), std::string::npos);
  EXPECT_NE(errorOf("{").find("not JSON"), std::string::npos);
}

TEST(Schedule, WarmupThenCosineOrLinear) {
  ScheduleOptions o;
  o.warmupSteps = 10;
  o.totalSteps = 110;
  o.minRatio = 0.1;
  EXPECT_DOUBLE_EQ(learningRateAt(0, 1.0, o), 0.1);
  EXPECT_DOUBLE_EQ(learningRateAt(9, 1.0, o), 1.0);
  EXPECT_DOUBLE_EQ(learningRateAt(10, 1.0, o), 1.0);
  EXPECT_NEAR(learningRateAt(60, 1.0, o), 0.1 + 0.9 * 0.5, 1e-12); // halfway: cos(pi/2) = 0
  EXPECT_NEAR(learningRateAt(110, 1.0, o), 0.1, 1e-12);
  EXPECT_NEAR(learningRateAt(500, 1.0, o), 0.1, 1e-12);
  o.kind = "linear";
  EXPECT_NEAR(learningRateAt(35, 2.0, o), 2.0 * (0.1 + 0.9 * 0.75), 1e-12);
  o.kind = "constant";
  EXPECT_DOUBLE_EQ(learningRateAt(100, 3.0, o), 3.0);
  o.kind = "step";
  EXPECT_THROW(learningRateAt(0, 1.0, o), std::invalid_argument);
}

TEST(SvgPlot, DrawsEverySeriesAndSkipsNonFinite) {
  std::string svg = svgLinePlot({{"train", {{0, 3.0}, {1, 2.0}, {2, NAN}, {3, 1.0}}}, {"val <b>", {{0, 3.5}, {3, 1.5}}}},
                                {"loss", "step", "nats"});
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  size_t lines = 0;
  for (size_t at = svg.find("<polyline"); at != std::string::npos; at = svg.find("<polyline", at + 1)) ++lines;
  EXPECT_EQ(lines, 2u);
  EXPECT_NE(svg.find("val &lt;b&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
}

// Issue 35: `num_hidden_layers: 1000000000000` (and other sizes past any model of the family) is an
// error naming the field before a model is built; config.json as /dev/zero is an error at once.
TEST(ModelConfig, HugeSizesAndDevicesAreRefusedBeforeAllocating) {
  std::string text = kQwen25Half;
  std::string huge = text;
  huge.replace(huge.find("\"num_hidden_layers\":24"), 22, "\"num_hidden_layers\":1000000000000");
  EXPECT_NE(errorOf(huge).find("num_hidden_layers: 1000000000000 is larger than the limit of 1024"),
            std::string::npos)
      << errorOf(huge);
  std::string wide = text;
  wide.replace(wide.find("\"vocab_size\":151936"), 19, "\"vocab_size\":99999999999");
  EXPECT_NE(errorOf(wide).find("vocab_size"), std::string::npos) << errorOf(wide);
  EXPECT_EQ(errorOf(text), "");
  try {
    ModelConfig::fromFile("/dev/zero");
    ADD_FAILURE() << "/dev/zero must be refused";
  } catch (const ModelConfigError &e) {
    EXPECT_NE(std::string(e.what()).find("is not a regular file"), std::string::npos) << e.what();
  }
}
