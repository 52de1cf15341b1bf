// The offline pairwise ranking model (docs/ranking.md): a score for a candidate × configuration
// from its feature vector (lib/Features; missing values as a mask) and, for the `tokens` kind, its
// source as BPE tokens through a small convolutional encoder. Higher = predicted faster. Trained
// with the RankNet loss on pairs of implementations of the same task and configuration, each
// pair weighted by its measured log time ratio; pairs within timing noise are not labels.
// Checkpoints: DIR/config.json (schema cudaperf-rank-model/1, `version`), DIR/model.safetensors,
// DIR/tokenizer.json for the tokens kind.
#pragma once

#include "cudaperf/Learn/RankingData.h"
#include "cudaperf/Learn/Tokenizer.h"
#include "cudaperf/Learn/TorchCompat.h"
#include "cudaperf/Support/Json.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::learn {

constexpr const char *kRankModelSchema = "cudaperf-rank-model/1";
// 2: the tokens model reads sources without their comments (stripComments, SourceComments.h); a
// version-1 checkpoint read them with the comments, which name the dataset's strategies.
constexpr int kRankModelVersion = 2;

enum class RankModelKind { Linear, Mlp, Tokens };
const char *rankModelKindName(RankModelKind kind);            // "linear", "mlp", "tokens"
RankModelKind parseRankModelKind(const std::string &name);     // throws LearnError

// One input feature: its transform (signed log1p for magnitudes) and the training set's
// standardization of the transformed value.
struct RankFeatureInput {
  std::string name;
  bool logScale = false;
  double mean = 0, scale = 1;
};

struct RankModelConfig {
  RankModelKind kind = RankModelKind::Mlp;
  std::vector<RankFeatureInput> inputs;
  int hidden = 32;
  // tokens kind: the source encoder
  int vocabSize = 0, embedDim = 32, channels = 32, kernelWidth = 5, sourceDim = 16;
  int maxTokens = 512; // head and tail of longer sources (the launch code is at the end)
  int padId = 0;
  uint64_t seed = 1;
  support::Json training = support::Json::object(); // what produced it (written back as is)
};

// The numeric inputs of a set of examples: standardized features (0 where missing), their mask,
// and for the tokens kind the token ids of each distinct source with the source index per example.
struct RankBatch {
  torch::Tensor features, mask;   // [N, F] float
  torch::Tensor tokens, lengths;  // [U, T] int64, [U] int64 (undefined without tokens)
  torch::Tensor sourceIndex;      // [N] int64
};

class RankModelImpl;

class RankModel {
public:
  // A fresh model (seeded from config.seed). tokenizer is required for the tokens kind.
  RankModel(const RankModelConfig &config, std::shared_ptr<const Tokenizer> tokenizer = nullptr);
  ~RankModel();
  RankModel(RankModel &&) noexcept;
  RankModel &operator=(RankModel &&) noexcept;

  static RankModel load(const std::string &dir, const torch::Device &device = torch::kCPU); // throws LearnError
  void save(const std::string &dir) const;

  const RankModelConfig &config() const;
  RankModelConfig &mutableConfig();
  const Tokenizer *tokenizer() const;
  void to(const torch::Device &device);
  const torch::Device &device() const;
  int64_t parameterCount() const;

  // Throws LearnError when an example lacks a feature the model was trained on (absent from its
  // `features`; a null value is a missing value, which is fine) or a source cannot be read.
  RankBatch batch(const std::vector<RankExample> &examples) const;
  torch::Tensor forward(const RankBatch &batch); // [N] scores, on the model's device
  std::vector<double> scores(const std::vector<RankExample> &examples);

  // Gradient × input of each standardized feature (and its mask) per example: what weighed most.
  struct Attribution {
    std::string feature;
    double value = 0;        // the raw feature value (NaN when missing)
    double contribution = 0; // gradient × input of the standardized value
  };
  std::vector<std::vector<Attribution>> attributions(const std::vector<RankExample> &examples, size_t top);

  torch::nn::Module &module();

private:
  std::unique_ptr<RankModelImpl> impl_;
};

// Feature inputs fitted on the training examples: every name in `names`, log-scaled where
// `logScale(name)`; mean and scale of the transformed values present.
std::vector<RankFeatureInput> fitFeatureInputs(const std::vector<std::string> &names,
                                               const std::function<bool(const std::string &)> &logScale,
                                               const std::vector<RankExample> &training);

struct RankTrainOptions {
  int epochs = 300;
  double learningRate = 0.01, weightDecay = 1e-4;
  TieRule tie;
  double maxLogRatioWeight = 2.302585092994046; // pair weight = min(ln ratio, ln 10)
  int logEvery = 0;                             // progress lines every N epochs (0: none)
  int validateEvery = 1;                        // validation loss and accuracy every N epochs (and the last)
  bool keepBestValidation = true;               // end with the parameters of the lowest validation loss
  std::function<void(const std::string &)> progress;
};

struct RankCurvePoint {
  int epoch = 0;
  double trainLoss = 0;
  double validationLoss = std::nan(""), validationAccuracy = std::nan("");
  int selectedEpoch = 0; // on the last point: the epoch whose parameters the model ends with
};

// The weighted RankNet loss over labelled pairs: Σ w · softplus(s_slower − s_faster) / Σ w.
torch::Tensor rankNetLoss(const torch::Tensor &scores, const std::vector<RankPair> &pairs, double maxWeight);

// Full-batch Adam over every labelled pair of `trainGroups`; the validation groups (may be empty)
// are measured and, with keepBestValidation, pick the epoch whose parameters are kept (early
// stopping). Returns the curve (one point per epoch).
std::vector<RankCurvePoint> trainRankModel(RankModel &model, const std::vector<RankExample> &examples,
                                           const std::vector<RankGroup> &trainGroups,
                                           const std::vector<RankGroup> &validationGroups,
                                           const RankTrainOptions &options);

} // namespace cudaperf::learn
