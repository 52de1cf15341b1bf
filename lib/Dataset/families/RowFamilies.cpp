// Row-wise families (reductions, softmax variants, normalizations) of both kinds, on the row
// skeleton (Rows.h). One table of operations; each family draws from its part of it.
#include "PyModel.h"
#include "Rows.h"

#include "cudaperf/Dataset/Family.h"

#include <fmt/format.h>

namespace cudaperf::dataset {

namespace {

struct RowOp {
  std::string name;
  RowSpec spec;               // without names of sizes and column vectors
  std::string torch;          // forward's return expression over x and the module's attributes
  std::vector<std::string> init; // __init__ lines (parameters)
  int columnVectors = 0;      // 1: a scale (gamma / weight), 2: scale and shift
  double atol = 1e-4, rtol = 1e-3;
  std::string describe;
};

RowPass pass(const std::string &name, const std::string &element, Combine c, const std::string &finish = "${acc}") {
  return RowPass{name, element, c, finish};
}

RowOp makeRowOp(Rng &rng, const std::string &name, bool pytorch) {
  RowOp o;
  o.name = name;
  RowSpec &s = o.spec;
  auto eps = [&] { return rng.pick(std::vector<double>{1e-5, 1e-6, 1e-3}); };
  if (name == "sum") {
    s.passes = {pass("s", "${x}", Combine::Sum)};
    s.output = "s";
    o.torch = "torch.sum(x, dim=-1)";
    o.describe = "the sum of each row";
  } else if (name == "mean") {
    s.passes = {pass("s", "${x}", Combine::Sum, "${acc} / (float)cols")};
    s.output = "s";
    o.torch = "torch.mean(x, dim=-1)";
    o.describe = "the mean of each row";
  } else if (name == "max" || name == "min") {
    s.passes = {pass("m", "${x}", name == "max" ? Combine::Max : Combine::Min)};
    s.output = "m";
    o.torch = std::string("torch.a") + name + "(x, dim=-1)";
    o.describe = "the " + name + "imum of each row";
  } else if (name == "l2norm") {
    s.passes = {pass("s", "${x} * ${x}", Combine::Sum, "sqrtf(${acc})")};
    s.output = "s";
    o.torch = "torch.sqrt(torch.sum(x * x, dim=-1))";
    o.describe = "the Euclidean norm of each row";
  } else if (name == "l1norm") {
    s.passes = {pass("s", "fabsf(${x})", Combine::Sum)};
    s.output = "s";
    o.torch = "torch.sum(torch.abs(x), dim=-1)";
    o.describe = "the L1 norm of each row";
  } else if (name == "logsumexp") {
    s.passes = {pass("m", "${x}", Combine::Max), pass("s", "expf(${x} - m)", Combine::Sum, "m + logf(${acc})")};
    s.output = "s";
    o.torch = "torch.logsumexp(x, dim=-1)";
    o.describe = "log(sum(exp(x))) of each row (max-shifted)";
  } else if (name == "var") {
    s.passes = {pass("mean", "${x}", Combine::Sum, "${acc} / (float)cols"),
                pass("v", "(${x} - mean) * (${x} - mean)", Combine::Sum, "${acc} / (float)cols")};
    s.output = "v";
    o.torch = "torch.var(x, dim=-1, unbiased=False)";
    o.describe = "the biased variance of each row (two passes)";
  } else if (name == "softmax" || name == "log_softmax" || name == "softmax_temperature") {
    double temp = name == "softmax_temperature" ? rng.pick(std::vector<double>{0.5, 2.0, 4.0, 0.25}) : 1.0;
    std::string scaled = temp == 1.0 ? "${x}" : "(${x} * " + cLiteral(1.0 / temp, "f32") + ")";
    s.passes = {pass("m", scaled, Combine::Max), pass("s", "expf(" + scaled + " - m)", Combine::Sum)};
    s.perElement = true;
    s.output = name == "log_softmax" ? scaled + " - m - logf(s)" : "expf(" + scaled + " - m) / s";
    o.torch = name == "log_softmax" ? "torch.log_softmax(x, dim=-1)"
              : temp == 1.0 ? "torch.softmax(x, dim=-1)"
                            : "torch.softmax(x * " + pyLiteral(1.0 / temp) + ", dim=-1)";
    o.atol = 1e-6;
    o.describe = name == "log_softmax" ? "log-softmax over each row" : "softmax over each row" +
                 std::string(temp == 1.0 ? "" : fmt::format(" of x / {}", temp));
  } else if (name == "layernorm") {
    double e = eps();
    s.passes = {pass("mean", "${x}", Combine::Sum, "${acc} / (float)cols"),
                pass("rstd", "(${x} - mean) * (${x} - mean)", Combine::Sum,
                     "rsqrtf(${acc} / (float)cols + " + cLiteral(e, "f32") + ")")};
    s.perElement = true;
    s.output = "(${x} - mean) * rstd * ${gamma} + ${beta}";
    o.columnVectors = 2;
    o.init = {"self.ln = nn.LayerNorm(dim, eps=" + pyLiteral(e) + ")"};
    o.torch = "self.ln(x)";
    o.describe = fmt::format("layer normalization of each row (biased variance, eps {}), scaled and shifted", e);
  } else if (name == "rmsnorm") {
    double e = eps();
    s.passes = {pass("scale", "${x} * ${x}", Combine::Sum, "rsqrtf(${acc} / (float)cols + " + cLiteral(e, "f32") + ")")};
    s.perElement = true;
    s.output = "${x} * scale * ${gamma}";
    o.columnVectors = 1;
    o.init = {"self.weight = nn.Parameter(torch.ones(dim))"};
    o.torch = "x * torch.rsqrt(torch.mean(x * x, dim=-1, keepdim=True) + " + pyLiteral(e) + ") * self.weight";
    o.describe = fmt::format("RMS normalization of each row (eps {}) times a per-column weight", e);
  } else if (name == "l2_normalize") {
    s.passes = {pass("norm", "${x} * ${x}", Combine::Sum, "fmaxf(sqrtf(${acc}), 1e-12f)")};
    s.perElement = true;
    s.output = "${x} / norm";
    o.torch = "F.normalize(x, dim=-1)";
    o.describe = "each row divided by its Euclidean norm (at least 1e-12)";
  } else if (name == "center") {
    s.passes = {pass("mean", "${x}", Combine::Sum, "${acc} / (float)cols")};
    s.perElement = true;
    s.output = "${x} - mean";
    o.torch = "x - torch.mean(x, dim=-1, keepdim=True)";
    o.describe = "each row minus its mean";
  } else if (name == "absmax_scale") {
    s.passes = {pass("m", "fabsf(${x})", Combine::Max)};
    s.perElement = true;
    s.output = "${x} / m";
    o.torch = "x / torch.amax(torch.abs(x), dim=-1, keepdim=True)";
    o.describe = "each row divided by its largest absolute value";
  } else {
    throw DatasetError("unknown row operation " + name);
  }
  (void)pytorch;
  return o;
}

void makeRowTask(TaskSpec &t, Rng &rng, const std::vector<std::string> &ops) {
  RowOp o = makeRowOp(rng, rng.pick(ops), t.kind == Kind::PyTorch);
  RowSpec r = o.spec;
  bool py = t.kind == Kind::PyTorch;
  std::string rows = py ? "batch_size" : "rows", cols = py ? "dim" : "cols";
  r.rowsName = rows;
  r.colsName = cols;
  std::vector<std::string> vectorNames = py ? (o.columnVectors == 2 ? std::vector<std::string>{"ln_weight", "ln_bias"}
                                                                    : std::vector<std::string>{"weight"})
                                            : std::vector<std::string>{"gamma", "beta"};
  vectorNames.resize(size_t(o.columnVectors));
  Vars rename{{"x", "${x}"}, {"j", "${j}"}};
  if (o.columnVectors >= 1) rename["gamma"] = "${" + vectorNames[0] + "}";
  if (o.columnVectors >= 2) rename["beta"] = "${" + vectorNames[1] + "}";
  r.output = render(r.output, rename);
  r.columnVectors = vectorNames;
  Json xDist = rng.chance(0.5) ? normalDist(0, 1) : uniformDist(-2, 2);
  t.args.push_back(pointerArg("x", "f32", "in", rows + " * " + cols, xDist));
  t.args.back().shape = {rows, cols};
  for (size_t k = 0; k < vectorNames.size(); ++k) {
    t.args.push_back(pointerArg(vectorNames[k], "f32", "in", cols, k == 0 ? uniformDist(0.5, 1.5) : uniformDist(-0.5, 0.5)));
    t.args.back().shape = {cols};
  }
  t.args.push_back(pointerArg("out", "f32", "out", r.perElement ? rows + " * " + cols : rows));
  t.args.back().shape = r.perElement ? std::vector<std::string>{rows, cols} : std::vector<std::string>{rows};
  t.args.push_back(sizeArg(rows));
  t.args.push_back(sizeArg(cols));
  long long large = 1ll << rng.uniformInt(20, 23);
  t.configs = rowConfigs(rng, rows, cols, large);
  t.tolerances = Json{{"f32", Json{{"atol", o.atol}, {"rtol", o.rtol}}}};
  t.description = (r.perElement ? "out (" + rows + " x " + cols + ") = " : "out[r] = ") + o.describe + " of x (" +
                  rows + " x " + cols + ", row-major).";
  t.params = Json{{"op", o.name}, {"large_cols", t.configs.back().values[1].second}};
  t.variant = o.name + fmt::format("/cols{}", (long long)t.configs.back().values[1].second > 1024 ? "wide" : "narrow");
  t.impls = rowImplementations(t, r, rng);
  if (!py) {
    t.reference = rowReference(t, r);
    return;
  }
  PyModel m;
  m.doc = t.description;
  m.initParams = o.init.empty() ? "" : "dim";
  m.initBody = o.init;
  m.forwardBody = {"return " + o.torch};
  m.inputs = {"x = torch.randn(batch_size, dim)"};
  m.initInputs = o.init.empty() ? "[]" : "[dim]";
  setModel(t, m);
}

const std::vector<std::string> kReduceOps = {"sum", "mean", "max", "min", "l2norm", "l1norm", "logsumexp", "var"};
const std::vector<std::string> kSoftmaxOps = {"softmax", "log_softmax", "softmax_temperature"};
const std::vector<std::string> kNormOps = {"layernorm", "rmsnorm", "l2_normalize", "center", "absmax_scale"};

} // namespace

void addRowFamilies(std::vector<Family> &out) {
  out.push_back({"row_reduce", Kind::C, "per-row reductions of a matrix: sum, mean, max, min, norms, logsumexp, "
                 "variance", false, 80, [](TaskSpec &t, Rng &r, int) { makeRowTask(t, r, kReduceOps); }});
  out.push_back({"row_softmax", Kind::C, "row softmax, log-softmax and softmax with a temperature", false, 75,
                 [](TaskSpec &t, Rng &r, int) { makeRowTask(t, r, kSoftmaxOps); }});
  out.push_back({"row_norm", Kind::C, "row layer norm, RMS norm, L2 normalization, centering, abs-max scaling",
                 false, 75, [](TaskSpec &t, Rng &r, int) { makeRowTask(t, r, kNormOps); }});
}

void addPyTorchRowFamilies(std::vector<Family> &out) {
  out.push_back({"pt_reduce_last_dim", Kind::PyTorch, "torch reductions over the last dimension (sum, mean, amax, "
                 "amin, norms, logsumexp, var)", false, 40, [](TaskSpec &t, Rng &r, int) { makeRowTask(t, r, kReduceOps); }});
  out.push_back({"pt_softmax", Kind::PyTorch, "torch.softmax / log_softmax over the last dimension", false, 40,
                 [](TaskSpec &t, Rng &r, int) { makeRowTask(t, r, kSoftmaxOps); }});
  out.push_back({"pt_norm", Kind::PyTorch, "nn.LayerNorm, RMS norm, F.normalize and other row normalizations", true,
                 40, [](TaskSpec &t, Rng &r, int) { makeRowTask(t, r, kNormOps); }});
}

} // namespace cudaperf::dataset
