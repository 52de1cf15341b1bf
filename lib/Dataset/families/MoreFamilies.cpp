// Families that reuse the skeletons for computations of their own: image layout and
// normalization, index permutations, fake quantization (elementwise); cosine similarity,
// attention pooling, min-max normalization, clipping by norm (row); u8 image statistics
// (reduction); PyTorch pointwise ops and counts.
#include "Map.h"
#include "PyModel.h"
#include "Reduce.h"
#include "Rows.h"

#include "cudaperf/Dataset/Family.h"

#include <fmt/format.h>

#include <cmath>

namespace cudaperf::dataset {

namespace {

// --- permute_index (C): out[i] = in[p(i)] for index permutations with their own access patterns
void makePermuteIndex(TaskSpec &t, Rng &rng) {
  struct Perm {
    const char *name, *index, *what;
  };
  static const std::vector<Perm> perms = {
      {"reverse", "n - 1 - ${i}", "the reversed array"},
      {"rotate", "(${i} + shift) % n", "the array rotated left by shift"},
      {"deinterleave", "${i} < (n + 1) / 2 ? 2 * ${i} : 2 * (${i} - (n + 1) / 2) + 1", "even-indexed elements, then odd-indexed ones"},
      {"interleave", "${i} % 2 == 0 ? ${i} / 2 : (n + 1) / 2 + ${i} / 2", "the two halves interleaved"},
      {"stride_permutation", "(int)(((long long)${i} * stride) % n)", "in[(i * stride) % n] (stride odd, n a power of 2)"},
  };
  const Perm &p = rng.pick(perms);
  std::string dtype = rng.pick(std::vector<std::string>{"f32", "f64", "i32", "u8"});
  bool powerOfTwo = std::string(p.name) == "stride_permutation";
  MapSpec m;
  m.inputs = {{"in", dtype, p.index}};
  m.output = {"out", dtype, ""};
  m.expr = "${in}";
  // The kernels take the count as their n; the entry passes its copy.
  m.countCode = "  int count = n;\n";
  m.countName = "count";
  Json d = isFloatDtype(dtype) ? uniformDist(-1, 1) : dtype == "u8" ? uniformDist(0, 255) : uniformDist(-100000, 100000);
  t.args = {pointerArg("in", dtype, "in", "n", d), pointerArg("out", dtype, "out", "n"), sizeArg("n")};
  int shift = rng.uniformInt(1, 1000), stride = rng.uniformInt(1, 500) * 2 + 1;
  if (std::string(p.name) == "rotate") {
    t.args.push_back(scalarArg("shift", "i32", shift));
    m.scalars.push_back({"shift", "int"});
  }
  if (powerOfTwo) {
    t.args.push_back(scalarArg("stride", "i32", stride));
    m.scalars.push_back({"stride", "int"});
  }
  int bytes = dtype == "f64" ? 8 : dtype == "u8" ? 1 : 4;
  long long large = (16ll << 20) / bytes / rng.uniformInt(1, 2);
  long long small = rng.uniformInt(300, 3000) * 2 + 1;
  if (powerOfTwo) {
    large = 1ll << int(std::log2(double(large)));
    small = 1ll << rng.uniformInt(9, 12);
  }
  t.configs = {config("small", {{"n", double(small)}}), config("large", {{"n", double(large)}})};
  t.description = std::string("out = ") + p.what + ": out[i] = in[" + render(p.index, {{"i", "i"}}) + "] (" + cType(dtype) + ").";
  t.params = Json{{"permutation", p.name}, {"dtype", dtype}};
  t.variant = std::string(p.name) + "/" + dtype;
  t.reference = mapReference(t, m);
  t.impls = mapImplementations(t, m, rng);
}

// --- hwc_to_chw (C): interleaved image to planar, with an optional u8 -> f32 normalization ----
void makeHwcToChw(TaskSpec &t, Rng &rng) {
  int channels = rng.pick(std::vector<int>{3, 4});
  bool normalize = rng.chance(0.5);
  MapSpec m;
  // out index i = (c * hw + p); the input element is in[p * channels + c].
  m.inputs = {{"in", "u8", fmt::format("(${{i}} % hw) * {} + ${{i}} / hw", channels)}};
  m.output = {"out", normalize ? "f32" : "u8", ""};
  double scale = std::ldexp(1.0, -rng.uniformInt(7, 8));
  m.expr = normalize ? "((float)${in} - 128.0f) * " + cLiteral(scale, "f32") : "${in}";
  m.countCode = fmt::format("  int hw = height * width;\n  int n = hw * {};\n", channels);
  m.scalars = {{"hw", "int"}};
  t.args = {pointerArg("in", "u8", "in", fmt::format("height * width * {}", channels), uniformDist(0, 255)),
            pointerArg("out", normalize ? "f32" : "u8", "out", fmt::format("height * width * {}", channels)),
            sizeArg("height"), sizeArg("width")};
  int h = rng.pick(std::vector<int>{1080, 2048, 720, 1500});
  t.configs = {config("small", {{"height", rng.uniformInt(5, 30) * 2 + 1}, {"width", rng.uniformInt(5, 30) * 2 + 1}}),
               config("large", {{"height", h}, {"width", h * 4 / 3 + rng.uniformInt(0, 7)}})};
  t.description = fmt::format("An interleaved {}-channel u8 image (height x width x {}) to planar layout ({} x height x "
                              "width){}.", channels, channels, channels,
                              normalize ? fmt::format(", as float (x - 128) * {}", scale) : "");
  t.params = Json{{"channels", channels}, {"normalize", normalize}};
  t.variant = fmt::format("{}/{}", channels, normalize);
  t.reference = mapReference(t, m);
  t.impls = mapImplementations(t, m, rng);
}

// --- fake_quant (C) / pt_fake_quant: quantize to int8/uint8 levels and back -----------------
void makeFakeQuant(TaskSpec &t, Rng &rng) {
  bool py = t.kind == Kind::PyTorch;
  double scale = std::ldexp(1.0, -rng.uniformInt(3, 7)); // a power of two: x / scale is exact
  int zp = rng.pick(std::vector<int>{0, 0, 3, -5, 128}), qmin = zp == 128 ? 0 : -128, qmax = zp == 128 ? 255 : 127;
  MapSpec m;
  m.inputs = {{"x", "f32", ""}};
  m.output = {"out", "f32", ""};
  m.expr = fmt::format("(fminf(fmaxf(rintf(${{x}} * {}) + {}, {}), {}) - {}) * {}", cLiteral(1 / scale, "f32"),
                       cLiteral(zp, "f32"), cLiteral(qmin, "f32"), cLiteral(qmax, "f32"), cLiteral(zp, "f32"),
                       cLiteral(scale, "f32"));
  std::string n = py ? "batch_size * dim" : "n";
  t.args = {pointerArg("x", "f32", "in", n, normalDist(0, 2)), pointerArg("out", "f32", "out", n)};
  if (py) {
    t.args[0].shape = t.args[1].shape = {"batch_size", "dim"};
    t.args.push_back(sizeArg("batch_size"));
    t.args.push_back(sizeArg("dim"));
    m.countCode = "  int n = batch_size * dim;\n";
    t.configs = rowConfigs(rng, "batch_size", "dim", 1ll << rng.uniformInt(20, 22));
  } else {
    t.args.push_back(sizeArg("n"));
    t.configs = {config("small", {{"n", rng.uniformInt(300, 3000) * 4 + 3}}), config("large", {{"n", double(1 << rng.uniformInt(20, 23))}})};
  }
  std::string torch = fmt::format("torch.fake_quantize_per_tensor_affine(x, {}, {}, {}, {})", pyLiteral(scale), zp, qmin, qmax);
  t.description = fmt::format("Fake quantization: x rounded (half to even) to the levels of scale {} and zero point {}, "
                              "clamped to [{}, {}], and back to float ({}).", scale, zp, qmin, qmax, torch);
  t.params = Json{{"scale", scale}, {"zero_point", zp}, {"qmin", qmin}, {"qmax", qmax}};
  t.variant = fmt::format("{}/{}", zp, scale);
  t.impls = mapImplementations(t, m, rng);
  if (!py) {
    t.reference = mapReference(t, m);
    return;
  }
  PyModel pm;
  pm.doc = t.description;
  pm.forwardBody = {"return " + torch};
  pm.inputs = {"x = torch.randn(batch_size, dim)"};
  setModel(t, pm);
}

// --- row families: cosine similarity, attention pooling, min-max normalization, clip by norm --
void makeRowSpecial(TaskSpec &t, Rng &rng, const std::string &op) {
  bool py = t.kind == Kind::PyTorch;
  std::string rows = py ? "batch_size" : "rows", cols = py ? "dim" : "cols";
  RowSpec r;
  r.rowsName = rows;
  r.colsName = cols;
  std::string torch, what;
  double atol = 1e-4;
  std::vector<std::pair<std::string, Json>> vectors;
  if (op == "cosine") {
    r.columnVectors = {"y"};
    r.passes = {RowPass{"dot", "${x} * ${y}", Combine::Sum, "${acc}"}, RowPass{"nx", "${x} * ${x}", Combine::Sum, "sqrtf(${acc})"},
                RowPass{"ny", "${y} * ${y}", Combine::Sum, "sqrtf(${acc})"}};
    r.output = "dot / fmaxf(nx * ny, 1e-8f)";
    torch = "F.cosine_similarity(x, y[None, :], dim=-1)";
    what = "the cosine similarity of each row of x to the vector y";
    vectors = {{"y", uniformDist(-1, 1)}};
  } else if (op == "attention_pool") {
    r.columnVectors = {"v"};
    r.passes = {RowPass{"m", "${x}", Combine::Max, "${acc}"}, RowPass{"s", "expf(${x} - m)", Combine::Sum, "${acc}"},
                RowPass{"w", "expf(${x} - m) * ${v}", Combine::Sum, "${acc} / s"}};
    r.output = "w";
    torch = "torch.softmax(x, dim=-1) @ v";
    what = "softmax(x[r]) . v: attention pooling of the values v with the scores of each row";
    vectors = {{"v", uniformDist(-1, 1)}};
  } else if (op == "minmax") {
    r.passes = {RowPass{"lo", "${x}", Combine::Min, "${acc}"}, RowPass{"hi", "${x}", Combine::Max, "${acc}"}};
    r.perElement = true;
    r.output = "(${x} - lo) / (hi - lo)";
    torch = "(x - x.amin(dim=-1, keepdim=True)) / (x.amax(dim=-1, keepdim=True) - x.amin(dim=-1, keepdim=True))";
    what = "each row scaled to [0, 1] by its minimum and maximum";
  } else { // clip_by_norm
    double maxNorm = std::round(rng.uniform(1, 20) * 4) / 4;
    r.passes = {RowPass{"scale", "${x} * ${x}", Combine::Sum,
                        "fminf(1.0f, " + cLiteral(maxNorm, "f32") + " / fmaxf(sqrtf(${acc}), 1e-12f))"}};
    r.perElement = true;
    r.output = "${x} * scale";
    torch = "x * torch.clamp(" + pyLiteral(maxNorm) + " / torch.clamp(torch.linalg.vector_norm(x, dim=-1, keepdim=True), min=1e-12), max=1.0)";
    what = fmt::format("each row scaled down to Euclidean norm at most {} (clipping by norm)", maxNorm);
  }
  t.args.push_back(pointerArg("x", "f32", "in", rows + " * " + cols, normalDist(0, 1)));
  t.args.back().shape = {rows, cols};
  for (const auto &[name, d] : vectors) {
    t.args.push_back(pointerArg(name, "f32", "in", cols, d));
    t.args.back().shape = {cols};
  }
  t.args.push_back(pointerArg("out", "f32", "out", r.perElement ? rows + " * " + cols : rows));
  t.args.back().shape = r.perElement ? std::vector<std::string>{rows, cols} : std::vector<std::string>{rows};
  t.args.push_back(sizeArg(rows));
  t.args.push_back(sizeArg(cols));
  t.configs = rowConfigs(rng, rows, cols, 1ll << rng.uniformInt(20, 23));
  t.tolerances = Json{{"f32", Json{{"atol", atol}, {"rtol", 1e-3}}}};
  t.description = "out = " + what + " (x is " + rows + " x " + cols + ", row-major).";
  t.params = Json{{"op", op}};
  t.variant = op + ((long long)t.configs[1].values[1].second > 1024 ? "/wide" : "/narrow");
  t.impls = rowImplementations(t, r, rng);
  if (!py) {
    t.reference = rowReference(t, r);
    return;
  }
  PyModel pm;
  pm.doc = t.description;
  pm.forwardParams = vectors.empty() ? "x" : "x, " + vectors[0].first;
  pm.forwardBody = {"return " + torch};
  pm.inputs = {"x = torch.randn(batch_size, dim)"};
  if (!vectors.empty()) {
    pm.inputs.push_back(vectors[0].first + " = torch.randn(dim)");
    pm.inputList = "[x, " + vectors[0].first + "]";
  }
  setModel(t, pm);
}

// --- image_stats (C): reductions of u8 images (sum, max, min, count above a threshold) -------
void makeImageStats(TaskSpec &t, Rng &rng) {
  static const std::vector<std::tuple<const char *, const char *, Combine>> ops = {
      {"sum", "(int)${img}", Combine::Sum}, {"max", "(int)${img}", Combine::Max}, {"min", "(int)${img}", Combine::Min},
      {"count_bright", "${img} > TH ? 1 : 0", Combine::Sum}, {"sum_squares", "(int)${img} * (int)${img} / 256", Combine::Sum}};
  auto [name, element, combine] = rng.pick(ops);
  ReduceSpec r;
  r.inputs = {{"img", "u8", ""}};
  r.element = render(element, {{"img", "${img}"}});
  size_t th = r.element.find("TH");
  if (th != std::string::npos)
    r.element.replace(th, 2, std::to_string(rng.uniformInt(30, 220)));
  r.accType = "int";
  r.combine = combine;
  r.output = {"out", "i32", ""};
  r.countCode = "  int n = height * width;\n";
  t.args = {pointerArg("img", "u8", "in", "height * width", uniformDist(0, 255)), pointerArg("out", "i32", "out", "1"),
            sizeArg("height"), sizeArg("width")};
  int h = rng.pick(std::vector<int>{1080, 2160, 1536});
  t.configs = {config("small", {{"height", rng.uniformInt(5, 40) * 2 + 1}, {"width", rng.uniformInt(5, 40) * 2 + 1}}),
               config("large", {{"height", h}, {"width", h * 16 / 9}})};
  t.description = std::string("out[0] = the ") + name + " over the pixels of an 8-bit image (height x width), exact int.";
  t.params = Json{{"op", name}, {"element", r.element}};
  t.variant = name;
  t.reference = reduceReference(t, r);
  t.impls = reduceImplementations(t, r, rng);
}

// --- pt_pointwise: torch pointwise ops that are not activations -------------------------------
void makeTorchPointwise(TaskSpec &t, Rng &rng) {
  double lo = -std::round(rng.uniform(0.1, 1) * 8) / 8, hi = std::round(rng.uniform(0.1, 1) * 8) / 8,
         w = std::round(rng.uniform(0.1, 0.9) * 16) / 16, v = std::round(rng.uniform(0.25, 2) * 8) / 8;
  struct Op {
    std::string name, c, torch;
    int operands;
  };
  std::vector<Op> ops = {
      {"clamp", fmt::format("fminf(fmaxf(${{a}}, {}), {})", cLiteral(lo, "f32"), cLiteral(hi, "f32")),
       fmt::format("torch.clamp(a, {}, {})", pyLiteral(lo), pyLiteral(hi)), 1},
      {"where", fmt::format("${{a}} > 0.0f ? ${{a}} : ${{b}} * {}", cLiteral(v, "f32")), fmt::format("torch.where(a > 0, a, b * {})", pyLiteral(v)), 2},
      {"lerp", fmt::format("${{a}} + {} * (${{b}} - ${{a}})", cLiteral(w, "f32")), fmt::format("torch.lerp(a, b, {})", pyLiteral(w)), 2},
      {"addcmul", fmt::format("${{a}} + {} * ${{b}} * ${{c}}", cLiteral(v, "f32")), fmt::format("torch.addcmul(a, b, c, value={})", pyLiteral(v)), 3},
      {"addcdiv", fmt::format("${{a}} + {} * ${{b}} / ${{c}}", cLiteral(v, "f32")), fmt::format("torch.addcdiv(a, b, c, value={})", pyLiteral(v)), 3},
      {"cube", "${a} * ${a} * ${a}", "a ** 3", 1},
      {"square_diff", "(${a} - ${b}) * (${a} - ${b})", "torch.square(a - b)", 2},
      {"abs_sign", "fabsf(${a}) * (${b} > 0.0f ? 1.0f : ${b} < 0.0f ? -1.0f : 0.0f)", "torch.abs(a) * torch.sign(b)", 2},
  };
  const Op &op = rng.pick(ops);
  MapSpec m;
  std::vector<std::string> names{"a", "b", "c"};
  names.resize(size_t(op.operands));
  for (const auto &n : names) {
    m.inputs.push_back({n, "f32", ""});
    // c divides in addcdiv: keep it away from 0.
    t.args.push_back(pointerArg(n, "f32", "in", "batch_size * dim", n == "c" ? uniformDist(0.5, 2) : uniformDist(-1, 1)));
    t.args.back().shape = {"batch_size", "dim"};
  }
  m.output = {"out", "f32", ""};
  m.expr = op.c;
  m.countCode = "  int n = batch_size * dim;\n";
  t.args.push_back(pointerArg("out", "f32", "out", "batch_size * dim"));
  t.args.back().shape = {"batch_size", "dim"};
  t.args.push_back(sizeArg("batch_size"));
  t.args.push_back(sizeArg("dim"));
  t.configs = rowConfigs(rng, "batch_size", "dim", (1ll << rng.uniformInt(20, 22)) / op.operands);
  t.tolerances = Json{{"f32", Json{{"atol", 1e-5}, {"rtol", 1e-4}}}};
  t.description = "out = " + op.torch + ", elementwise over tensors of shape (batch_size, dim).";
  t.params = Json{{"op", op.name}, {"torch", op.torch}};
  t.variant = op.name;
  t.impls = mapImplementations(t, m, rng);
  if (t.kind == Kind::C) {
    t.reference = mapReference(t, m);
    return;
  }
  PyModel pm;
  pm.doc = t.description;
  std::string list;
  for (const auto &n : names) {
    list += (list.empty() ? "" : ", ") + n;
    pm.inputs.push_back(n + " = torch.randn(batch_size, dim)");
  }
  pm.forwardParams = list;
  pm.inputList = "[" + list + "]";
  pm.forwardBody = {"return " + op.torch};
  setModel(t, pm);
}

// --- pt_count: torch.count_nonzero of a comparison (an int64 0-d tensor) ---------------------
void makeTorchCount(TaskSpec &t, Rng &rng) {
  double c = std::round(rng.uniform(-1, 1) * 8) / 8;
  static const std::vector<std::pair<const char *, const char *>> preds = {
      {"${a} > C", "a > C"}, {"fabsf(${a}) < C", "torch.abs(a) < C"}, {"${a} > ${b}", "a > b"}, {"${a} * ${b} > C", "a * b > C"}};
  auto [cp, tp] = rng.pick(preds);
  std::string cpred = cp, tpred = tp;
  std::string cl = cLiteral(std::fabs(c), "f32"), pl = pyLiteral(std::fabs(c));
  for (size_t at; (at = cpred.find('C')) != std::string::npos;) cpred.replace(at, 1, cl);
  for (size_t at; (at = tpred.find('C')) != std::string::npos;) tpred.replace(at, 1, pl);
  ReduceSpec r;
  bool two = cpred.find("${b}") != std::string::npos;
  r.inputs = {{"a", "f32", ""}};
  if (two) r.inputs.push_back({"b", "f32", ""});
  r.element = "(" + cpred + ") ? 1 : 0";
  r.accType = "int";
  r.output = {"out", "i64", ""};
  r.countCode = "  int n = batch_size * dim;\n";
  for (const auto &in : r.inputs) {
    t.args.push_back(pointerArg(in.name, "f32", "in", "batch_size * dim", uniformDist(-1, 1)));
    t.args.back().shape = {"batch_size", "dim"};
  }
  t.args.push_back(pointerArg("out", "i64", "out", "1"));
  t.args.push_back(sizeArg("batch_size"));
  t.args.push_back(sizeArg("dim"));
  t.configs = rowConfigs(rng, "batch_size", "dim", 1ll << rng.uniformInt(20, 22));
  std::string torch = "torch.count_nonzero(" + tpred + ")";
  t.description = "out = " + torch + " (an int64 0-d tensor).";
  t.params = Json{{"predicate", tpred}};
  t.variant = tp;
  t.impls = reduceImplementations(t, r, rng);
  if (t.kind == Kind::C) {
    t.reference = reduceReference(t, r);
    return;
  }
  PyModel pm;
  pm.doc = t.description;
  pm.forwardParams = two ? "a, b" : "a";
  pm.inputs = {"a = torch.rand(batch_size, dim)"};
  pm.inputList = "[a]";
  if (two) {
    pm.inputs.push_back("b = torch.rand(batch_size, dim)");
    pm.inputList = "[a, b]";
  }
  pm.forwardBody = {"return " + torch};
  setModel(t, pm);
}

} // namespace

void addMoreFamilies(std::vector<Family> &out) {
  out.push_back({"permute_index", Kind::C, "index permutations: reverse, rotate, (de)interleave, stride permutation",
                 false, 75, [](TaskSpec &t, Rng &r, int) { makePermuteIndex(t, r); }});
  out.push_back({"hwc_to_chw", Kind::C, "interleaved u8 images to planar layout, optionally normalized to float",
                 false, 75, [](TaskSpec &t, Rng &r, int) { makeHwcToChw(t, r); }});
  out.push_back({"fake_quant", Kind::C, "fake quantization to int8/uint8 levels and back", false, 75,
                 [](TaskSpec &t, Rng &r, int) { makeFakeQuant(t, r); }});
  out.push_back({"row_cosine", Kind::C, "cosine similarity of every row to a vector", false, 75,
                 [](TaskSpec &t, Rng &r, int) { makeRowSpecial(t, r, "cosine"); }});
  out.push_back({"attention_pool", Kind::C, "softmax(scores of a row) . values: attention pooling", false, 75,
                 [](TaskSpec &t, Rng &r, int) { makeRowSpecial(t, r, "attention_pool"); }});
  out.push_back({"row_minmax", Kind::C, "rows scaled to [0, 1] by their minimum and maximum", false, 75,
                 [](TaskSpec &t, Rng &r, int) { makeRowSpecial(t, r, "minmax"); }});
  out.push_back({"clip_by_norm", Kind::C, "rows clipped to a maximum Euclidean norm", false, 75,
                 [](TaskSpec &t, Rng &r, int) { makeRowSpecial(t, r, "clip"); }});
  out.push_back({"pointwise_ops", Kind::C, "clamp, select, lerp, addcmul, addcdiv, powers, sign-abs of matrices",
                 false, 75, [](TaskSpec &t, Rng &r, int) { makeTorchPointwise(t, r); }});
  out.push_back({"count_compare", Kind::C, "counts of comparisons over matrices into an int64", false, 75,
                 [](TaskSpec &t, Rng &r, int) { makeTorchCount(t, r); }});
  out.push_back({"image_stats", Kind::C, "exact int reductions of u8 images (sum, max, min, counts)", false, 75,
                 [](TaskSpec &t, Rng &r, int) { makeImageStats(t, r); }});
}

void addPyTorchMoreFamilies(std::vector<Family> &out) {
  out.push_back({"pt_pointwise", Kind::PyTorch, "torch.clamp, where, lerp, addcmul, addcdiv, powers, sign", false, 40,
                 [](TaskSpec &t, Rng &r, int) { makeTorchPointwise(t, r); }});
  out.push_back({"pt_count", Kind::PyTorch, "torch.count_nonzero of comparisons (int64)", false, 40,
                 [](TaskSpec &t, Rng &r, int) { makeTorchCount(t, r); }});
  out.push_back({"pt_cosine_similarity", Kind::PyTorch, "F.cosine_similarity of rows and a vector", false, 40,
                 [](TaskSpec &t, Rng &r, int) { makeRowSpecial(t, r, "cosine"); }});
  out.push_back({"pt_attention_pool", Kind::PyTorch, "torch.softmax(x, -1) @ v", true, 40,
                 [](TaskSpec &t, Rng &r, int) { makeRowSpecial(t, r, "attention_pool"); }});
  out.push_back({"pt_fake_quant", Kind::PyTorch, "torch.fake_quantize_per_tensor_affine", false, 40,
                 [](TaskSpec &t, Rng &r, int) { makeFakeQuant(t, r); }});
  out.push_back({"pt_minmax_norm", Kind::PyTorch, "min-max normalization and clipping of rows", false, 40,
                 [](TaskSpec &t, Rng &r, int) { makeRowSpecial(t, r, r.chance(0.5) ? "minmax" : "clip"); }});
}

} // namespace cudaperf::dataset
