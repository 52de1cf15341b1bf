// C->CUDA elementwise families: out[i] = f(inputs[i]) over n elements, with the shared
// elementwise implementations (Map.h). One section per family.
#include "Expr.h"
#include "Map.h"

#include "cudaperf/Dataset/Family.h"

#include <fmt/format.h>

#include <cmath>

namespace cudaperf::dataset {

namespace {

int dtypeBytes(const std::string &d) { return d == "f64" || d == "i64" ? 8 : d == "u8" ? 1 : 4; }

// small: a few thousand elements, never a multiple of 4; large: 1-8 M elements within ~48 MB.
std::vector<ConfigSpec> elementCountConfigs(Rng &rng, int bytesPerElement) {
  int small = rng.uniformInt(125, 1249) * 4 + rng.uniformInt(1, 3);
  long long cap = (48ll << 20) / bytesPerElement;
  long long large = std::min<long long>(cap, (1ll << rng.uniformInt(20, 23)) + rng.pick(std::vector<int>{0, 1, 3, 37, 255}));
  return {config("small", {{"n", small}}), config("large", {{"n", double(large)}})};
}

// The map task: args in order inputs, output, n, scalars; reference and implementations.
void finishMapTask(TaskSpec &t, Rng &rng, MapSpec &m, const std::vector<Json> &inputDists,
                   const std::vector<ArgSpec> &scalarArgs, bool outputInout, Json outputDist = nullptr) {
  int bytes = dtypeBytes(m.output.dtype);
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    t.args.push_back(pointerArg(m.inputs[i].name, m.inputs[i].dtype, "in", "n", inputDists[i]));
    bytes += dtypeBytes(m.inputs[i].dtype);
  }
  t.args.push_back(pointerArg(m.output.name, m.output.dtype, outputInout ? "inout" : "out", "n",
                              outputInout ? outputDist : Json()));
  t.args.push_back(sizeArg("n"));
  for (const auto &s : scalarArgs) {
    t.args.push_back(s);
    m.scalars.push_back({s.name, cType(s.dtype)});
  }
  m.outputIsRead = outputInout;
  t.configs = elementCountConfigs(rng, bytes);
  t.reference = mapReference(t, m);
  t.impls = mapImplementations(t, m, rng);
}

Json inputRange(Rng &rng) {
  return rng.chance(0.5) ? uniformDist(-1, 1) : normalDist(0, 1);
}

// --- map_expr_f32 / map_expr_f64 / map_expr2_f32: random expression trees ------------------
void makeExprTask(TaskSpec &t, Rng &rng, const std::string &dtype, int operands) {
  std::vector<std::string> names = {"x", "y", "z"};
  names.resize(size_t(operands));
  ExprText e = randomExpr(rng, names, dtype, rng.uniformInt(2, 4));
  MapSpec m;
  std::vector<Json> dists;
  for (const auto &n : names) {
    m.inputs.push_back({n, dtype});
    dists.push_back(inputRange(rng));
  }
  m.output = {"out", dtype};
  m.expr = e.c;
  Vars plain;
  for (const auto &n : names)
    plain[n] = n;
  t.description = "out[i] = " + render(e.c, plain) + " for i < n.";
  t.params = Json{{"dtype", dtype}, {"operands", operands}, {"expr", render(e.c, plain)}, {"nodes", e.nodes}};
  t.variant = render(e.c, plain);
  if (dtype == "f32")
    t.tolerances = Json{{"f32", Json{{"atol", 1e-4}, {"rtol", 1e-4}}}};
  finishMapTask(t, rng, m, dists, {}, false);
}

// --- map_int: integer expressions (i32 and u32) --------------------------------------------
struct IntExpr {
  const char *name;
  const char *expr; // ${a}, ${b}; ${c1}.. constants
};
const std::vector<IntExpr> kIntExprs = {
    {"affine_mod", "(${a} * ${c1} + ${b}) % ${c2}"},
    {"xor_mask", "(${a} ^ ${b}) & ${c3}"},
    {"shift_mix", "(${a} << ${s1}) + (${b} >> ${s2})"},
    {"abs_diff", "${a} > ${b} ? ${a} - ${b} : ${b} - ${a}"},
    {"clamp_sum", "imin(imax(${a} + ${b} - ${c1}, ${c4}), ${c2})"},
    {"select_parity", "(${a} & 1) ? ${a} * ${c1} : ${b} + ${c2}"},
    {"hash_mix", "((${a} * ${c5}) ^ (${b} + ${c1})) & ${c3}"},
};

void makeIntTask(TaskSpec &t, Rng &rng) {
  const IntExpr &ie = rng.pick(kIntExprs);
  std::string dtype = rng.chance(0.5) ? "i32" : "u32";
  auto lit = [&](int v) { return cLiteral(v, dtype); };
  Vars consts{{"a", "${a}"}, {"b", "${b}"}, {"c1", lit(rng.uniformInt(2, 97))}, {"c2", lit(rng.uniformInt(50, 1000))},
              {"c3", lit((1 << rng.uniformInt(4, 15)) - 1)}, {"c4", lit(rng.uniformInt(0, 40))},
              {"c5", lit(rng.pick(std::vector<int>{31, 131, 2654435}))}, {"s1", lit(rng.uniformInt(1, 7))},
              {"s2", lit(rng.uniformInt(1, 5))}};
  MapSpec m;
  m.inputs = {{"a", dtype}, {"b", dtype}};
  m.output = {"out", dtype};
  m.expr = render(ie.expr, consts);
  std::string helper = dtype == "i32" ? "int" : "unsigned int";
  m.deviceHelpers = fmt::format("__device__ inline {0} imin({0} a, {0} b) {{ return a < b ? a : b; }}\n"
                                "__device__ inline {0} imax({0} a, {0} b) {{ return a > b ? a : b; }}\n", helper);
  if (dtype == "u32")
    m.hostHelpers = "static inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }\n"
                    "static inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }\n"
                    "#define imin umin\n#define imax umax\n";
  int hi = ie.name == std::string("hash_mix") ? 100000 : 5000;
  Vars plain{{"a", "a"}, {"b", "b"}};
  t.description = "out[i] = " + render(m.expr, plain) + " on " + cType(dtype) + " (integer arithmetic, exact).";
  t.params = Json{{"dtype", dtype}, {"op", ie.name}, {"expr", render(m.expr, plain)}};
  t.variant = std::string(ie.name) + "/" + dtype;
  finishMapTask(t, rng, m, {uniformDist(0, hi), uniformDist(0, hi)}, {}, false);
}

// --- map_u8: 8-bit image point operations (integer arithmetic, exact) ------------------------
void makeU8Task(TaskSpec &t, Rng &rng) {
  struct Op {
    const char *name;
    int inputs;
    const char *expr;
  };
  static const std::vector<Op> ops = {
      {"contrast", 1, "u8clamp(((int)${a} * ${k} + ${b0}) >> 6)"},
      {"threshold", 1, "${a} > ${th} ? 255 : 0"},
      {"invert", 1, "255 - ${a}"},
      {"blend", 2, "(${a} * ${w} + ${b} * (256 - ${w})) >> 8"},
      {"abs_diff", 2, "${a} > ${b} ? ${a} - ${b} : ${b} - ${a}"},
      {"saturating_add", 2, "u8clamp((int)${a} + (int)${b})"},
      {"posterize", 1, "(${a} >> ${s}) << ${s}"},
      {"max_of", 2, "${a} > ${b} ? ${a} : ${b}"},
  };
  const Op &op = rng.pick(ops);
  Vars v{{"a", "${a}"}, {"b", "${b}"}, {"k", std::to_string(rng.uniformInt(32, 160))},
         {"b0", std::to_string(rng.uniformInt(-4000, 4000))}, {"th", std::to_string(rng.uniformInt(20, 230))},
         {"w", std::to_string(rng.uniformInt(16, 240))}, {"s", std::to_string(rng.uniformInt(1, 6))}};
  MapSpec m;
  m.inputs = {{"a", "u8"}};
  std::vector<Json> dists{uniformDist(0, 255)};
  if (op.inputs == 2) {
    m.inputs.push_back({"b", "u8"});
    dists.push_back(uniformDist(0, 255));
  }
  m.output = {"out", "u8"};
  m.expr = render(op.expr, v);
  const char *clamp = "inline int u8clamp(int v) { return v < 0 ? 0 : v > 255 ? 255 : v; }\n";
  m.deviceHelpers = std::string("__device__ ") + clamp;
  m.hostHelpers = std::string("static ") + clamp;
  Vars plain{{"a", "a"}, {"b", "b"}};
  t.description = "An 8-bit image point operation (" + std::string(op.name) + "): out[i] = " + render(m.expr, plain) + ".";
  t.params = Json{{"op", op.name}, {"expr", render(m.expr, plain)}};
  t.variant = op.name;
  finishMapTask(t, rng, m, dists, {}, false);
}

// --- axpy: BLAS-1 vector updates -----------------------------------------------------------
void makeAxpyTask(TaskSpec &t, Rng &rng) {
  struct Op {
    const char *name;
    const char *expr; // over ${x}, ${y} (y is the output, read when inout)
    bool inout, usesX, usesBeta;
  };
  static const std::vector<Op> ops = {
      {"axpy", "alpha * ${x} + ${y}", true, true, false},
      {"axpby", "alpha * ${x} + beta * ${y}", true, true, true},
      {"xpay", "${x} + alpha * ${y}", true, true, false},
      {"scal", "alpha * ${y}", true, false, false},
      {"waxpby", "alpha * ${x} + beta * ${z}", false, true, true},
  };
  const Op &op = rng.pick(ops);
  std::string dtype = rng.chance(0.6) ? "f32" : "f64";
  MapSpec m;
  std::vector<Json> dists;
  if (op.usesX) {
    m.inputs.push_back({"x", dtype});
    dists.push_back(uniformDist(-1, 1));
  }
  if (!op.inout) {
    m.inputs.push_back({"z", dtype});
    dists.push_back(uniformDist(-1, 1));
  }
  m.output = {op.inout ? "y" : "w", dtype};
  m.expr = op.expr;
  std::vector<ArgSpec> scalars{scalarArg("alpha", dtype, std::round(rng.uniform(-4, 4) * 16) / 16)};
  if (op.usesBeta)
    scalars.push_back(scalarArg("beta", dtype, std::round(rng.uniform(-2, 2) * 16) / 16));
  Vars plain{{"x", "x"}, {"y", "y"}, {"z", "z"}};
  t.description = std::string("BLAS-1 ") + op.name + ": " + m.output.name + "[i] = " + render(m.expr, plain) +
                  (op.inout ? " (y is read and written)." : ".");
  t.params = Json{{"op", op.name}, {"dtype", dtype}, {"alpha", scalars[0].value.value()}};
  t.variant = std::string(op.name) + "/" + dtype;
  finishMapTask(t, rng, m, dists, scalars, op.inout, uniformDist(-2, 2));
}

// --- polynomial: Horner evaluation of a random polynomial (compute grows with the degree) ----
void makePolynomialTask(TaskSpec &t, Rng &rng) {
  std::string dtype = rng.chance(0.7) ? "f32" : "f64";
  int degree = rng.uniformInt(3, 16);
  std::string sfx = dtype == "f32" ? "f" : "";
  std::vector<double> coeffs;
  for (int k = 0; k <= degree; ++k)
    coeffs.push_back(std::round(rng.uniform(-1, 1) * 64) / 64);
  std::string e = cLiteral(coeffs[size_t(degree)], dtype);
  for (int k = degree - 1; k >= 0; --k)
    e = "fma" + sfx + "(" + e + ", ${x}, " + cLiteral(coeffs[size_t(k)], dtype) + ")";
  MapSpec m;
  m.inputs = {{"x", dtype}};
  m.output = {"out", dtype};
  m.expr = e;
  t.description = fmt::format("out[i] = p(x[i]) for a polynomial of degree {} (Horner's rule with fma).", degree);
  t.params = Json{{"dtype", dtype}, {"degree", degree}, {"coefficients", coeffs}};
  t.variant = fmt::format("{}/{}", dtype, degree);
  finishMapTask(t, rng, m, {uniformDist(-1, 1)}, {}, false);
}

// --- piecewise: data-dependent branches (divergent warps) ----------------------------------
void makePiecewiseTask(TaskSpec &t, Rng &rng) {
  int pieces = rng.uniformInt(2, 4);
  std::vector<double> cuts;
  for (int k = 1; k < pieces; ++k)
    cuts.push_back(std::round((-1 + 2.0 * k / pieces + rng.uniform(-0.1, 0.1)) * 32) / 32);
  std::string e;
  Vars plain{{"x", "x"}};
  std::vector<std::string> branches;
  for (int k = 0; k < pieces; ++k)
    branches.push_back(randomExpr(rng, {"x"}, "f32", rng.uniformInt(1, 3)).c);
  e = branches.back();
  for (int k = pieces - 2; k >= 0; --k)
    e = "(${x} < " + cLiteral(cuts[size_t(k)], "f32") + " ? " + branches[size_t(k)] + " : " + e + ")";
  MapSpec m;
  m.inputs = {{"x", "f32"}};
  m.output = {"out", "f32"};
  m.expr = e;
  t.description = "A piecewise function of x[i] (branches chosen by the input: divergent warps): out[i] = " +
                  render(e, plain) + ".";
  t.params = Json{{"pieces", pieces}, {"cuts", cuts}, {"expr", render(e, plain)}};
  t.variant = render(e, plain);
  t.tolerances = Json{{"f32", Json{{"atol", 1e-4}, {"rtol", 1e-4}}}};
  finishMapTask(t, rng, m, {uniformDist(-1, 1)}, {}, false);
}

// --- convert: dtype conversions with scaling (exact: power-of-two scales, floor) ------------
void makeConvertTask(TaskSpec &t, Rng &rng) {
  struct Op {
    const char *name, *from, *to, *expr;
    double lo, hi;
  };
  static const std::vector<Op> ops = {
      {"u8_to_f32_normalize", "u8", "f32", "((float)${a} - ${meanf}) * ${scalef}", 0, 255},
      {"f32_to_i32_fixed_point", "f32", "i32", "(int)floorf(${a} * ${pow2f})", -8, 8},
      {"f32_to_u8_quantize", "f32", "u8", "(unsigned char)fminf(fmaxf(floorf(${a} * 128.0f) + 128.0f, 0.0f), 255.0f)", -1.2, 1.2},
      {"i32_to_f64_scale", "i32", "f64", "(double)${a} * ${scaled} + ${meand}", -100000, 100000},
      {"f64_to_f32_round", "f64", "f32", "(float)(${a} * ${scaled})", -10, 10},
      {"u8_to_i32_centered", "u8", "i32", "(int)${a} - ${imean}", 0, 255},
  };
  const Op &op = rng.pick(ops);
  double mean = rng.uniformInt(0, 255), scale = std::ldexp(1.0, -rng.uniformInt(1, 9));
  Vars v{{"a", "${a}"}, {"meanf", cLiteral(mean, "f32")}, {"scalef", cLiteral(scale, "f32")},
         {"meand", cLiteral(mean, "f64")}, {"scaled", cLiteral(scale, "f64")},
         {"pow2f", cLiteral(std::ldexp(1.0, rng.uniformInt(2, 12)), "f32")},
         {"imean", std::to_string(rng.uniformInt(64, 192))}};
  MapSpec m;
  m.inputs = {{"a", op.from}};
  m.output = {"out", op.to};
  m.expr = render(op.expr, v);
  Vars plain{{"a", "a"}};
  t.description = std::string("Convert ") + cType(op.from) + " to " + cType(op.to) + " (" + op.name +
                  "): out[i] = " + render(m.expr, plain) + ".";
  t.params = Json{{"op", op.name}, {"expr", render(m.expr, plain)}};
  t.variant = op.name;
  finishMapTask(t, rng, m, {uniformDist(op.lo, op.hi)}, {}, false);
}

} // namespace

void addMapFamilies(std::vector<Family> &out) {
  out.push_back({"map_expr_f32", Kind::C, "float32 elementwise maps of random expression trees (sin, exp, tanh, "
                 "sigmoid, sqrt, min/max, fma; depth 2-4)", false, 80,
                 [](TaskSpec &t, Rng &r, int) { makeExprTask(t, r, "f32", 1); }});
  out.push_back({"map_expr2_f32", Kind::C, "float32 maps of two or three inputs, random expression trees", false, 80,
                 [](TaskSpec &t, Rng &r, int) { makeExprTask(t, r, "f32", r.uniformInt(2, 3)); }});
  out.push_back({"map_expr_f64", Kind::C, "float64 maps of random expression trees of one or two inputs", false, 75,
                 [](TaskSpec &t, Rng &r, int) { makeExprTask(t, r, "f64", r.uniformInt(1, 2)); }});
  out.push_back({"map_int", Kind::C, "int32 / uint32 elementwise integer arithmetic (mod, shifts, masks, selects)",
                 false, 75, [](TaskSpec &t, Rng &r, int) { makeIntTask(t, r); }});
  out.push_back({"map_u8", Kind::C, "8-bit image point operations (contrast, threshold, blend, saturating add)",
                 false, 75, [](TaskSpec &t, Rng &r, int) { makeU8Task(t, r); }});
  out.push_back({"axpy", Kind::C, "BLAS-1 vector updates: axpy, axpby, xpay, scal, waxpby (f32, f64)", false, 75,
                 [](TaskSpec &t, Rng &r, int) { makeAxpyTask(t, r); }});
  out.push_back({"polynomial", Kind::C, "Horner evaluation of random polynomials of degree 3-16 (f32, f64)", false,
                 75, [](TaskSpec &t, Rng &r, int) { makePolynomialTask(t, r); }});
  out.push_back({"piecewise", Kind::C, "piecewise functions selected by the input value (divergent branches)", true,
                 75, [](TaskSpec &t, Rng &r, int) { makePiecewiseTask(t, r); }});
  out.push_back({"convert", Kind::C, "dtype conversions with scaling (u8, i32, f32, f64)", false, 75,
                 [](TaskSpec &t, Rng &r, int) { makeConvertTask(t, r); }});
}

} // namespace cudaperf::dataset
