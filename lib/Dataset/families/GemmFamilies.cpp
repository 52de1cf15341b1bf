// Matrix products, both kinds, on the GEMM skeleton (Gemm.h): layouts, shapes, epilogues and
// batches of small products; nn.Linear, torch.matmul and torch.bmm.
#include "Gemm.h"
#include "PyModel.h"

#include "cudaperf/Dataset/Family.h"

#include <fmt/format.h>

#include <cmath>

namespace cudaperf::dataset {

namespace {

struct Shape {
  const char *name;
  int m, n, k;
};
// Large configurations (about 2^27-2^30 multiply-adds, at most ~48 MB of data).
const std::vector<Shape> kShapes = {
    {"square", 1024, 1024, 1024}, {"square_odd", 1000, 1000, 1000}, {"tall", 8192, 64, 256},
    {"wide", 64, 8192, 256},      {"deep_k", 256, 256, 8192},      {"skinny", 4096, 32, 1024},
    {"rect", 768, 1536, 512},
};

std::string layoutName(bool ta, bool tb) { return std::string(ta ? "T" : "N") + (tb ? "T" : "N"); }

void matmulArgs(TaskSpec &t, const GemmSpec &g, const std::string &dtype, const std::string &m, const std::string &n,
                const std::string &k, const std::string &batch, bool outInout) {
  std::string b = batch == "1" ? "" : batch + " * ";
  t.args.push_back(pointerArg(g.a, dtype, "in", b + m + " * " + k, uniformDist(-1, 1)));
  t.args.push_back(pointerArg(g.b, dtype, "in", b + k + " * " + n, uniformDist(-1, 1)));
  t.args.push_back(pointerArg(g.out, dtype, outInout ? "inout" : "out", b + m + " * " + n,
                              outInout ? uniformDist(-1, 1) : Json()));
}

Json gemmTolerance(const std::string &dtype) {
  return dtype == "f32" ? Json{{"f32", Json{{"atol", 1e-3}, {"rtol", 1e-3}}}}
                        : Json{{"f64", Json{{"atol", 1e-9}, {"rtol", 1e-9}}}};
}

// --- matmul (C): C = op(A) op(B), four layouts, f32/f64 --------------------------------------
void makeMatmul(TaskSpec &t, Rng &rng) {
  GemmSpec g;
  g.transA = rng.chance(0.35);
  g.transB = rng.chance(0.35);
  std::string dtype = rng.chance(0.75) ? "f32" : "f64";
  g.T = cType(dtype);
  const Shape &s = rng.pick(kShapes);
  int scale = dtype == "f64" ? 2 : 1;
  matmulArgs(t, g, dtype, "m", "n", "k", "1", false);
  for (const char *p : {"m", "n", "k"})
    t.args.push_back(sizeArg(p));
  t.configs = {config("small", {{"m", rng.uniformInt(10, 40) * 2 + 1}, {"n", rng.uniformInt(10, 40) * 2 + 1},
                                {"k", rng.uniformInt(10, 40) * 2 + 1}}),
               config("large", {{"m", s.m / (s.m > 256 ? scale : 1)}, {"n", s.n}, {"k", s.k}})};
  t.description = fmt::format("C (m x n) = {} * {} ({}): A stored {}, B stored {}; row-major.", g.transA ? "A^T" : "A",
                              g.transB ? "B^T" : "B", g.T, g.transA ? "k x m" : "m x k", g.transB ? "n x k" : "k x n");
  t.params = Json{{"layout", layoutName(g.transA, g.transB)}, {"dtype", dtype}, {"shape", s.name}};
  t.variant = layoutName(g.transA, g.transB) + "/" + dtype + "/" + s.name;
  t.tolerances = gemmTolerance(dtype);
  t.reference = gemmReference(t, g);
  t.impls = gemmImplementations(t, g, rng);
}

// --- gemm_epilogue (C): alpha A B + beta C, or act(A B + bias) ------------------------------
void makeGemmEpilogue(TaskSpec &t, Rng &rng) {
  GemmSpec g;
  g.transB = rng.chance(0.5);
  const Shape &s = rng.pick(kShapes);
  int kind = rng.uniformInt(0, 3);
  bool inout = kind == 0;
  matmulArgs(t, g, "f32", "m", "n", "k", "1", inout);
  std::string what;
  if (inout) {
    double alpha = std::round(rng.uniform(-2, 2) * 8) / 8, beta = std::round(rng.uniform(-1, 1) * 8) / 8;
    g.epilogue = "alpha * ${acc} + beta * ${c}";
    g.outIsRead = true;
    g.extraParams = "float alpha, float beta";
    g.extraArgs = "alpha, beta";
    for (const char *p : {"m", "n", "k"})
      t.args.push_back(sizeArg(p));
    t.args.push_back(scalarArg("alpha", "f32", alpha));
    t.args.push_back(scalarArg("beta", "f32", beta));
    what = "C = alpha * A B + beta * C (C is read and written)";
  } else {
    static const std::vector<std::pair<const char *, const char *>> acts = {
        {"relu", "fmaxf(${v}, 0.0f)"}, {"tanh", "tanhf(${v})"}, {"none", "${v}"},
        {"gelu", "0.5f * (${v}) * (1.0f + erff((${v}) * 0.70710678118654752f))"}};
    auto act = acts[size_t(kind - 1)];
    g.epilogue = render(act.second, {{"v", "${acc} + bias[${j}]"}});
    g.extraParams = "const float *__restrict__ bias";
    g.extraArgs = "bias";
    t.args.push_back(pointerArg("bias", "f32", "in", "n", uniformDist(-1, 1)));
    for (const char *p : {"m", "n", "k"})
      t.args.push_back(sizeArg(p));
    what = std::string("C = ") + act.first + "(A B + bias[j])";
  }
  t.configs = {config("small", {{"m", rng.uniformInt(10, 40) * 2 + 1}, {"n", rng.uniformInt(10, 40) * 2 + 1},
                                {"k", rng.uniformInt(10, 40) * 2 + 1}}),
               config("large", {{"m", s.m}, {"n", s.n}, {"k", s.k}})};
  t.description = what + fmt::format(", A (m x k), B stored {}, float, row-major.", g.transB ? "n x k" : "k x n");
  t.params = Json{{"epilogue", what}, {"shape", s.name}, {"layout", layoutName(false, g.transB)}};
  t.variant = fmt::format("{}/{}", kind, s.name);
  t.tolerances = gemmTolerance("f32");
  t.reference = gemmReference(t, g);
  t.impls = gemmImplementations(t, g, rng);
}

// --- batched_gemm (C) / pt_bmm: many small products ---------------------------------------
void makeBatched(TaskSpec &t, Rng &rng) {
  bool py = t.kind == Kind::PyTorch;
  GemmSpec g;
  g.batch = "batch";
  if (py) {
    g.batch = "batch_size";
    g.out = "out";
  }
  std::vector<int> sizes = {8, 16, 24, 32, 48, 64, 96, 128};
  int m = rng.pick(sizes), n = rng.pick(sizes), k = rng.pick(sizes);
  long long batch = std::max(2ll, std::min<long long>(4096, (1ll << rng.uniformInt(24, 27)) / ((long long)m * n * k)));
  while (batch * ((long long)m * k + (long long)k * n + (long long)m * n) * 4 > (48ll << 20))
    batch /= 2;
  std::string bn = g.batch;
  matmulArgs(t, g, "f32", "m", "n", "k", bn, false);
  if (py) {
    t.args[0].shape = {bn, "m", "k"};
    t.args[1].shape = {bn, "k", "n"};
    t.args[2].shape = {bn, "m", "n"};
  }
  for (const std::string &p : {bn, std::string("m"), std::string("k"), std::string("n")})
    t.args.push_back(sizeArg(p));
  t.configs = {config("small", {{bn, 3}, {"m", rng.uniformInt(2, 20) * 2 + 1}, {"k", rng.uniformInt(2, 20) * 2 + 1},
                                {"n", rng.uniformInt(2, 20) * 2 + 1}}),
               config("large", {{bn, double(batch)}, {"m", m}, {"k", k}, {"n", n}})};
  t.description = "out[b] = A[b] @ B[b] for a batch of (m x k) @ (k x n) float products.";
  t.params = Json{{"m", m}, {"n", n}, {"k", k}, {"batch", batch}};
  t.variant = fmt::format("{}x{}x{}", m, n, k);
  t.tolerances = gemmTolerance("f32");
  t.impls = gemmImplementations(t, g, rng);
  if (!py) {
    t.reference = gemmReference(t, g);
    return;
  }
  PyModel pm;
  pm.doc = t.description;
  pm.forwardParams = "A, B";
  pm.forwardBody = {"return torch.bmm(A, B)"};
  pm.inputs = {"A = torch.randn(batch_size, m, k)", "B = torch.randn(batch_size, k, n)"};
  pm.inputList = "[A, B]";
  setModel(t, pm);
}

// --- pt_matmul: torch.matmul with transposed operands --------------------------------------
void makeTorchMatmul(TaskSpec &t, Rng &rng) {
  GemmSpec g;
  int layout = rng.uniformInt(0, 2);
  g.transA = layout == 1;
  g.transB = layout == 2;
  g.out = "out";
  const Shape &s = rng.pick(kShapes);
  matmulArgs(t, g, "f32", "M", "N", "K", "1", false);
  t.args[0].shape = g.transA ? std::vector<std::string>{"K", "M"} : std::vector<std::string>{"M", "K"};
  t.args[1].shape = g.transB ? std::vector<std::string>{"N", "K"} : std::vector<std::string>{"K", "N"};
  t.args[2].shape = {"M", "N"};
  g.m = "M";
  g.n = "N";
  g.k = "K";
  for (const char *p : {"M", "K", "N"})
    t.args.push_back(sizeArg(p));
  t.configs = {config("small", {{"M", rng.uniformInt(10, 40) * 2 + 1}, {"K", rng.uniformInt(10, 40) * 2 + 1},
                                {"N", rng.uniformInt(10, 40) * 2 + 1}}),
               config("large", {{"M", s.m}, {"K", s.k}, {"N", s.n}})};
  const char *torch = layout == 0 ? "torch.matmul(A, B)" : layout == 1 ? "torch.matmul(A.T, B)" : "torch.matmul(A, B.T)";
  t.description = std::string("out = ") + torch + fmt::format(" (A is {}, B is {}).", g.transA ? "(K, M)" : "(M, K)",
                                                               g.transB ? "(N, K)" : "(K, N)");
  t.params = Json{{"layout", layoutName(g.transA, g.transB)}, {"shape", s.name}};
  t.variant = layoutName(g.transA, g.transB) + "/" + s.name;
  t.tolerances = gemmTolerance("f32");
  t.impls = gemmImplementations(t, g, rng);
  PyModel pm;
  pm.doc = t.description;
  pm.forwardParams = "A, B";
  pm.forwardBody = {std::string("return ") + torch};
  pm.inputs = {std::string("A = torch.randn(") + (g.transA ? "K, M" : "M, K") + ")",
               std::string("B = torch.randn(") + (g.transB ? "N, K" : "K, N") + ")"};
  pm.inputList = "[A, B]";
  setModel(t, pm);
}

// --- pt_linear: nn.Linear then an activation -------------------------------------------------
void makeTorchLinear(TaskSpec &t, Rng &rng) {
  static const std::vector<std::tuple<const char *, const char *, const char *>> acts = {
      {"none", "${v}", "{x}"}, {"relu", "fmaxf(${v}, 0.0f)", "torch.relu({x})"},
      {"gelu", "0.5f * (${v}) * (1.0f + erff((${v}) * 0.70710678118654752f))", "F.gelu({x})"},
      {"sigmoid", "1.0f / (1.0f + expf(-(${v})))", "torch.sigmoid({x})"}, {"tanh", "tanhf(${v})", "torch.tanh({x})"}};
  auto [name, c, torchAct] = rng.pick(acts);
  GemmSpec g;
  g.a = "x";
  g.b = "fc_weight";
  g.out = "out";
  g.transB = true; // weight is (out_features, in_features)
  g.m = "batch_size";
  g.n = "out_features";
  g.k = "in_features";
  g.epilogue = render(c, {{"v", "${acc} + fc_bias[${j}]"}});
  g.extraParams = "const float *__restrict__ fc_bias";
  g.extraArgs = "fc_bias";
  const Shape &s = rng.pick(kShapes);
  t.args = {pointerArg("x", "f32", "in", "batch_size * in_features", normalDist(0, 1)),
            pointerArg("fc_weight", "f32", "in", "out_features * in_features", uniformDist(-0.05, 0.05)),
            pointerArg("fc_bias", "f32", "in", "out_features", uniformDist(-0.05, 0.05)),
            pointerArg("out", "f32", "out", "batch_size * out_features")};
  t.args[0].shape = {"batch_size", "in_features"};
  t.args[1].shape = {"out_features", "in_features"};
  t.args[2].shape = {"out_features"};
  t.args[3].shape = {"batch_size", "out_features"};
  for (const char *p : {"batch_size", "in_features", "out_features"})
    t.args.push_back(sizeArg(p));
  t.configs = {config("small", {{"batch_size", rng.uniformInt(1, 20) * 2 + 1}, {"in_features", rng.uniformInt(10, 60) * 2 + 1},
                                {"out_features", rng.uniformInt(10, 60) * 2 + 1}}),
               config("large", {{"batch_size", s.m}, {"in_features", s.k}, {"out_features", s.n}})};
  std::string torch = torchAct;
  torch.replace(torch.find("{x}"), 3, "self.fc(x)");
  t.description = "out = " + torch + ", self.fc = nn.Linear(in_features, out_features).";
  t.params = Json{{"activation", name}, {"shape", s.name}};
  t.variant = std::string(name) + "/" + s.name;
  t.tolerances = gemmTolerance("f32");
  t.impls = gemmImplementations(t, g, rng);
  PyModel pm;
  pm.doc = t.description;
  pm.initParams = "in_features, out_features";
  pm.initBody = {"self.fc = nn.Linear(in_features, out_features)"};
  pm.forwardBody = {"return " + torch};
  pm.inputs = {"x = torch.randn(batch_size, in_features)"};
  pm.initInputs = "[in_features, out_features]";
  setModel(t, pm);
}

} // namespace

void addGemmFamilies(std::vector<Family> &out) {
  out.push_back({"matmul", Kind::C, "matrix products in four layouts (NN, NT, TN, TT) and seven shapes (f32, f64)",
                 false, 80, [](TaskSpec &t, Rng &r, int) { makeMatmul(t, r); }});
  out.push_back({"gemm_epilogue", Kind::C, "alpha A B + beta C and act(A B + bias) epilogues", false, 75,
                 [](TaskSpec &t, Rng &r, int) { makeGemmEpilogue(t, r); }});
  out.push_back({"batched_gemm", Kind::C, "batches of small matrix products (8 to 128 per side)", true, 75,
                 [](TaskSpec &t, Rng &r, int) { makeBatched(t, r); }});
}

void addPyTorchGemmFamilies(std::vector<Family> &out) {
  out.push_back({"pt_matmul", Kind::PyTorch, "torch.matmul of (M, K) and (K, N), with transposed operands", false,
                 40, [](TaskSpec &t, Rng &r, int) { makeTorchMatmul(t, r); }});
  out.push_back({"pt_linear", Kind::PyTorch, "nn.Linear followed by an activation", false, 45,
                 [](TaskSpec &t, Rng &r, int) { makeTorchLinear(t, r); }});
  out.push_back({"pt_bmm", Kind::PyTorch, "torch.bmm of batches of small matrices", false, 40,
                 [](TaskSpec &t, Rng &r, int) { makeBatched(t, r); }});
}

} // namespace cudaperf::dataset
