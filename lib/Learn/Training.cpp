// Chunked log-probabilities, gradient checkpointing, training batches and the Trainer
// (docs/training.md). Both autograd Functions take only defined tensors as arguments: LibTorch 1.13
// aborts on an undefined one, so optional inputs travel in saved_data.
#include "cudaperf/Learn/Training.h"

#include "cudaperf/Learn/Safetensors.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

namespace cudaperf::learn {

namespace fs = std::filesystem;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// ---------------------------------------------------------------------------------------------
// Token log-probabilities over the vocabulary, chunk by chunk. Backward recomputes each chunk's
// logits: d logp / d logits = onehot(target) - softmax, times the incoming gradient.

int64_t defaultChunkRows(int64_t vocabSize) {
  const int64_t budgetElements = int64_t(16) << 20; // 16M fp32 logits = 64 MB
  return std::max<int64_t>(1, budgetElements / std::max<int64_t>(1, vocabSize));
}

namespace {

torch::Tensor chunkLogits(const torch::Tensor &hidden, const torch::Tensor &weight, double temperature) {
  torch::Tensor logits = torch::matmul(hidden, weight.t()).to(torch::kFloat32);
  return temperature == 1.0 ? logits : logits / temperature;
}

struct ChunkedLogProbs : torch::autograd::Function<ChunkedLogProbs> {
  static torch::Tensor forward(AutogradContext *ctx, torch::Tensor hidden, torch::Tensor weight, torch::Tensor targets,
                               int64_t chunk, double temperature) {
    int64_t n = hidden.size(0);
    torch::Tensor out = torch::empty({n}, hidden.options().dtype(torch::kFloat32));
    for (int64_t start = 0; start < n; start += chunk) {
      int64_t rows = std::min(chunk, n - start);
      torch::Tensor logits = chunkLogits(hidden.narrow(0, start, rows), weight, temperature);
      torch::Tensor picked = logits.gather(1, targets.narrow(0, start, rows).unsqueeze(1)).squeeze(1);
      out.narrow(0, start, rows).copy_(picked - torch::logsumexp(logits, -1));
    }
    ctx->save_for_backward({hidden, weight, targets});
    ctx->saved_data["chunk"] = chunk;
    ctx->saved_data["temperature"] = temperature;
    ctx->saved_data["hidden_grad"] = hidden.requires_grad();
    ctx->saved_data["weight_grad"] = weight.requires_grad();
    return out;
  }

  static variable_list backward(AutogradContext *ctx, variable_list gradOutputs) {
    auto saved = ctx->get_saved_variables();
    torch::Tensor hidden = saved[0], weight = saved[1], targets = saved[2];
    int64_t chunk = ctx->saved_data["chunk"].toInt();
    double temperature = ctx->saved_data["temperature"].toDouble();
    bool wantHidden = ctx->saved_data["hidden_grad"].toBool(), wantWeight = ctx->saved_data["weight_grad"].toBool();
    torch::Tensor g = gradOutputs[0].to(torch::kFloat32);
    int64_t n = hidden.size(0);
    torch::Tensor gradHidden = wantHidden ? torch::empty_like(hidden) : torch::Tensor();
    torch::Tensor gradWeight = wantWeight ? torch::zeros(weight.sizes(), weight.options().dtype(torch::kFloat32)) : torch::Tensor();
    for (int64_t start = 0; start < n; start += chunk) {
      int64_t rows = std::min(chunk, n - start);
      torch::Tensor h = hidden.narrow(0, start, rows);
      torch::Tensor gc = g.narrow(0, start, rows).unsqueeze(1);
      torch::Tensor gradLogits = torch::softmax(chunkLogits(h, weight, temperature), -1) * (-gc);
      gradLogits.scatter_add_(1, targets.narrow(0, start, rows).unsqueeze(1), gc);
      if (temperature != 1.0) gradLogits.div_(temperature);
      torch::Tensor gl = gradLogits.to(hidden.scalar_type());
      if (wantHidden) gradHidden.narrow(0, start, rows).copy_(torch::matmul(gl, weight));
      if (wantWeight) gradWeight.add_(torch::matmul(gl.t(), h).to(torch::kFloat32));
    }
    return {gradHidden, wantWeight ? gradWeight.to(weight.scalar_type()) : torch::Tensor(), torch::Tensor(),
            torch::Tensor(), torch::Tensor()};
  }
};

} // namespace

torch::Tensor tokenLogProbs(const torch::Tensor &hidden, const torch::Tensor &weight, const torch::Tensor &targets,
                            int64_t chunkRows, double temperature) {
  if (hidden.dim() != 2 || weight.dim() != 2 || hidden.size(1) != weight.size(1) || targets.dim() != 1 ||
      targets.size(0) != hidden.size(0))
    throw TrainerError("tokenLogProbs: hidden [N, d], weight [V, d] and targets [N] expected");
  if (!(temperature > 0)) throw TrainerError("tokenLogProbs: temperature must be positive");
  if (hidden.size(0) == 0) return torch::zeros({0}, hidden.options().dtype(torch::kFloat32));
  int64_t chunk = chunkRows > 0 ? chunkRows : defaultChunkRows(weight.size(0));
  return ChunkedLogProbs::apply(hidden, weight, targets.to(torch::kInt64), chunk, temperature);
}

// ---------------------------------------------------------------------------------------------
// Gradient checkpointing: forward runs the layer without recording a graph and keeps its input;
// backward reruns it with the graph and back-propagates through it (into the layer's parameters
// directly, and into the input, which is returned).

namespace {

struct LayerCall {
  const torch::Tensor *cos, *sin;
  const AttentionInputs *attention;
};

bool usesDropout(DecoderLayerImpl &layer) {
  if (!layer.is_training()) return false;
  for (auto &m : layer.modules(false))
    if (auto *p = m->as<ProjectionImpl>(); p && p->hasLora() && p->loraDropout > 0) return true;
  return false;
}

// The generator states a forward pass started from, replayed for its recomputation.
struct RngSnapshot {
  torch::Tensor cpu, device;
  torch::Device deviceId = torch::kCPU;
  static RngSnapshot take(const torch::Device &d) {
    RngSnapshot s;
    s.cpu = compat::generatorState(torch::kCPU);
    if (d.is_cuda()) {
      s.deviceId = d;
      s.device = compat::generatorState(d);
    }
    return s;
  }
  void restore() const {
    compat::setGeneratorState(torch::kCPU, cpu);
    if (device.defined()) compat::setGeneratorState(deviceId, device);
  }
};

struct CheckpointedLayer : torch::autograd::Function<CheckpointedLayer> {
  static torch::Tensor forward(AutogradContext *ctx, torch::Tensor x, int64_t layerAddress, int64_t callAddress) {
    auto *layer = reinterpret_cast<DecoderLayerImpl *>(layerAddress);
    const auto *call = reinterpret_cast<const LayerCall *>(callAddress);
    ctx->save_for_backward({x});
    ctx->saved_data["layer"] = layerAddress;
    ctx->saved_data["cos"] = *call->cos;
    ctx->saved_data["sin"] = *call->sin;
    ctx->saved_data["causal"] = call->attention->causal;
    ctx->saved_data["has_mask"] = call->attention->mask.defined();
    if (call->attention->mask.defined()) ctx->saved_data["mask"] = call->attention->mask;
    bool dropout = usesDropout(*layer);
    ctx->saved_data["dropout"] = dropout;
    if (dropout) {
      RngSnapshot s = RngSnapshot::take(x.device());
      ctx->saved_data["rng_cpu"] = s.cpu;
      if (s.device.defined()) ctx->saved_data["rng_device"] = s.device;
    }
    return layer->forward(x, *call->cos, *call->sin, *call->attention, nullptr, 0);
  }

  static variable_list backward(AutogradContext *ctx, variable_list gradOutputs) {
    torch::Tensor x = ctx->get_saved_variables()[0];
    auto *layer = reinterpret_cast<DecoderLayerImpl *>(ctx->saved_data["layer"].toInt());
    torch::Tensor cos = ctx->saved_data["cos"].toTensor(), sin = ctx->saved_data["sin"].toTensor();
    AttentionInputs attention;
    attention.causal = ctx->saved_data["causal"].toBool();
    if (ctx->saved_data["has_mask"].toBool()) attention.mask = ctx->saved_data["mask"].toTensor();
    torch::Tensor input = x.detach().requires_grad_(true);
    torch::Tensor out;
    {
      std::optional<RngSnapshot> current;
      if (ctx->saved_data["dropout"].toBool()) {
        current = RngSnapshot::take(x.device());
        RngSnapshot forwardState;
        forwardState.cpu = ctx->saved_data["rng_cpu"].toTensor();
        if (ctx->saved_data.count("rng_device")) {
          forwardState.device = ctx->saved_data["rng_device"].toTensor();
          forwardState.deviceId = x.device();
        }
        forwardState.restore();
      }
      torch::AutoGradMode enable(true);
      out = layer->forward(input, cos, sin, attention, nullptr, 0);
      if (current) current->restore();
    }
    torch::autograd::backward({out}, {gradOutputs[0]});
    return {input.grad(), torch::Tensor(), torch::Tensor()};
  }
};

} // namespace

LayerRunner checkpointedLayers() {
  return [](DecoderLayerImpl &layer, const torch::Tensor &x, const torch::Tensor &cos, const torch::Tensor &sin,
            const AttentionInputs &attention) -> torch::Tensor {
    if (!torch::GradMode::is_enabled()) return layer.forward(x, cos, sin, attention, nullptr, 0);
    // With frozen embeddings (LoRA) the first input needs no gradient, and a Function whose inputs
    // need none is skipped by backward: mark it so the adapters inside get their gradients.
    torch::Tensor input = x.requires_grad() ? x : x.detach().requires_grad_(true);
    LayerCall call{&cos, &sin, &attention};
    return CheckpointedLayer::apply(input, reinterpret_cast<int64_t>(&layer), reinterpret_cast<int64_t>(&call));
  };
}

// ---------------------------------------------------------------------------------------------
// Batches and losses.

TrainingBatch makeTrainingBatch(const std::vector<std::vector<int32_t>> &rows,
                                const std::vector<std::vector<uint8_t>> &targetMasks, int64_t padId,
                                const torch::Device &device) {
  if (rows.size() != targetMasks.size()) throw TrainerError("makeTrainingBatch: one target mask per row needed");
  int64_t B = int64_t(rows.size()), T = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].size() != targetMasks[i].size())
      throw TrainerError("makeTrainingBatch: row " + std::to_string(i) + " and its target mask differ in length");
    T = std::max<int64_t>(T, int64_t(rows[i].size()));
  }
  torch::Tensor ids = torch::full({B, T}, padId, torch::kInt64);
  torch::Tensor positions = torch::zeros({B, T}, torch::kInt64);
  torch::Tensor targets = torch::zeros({B, T}, torch::kBool);
  auto idsA = ids.accessor<int64_t, 2>();
  auto posA = positions.accessor<int64_t, 2>();
  auto tgtA = targets.accessor<bool, 2>();
  int64_t count = 0;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < int64_t(rows[b].size()); ++t) {
      idsA[b][t] = rows[b][t];
      posA[b][t] = t;
      bool target = t > 0 && targetMasks[b][t] != 0;
      tgtA[b][t] = target;
      count += target;
    }
  return {ids.to(device), positions.to(device), targets.to(device), count};
}

torch::Tensor sequenceLogProbs(CausalLmImpl &model, const TrainingBatch &batch, const LogProbOptions &options) {
  int64_t B = batch.ids.size(0), T = batch.ids.size(1);
  LayerRunner runner = options.gradientCheckpointing ? checkpointedLayers() : LayerRunner();
  // Right padding only follows the real tokens, so plain causality is the right mask.
  torch::Tensor hidden = model.hiddenStates(batch.ids, batch.positions, AttentionInputs{}, nullptr, runner);
  torch::Tensor where = batch.targets.reshape({-1}).nonzero().squeeze(1); // flat indices b * T + t, t >= 1
  torch::Tensor selected = hidden.reshape({B * T, hidden.size(2)}).index_select(0, where - 1);
  torch::Tensor lp = tokenLogProbs(selected, model.outputWeight(), batch.ids.reshape({-1}).index_select(0, where),
                                   options.chunkRows, options.temperature);
  return torch::zeros({B * T}, lp.options()).index_copy(0, where, lp).view({B, T});
}

torch::Tensor languageModelLoss(CausalLmImpl &model, const TrainingBatch &batch, const LogProbOptions &options) {
  if (batch.targetCount == 0) throw TrainerError("languageModelLoss: the batch has no target tokens");
  return -sequenceLogProbs(model, batch, options).sum() / double(batch.targetCount);
}

// ---------------------------------------------------------------------------------------------
// The trainer. AdamW is written out here (torch.optim.AdamW's update: decoupled weight decay, bias
// corrections) rather than taken from torch::optim, for two reasons: the update runs one parameter
// at a time, so a bf16 model's fp32 master gradient exists for one tensor at a time (7B full
// fine-tuning fits one H200 only so), and the moments are plain named tensors, saved as safetensors
// and restored exactly on any LibTorch version.

struct Trainer::State {
  std::vector<std::string> names;
  std::vector<torch::Tensor> params, masters; // masters[i] is params[i] itself when it is fp32
  std::vector<bool> separateMaster, decay;
  std::vector<torch::Tensor> expAvg, expAvgSq; // fp32, allocated at the first step
};

Trainer::Trainer(CausalLm model, const TrainerOptions &options)
    : model_(std::move(model)), options_(options), state_(std::make_unique<State>()) {
  for (auto &p : model_->named_parameters(true)) {
    if (!p.value().requires_grad()) continue;
    torch::Tensor param = p.value();
    bool separate = options.masterWeights && param.scalar_type() != torch::kFloat32;
    state_->names.push_back(p.key());
    state_->params.push_back(param);
    state_->masters.push_back(separate ? param.detach().to(torch::kFloat32).clone() : param);
    state_->separateMaster.push_back(separate);
    state_->decay.push_back(param.dim() >= 2); // matrices and embeddings; not norms and biases
  }
  if (state_->params.empty()) throw TrainerError("Trainer: the model has no parameter that requires gradients");
}

Trainer::~Trainer() = default;

std::vector<std::pair<std::string, torch::Tensor>> Trainer::trainable() const {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (size_t i = 0; i < state_->params.size(); ++i) out.emplace_back(state_->names[i], state_->params[i]);
  return out;
}

void Trainer::zeroGrad() {
  for (torch::Tensor &p : state_->params) p.mutable_grad() = torch::Tensor();
}

StepResult Trainer::step() {
  torch::NoGradGuard noGrad;
  State &s = *state_;
  if (reducer_) reducer_(s.params);
  // Global L2 norm in fp32, one synchronisation.
  torch::Tensor total;
  for (const torch::Tensor &p : s.params)
    if (p.grad().defined()) {
      torch::Tensor sq = p.grad().to(torch::kFloat32).pow(2).sum();
      total = total.defined() ? total + sq : sq;
    }
  StepResult result;
  result.gradNorm = total.defined() ? std::sqrt(total.item<double>()) : 0.0;
  result.learningRate = learningRateAt(steps_, options_.learningRate, options_.schedule);
  if (!std::isfinite(result.gradNorm)) {
    result.skipped = true;
    zeroGrad();
    result.step = ++steps_;
    return result;
  }
  double clip = (options_.gradClip > 0 && result.gradNorm > options_.gradClip)
                    ? options_.gradClip / (result.gradNorm + 1e-6) : 1.0;
  // Moments are allocated as each parameter is first updated, while the gradients already consumed are
  // freed: the first step's peak stays at weights + masters + moments.
  if (s.expAvg.empty()) {
    s.expAvg.resize(s.masters.size());
    s.expAvgSq.resize(s.masters.size());
  }
  int64_t t = steps_ + 1;
  double lr = result.learningRate, b1 = options_.beta1, b2 = options_.beta2;
  double correction1 = 1 - std::pow(b1, double(t)), correction2 = 1 - std::pow(b2, double(t));
  for (size_t i = 0; i < s.params.size(); ++i) {
    torch::Tensor &param = s.params[i], &master = s.masters[i];
    if (!param.grad().defined()) continue;
    torch::Tensor g = param.grad().to(torch::kFloat32);
    if (clip != 1.0) g = g * clip;
    param.mutable_grad() = torch::Tensor(); // the bf16 gradient is no longer needed
    if (!s.expAvg[i].defined()) {
      s.expAvg[i] = torch::zeros_like(master, master.options().dtype(torch::kFloat32));
      s.expAvgSq[i] = torch::zeros_like(master, master.options().dtype(torch::kFloat32));
    }
    s.expAvg[i].mul_(b1).add_(g, 1 - b1);
    s.expAvgSq[i].mul_(b2).addcmul_(g, g, 1 - b2);
    if (s.decay[i] && options_.weightDecay > 0) master.mul_(1 - lr * options_.weightDecay);
    torch::Tensor denom = (s.expAvgSq[i].sqrt() / std::sqrt(correction2)).add_(options_.epsilon);
    master.addcdiv_(s.expAvg[i], denom, -lr / correction1);
    if (s.separateMaster[i]) param.copy_(master);
  }
  result.step = ++steps_;
  return result;
}

namespace {

// Named tensors as one safetensors file, and back into existing tensors (same names and shapes).
struct NamedTensors {
  std::vector<std::string> names;
  std::vector<torch::Tensor> tensors;
  void add(std::string name, torch::Tensor t) {
    names.push_back(std::move(name));
    tensors.push_back(std::move(t));
  }
};

void writeNamed(const std::string &path, const NamedTensors &named) {
  std::vector<CpuTensorBytes> keep;
  std::vector<TensorToWrite> out;
  keep.reserve(named.tensors.size());
  for (size_t i = 0; i < named.tensors.size(); ++i) {
    keep.push_back(toCpuBytes(named.tensors[i], named.tensors[i].scalar_type()));
    const CpuTensorBytes &b = keep.back();
    out.push_back({named.names[i], b.dtype, b.tensor.sizes().vec(), b.tensor.data_ptr(), size_t(b.tensor.nbytes())});
  }
  writeSafetensors(path, out);
}

bool isFloating(TensorDtype dtype) {
  return dtype == TensorDtype::F32 || dtype == TensorDtype::BF16 || dtype == TensorDtype::F16 || dtype == TensorDtype::F64;
}

// copy_ converts any dtype; floatingOnly refuses an integer or bool tensor (moments: a compact state's
// are bf16, a full state's fp32, and an int tensor there is a wrong file, not a value to convert).
void readNamed(const std::string &path, const NamedTensors &named, bool allowMissing = false, bool floatingOnly = false) {
  SafetensorsFile file = SafetensorsFile::open(path);
  torch::NoGradGuard noGrad;
  for (size_t i = 0; i < named.names.size(); ++i) {
    const TensorView *view = file.find(named.names[i]);
    if (!view && allowMissing) continue;
    if (!view) throw TrainerError(path + ": " + named.names[i] + " missing (saved from another model or trainable set?)");
    if (view->shape != named.tensors[i].sizes().vec())
      throw TrainerError(path + ": " + named.names[i] + " has shape " + shapeText(view->shape) + ", expected " +
                         shapeText(named.tensors[i].sizes().vec()));
    if (floatingOnly && !isFloating(view->dtype))
      throw TrainerError(path + ": " + named.names[i] + " is " + dtypeName(view->dtype) + ", expected a floating dtype");
    named.tensors[i].copy_(tensorFromView(*view)); // the tensor handle shares the trainer's storage
  }
}

} // namespace

// What save and load move: the trainable weights, the separate fp32 masters, the moments.
struct TrainerFiles {
  NamedTensors trainable, masters, moments;
};

static TrainerFiles trainerFiles(const std::vector<std::string> &names, const std::vector<torch::Tensor> &params,
                                 const std::vector<torch::Tensor> &masters, const std::vector<bool> &separate,
                                 const std::vector<torch::Tensor> &expAvg, const std::vector<torch::Tensor> &expAvgSq) {
  TrainerFiles f;
  for (size_t i = 0; i < names.size(); ++i) {
    f.trainable.add(names[i], params[i]);
    if (separate[i]) f.masters.add(names[i], masters[i]);
    if (i < expAvg.size() && expAvg[i].defined()) { // a parameter never updated yet has no moments
      f.moments.add(names[i] + ".exp_avg", expAvg[i]);
      f.moments.add(names[i] + ".exp_avg_sq", expAvgSq[i]);
    }
  }
  return f;
}

void Trainer::save(const std::string &dir, const nlohmann::json &extra) const {
  fs::create_directories(dir);
  const State &s = *state_;
  TrainerFiles f = trainerFiles(s.names, s.params, s.masters, s.separateMaster, s.expAvg, s.expAvgSq);
  writeNamed((fs::path(dir) / "trainable.safetensors").string(), f.trainable);
  if (!f.masters.names.empty()) writeNamed((fs::path(dir) / "master.safetensors").string(), f.masters);
  fs::remove(fs::path(dir) / "optimizer.safetensors");
  if (!f.moments.names.empty()) writeNamed((fs::path(dir) / "optimizer.safetensors").string(), f.moments);
  torch::Device device = s.params.front().device();
  NamedTensors rng;
  rng.add("cpu", compat::generatorState(torch::kCPU));
  if (device.is_cuda()) rng.add("cuda", compat::generatorState(device));
  writeNamed((fs::path(dir) / "rng.safetensors").string(), rng);
  nlohmann::ordered_json state = {
      {"schema", "cudaperf-trainer-state/1"},
      {"step", steps_},
      {"trainable", s.names.size()},
      {"master_weights", !f.masters.names.empty()},
      {"options",
       {{"learning_rate", options_.learningRate}, {"weight_decay", options_.weightDecay},
        {"betas", {options_.beta1, options_.beta2}}, {"epsilon", options_.epsilon}, {"grad_clip", options_.gradClip},
        {"schedule", {{"kind", options_.schedule.kind}, {"warmup_steps", options_.schedule.warmupSteps},
                      {"total_steps", options_.schedule.totalSteps}, {"min_ratio", options_.schedule.minRatio}}}}},
      {"extra", extra}};
  std::ofstream out(fs::path(dir) / "trainer_state.json");
  out << state.dump(2) << "\n";
  if (!out) throw TrainerError(dir + "/trainer_state.json: write failed");
}

nlohmann::json Trainer::load(const std::string &dir) {
  std::string statePath = (fs::path(dir) / "trainer_state.json").string();
  std::ifstream in(statePath);
  if (!in) throw TrainerError(statePath + ": cannot open");
  nlohmann::json state;
  try {
    state = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception &e) {
    throw TrainerError(statePath + ": not JSON: " + e.what());
  }
  if (state.value("schema", std::string()) != "cudaperf-trainer-state/1")
    throw TrainerError(statePath + ": schema is not cudaperf-trainer-state/1");
  State &s = *state_;
  if (state.value("trainable", size_t(0)) != s.names.size())
    throw TrainerError(statePath + ": saved with " + std::to_string(state.value("trainable", size_t(0))) +
                       " trainable tensors, this trainer has " + std::to_string(s.names.size()));
  // A compact state (cudaperf-train compact-state, TrainerState.h) has no masters: they are set from
  // the trainable weights below. Either way the files must agree with what the state says it is.
  bool compact = false;
  if (state.contains("compact")) {
    if (!state["compact"].is_boolean()) throw TrainerError(statePath + ": \"compact\" is not true or false");
    compact = state["compact"].get<bool>();
  }
  fs::path masterPath = fs::path(dir) / "master.safetensors";
  bool hasMasters = std::find(s.separateMaster.begin(), s.separateMaster.end(), true) != s.separateMaster.end();
  if (compact && fs::exists(masterPath))
    throw TrainerError(statePath + ": says \"compact\": true, yet " + masterPath.string() +
                       " exists (a compact state has no masters: one of them is from another state)");
  if (!compact && hasMasters && !fs::exists(masterPath))
    throw TrainerError(masterPath.string() + ": missing, and " + statePath +
                       " does not say \"compact\": true (this trainer keeps fp32 master weights)");
  // Moments for every parameter (zero where the file has none: never updated when saved).
  s.expAvg.clear();
  s.expAvgSq.clear();
  for (const torch::Tensor &m : s.masters) {
    s.expAvg.push_back(torch::zeros_like(m, m.options().dtype(torch::kFloat32)));
    s.expAvgSq.push_back(torch::zeros_like(m, m.options().dtype(torch::kFloat32)));
  }
  TrainerFiles f = trainerFiles(s.names, s.params, s.masters, s.separateMaster, s.expAvg, s.expAvgSq);
  readNamed((fs::path(dir) / "trainable.safetensors").string(), f.trainable);
  if (!f.masters.names.empty() && !compact) readNamed(masterPath.string(), f.masters);
  if (compact) {
    torch::NoGradGuard noGrad;
    for (size_t i = 0; i < s.params.size(); ++i)
      if (s.separateMaster[i]) s.masters[i].copy_(s.params[i]); // fp32 of the bf16 values, exactly
  }
  if (fs::exists(fs::path(dir) / "optimizer.safetensors"))
    readNamed((fs::path(dir) / "optimizer.safetensors").string(), f.moments, /*allowMissing=*/true,
              /*floatingOnly=*/true);
  torch::Device device = s.params.front().device();
  SafetensorsFile rng = SafetensorsFile::open((fs::path(dir) / "rng.safetensors").string());
  if (const TensorView *cpu = rng.find("cpu")) compat::setGeneratorState(torch::kCPU, tensorFromView(*cpu));
  if (const TensorView *cuda = rng.find("cuda"); cuda && device.is_cuda())
    compat::setGeneratorState(device, tensorFromView(*cuda));
  steps_ = state.value("step", int64_t(0));
  return state.value("extra", nlohmann::json::object());
}

} // namespace cudaperf::learn
