#include "cudaperf/Learn/RankingModel.h"

#include "cudaperf/Learn/Safetensors.h"
#include "cudaperf/Learn/SourceComments.h"
#include "cudaperf/Learn/Transformer.h"
#include "cudaperf/Support/JsonReader.h"
#include "cudaperf/Support/Sha256.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>

namespace fs = std::filesystem;

namespace cudaperf::learn {

using support::Json;

const char *rankModelKindName(RankModelKind kind) {
  switch (kind) {
  case RankModelKind::Linear: return "linear";
  case RankModelKind::Mlp: return "mlp";
  case RankModelKind::Tokens: return "tokens";
  }
  return "?";
}

RankModelKind parseRankModelKind(const std::string &name) {
  if (name == "linear") return RankModelKind::Linear;
  if (name == "mlp") return RankModelKind::Mlp;
  if (name == "tokens") return RankModelKind::Tokens;
  throw LearnError("model kind '" + name + "': expected linear, mlp or tokens");
}

// The network. z = [standardized features, mask]; every kind has the linear part w·z (its
// contributions are exact attributions); mlp adds a two-layer perceptron of z; tokens feeds the
// perceptron the source encoding too: embeddings, two convolutions, mean and max pooling.
struct RankNet : torch::nn::Module {
  RankNet(const RankModelConfig &c) : kind(c.kind) {
    int64_t in = 2 * int64_t(c.inputs.size());
    linear = register_module("linear", torch::nn::Linear(in, 1));
    if (kind == RankModelKind::Linear)
      return;
    featureLayer = register_module("feature_layer", torch::nn::Linear(in, c.hidden));
    int64_t joined = c.hidden;
    if (kind == RankModelKind::Tokens) {
      embedding = register_module("embedding", torch::nn::Embedding(c.vocabSize, c.embedDim));
      int64_t pad = c.kernelWidth / 2;
      conv1 = register_module(
          "conv1", torch::nn::Conv1d(torch::nn::Conv1dOptions(c.embedDim, c.channels, c.kernelWidth).padding(pad)));
      conv2 = register_module("conv2", torch::nn::Conv1d(torch::nn::Conv1dOptions(c.channels, c.channels, c.kernelWidth)
                                                             .padding(2 * pad)
                                                             .dilation(2)));
      sourceLayer = register_module("source_layer", torch::nn::Linear(2 * c.channels, c.sourceDim));
      joined += c.sourceDim;
    }
    hiddenLayer = register_module("hidden_layer", torch::nn::Linear(joined, c.hidden));
    output = register_module("output", torch::nn::Linear(c.hidden, 1));
  }

  // [U, T] ids with lengths [U] -> [U, sourceDim]
  torch::Tensor encodeSources(const torch::Tensor &tokens, const torch::Tensor &lengths) {
    torch::Tensor x = embedding->forward(tokens).transpose(1, 2); // [U, E, T]
    x = torch::relu(conv1->forward(x));
    x = torch::relu(conv2->forward(x));                                   // [U, C, T]
    torch::Tensor positions = torch::arange(tokens.size(1), tokens.options()).unsqueeze(0);
    torch::Tensor valid = (positions < lengths.unsqueeze(1)).unsqueeze(1).to(x.scalar_type()); // [U, 1, T]
    torch::Tensor mean = (x * valid).sum(2) / valid.sum(2).clamp_min(1);
    torch::Tensor max = (x - (1 - valid) * 1e4).amax(2);
    return torch::tanh(sourceLayer->forward(torch::cat({mean, max}, 1)));
  }

  torch::Tensor forward(const torch::Tensor &z, const torch::Tensor &tokens, const torch::Tensor &lengths,
                        const torch::Tensor &sourceIndex) {
    torch::Tensor s = linear->forward(z).squeeze(1);
    if (kind == RankModelKind::Linear)
      return s;
    torch::Tensor h = torch::tanh(featureLayer->forward(z));
    if (kind == RankModelKind::Tokens)
      h = torch::cat({h, encodeSources(tokens, lengths).index_select(0, sourceIndex)}, 1);
    return s + output->forward(torch::tanh(hiddenLayer->forward(h))).squeeze(1);
  }

  RankModelKind kind;
  torch::nn::Linear linear{nullptr}, featureLayer{nullptr}, sourceLayer{nullptr}, hiddenLayer{nullptr},
      output{nullptr};
  torch::nn::Embedding embedding{nullptr};
  torch::nn::Conv1d conv1{nullptr}, conv2{nullptr};
};

class RankModelImpl {
public:
  RankModelConfig config;
  std::shared_ptr<const Tokenizer> tokenizer;
  std::shared_ptr<RankNet> net;
  torch::Device device = torch::kCPU;
  std::map<std::string, std::vector<int64_t>> tokenCache; // by source SHA-256
};

RankModel::RankModel(const RankModelConfig &config, std::shared_ptr<const Tokenizer> tokenizer)
    : impl_(std::make_unique<RankModelImpl>()) {
  if (config.inputs.empty())
    throw LearnError("ranking model: no input features");
  impl_->config = config;
  if (config.kind == RankModelKind::Tokens) {
    if (!tokenizer)
      throw LearnError("ranking model: the tokens kind needs a tokenizer");
    impl_->config.vocabSize = int(tokenizer->vocabSize());
    if (auto pad = tokenizer->tokenToId("<|pad|>"))
      impl_->config.padId = *pad;
  }
  impl_->tokenizer = std::move(tokenizer);
  torch::manual_seed(config.seed);
  impl_->net = std::make_shared<RankNet>(impl_->config);
}

RankModel::~RankModel() = default;
RankModel::RankModel(RankModel &&) noexcept = default;
RankModel &RankModel::operator=(RankModel &&) noexcept = default;

const RankModelConfig &RankModel::config() const { return impl_->config; }
RankModelConfig &RankModel::mutableConfig() { return impl_->config; }
const Tokenizer *RankModel::tokenizer() const { return impl_->tokenizer.get(); }
const torch::Device &RankModel::device() const { return impl_->device; }
torch::nn::Module &RankModel::module() { return *impl_->net; }

void RankModel::to(const torch::Device &device) {
  impl_->net->to(device);
  impl_->device = device;
}

int64_t RankModel::parameterCount() const {
  int64_t n = 0;
  for (const torch::Tensor &p : impl_->net->parameters())
    n += p.numel();
  return n;
}

static double transformed(const RankFeatureInput &input, double raw) {
  if (!std::isfinite(raw))
    return raw;
  return input.logScale ? std::copysign(std::log1p(std::abs(raw)), raw) : raw;
}

std::vector<RankFeatureInput> fitFeatureInputs(const std::vector<std::string> &names,
                                               const std::function<bool(const std::string &)> &logScale,
                                               const std::vector<RankExample> &training) {
  std::vector<RankFeatureInput> inputs;
  for (const std::string &name : names) {
    RankFeatureInput in;
    in.name = name;
    in.logScale = logScale(name);
    double sum = 0, sumSq = 0;
    size_t n = 0;
    for (const RankExample &e : training) {
      std::optional<double> raw = e.input(name);
      double v = raw ? transformed(in, *raw) : std::nan("");
      if (std::isfinite(v)) {
        sum += v;
        sumSq += v * v;
        ++n;
      }
    }
    if (n) {
      in.mean = sum / n;
      double var = std::max(0.0, sumSq / n - in.mean * in.mean);
      in.scale = var > 1e-12 ? std::sqrt(var) : 1.0;
    }
    inputs.push_back(in);
  }
  return inputs;
}

// What the tokens model reads of a source: the code without its comments.
static std::string readSource(const RankExample &e) {
  if (!e.sourceText.empty())
    return stripComments(e.sourceText);
  std::ifstream in(e.sourcePath, std::ios::binary);
  if (!in)
    throw LearnError(e.task + "/" + e.implementation + ": cannot read the source " + e.sourcePath +
                     " (the tokens model reads the implementation; regenerate the dataset with the same seed)");
  std::ostringstream s;
  s << in.rdbuf();
  return stripComments(s.str());
}

RankBatch RankModel::batch(const std::vector<RankExample> &examples) const {
  const RankModelConfig &c = impl_->config;
  int64_t n = int64_t(examples.size()), f = int64_t(c.inputs.size());
  std::vector<float> x(size_t(n * f)), m(size_t(n * f));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < f; ++j) {
      const RankFeatureInput &in = c.inputs[size_t(j)];
      std::optional<double> raw = examples[size_t(i)].input(in.name);
      if (!raw)
        throw LearnError(examples[size_t(i)].task + "/" + examples[size_t(i)].implementation + " at " +
                         examples[size_t(i)].configuration + ": feature '" + in.name +
                         "' is absent (the model was trained on it; the examples come from another features version?)");
      double v = transformed(in, *raw);
      if (std::isfinite(v)) {
        x[size_t(i * f + j)] = float((v - in.mean) / in.scale);
        m[size_t(i * f + j)] = 1;
      }
    }
  RankBatch b;
  b.features = torch::from_blob(x.data(), {n, f}, torch::kFloat32).clone();
  b.mask = torch::from_blob(m.data(), {n, f}, torch::kFloat32).clone();
  if (c.kind != RankModelKind::Tokens)
    return b;
  std::map<std::string, int64_t> sourceOf;
  std::vector<const std::vector<int64_t> *> sources;
  std::vector<int64_t> index(static_cast<size_t>(n), 0);
  for (int64_t i = 0; i < n; ++i) {
    const RankExample &e = examples[size_t(i)];
    std::string key = e.sourceSha256.empty() ? e.sourcePath : e.sourceSha256;
    auto [it, fresh] = sourceOf.emplace(key, int64_t(sources.size()));
    if (fresh) {
      auto cached = impl_->tokenCache.find(key);
      if (cached == impl_->tokenCache.end()) {
        std::vector<int32_t> ids = impl_->tokenizer->encode(readSource(e), false);
        std::vector<int64_t> kept;
        size_t limit = size_t(c.maxTokens);
        if (ids.size() <= limit) {
          kept.assign(ids.begin(), ids.end());
        } else { // head and tail: the kernels' signatures first, the launch code last
          kept.assign(ids.begin(), ids.begin() + long(limit / 2));
          kept.insert(kept.end(), ids.end() - long(limit - limit / 2), ids.end());
        }
        cached = impl_->tokenCache.emplace(key, std::move(kept)).first;
      }
      sources.push_back(&cached->second);
    }
    index[size_t(i)] = it->second;
  }
  int64_t u = int64_t(sources.size()), t = 1;
  for (const auto *s : sources)
    t = std::max<int64_t>(t, int64_t(s->size()));
  b.tokens = torch::full({u, t}, int64_t(c.padId), torch::kInt64);
  b.lengths = torch::zeros({u}, torch::kInt64);
  auto tokens = b.tokens.accessor<int64_t, 2>();
  for (int64_t k = 0; k < u; ++k) {
    for (size_t p = 0; p < sources[size_t(k)]->size(); ++p)
      tokens[k][int64_t(p)] = (*sources[size_t(k)])[p];
    b.lengths[k] = int64_t(sources[size_t(k)]->size());
  }
  b.sourceIndex = torch::from_blob(index.data(), {n}, torch::kInt64).clone();
  return b;
}

torch::Tensor RankModel::forward(const RankBatch &b) {
  const torch::Device &d = impl_->device;
  // Each part to the model's device first: attributions() hands features already there (with their
  // gradient) while the mask is still on the CPU, and cat() does not mix devices.
  torch::Tensor z = torch::cat({b.features.to(d), b.mask.to(d)}, 1);
  torch::Tensor tokens, lengths, index;
  if (b.tokens.defined()) {
    tokens = b.tokens.to(d);
    lengths = b.lengths.to(d);
    index = b.sourceIndex.to(d);
  }
  return impl_->net->forward(z, tokens, lengths, index);
}

std::vector<double> RankModel::scores(const std::vector<RankExample> &examples) {
  if (examples.empty())
    return {};
  torch::NoGradGuard noGrad;
  impl_->net->eval();
  torch::Tensor s = forward(batch(examples)).to(torch::kCPU, torch::kFloat64).contiguous();
  return std::vector<double>(s.data_ptr<double>(), s.data_ptr<double>() + s.numel());
}

std::vector<std::vector<RankModel::Attribution>> RankModel::attributions(const std::vector<RankExample> &examples,
                                                                         size_t top) {
  std::vector<std::vector<Attribution>> out;
  if (examples.empty())
    return out;
  impl_->net->eval();
  RankBatch b = batch(examples);
  torch::Tensor x = b.features.to(impl_->device).requires_grad_(true);
  RankBatch withGrad = b;
  withGrad.features = x;
  torch::Tensor s = forward(withGrad).sum();
  torch::Tensor g = torch::autograd::grad({s}, {x})[0];
  torch::Tensor contribution = (g * x).detach().to(torch::kCPU, torch::kFloat64).contiguous();
  auto c = contribution.accessor<double, 2>();
  for (int64_t i = 0; i < contribution.size(0); ++i) {
    std::vector<Attribution> row;
    for (int64_t j = 0; j < contribution.size(1); ++j) {
      const RankFeatureInput &in = impl_->config.inputs[size_t(j)];
      row.push_back({in.name, examples[size_t(i)].input(in.name).value_or(std::nan("")), c[i][j]});
    }
    std::stable_sort(row.begin(), row.end(),
                     [](const Attribution &a, const Attribution &b) { return std::abs(a.contribution) > std::abs(b.contribution); });
    if (row.size() > top)
      row.resize(top);
    out.push_back(std::move(row));
  }
  return out;
}

// --- checkpoints -------------------------------------------------------------------------------

static Json configJson(const RankModelConfig &c) {
  Json inputs = Json::array();
  for (const RankFeatureInput &in : c.inputs)
    inputs.push_back({{"name", in.name}, {"log", in.logScale}, {"mean", in.mean}, {"scale", in.scale}});
  Json j = {{"schema", kRankModelSchema}, {"version", kRankModelVersion}, {"kind", rankModelKindName(c.kind)},
            {"hidden", c.hidden},         {"seed", c.seed},                {"inputs", inputs}};
  if (c.kind == RankModelKind::Tokens)
    j["source_encoder"] = {{"tokenizer", "tokenizer.json"}, {"vocab_size", c.vocabSize}, {"embed_dim", c.embedDim},
                           {"channels", c.channels},        {"kernel_width", c.kernelWidth},
                           {"source_dim", c.sourceDim},     {"max_tokens", c.maxTokens},
                           {"pad_id", c.padId}};
  j["training"] = c.training;
  return j;
}

void RankModel::save(const std::string &dir) const {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw LearnError(dir + ": cannot create the checkpoint folder: " + ec.message());
  std::vector<CpuTensorBytes> keep;
  std::vector<TensorToWrite> tensors;
  for (const auto &item : impl_->net->named_parameters()) {
    keep.push_back(toCpuBytes(item.value(), torch::kFloat32));
    const torch::Tensor &t = keep.back().tensor;
    tensors.push_back({item.key(), TensorDtype::F32, t.sizes().vec(), t.data_ptr(), size_t(t.nbytes())});
  }
  writeSafetensors((fs::path(dir) / "model.safetensors").string(), tensors,
                   {{"format", "pt"}, {"schema", kRankModelSchema}});
  std::ofstream out(fs::path(dir) / "config.json");
  out << support::writeJson(configJson(impl_->config), 2) << "\n";
  if (!out)
    throw LearnError(dir + "/config.json: cannot write");
  if (impl_->tokenizer)
    impl_->tokenizer->save((fs::path(dir) / "tokenizer.json").string());
}

RankModel RankModel::load(const std::string &dir, const torch::Device &device) {
  std::string path = (fs::path(dir) / "config.json").string();
  if (!fs::exists(path))
    throw LearnError(dir + ": not a ranking checkpoint (no config.json; make one with `cudaperf-rank train`)");
  RankModelConfig c;
  std::shared_ptr<const Tokenizer> tokenizer;
  try {
    Json doc = support::readJsonFile(path);
    support::JsonField root(doc, path);
    std::string schema = root.require("schema").string();
    if (schema != kRankModelSchema)
      root.require("schema").fail("\"" + schema + "\" is not a ranking model (" + kRankModelSchema + ")");
    int64_t version = root.require("version").integer();
    if (version != kRankModelVersion)
      root.require("version").fail("checkpoint version " + std::to_string(version) +
                                   (version == 1 ? " (its tokens model read the sources with their comments)" : "") +
                                   "; this cudaperf-rank reads version " + std::to_string(kRankModelVersion) +
                                   " (retrain with `cudaperf-rank train`)");
    c.kind = parseRankModelKind(root.require("kind").string());
    c.hidden = int(root.require("hidden").integer(1, 1 << 16));
    c.seed = uint64_t(root.require("seed").integer(0));
    for (const support::JsonField &in : root.require("inputs").elements()) {
      c.inputs.push_back({in.require("name").string(), in.require("log").boolean(), in.require("mean").number(),
                          in.require("scale").number()});
      // Inputs are divided by the scale: zero, negative or non-finite would make every score NaN/inf.
      if (!std::isfinite(c.inputs.back().mean))
        in.require("mean").fail("not a finite number (a corrupt checkpoint)");
      if (!std::isfinite(c.inputs.back().scale) || !(c.inputs.back().scale > 0))
        in.require("scale").fail("expected a finite number > 0 (a corrupt checkpoint)");
    }
    if (c.kind == RankModelKind::Tokens) {
      support::JsonField s = root.require("source_encoder");
      c.vocabSize = int(s.require("vocab_size").integer(1, 1 << 24));
      c.embedDim = int(s.require("embed_dim").integer(1, 4096));
      c.channels = int(s.require("channels").integer(1, 4096));
      c.kernelWidth = int(s.require("kernel_width").integer(1, 63));
      c.sourceDim = int(s.require("source_dim").integer(1, 4096));
      c.maxTokens = int(s.require("max_tokens").integer(2, 1 << 20));
      c.padId = int(s.require("pad_id").integer(0));
      tokenizer = std::make_shared<const Tokenizer>(
          Tokenizer::fromFile((fs::path(dir) / s.require("tokenizer").string()).string()));
    }
    if (auto t = root.get("training"))
      c.training = t->json();
  } catch (const support::SupportError &e) {
    throw LearnError(e.what());
  }
  RankModel model(c, tokenizer);
  model.impl_->config.vocabSize = c.vocabSize; // as trained, whatever the tokenizer file says now
  SafetensorsFile file = SafetensorsFile::open((fs::path(dir) / "model.safetensors").string());
  torch::NoGradGuard noGrad;
  size_t used = 0;
  for (auto &item : model.impl_->net->named_parameters()) {
    const TensorView *view = file.find(item.key());
    if (!view)
      throw LearnError(dir + "/model.safetensors: tensor " + item.key() + " is missing");
    if (view->shape != item.value().sizes().vec() || view->dtype != TensorDtype::F32)
      throw LearnError(dir + "/model.safetensors: tensor " + item.key() + " is " + dtypeName(view->dtype) + " " +
                       shapeText(view->shape) + ", the config asks for F32 " + shapeText(item.value().sizes().vec()));
    item.value().copy_(tensorFromView(*view));
    if (!torch::isfinite(item.value()).all().item<bool>())
      throw LearnError(dir + "/model.safetensors: tensor " + item.key() +
                       " holds NaN or infinite values (a corrupt checkpoint)");
    ++used;
  }
  if (used != file.tensors().size())
    throw LearnError(dir + "/model.safetensors: " + std::to_string(file.tensors().size() - used) +
                     " tensors the config does not describe");
  model.to(device);
  return model;
}

// --- training ----------------------------------------------------------------------------------

torch::Tensor rankNetLoss(const torch::Tensor &scores, const std::vector<RankPair> &pairs, double maxWeight) {
  if (pairs.empty())
    return torch::zeros({}, scores.options());
  std::vector<int64_t> faster, slower;
  std::vector<float> weight;
  for (const RankPair &p : pairs) {
    faster.push_back(int64_t(p.faster));
    slower.push_back(int64_t(p.slower));
    weight.push_back(float(std::min(p.logRatio, maxWeight)));
  }
  auto opts = torch::TensorOptions().dtype(torch::kInt64);
  torch::Tensor f = torch::tensor(faster, opts).to(scores.device());
  torch::Tensor s = torch::tensor(slower, opts).to(scores.device());
  torch::Tensor w = torch::tensor(weight).to(scores.device());
  torch::Tensor margin = scores.index_select(0, f) - scores.index_select(0, s);
  return (torch::nn::functional::softplus(-margin) * w).sum() / w.sum();
}

namespace {

// The examples the groups use, renumbered, with the pairs in the new numbering.
struct PairSet {
  std::vector<RankExample> examples;
  std::vector<RankGroup> groups;
  std::vector<RankPair> pairs;
};

PairSet pairSet(const std::vector<RankExample> &all, const std::vector<RankGroup> &groups, const TieRule &tie) {
  PairSet out;
  std::map<size_t, size_t> renumber;
  for (const RankGroup &g : groups) {
    RankGroup local{g.key, {}};
    for (size_t i : g.members) {
      auto [it, fresh] = renumber.emplace(i, out.examples.size());
      if (fresh)
        out.examples.push_back(all[i]);
      local.members.push_back(it->second);
    }
    std::vector<RankPair> p = labelledPairs(out.examples, local, tie);
    out.pairs.insert(out.pairs.end(), p.begin(), p.end());
    out.groups.push_back(std::move(local));
  }
  return out;
}

} // namespace

std::vector<RankCurvePoint> trainRankModel(RankModel &model, const std::vector<RankExample> &examples,
                                           const std::vector<RankGroup> &trainGroups,
                                           const std::vector<RankGroup> &validationGroups,
                                           const RankTrainOptions &o) {
  PairSet train = pairSet(examples, trainGroups, o.tie), validation = pairSet(examples, validationGroups, o.tie);
  if (train.pairs.empty())
    throw TrainerError("ranking training: no labelled pairs (every pair of the " + std::to_string(trainGroups.size()) +
                       " training groups is within timing noise, or there are none)");
  RankBatch trainBatch = model.batch(train.examples);
  std::optional<RankBatch> validationBatch;
  if (!validation.examples.empty())
    validationBatch = model.batch(validation.examples);
  torch::manual_seed(model.config().seed);
  torch::optim::Adam optimizer(model.module().parameters(),
                               torch::optim::AdamOptions(o.learningRate).weight_decay(o.weightDecay));
  std::vector<RankCurvePoint> curve;
  // The parameters at the lowest validation loss (early stopping on the val split).
  std::vector<torch::Tensor> best;
  double bestLoss = std::numeric_limits<double>::infinity();
  int bestEpoch = 0;
  for (int epoch = 1; epoch <= o.epochs; ++epoch) {
    model.module().train();
    optimizer.zero_grad();
    torch::Tensor loss = rankNetLoss(model.forward(trainBatch), train.pairs, o.maxLogRatioWeight);
    loss.backward();
    optimizer.step();
    RankCurvePoint point;
    point.epoch = epoch;
    point.trainLoss = loss.item<double>();
    if (validationBatch && (epoch % std::max(1, o.validateEvery) == 0 || epoch == o.epochs || epoch == 1)) {
      torch::NoGradGuard noGrad;
      model.module().eval();
      torch::Tensor s = model.forward(*validationBatch);
      point.validationLoss = rankNetLoss(s, validation.pairs, o.maxLogRatioWeight).item<double>();
      torch::Tensor cpu = s.to(torch::kCPU, torch::kFloat64).contiguous();
      std::vector<double> scores(cpu.data_ptr<double>(), cpu.data_ptr<double>() + cpu.numel());
      point.validationAccuracy = evaluateScores(validation.examples, validation.groups, scores, o.tie).pairAccuracy();
      if (o.keepBestValidation && point.validationLoss < bestLoss) {
        bestLoss = point.validationLoss;
        bestEpoch = epoch;
        best.clear();
        for (const torch::Tensor &p : model.module().parameters())
          best.push_back(p.detach().clone());
      }
    }
    curve.push_back(point);
    if (o.progress && o.logEvery > 0 && (epoch % o.logEvery == 0 || epoch == o.epochs)) {
      std::ostringstream line;
      line << "epoch " << epoch << "/" << o.epochs << "  train loss " << point.trainLoss;
      if (std::isfinite(point.validationLoss))
        line << "  validation loss " << point.validationLoss << "  validation pair accuracy "
             << point.validationAccuracy;
      o.progress(line.str());
    }
  }
  if (!best.empty()) {
    torch::NoGradGuard noGrad;
    std::vector<torch::Tensor> params = model.module().parameters();
    for (size_t i = 0; i < params.size(); ++i)
      params[i].copy_(best[i]);
    if (o.progress)
      o.progress("kept the parameters of epoch " + std::to_string(bestEpoch) + " (lowest validation loss " +
                 std::to_string(bestLoss) + ")");
  }
  if (!curve.empty())
    curve.back().selectedEpoch = best.empty() ? o.epochs : bestEpoch;
  return curve;
}

} // namespace cudaperf::learn
