// PyTorch->CUDA elementwise families: activations (torch.nn.functional) and random fused
// elementwise chains, on the shared elementwise skeleton (Map.h).
#include "Expr.h"
#include "Map.h"
#include "PyModel.h"

#include "cudaperf/Dataset/Family.h"

#include <fmt/format.h>

namespace cudaperf::dataset {

namespace {

// The common shape of a (batch_size, dim) elementwise problem over `operands`.
void finishPyMap(TaskSpec &t, Rng &rng, const std::vector<std::string> &operands, const std::string &cExpr,
                 const std::string &torchExpr, const std::string &deviceHelpers, const std::vector<Json> &dists) {
  MapSpec m;
  for (size_t k = 0; k < operands.size(); ++k) {
    m.inputs.push_back({operands[k], "f32"});
    t.args.push_back(pointerArg(operands[k], "f32", "in", "batch_size * dim", dists[k]));
    t.args.back().shape = {"batch_size", "dim"};
  }
  m.output = {"out", "f32"};
  m.expr = cExpr;
  m.countCode = "  int n = batch_size * dim;\n";
  m.deviceHelpers = deviceHelpers;
  t.args.push_back(pointerArg("out", "f32", "out", "batch_size * dim"));
  t.args.back().shape = {"batch_size", "dim"};
  t.args.push_back(sizeArg("batch_size"));
  t.args.push_back(sizeArg("dim"));
  long long large = 1ll << rng.uniformInt(20, 22);
  t.configs = rowConfigs(rng, "batch_size", "dim", large / (long long)operands.size());
  t.tolerances = Json{{"f32", Json{{"atol", 1e-5}, {"rtol", 1e-4}}}};
  t.impls = mapImplementations(t, m, rng);
  PyModel py;
  py.doc = t.description;
  py.forwardParams = "";
  std::string list;
  for (const auto &o : operands) {
    py.forwardParams += (py.forwardParams.empty() ? "" : ", ") + o;
    py.inputs.push_back(o + " = torch.randn(batch_size, dim)");
    list += (list.empty() ? "" : ", ") + o;
  }
  py.inputList = "[" + list + "]";
  py.forwardBody = {"return " + torchExpr};
  setModel(t, py);
}

struct Activation {
  const char *name;
  const char *c;     // over ${x}; constants ${a}, ${b}
  const char *torch; // over x
};

// The C forms follow PyTorch's definitions (docs of torch.nn.functional): elu and selu use
// expm1, softplus and mish switch to the identity above a threshold of 20.
const std::vector<Activation> kActivations = {
    {"relu", "fmaxf(${x}, 0.0f)", "torch.relu(x)"},
    {"leaky_relu", "(${x} > 0.0f ? ${x} : ${x} * ${a})", "F.leaky_relu(x, ${ap})"},
    {"relu6", "fminf(fmaxf(${x}, 0.0f), 6.0f)", "F.relu6(x)"},
    {"hardtanh", "fminf(fmaxf(${x}, -${b}), ${b})", "F.hardtanh(x, -${bp}, ${bp})"},
    {"elu", "(${x} > 0.0f ? ${x} : ${a} * expm1f(${x}))", "F.elu(x, ${ap})"},
    {"selu", "1.0507009873554805f * (${x} > 0.0f ? ${x} : 1.6732632423543772f * expm1f(${x}))", "F.selu(x)"},
    {"gelu", "0.5f * ${x} * (1.0f + erff(${x} * 0.70710678118654752f))", "F.gelu(x)"},
    {"gelu_tanh", "0.5f * ${x} * (1.0f + tanhf(0.7978845608028654f * (${x} + 0.044715f * ${x} * ${x} * ${x})))",
     "F.gelu(x, approximate=\"tanh\")"},
    {"sigmoid", "1.0f / (1.0f + expf(-${x}))", "torch.sigmoid(x)"},
    {"silu", "${x} / (1.0f + expf(-${x}))", "F.silu(x)"},
    {"mish", "${x} * tanhf(${x} > 20.0f ? ${x} : log1pf(expf(${x})))", "F.mish(x)"},
    {"softplus", "(${x} * ${b} > 20.0f ? ${x} : log1pf(expf(${x} * ${b})) / ${b})", "F.softplus(x, beta=${bp})"},
    {"tanh", "tanhf(${x})", "torch.tanh(x)"},
    {"hardsigmoid", "fminf(fmaxf(${x} + 3.0f, 0.0f), 6.0f) / 6.0f", "F.hardsigmoid(x)"},
    {"hardswish", "${x} * fminf(fmaxf(${x} + 3.0f, 0.0f), 6.0f) / 6.0f", "F.hardswish(x)"},
    {"softsign", "${x} / (1.0f + fabsf(${x}))", "F.softsign(x)"},
    {"celu", "fmaxf(${x}, 0.0f) + fminf(0.0f, ${a} * expm1f(${x} / ${a}))", "F.celu(x, ${ap})"},
    {"logsigmoid", "(fminf(${x}, 0.0f) - log1pf(expf(-fabsf(${x}))))", "F.logsigmoid(x)"},
};

void makeActivationTask(TaskSpec &t, Rng &rng) {
  const Activation &act = rng.pick(kActivations);
  double a = std::round(rng.uniform(0.05, 1.5) * 20) / 20, b = std::round(rng.uniform(0.5, 3) * 4) / 4;
  // Half of the problems apply the activation to an affine map of x: x * s + c.
  bool affine = rng.chance(0.5);
  double s = std::round(rng.uniform(0.5, 3) * 8) / 8, c = std::round(rng.uniform(-1, 1) * 8) / 8;
  std::string arg = affine ? "(${x0} * " + cLiteral(s, "f32") + " + " + cLiteral(c, "f32") + ")" : "${x0}";
  std::string targ = affine ? "(x * " + pyLiteral(s) + " + " + pyLiteral(c) + ")" : "x";
  Vars cv{{"x", arg}, {"a", cLiteral(a, "f32")}, {"b", cLiteral(b, "f32")}};
  Vars pv{{"ap", pyLiteral(a)}, {"bp", pyLiteral(b)}};
  std::string cExpr = render(render(act.c, cv), {{"x0", "${x}"}});
  std::string torch = render(act.torch, pv);
  // x appears once in each torch form: substitute the argument for it.
  size_t at = torch.find("(x");
  torch = torch.substr(0, at + 1) + targ + torch.substr(at + 2);
  t.description = std::string("out = ") + torch + ", elementwise over a (batch_size, dim) tensor.";
  t.params = Json{{"activation", act.name}, {"affine", affine}, {"torch", torch}};
  t.variant = std::string(act.name) + (affine ? "/affine" : "");
  finishPyMap(t, rng, {"x"}, cExpr, torch, "", {rng.chance(0.5) ? normalDist(0, 1) : uniformDist(-4, 4)});
}

void makeFusedChainTask(TaskSpec &t, Rng &rng) {
  int operands = rng.uniformInt(1, 3);
  std::vector<std::string> names = {"a", "b", "c"};
  names.resize(size_t(operands));
  ExprText e = randomExpr(rng, names, "f32", rng.uniformInt(2, 4));
  t.description = "out = " + e.torch + ", elementwise (fused chain over tensors of shape (batch_size, dim)).";
  t.params = Json{{"operands", operands}, {"torch", e.torch}, {"nodes", e.nodes}};
  t.variant = e.torch;
  std::vector<Json> dists(size_t(operands), uniformDist(-1, 1));
  finishPyMap(t, rng, names, e.c, e.torch, "", dists);
}

} // namespace

void addPyTorchMapFamilies(std::vector<Family> &out) {
  out.push_back({"pt_activation", Kind::PyTorch, "torch.nn.functional activations (relu to mish), some of an "
                 "affine map of x", false, 45, [](TaskSpec &t, Rng &r, int) { makeActivationTask(t, r); }});
  out.push_back({"pt_fused_chain", Kind::PyTorch, "random fused elementwise chains of one to three tensors", false,
                 45, [](TaskSpec &t, Rng &r, int) { makeFusedChainTask(t, r); }});
}

} // namespace cudaperf::dataset
