#include "Expr.h"

#include "cudaperf/Dataset/Spec.h"

#include <cmath>

namespace cudaperf::dataset {

namespace {

struct Math {
  std::string sfx; // "f" for float functions
  std::string dtype;
  std::string fn(const std::string &name) const { return name + sfx; }
  std::string lit(double v) const { return cLiteral(v, dtype); }
};

double pickConstant(Rng &rng) {
  // Constants with few significant digits, so C and Python spell the same value.
  return std::round(rng.uniform(0.25, 2.0) * 8) / 8;
}

ExprText leaf(Rng &rng, const std::vector<std::string> &ops, const Math &m) {
  const std::string &x = rng.pick(ops);
  ExprText e{"${" + x + "}", x, 1};
  if (rng.chance(0.3)) {
    double c = pickConstant(rng);
    e.c = "(" + e.c + " * " + m.lit(c) + ")";
    e.torch = "(" + e.torch + " * " + pyLiteral(c) + ")";
  }
  return e;
}

} // namespace

ExprText randomExpr(Rng &rng, const std::vector<std::string> &ops, const std::string &dtype, int depth) {
  Math m{dtype == "f32" ? "f" : "", dtype};
  if (depth <= 0 || rng.chance(0.15))
    return leaf(rng, ops, m);
  int kind = rng.uniformInt(0, 13);
  if (kind < 8) { // unary
    ExprText a = randomExpr(rng, ops, dtype, depth - 1);
    ExprText e;
    e.nodes = a.nodes + 1;
    switch (kind) {
    case 0: e = {m.fn("sin") + "(" + a.c + ")", "torch.sin(" + a.torch + ")", 0}; break;
    case 1: e = {m.fn("cos") + "(" + a.c + ")", "torch.cos(" + a.torch + ")", 0}; break;
    case 2: e = {m.fn("tanh") + "(" + a.c + ")", "torch.tanh(" + a.torch + ")", 0}; break;
    case 3: e = {m.fn("exp") + "(-" + m.fn("fabs") + "(" + a.c + "))", "torch.exp(-torch.abs(" + a.torch + "))", 0}; break;
    case 4:
      e = {"(" + m.lit(1) + " / (" + m.lit(1) + " + " + m.fn("exp") + "(-(" + a.c + "))))",
           "torch.sigmoid(" + a.torch + ")", 0};
      break;
    case 5: {
      double c = pickConstant(rng);
      e = {m.fn("sqrt") + "(" + m.fn("fabs") + "(" + a.c + ") + " + m.lit(c) + ")",
           "torch.sqrt(torch.abs(" + a.torch + ") + " + pyLiteral(c) + ")", 0};
      break;
    }
    case 6:
      e = {"(" + a.c + " / (" + m.lit(1) + " + " + m.fn("fabs") + "(" + a.c + ")))",
           "(" + a.torch + " / (1 + torch.abs(" + a.torch + ")))", 0};
      break;
    default: e = {"(" + a.c + " * " + a.c + ")", "(" + a.torch + " * " + a.torch + ")", 0}; break;
    }
    e.nodes = a.nodes + 1;
    return e;
  }
  ExprText a = randomExpr(rng, ops, dtype, depth - 1), b = randomExpr(rng, ops, dtype, depth - 1);
  ExprText e;
  switch (kind) {
  case 8: e = {"(" + a.c + " + " + b.c + ")", "(" + a.torch + " + " + b.torch + ")", 0}; break;
  case 9: e = {"(" + a.c + " - " + b.c + ")", "(" + a.torch + " - " + b.torch + ")", 0}; break;
  case 10: e = {"(" + a.c + " * " + b.c + ")", "(" + a.torch + " * " + b.torch + ")", 0}; break;
  case 11: e = {m.fn("fmax") + "(" + a.c + ", " + b.c + ")", "torch.maximum(" + a.torch + ", " + b.torch + ")", 0}; break;
  case 12: e = {m.fn("fmin") + "(" + a.c + ", " + b.c + ")", "torch.minimum(" + a.torch + ", " + b.torch + ")", 0}; break;
  default: {
    double c = pickConstant(rng);
    e = {m.fn("fma") + "(" + a.c + ", " + m.lit(c) + ", " + b.c + ")",
         "(" + a.torch + " * " + pyLiteral(c) + " + " + b.torch + ")", 0};
    break;
  }
  }
  e.nodes = a.nodes + b.nodes + 1;
  return e;
}

} // namespace cudaperf::dataset
