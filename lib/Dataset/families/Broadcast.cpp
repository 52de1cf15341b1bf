// Elementwise families with broadcasting (a vector along rows, columns or channels), both kinds,
// on the elementwise skeleton (Map.h: broadcast operands are read at their own index).
#include "Map.h"
#include "PyModel.h"

#include "cudaperf/Dataset/Family.h"

#include <fmt/format.h>

#include <cmath>

namespace cudaperf::dataset {

namespace {

struct Act {
  const char *name, *c, *torch; // c over ${v}; torch over {v}
};
const std::vector<Act> kActs = {
    {"relu", "fmaxf(${v}, 0.0f)", "torch.relu({v})"},
    {"tanh", "tanhf(${v})", "torch.tanh({v})"},
    {"sigmoid", "(1.0f / (1.0f + expf(-(${v}))))", "torch.sigmoid({v})"},
    {"gelu_tanh", "(0.5f * (${v}) * (1.0f + tanhf(0.7978845608028654f * ((${v}) + 0.044715f * (${v}) * (${v}) * (${v})))))",
     "F.gelu({v}, approximate=\"tanh\")"},
    {"silu", "((${v}) / (1.0f + expf(-(${v}))))", "F.silu({v})"},
    {"identity", "(${v})", "{v}"},
};

std::string torchAct(const Act &a, const std::string &v) {
  std::string s = a.torch;
  return s.replace(s.find("{v}"), 3, v);
}

// A (rows x cols) elementwise task; `vectors` are per-column ([j]) or per-row ([r]) inputs.
void twoDimMap(TaskSpec &t, Rng &rng, MapSpec &m, const std::vector<std::pair<MapOperand, Json>> &full,
               const std::vector<std::pair<MapOperand, Json>> &vectors, bool inout, Json outDist) {
  bool py = t.kind == Kind::PyTorch;
  std::string rows = py ? "batch_size" : "rows", cols = py ? "dim" : "cols";
  for (const auto &[o, d] : full) {
    m.inputs.push_back(o);
    t.args.push_back(pointerArg(o.name, o.dtype, "in", rows + " * " + cols, d));
    t.args.back().shape = {rows, cols};
  }
  for (const auto &[o, d] : vectors) {
    MapOperand v = o;
    bool perRow = v.index == "row";
    v.index = perRow ? "${i} / " + cols : "${i} % " + cols;
    m.inputs.push_back(v);
    t.args.push_back(pointerArg(o.name, o.dtype, "in", perRow ? rows : cols, d));
    t.args.back().shape = {perRow ? rows : cols};
  }
  t.args.push_back(pointerArg(m.output.name, m.output.dtype, inout ? "inout" : "out", rows + " * " + cols,
                              inout ? outDist : Json()));
  t.args.back().shape = {rows, cols};
  t.args.push_back(sizeArg(rows));
  t.args.push_back(sizeArg(cols));
  m.outputIsRead = inout;
  m.countCode = "  int n = " + rows + " * " + cols + ";\n";
  m.scalars.push_back({cols, "int"});
  t.configs = rowConfigs(rng, rows, cols, 1ll << rng.uniformInt(20, 22));
  t.impls = mapImplementations(t, m, rng);
  if (!py)
    t.reference = mapReference(t, m);
}

// --- bias_act (C) / pt_bias_act: out = act(x * s + b[j]) ------------------------------------
void makeBiasAct(TaskSpec &t, Rng &rng) {
  const Act &a = rng.pick(kActs);
  double s = std::round(rng.uniform(0.5, 2) * 8) / 8;
  bool scaled = rng.chance(0.5);
  std::string inner = scaled ? "${x} * " + cLiteral(s, "f32") + " + ${bias}" : "${x} + ${bias}";
  MapSpec m;
  m.output = {"out", "f32"};
  m.expr = render(a.c, {{"v", inner}});
  std::string torchInner = scaled ? "x * " + pyLiteral(s) + " + self.bias" : "x + self.bias";
  std::string torch = torchAct(a, torchInner);
  t.description = "out = " + torch + ", with bias (a per-column vector) broadcast over the rows.";
  t.params = Json{{"activation", a.name}, {"scale", scaled ? s : 1.0}};
  t.variant = std::string(a.name) + (scaled ? "/scaled" : "");
  t.tolerances = Json{{"f32", Json{{"atol", 1e-5}, {"rtol", 1e-4}}}};
  twoDimMap(t, rng, m, {{{"x", "f32", ""}, normalDist(0, 1)}}, {{{"bias", "f32", "col"}, uniformDist(-1, 1)}}, false,
            nullptr);
  if (t.kind == Kind::PyTorch) {
    PyModel py;
    py.doc = t.description;
    py.initParams = "dim";
    py.initBody = {"self.bias = nn.Parameter(torch.zeros(dim))"};
    py.forwardBody = {"return " + torch};
    py.inputs = {"x = torch.randn(batch_size, dim)"};
    py.initInputs = "[dim]";
    setModel(t, py);
  }
}

// --- outer_update (C): A += alpha * u[r] * v[j] (rank-1 update, f32/f64) ----------------------
void makeOuterUpdate(TaskSpec &t, Rng &rng) {
  std::string dtype = rng.chance(0.6) ? "f32" : "f64";
  double alpha = std::round(rng.uniform(-2, 2) * 16) / 16;
  MapSpec m;
  m.output = {"A", dtype};
  m.expr = "${A} + alpha * ${u} * ${v}";
  t.description = "Rank-1 update A[r][j] += alpha * u[r] * v[j] of a rows x cols matrix (A is read and written).";
  t.params = Json{{"dtype", dtype}, {"alpha", alpha}};
  t.variant = dtype;
  twoDimMap(t, rng, m, {}, {{{"u", dtype, "row"}, uniformDist(-1, 1)}, {{"v", dtype, "col"}, uniformDist(-1, 1)}},
            true, uniformDist(-1, 1));
  // alpha after the sizes: a scalar argument the kernels take too.
  t.args.push_back(scalarArg("alpha", dtype, alpha));
  m.scalars.push_back({"alpha", cType(dtype)});
  t.impls = mapImplementations(t, m, rng);
  t.reference = mapReference(t, m);
}

// --- row_col_scale (C): out = x * s[r] + t[j] ------------------------------------------------
void makeRowColScale(TaskSpec &t, Rng &rng) {
  std::string dtype = rng.pick(std::vector<std::string>{"f32", "f64", "i32"});
  MapSpec m;
  m.output = {"out", dtype};
  m.expr = rng.chance(0.5) ? "${x} * ${s} + ${t}" : "(${x} + ${t}) * ${s}";
  Json d = dtype == "i32" ? uniformDist(-100, 100) : uniformDist(-1, 1);
  Vars plain{{"x", "x[r][j]"}, {"s", "s[r]"}, {"t", "t[j]"}};
  t.description = "out[r][j] = " + render(m.expr, plain) + ": a per-row scale and a per-column shift (" + cType(dtype) + ").";
  t.params = Json{{"dtype", dtype}, {"expr", render(m.expr, plain)}};
  t.variant = dtype + "/" + m.expr;
  twoDimMap(t, rng, m, {{{"x", dtype, ""}, d}}, {{{"s", dtype, "row"}, d}, {{"t", dtype, "col"}, d}}, false, nullptr);
}

// --- pt_broadcast_binary: op(x, y) with y of shape (dim,) ------------------------------------
void makeBroadcastBinary(TaskSpec &t, Rng &rng) {
  struct Op {
    const char *name, *c, *torch;
  };
  static const std::vector<Op> ops = {
      {"add", "${x} + ${y}", "x + y"},           {"mul", "${x} * ${y}", "x * y"},
      {"sub", "${x} - ${y}", "x - y"},           {"div", "${x} / ${y}", "x / y"},
      {"maximum", "fmaxf(${x}, ${y})", "torch.maximum(x, y)"}, {"minimum", "fminf(${x}, ${y})", "torch.minimum(x, y)"},
      {"squared_diff", "(${x} - ${y}) * (${x} - ${y})", "(x - y) ** 2"},
  };
  const Op &op = rng.pick(ops);
  MapSpec m;
  m.output = {"out", "f32"};
  m.expr = op.c;
  t.description = std::string("out = ") + op.torch + ", x of shape (batch_size, dim), y of shape (dim,) broadcast.";
  t.params = Json{{"op", op.name}};
  t.variant = op.name;
  t.tolerances = Json{{"f32", Json{{"atol", 1e-5}, {"rtol", 1e-4}}}};
  Json yDist = std::string(op.name) == "div" ? uniformDist(0.5, 2) : uniformDist(-1, 1);
  twoDimMap(t, rng, m, {{{"x", "f32", ""}, normalDist(0, 1)}}, {{{"y", "f32", "col"}, yDist}}, false, nullptr);
  PyModel py;
  py.doc = t.description;
  py.forwardParams = "x, y";
  py.forwardBody = {std::string("return ") + op.torch};
  py.inputs = {"x = torch.randn(batch_size, dim)", "y = torch.randn(dim)"};
  py.inputList = "[x, y]";
  setModel(t, py);
}

// --- pt_channel_affine: NCHW x * scale[c] + shift[c], optionally activated --------------------
void makeChannelAffine(TaskSpec &t, Rng &rng) {
  const Act &a = rng.pick(kActs);
  MapSpec m;
  m.output = {"out", "f32"};
  m.expr = render(a.c, {{"v", "${x} * ${scale} + ${shift}"}});
  std::string torch = torchAct(a, "x * self.scale.view(1, -1, 1, 1) + self.shift.view(1, -1, 1, 1)");
  t.description = "out = " + torch + ": a per-channel affine map of an NCHW tensor.";
  t.params = Json{{"activation", a.name}};
  t.variant = a.name;
  t.tolerances = Json{{"f32", Json{{"atol", 1e-5}, {"rtol", 1e-4}}}};
  m.inputs = {{"x", "f32", ""}, {"scale", "f32", "${i} / hw % channels"}, {"shift", "f32", "${i} / hw % channels"}};
  for (const auto &[name, dims, d] : std::vector<std::tuple<std::string, std::vector<std::string>, Json>>{
           {"x", {"batch_size", "channels", "height", "width"}, normalDist(0, 1)},
           {"scale", {"channels"}, uniformDist(0.5, 1.5)},
           {"shift", {"channels"}, uniformDist(-0.5, 0.5)}}) {
    t.args.push_back(pointerArg(name, "f32", "in", "", d));
    t.args.back().shape = dims;
    t.args.back().count = name == "x" ? "batch_size * channels * height * width" : "channels";
  }
  t.args.push_back(pointerArg("out", "f32", "out", "batch_size * channels * height * width"));
  t.args.back().shape = {"batch_size", "channels", "height", "width"};
  for (const char *s : {"batch_size", "channels", "height", "width"})
    t.args.push_back(sizeArg(s));
  m.countCode = "  int n = batch_size * channels * height * width;\n  int hw = height * width;\n";
  m.scalars = {{"hw", "int"}, {"channels", "int"}};
  int c = rng.pick(std::vector<int>{3, 16, 32, 64, 96}), h = rng.pick(std::vector<int>{32, 56, 64, 128});
  int b = std::max(1, (1 << rng.uniformInt(20, 22)) / (c * h * h));
  t.configs = {config("small", {{"batch_size", 2}, {"channels", 5}, {"height", 9}, {"width", 13}}),
               config("large", {{"batch_size", b}, {"channels", c}, {"height", h}, {"width", h + 8}})};
  t.impls = mapImplementations(t, m, rng);
  PyModel py;
  py.doc = t.description;
  py.initParams = "channels";
  py.initBody = {"self.scale = nn.Parameter(torch.ones(channels))", "self.shift = nn.Parameter(torch.zeros(channels))"};
  py.forwardBody = {"return " + torch};
  py.inputs = {"x = torch.randn(batch_size, channels, height, width)"};
  py.initInputs = "[channels]";
  setModel(t, py);
}

} // namespace

void addBroadcastFamilies(std::vector<Family> &out) {
  out.push_back({"bias_act", Kind::C, "act(x * s + bias[j]) over a matrix, bias broadcast over rows", false, 75,
                 [](TaskSpec &t, Rng &r, int) { makeBiasAct(t, r); }});
  out.push_back({"outer_update", Kind::C, "rank-1 updates A += alpha * u v^T (f32, f64)", false, 75,
                 [](TaskSpec &t, Rng &r, int) { makeOuterUpdate(t, r); }});
  out.push_back({"row_col_scale", Kind::C, "per-row scale and per-column shift of a matrix (f32, f64, i32)", false,
                 75, [](TaskSpec &t, Rng &r, int) { makeRowColScale(t, r); }});
}

void addPyTorchBroadcastFamilies(std::vector<Family> &out) {
  out.push_back({"pt_bias_act", Kind::PyTorch, "act(x * s + bias) with an nn.Parameter bias", false, 40,
                 [](TaskSpec &t, Rng &r, int) { makeBiasAct(t, r); }});
  out.push_back({"pt_broadcast_binary", Kind::PyTorch, "binary ops of a (batch, dim) and a (dim,) tensor", false, 40,
                 [](TaskSpec &t, Rng &r, int) { makeBroadcastBinary(t, r); }});
  out.push_back({"pt_channel_affine", Kind::PyTorch, "per-channel affine maps of NCHW tensors, then an activation",
                 false, 40, [](TaskSpec &t, Rng &r, int) { makeChannelAffine(t, r); }});
}

} // namespace cudaperf::dataset
