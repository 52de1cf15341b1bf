// Readers of cudaperf-eval results and torch timings, scoring, and the library policy.
#include "TempDir.h"

#include "cudaperf/Bench/BenchError.h"
#include "cudaperf/Bench/EvalResults.h"
#include "cudaperf/Bench/LibraryPolicy.h"
#include "cudaperf/Bench/Scoring.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

using namespace cudaperf::bench;
using cudaperf::support::Json;

namespace {

Json okResult() {
  return Json::parse(R"({"schema": "cudaperf-eval-result/1", "task": "relu", "task_dir": "/t/relu",
    "candidate": "/c/relu/0.cu", "outcome": "ok", "detail": "", "gpu": {"name": "NVIDIA H200"},
    "tools": {"cudaperf_eval": "0.1.0"}, "extra_key_added_later": 1,
    "configs": [
      {"name": "small", "baseline": {"median_ms": 2.0, "p10_ms": 1.9, "p90_ms": 2.1},
       "candidate": {"median_ms": 1.0, "p10_ms": 0.95, "p90_ms": 1.05},
       "pytorch_eager": {"median_ms": 3.0, "p10_ms": 3.0, "p90_ms": 3.0}, "audit": {},
       "launches": [{"kernel": "_Z4reluPKfPfi"}]},
      {"name": "large", "baseline": {"median_ms": 8.0, "p10_ms": 8.0, "p90_ms": 8.0},
       "candidate": {"median_ms": 4.0, "p10_ms": 4.0, "p90_ms": 4.0},
       "pytorch_eager": {"median_ms": 2.0, "p10_ms": 2.0, "p90_ms": 2.0}}]})");
}

std::string resultError(const Json &doc) {
  try {
    parseEvalResult(doc, "r.jsonl:3");
  } catch (const BenchError &e) {
    EXPECT_EQ(e.kind, BenchError::Kind::Results);
    return e.what();
  }
  return "";
}

} // namespace

TEST(EvalResults, ReadsTheFieldsItScores) {
  EvalResult r = parseEvalResult(okResult(), "r.jsonl:1");
  EXPECT_EQ(r.task, "relu");
  EXPECT_EQ(r.outcome, cudaperf::schema::Outcome::Ok);
  EXPECT_EQ(r.gpu, "NVIDIA H200");
  ASSERT_EQ(r.configs.size(), 2u);
  EXPECT_DOUBLE_EQ(r.configs[0].baseline->medianMs, 2.0);
  EXPECT_DOUBLE_EQ(r.configs[0].candidate->p90Ms, 1.05);
  EXPECT_DOUBLE_EQ(r.configs[1].eager->medianMs, 2.0);
  EXPECT_TRUE(r.configs[0].audited);
  EXPECT_FALSE(r.configs[1].audited);
  EXPECT_EQ(r.configs[0].launchedKernels, (std::vector<std::string>{"_Z4reluPKfPfi"}));
  // A failed candidate's result has no configurations.
  Json failed = Json::parse(R"({"schema": "cudaperf-eval-result/1", "task_dir": "/t/relu", "candidate": "x.cu",
                               "outcome": "compile_error", "detail": "syntax"})");
  EXPECT_TRUE(parseEvalResult(failed, "x").configs.empty());
}

TEST(EvalResults, BadDocumentsNameTheField) {
  Json j = okResult();
  j["schema"] = "cudaperf-eval-result/2";
  EXPECT_NE(resultError(j).find("r.jsonl:3: schema: expected \"cudaperf-eval-result/1\""), std::string::npos);
  j = okResult();
  j.erase("outcome");
  EXPECT_NE(resultError(j).find("r.jsonl:3: missing \"outcome\""), std::string::npos);
  j = okResult();
  j["configs"][1]["candidate"]["median_ms"] = "abc";
  EXPECT_NE(resultError(j).find("r.jsonl:3: configs[1].candidate.median_ms: expected a number, got \"abc\""),
            std::string::npos)
      << resultError(j);
  j = okResult();
  j["configs"][0]["baseline"]["median_ms"] = 0;
  EXPECT_NE(resultError(j).find("is not a positive time"), std::string::npos);
  j = okResult();
  j.erase("task");
  j.erase("task_dir");
  EXPECT_NE(resultError(j).find("which task"), std::string::npos);
  EXPECT_NE(resultError(Json::array()).find("expected an object (cudaperf-eval-result/1)"), std::string::npos);
}

TEST(EvalResults, JsonLinesAndPrettyFiles) {
  TempDir d;
  std::string lines = d.write("r.jsonl", okResult().dump() + "\n\n" + okResult().dump() + "\n");
  EXPECT_EQ(readEvalResults(lines).size(), 2u);
  EXPECT_EQ(readEvalResults(lines)[1].where, lines + ":3");
  std::string pretty = d.write("one.json", okResult().dump(2) + "\n");
  EXPECT_EQ(readEvalResults(pretty).size(), 1u);
  std::string broken = d.write("bad.jsonl", okResult().dump() + "\n{\"schema\": \n");
  try {
    readEvalResults(broken);
    ADD_FAILURE() << "a torn line must be an error";
  } catch (const BenchError &e) {
    EXPECT_NE(std::string(e.what()).find("bad.jsonl:2:"), std::string::npos) << e.what();
  }
  EXPECT_THROW(readEvalResults(d.write("empty.jsonl", "\n")), BenchError);
  EXPECT_THROW(readEvalResults(d / "none.jsonl"), BenchError);
}

// Issue 35: `cudaperf-bench --results /dev/zero` (or a FIFO) is an error at once, not a read of
// gigabytes or a wait for a writer.
TEST(EvalResults, DevicesAndFifosAreRefusedAtOnce) {
  TempDir d;
  std::string fifo = d / "results.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string &path : {std::string("/dev/zero"), fifo}) {
    try {
      readEvalResults(path);
      ADD_FAILURE() << path << " must be refused";
    } catch (const BenchError &e) {
      EXPECT_NE(std::string(e.what()).find("is not a regular file"), std::string::npos) << e.what();
    }
  }
}

TEST(TorchTimings, ReadsCompileTimingsAndErrors) {
  TempDir d;
  EXPECT_FALSE(readTorchTimings(d / "task").has_value());
  d.write("task/exported/torch-timing.json", R"({"schema": "cudaperf-torch-timing/1", "torch_version": "2.11",
    "configs": {"small": {"eager": {"median_ms": 3.0, "p10_ms": 2.9, "p90_ms": 3.1},
                          "compile": {"median_ms": 1.5, "p10_ms": 1.5, "p90_ms": 1.5}},
                "large": {"eager": {"median_ms": 1.0}, "compile": {"error": "torch._dynamo failed"}}}})");
  auto t = readTorchTimings(d / "task");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->torchVersion, "2.11");
  EXPECT_DOUBLE_EQ(t->compiled.at("small").medianMs, 1.5);
  EXPECT_EQ(t->compiled.count("large"), 0u);
  EXPECT_EQ(t->compileErrors.at("large"), "torch._dynamo failed");
  d.write("bad/exported/torch-timing.json", R"({"schema": "other"})");
  EXPECT_THROW(readTorchTimings(d / "bad"), BenchError);
}

TEST(TorchTimings, StoredFileByTask) {
  TempDir d;
  std::string path = d.write("timings.jsonl",
      R"({"schema": "cudaperf-torch-timing/1", "task": "relu", "configs": {"small": {"compile": {"median_ms": 2}}}})"
      "\n\n"
      R"({"schema": "cudaperf-torch-timing/1", "task": "gelu", "configs": {}})" "\n");
  auto byTask = readTorchTimingsFile(path);
  ASSERT_EQ(byTask.size(), 2u);
  EXPECT_DOUBLE_EQ(byTask.at("relu").compiled.at("small").medianMs, 2);
  std::string noTask = d.write("bad.jsonl", R"({"schema": "cudaperf-torch-timing/1", "configs": {}})" "\n");
  try {
    readTorchTimingsFile(noTask);
    ADD_FAILURE() << "a line without its task must be an error";
  } catch (const BenchError &e) {
    EXPECT_NE(std::string(e.what()).find("bad.jsonl:1: missing \"task\""), std::string::npos) << e.what();
  }
}

TEST(Scoring, SpeedupsPerReferenceAndLibraryFailures) {
  TempDir d;
  d.write("relu/impls/baseline.cu", "");
  d.write("relu/exported/torch-timing.json", R"({"schema": "cudaperf-torch-timing/1",
    "configs": {"small": {"compile": {"median_ms": 0.5, "p10_ms": 0.5, "p90_ms": 0.5}},
                "large": {"compile": {"median_ms": 4.0, "p10_ms": 4.0, "p90_ms": 4.0}}}})");
  SuiteTask task;
  task.name = "relu";
  task.kind = "pytorch-to-cuda";
  task.dir = d / "relu";
  task.disallowedLibraries = {"cublas"};
  auto torch = readTorchTimings(task.dir);
  EXPECT_EQ(referencesOf(task, &*torch), (std::vector<Reference>{Reference::Baseline, Reference::Eager, Reference::Compile}));
  EvalResult r = parseEvalResult(okResult(), "r");
  CandidateFile f{"relu", "0", 1, "/c/relu/0.cu"};
  CandidateScore s = scoreCandidate(f, &r, task, &*torch, "__global__ void k() {}\n// cublasSgemm in a comment\n", true);
  EXPECT_TRUE(s.correct) << s.detail;
  EXPECT_DOUBLE_EQ(s.speedups.at(Reference::Baseline).value, 2.0);
  EXPECT_NEAR(s.speedups.at(Reference::Eager).value, std::sqrt(3.0 * 0.5), 1e-12);
  EXPECT_NEAR(s.speedups.at(Reference::Compile).value, std::sqrt(0.5 * 1.0), 1e-12);
  EXPECT_NEAR(s.speedups.at(Reference::Baseline).margin, (0.1 / 2 + 0.1 / 2) / 2, 1e-12); // small: (0.1 + 0.1)/2, large: 0
  EXPECT_EQ(s.libraryCheck, "source and kernels");
  CandidateScore hack = scoreCandidate(f, &r, task, &*torch, "#include <cublas_v2.h>\n", true);
  EXPECT_FALSE(hack.correct);
  EXPECT_EQ(hack.outcome, kOutcomeDisallowed);
  EXPECT_NE(hack.detail.find("cublas"), std::string::npos);
  CandidateScore unread = scoreCandidate(f, &r, task, nullptr, "", false);
  EXPECT_TRUE(unread.correct);
  EXPECT_EQ(unread.libraryCheck, "kernels");
  EXPECT_EQ(unread.speedups.count(Reference::Compile), 0u);
  CandidateScore none = scoreCandidate(f, nullptr, task, nullptr, "", false);
  EXPECT_EQ(none.outcome, kOutcomeNotEvaluated);
  EvalResult wrong = r;
  wrong.outcome = cudaperf::schema::Outcome::TimingViolation;
  EXPECT_FALSE(scoreCandidate(f, &wrong, task, nullptr, "", true).correct);
  EXPECT_EQ(missingCandidate("relu", "3").outcome, kOutcomeMissing);
}

TEST(LibraryPolicy, EvidenceFromSourceAndKernels) {
  std::vector<std::string> all = {"cublas", "cublasLt", "cudnn", "cutlass", "thrust"};
  auto lib = [&](const std::string &src, std::vector<std::string> kernels = {}) {
    auto use = findDisallowedLibrary(src, kernels, all);
    return use ? use->library : std::string("-");
  };
  EXPECT_EQ(lib("__global__ void k(float *x) { x[0] = 1; }"), "-");
  EXPECT_EQ(lib("// #include <cublas_v2.h>\n/* cudnnConvolutionForward( */ int x;"), "-");
  EXPECT_EQ(lib("const char *s = \"// not a comment\"; int y;"), "-");
  EXPECT_EQ(lib("#include <cublas_v2.h>\n"), "cublas");
  EXPECT_EQ(lib("  #  include \"cudnn.h\"\n"), "cudnn");
  EXPECT_EQ(lib("#include <cublasLt.h>\n"), "cublasLt");
  EXPECT_EQ(lib("void f() { cublasLtMatmul(h, d); }"), "cublasLt");
  EXPECT_EQ(lib("void f() { cublasSgemm (h, a); }"), "cublas");
  EXPECT_EQ(lib("#include <cutlass/gemm/device/gemm.h>\n"), "cutlass");
  EXPECT_EQ(lib("thrust::sort(p, p + n);"), "thrust");
  EXPECT_EQ(lib("void *h = dlopen(\"libcublas.so.13\", RTLD_NOW);"), "cublas");
  EXPECT_EQ(lib("void *h = dlopen(name, RTLD_NOW);"), "dynamic loading");
  EXPECT_EQ(lib("int mycublasHelper = 0;"), "-"); // not a cuBLAS entry point
  EXPECT_EQ(lib("", {"_Z6kernelPf", "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32"}), "cublas");
  EXPECT_EQ(lib("", {"_ZN7cutlass6KernelINS_4gemm6kernel4GemmE"}), "cutlass");
  EXPECT_EQ(lib("", {"_Z11sgemm_tiledPKfS0_Pfiii"}), "-");
  EXPECT_FALSE(findDisallowedLibrary("#include <cublas_v2.h>", {}, {}).has_value());
  EXPECT_FALSE(findDisallowedLibrary("#include <cublas_v2.h>", {}, {"cudnn"}).has_value());
  EXPECT_TRUE(isKnownLibrary("cub"));
  EXPECT_FALSE(isKnownLibrary("mkl"));
  EXPECT_EQ(withoutComments("a /* b */ c // d\ne"), "a         c     \ne");
}
