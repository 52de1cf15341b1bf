// Matrix-vector products, row distances, Gram matrices, outer products and integer matrix
// products, both kinds, on the row (Rows.h), elementwise (Map.h) and GEMM (Gemm.h) skeletons.
#include "Gemm.h"
#include "Map.h"
#include "PyModel.h"
#include "Rows.h"

#include "cudaperf/Dataset/Family.h"

#include <fmt/format.h>

namespace cudaperf::dataset {

namespace {

// --- matvec / pt_matvec: y[r] = sum_j A[r][j] x[j]; row_distance: sum_j (A[r][j] - c[j])^2 ----
void makeRowVector(TaskSpec &t, Rng &rng, bool distance) {
  bool py = t.kind == Kind::PyTorch;
  std::string rows = py ? "M" : "rows", cols = py ? "K" : "cols";
  RowSpec r;
  r.input = "A";
  r.rowsName = rows;
  r.colsName = cols;
  std::string vec = distance ? "c" : "x";
  r.columnVectors = {vec};
  // ${a} is A's element (row[j]): the vector is named x in matvec, so ${x} cannot be the element.
  r.elementVar = "a";
  int variant = distance ? rng.uniformInt(0, 2) : 0;
  if (!distance)
    r.passes = {RowPass{"s", "${a} * ${" + vec + "}", Combine::Sum, "${acc}"}};
  else if (variant == 0)
    r.passes = {RowPass{"s", "(${a} - ${c}) * (${a} - ${c})", Combine::Sum, "${acc}"}};
  else if (variant == 1)
    r.passes = {RowPass{"s", "fabsf(${a} - ${c})", Combine::Sum, "${acc}"}};
  else
    r.passes = {RowPass{"s", "(${a} - ${c}) * (${a} - ${c})", Combine::Sum, "sqrtf(${acc})"}};
  r.output = "s";
  t.args.push_back(pointerArg("A", "f32", "in", rows + " * " + cols, uniformDist(-1, 1)));
  t.args.back().shape = {rows, cols};
  t.args.push_back(pointerArg(vec, "f32", "in", cols, uniformDist(-1, 1)));
  t.args.back().shape = {cols};
  t.args.push_back(pointerArg("out", "f32", "out", rows));
  t.args.back().shape = {rows};
  t.args.push_back(sizeArg(rows));
  t.args.push_back(sizeArg(cols));
  t.configs = rowConfigs(rng, rows, cols, 1ll << rng.uniformInt(21, 23));
  static const char *names[] = {"squared_euclidean", "manhattan", "euclidean"};
  const char *torch = !distance ? "torch.matmul(A, x)" : variant == 0 ? "torch.sum((A - c) ** 2, dim=-1)"
                                                       : variant == 1 ? "torch.sum(torch.abs(A - c), dim=-1)"
                                                                      : "torch.sqrt(torch.sum((A - c) ** 2, dim=-1))";
  t.description = distance ? std::string("out[r] = the ") + names[variant] + " distance of row r of A (" + rows + " x " +
                                 cols + ") to the vector c (" + torch + ")."
                           : "out = A x: a matrix-vector product, A (" + rows + " x " + cols + ") row-major (" + torch + ").";
  t.params = Json{{"op", distance ? names[variant] : "matvec"}, {"large_cols", t.configs[1].values[1].second}};
  t.variant = std::string(distance ? names[variant] : "matvec") +
              ((long long)t.configs[1].values[1].second > 1024 ? "/wide" : "/narrow");
  t.tolerances = Json{{"f32", Json{{"atol", 1e-3}, {"rtol", 1e-3}}}};
  t.impls = rowImplementations(t, r, rng);
  if (!py) {
    t.reference = rowReference(t, r);
    return;
  }
  PyModel m;
  m.doc = t.description;
  m.forwardParams = "A, " + vec;
  m.forwardBody = {std::string("return ") + torch};
  m.inputs = {"A = torch.randn(M, K)", vec + " = torch.randn(K)"};
  m.inputList = "[A, " + vec + "]";
  setModel(t, m);
}

// --- gram (C) / pt_gram: C = A A^T (the same buffer as both operands) -----------------------
void makeGram(TaskSpec &t, Rng &rng) {
  bool py = t.kind == Kind::PyTorch;
  GemmSpec g;
  g.a = g.b = "A";
  g.transB = true; // B(p, j) = A[j][p]
  g.out = "out";
  g.m = g.n = py ? "N" : "n";
  g.k = py ? "D" : "d";
  std::vector<std::pair<int, int>> shapes = {{1024, 1024}, {4096, 64}, {512, 4096}, {2048, 256}, {1000, 300}};
  auto [n, d] = rng.pick(shapes);
  t.args = {pointerArg("A", "f32", "in", g.m + " * " + g.k, uniformDist(-1, 1)), pointerArg("out", "f32", "out", g.m + " * " + g.m),
            sizeArg(g.m), sizeArg(g.k)};
  t.args[0].shape = {g.m, g.k};
  t.args[1].shape = {g.m, g.m};
  t.configs = {config("small", {{g.m, rng.uniformInt(10, 40) * 2 + 1}, {g.k, rng.uniformInt(5, 40) * 2 + 1}}),
               config("large", {{g.m, n}, {g.k, d}})};
  t.description = "out = A A^T, the Gram matrix of the rows of A (" + g.m + " x " + g.k + "), float.";
  t.params = Json{{"n", n}, {"d", d}};
  t.variant = fmt::format("{}x{}", n, d);
  t.tolerances = Json{{"f32", Json{{"atol", 1e-3}, {"rtol", 1e-3}}}};
  t.impls = gemmImplementations(t, g, rng);
  if (!py) {
    t.reference = gemmReference(t, g);
    return;
  }
  PyModel m;
  m.doc = t.description;
  m.forwardParams = "A";
  m.forwardBody = {"return A @ A.T"};
  m.inputs = {"A = torch.randn(N, D)"};
  m.inputList = "[A]";
  setModel(t, m);
}

// --- matmul_i32 (C): exact integer products ------------------------------------------------
void makeMatmulInt(TaskSpec &t, Rng &rng) {
  GemmSpec g;
  g.T = "int";
  g.transB = rng.chance(0.5);
  std::vector<std::tuple<int, int, int>> shapes = {{1024, 1024, 512}, {4096, 64, 256}, {256, 256, 4096}, {768, 1024, 768}};
  auto [m, n, k] = rng.pick(shapes);
  t.args = {pointerArg("A", "i32", "in", "m * k", uniformDist(-20, 20)), pointerArg("B", "i32", "in", "k * n", uniformDist(-20, 20)),
            pointerArg("C", "i32", "out", "m * n"), sizeArg("m"), sizeArg("n"), sizeArg("k")};
  t.configs = {config("small", {{"m", rng.uniformInt(10, 40) * 2 + 1}, {"n", rng.uniformInt(10, 40) * 2 + 1},
                                {"k", rng.uniformInt(10, 40) * 2 + 1}}),
               config("large", {{"m", m}, {"n", n}, {"k", k}})};
  t.description = fmt::format("C = A B in int arithmetic (exact), A (m x k), B stored {}.", g.transB ? "n x k" : "k x n");
  t.params = Json{{"layout", g.transB ? "NT" : "NN"}, {"m", m}, {"n", n}, {"k", k}};
  t.variant = fmt::format("{}/{}x{}x{}", g.transB ? "NT" : "NN", m, n, k);
  t.reference = gemmReference(t, g);
  t.impls = gemmImplementations(t, g, rng);
}

// --- outer_product (C) / pt_outer: out[r][j] = f(u[r], v[j]) --------------------------------
void makeOuter(TaskSpec &t, Rng &rng) {
  bool py = t.kind == Kind::PyTorch;
  std::string rows = py ? "M" : "rows", cols = py ? "N" : "cols";
  static const std::vector<std::tuple<const char *, const char *, const char *>> ops = {
      {"outer", "${u} * ${v}", "torch.outer(u, v)"},
      {"sum", "${u} + ${v}", "u[:, None] + v[None, :]"},
      {"abs_difference", "fabsf(${u} - ${v})", "torch.abs(u[:, None] - v[None, :])"},
      {"gaussian_kernel", "expf(-(${u} - ${v}) * (${u} - ${v}))", "torch.exp(-(u[:, None] - v[None, :]) ** 2)"}};
  auto [name, c, torch] = rng.pick(ops);
  MapSpec m;
  m.inputs = {{"u", "f32", "${i} / " + cols}, {"v", "f32", "${i} % " + cols}};
  m.output = {"out", "f32", ""};
  m.expr = c;
  m.countCode = "  int n = " + rows + " * " + cols + ";\n";
  m.scalars = {{cols, "int"}};
  t.args = {pointerArg("u", "f32", "in", rows, uniformDist(-1, 1)), pointerArg("v", "f32", "in", cols, uniformDist(-1, 1)),
            pointerArg("out", "f32", "out", rows + " * " + cols), sizeArg(rows), sizeArg(cols)};
  t.args[0].shape = {rows};
  t.args[1].shape = {cols};
  t.args[2].shape = {rows, cols};
  t.configs = rowConfigs(rng, rows, cols, 1ll << rng.uniformInt(20, 23));
  t.description = std::string("out (") + rows + " x " + cols + ") = " + torch + ".";
  t.params = Json{{"op", name}};
  t.variant = name;
  t.tolerances = Json{{"f32", Json{{"atol", 1e-5}, {"rtol", 1e-4}}}};
  t.impls = mapImplementations(t, m, rng);
  if (!py) {
    t.reference = mapReference(t, m);
    return;
  }
  PyModel pm;
  pm.doc = t.description;
  pm.forwardParams = "u, v";
  pm.forwardBody = {std::string("return ") + torch};
  pm.inputs = {"u = torch.randn(M)", "v = torch.randn(N)"};
  pm.inputList = "[u, v]";
  setModel(t, pm);
}

// --- gather (C) / pt_embedding: table lookups through an index array -------------------------
void makeGather(TaskSpec &t, Rng &rng) {
  std::string dtype = rng.pick(std::vector<std::string>{"f32", "f64", "i32", "u8"});
  int width = rng.pick(std::vector<int>{1, 1, 4, 16, 64});
  MapSpec m;
  // idx is read by the table operand's index expression only.
  m.inputs = {{"table", dtype, width == 1 ? "(int)((unsigned)idx[${i}] % (unsigned)tableRows)"
                                          : fmt::format("(int)((unsigned)idx[${{i}} / {0}] % (unsigned)tableRows) * {0} + ${{i}} % {0}", width)}};
  m.output = {"out", dtype, ""};
  m.expr = "${table}";
  m.countCode = fmt::format("  int n = count * {};\n", width);
  m.scalars = {{"idx", "const int *__restrict__"}, {"tableRows", "int"}};
  Json d = isFloatDtype(dtype) ? uniformDist(-1, 1) : dtype == "u8" ? uniformDist(0, 255) : uniformDist(-1000, 1000);
  std::string tableCount = width == 1 ? "tableRows" : fmt::format("tableRows * {}", width);
  std::string outCount = width == 1 ? "count" : fmt::format("count * {}", width);
  t.args = {pointerArg("table", dtype, "in", tableCount, d), pointerArg("idx", "i32", "in", "count", uniformDist(0, 2000000000)),
            pointerArg("out", dtype, "out", outCount), sizeArg("tableRows"), sizeArg("count")};
  int rowsLarge = rng.pick(std::vector<int>{1000, 65536, 1 << 20});
  int bytes = dtype == "f64" ? 8 : dtype == "u8" ? 1 : 4;
  long long count = std::max(1000ll, (16ll << 20) / ((long long)width * bytes + 4));
  while ((long long)rowsLarge * width * bytes > (32ll << 20))
    rowsLarge /= 2;
  t.configs = {config("small", {{"tableRows", rng.uniformInt(50, 500)}, {"count", rng.uniformInt(200, 2000) * 2 + 1}}),
               config("large", {{"tableRows", rowsLarge}, {"count", double(count)}})};
  t.description = width == 1 ? "out[i] = table[idx[i] % tableRows] (a gather; idx is non-negative)."
                             : fmt::format("out[i][:] = table[idx[i] % tableRows][:], rows of {} {} (an embedding gather).",
                                           width, cType(dtype));
  t.params = Json{{"dtype", dtype}, {"row_width", width}, {"table_rows", rowsLarge}};
  t.variant = fmt::format("{}/{}", dtype, width);
  t.reference = mapReference(t, m);
  t.impls = mapImplementations(t, m, rng);
}

void makeEmbedding(TaskSpec &t, Rng &rng) {
  int vocab = rng.pick(std::vector<int>{1000, 5000, 30000});
  int dimLarge = rng.pick(std::vector<int>{64, 128, 256, 512});
  MapSpec m;
  m.inputs = {{"emb_weight", "f32", "(int)idx[${i} / embedding_dim] * embedding_dim + ${i} % embedding_dim"}};
  m.output = {"out", "f32", ""};
  m.expr = "${emb_weight}";
  m.countCode = "  int n = batch_size * seq_len * embedding_dim;\n";
  m.scalars = {{"idx", "const long long *__restrict__"}, {"embedding_dim", "int"}};
  // idx comes first in forward, the weight is the module's parameter.
  t.args = {pointerArg("idx", "i64", "in", "batch_size * seq_len", uniformDist(0, vocab - 1)),
            pointerArg("emb_weight", "f32", "in", "", normalDist(0, 1)),
            pointerArg("out", "f32", "out", "")};
  t.args[0].shape = {"batch_size", "seq_len"};
  t.args[1].shape = {std::to_string(vocab), "embedding_dim"};
  t.args[2].shape = {"batch_size", "seq_len", "embedding_dim"};
  for (const char *p : {"batch_size", "seq_len", "embedding_dim"})
    t.args.push_back(sizeArg(p));
  int tokens = std::max(16, (4 << 20) / dimLarge);
  t.configs = {config("small", {{"batch_size", 3}, {"seq_len", rng.uniformInt(5, 30) * 2 + 1}, {"embedding_dim", rng.uniformInt(4, 40) * 2 + 1}}),
               config("large", {{"batch_size", 16}, {"seq_len", tokens / 16}, {"embedding_dim", dimLarge}})};
  t.description = fmt::format("out = self.emb(idx), nn.Embedding({}, embedding_dim): rows of the weight gathered by "
                              "int64 indices of shape (batch_size, seq_len).", vocab);
  t.params = Json{{"vocab", vocab}, {"embedding_dim", dimLarge}};
  t.variant = fmt::format("{}/{}", vocab, dimLarge);
  t.impls = mapImplementations(t, m, rng);
  PyModel pm;
  pm.doc = t.description;
  pm.initParams = "embedding_dim";
  pm.initBody = {fmt::format("self.emb = nn.Embedding({}, embedding_dim)", vocab)};
  pm.forwardParams = "idx";
  pm.forwardBody = {"return self.emb(idx)"};
  pm.inputs = {fmt::format("idx = torch.randint(0, {}, (batch_size, seq_len))", vocab)};
  pm.inputList = "[idx]";
  pm.initInputs = "[embedding_dim]";
  setModel(t, pm);
}

} // namespace

void addLinearAlgebraFamilies(std::vector<Family> &out) {
  out.push_back({"matvec", Kind::C, "matrix-vector products y = A x of wide and narrow matrices", false, 75,
                 [](TaskSpec &t, Rng &r, int) { makeRowVector(t, r, false); }});
  out.push_back({"row_distance", Kind::C, "distances of every row of a matrix to one vector (L2^2, L1, L2)", false, 75,
                 [](TaskSpec &t, Rng &r, int) { makeRowVector(t, r, true); }});
  out.push_back({"gram", Kind::C, "Gram matrices A A^T of several shapes", false, 75,
                 [](TaskSpec &t, Rng &r, int) { makeGram(t, r); }});
  out.push_back({"matmul_i32", Kind::C, "exact int32 matrix products (NN, NT)", false, 75,
                 [](TaskSpec &t, Rng &r, int) { makeMatmulInt(t, r); }});
  out.push_back({"outer_product", Kind::C, "outer products and pairwise maps of two vectors", false, 75,
                 [](TaskSpec &t, Rng &r, int) { makeOuter(t, r); }});
  out.push_back({"gather", Kind::C, "gathers of elements and of rows through an index array (f32, f64, i32, u8)",
                 false, 75, [](TaskSpec &t, Rng &r, int) { makeGather(t, r); }});
}

void addPyTorchLinearAlgebraFamilies(std::vector<Family> &out) {
  out.push_back({"pt_matvec", Kind::PyTorch, "torch.matmul of a matrix and a vector", false, 40,
                 [](TaskSpec &t, Rng &r, int) { makeRowVector(t, r, false); }});
  out.push_back({"pt_row_distance", Kind::PyTorch, "distances of rows to a vector", false, 40,
                 [](TaskSpec &t, Rng &r, int) { makeRowVector(t, r, true); }});
  out.push_back({"pt_gram", Kind::PyTorch, "A @ A.T", false, 40, [](TaskSpec &t, Rng &r, int) { makeGram(t, r); }});
  out.push_back({"pt_outer", Kind::PyTorch, "torch.outer and broadcast pairwise maps", true, 40,
                 [](TaskSpec &t, Rng &r, int) { makeOuter(t, r); }});
  out.push_back({"pt_embedding", Kind::PyTorch, "nn.Embedding lookups", false, 40,
                 [](TaskSpec &t, Rng &r, int) { makeEmbedding(t, r); }});
}

} // namespace cudaperf::dataset
