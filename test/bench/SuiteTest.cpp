// Suite files: the list and manifest forms, and every bad input giving a clear error.
#include "TempDir.h"

#include "cudaperf/Bench/BenchError.h"
#include "cudaperf/Bench/Suite.h"

#include <gtest/gtest.h>

using namespace cudaperf::bench;

namespace {

// The error a bad suite gives, or "" when it loads.
std::string suiteErrorOf(const std::string &path, SuiteOptions o = {}) {
  try {
    loadSuite(path, o);
  } catch (const BenchError &e) {
    EXPECT_EQ(e.kind, BenchError::Kind::Suite);
    return e.what();
  }
  return "";
}

} // namespace

TEST(Suite, ListFormWithRootAndLibraries) {
  TempDir d;
  d.write("tasks/a/task.json", taskJson("a"));
  d.write("tasks/b/task.json", taskJson("b", "pytorch-to-cuda"));
  std::string path = d.write("suites/s.json", R"({"schema": "cudaperf-suite/1", "name": "s", "root": "../tasks",
    "disallowed_libraries": ["cublas"],
    "tasks": ["a", {"dir": "b", "source": "level1/1_B.py", "disallowed_libraries": ["cudnn", "cublasLt"]}]})");
  Suite s = loadSuite(path);
  EXPECT_EQ(s.name, "s");
  ASSERT_EQ(s.tasks.size(), 2u);
  EXPECT_EQ(s.tasks[0].name, "a");
  EXPECT_EQ(s.tasks[0].kind, "c-to-cuda");
  EXPECT_EQ(s.tasks[0].configs, (std::vector<std::string>{"small", "large"}));
  EXPECT_EQ(s.tasks[0].disallowedLibraries, (std::vector<std::string>{"cublas"}));
  EXPECT_EQ(s.tasks[1].kind, "pytorch-to-cuda");
  EXPECT_EQ(s.tasks[1].source, "level1/1_B.py");
  EXPECT_EQ(s.tasks[1].disallowedLibraries, (std::vector<std::string>{"cudnn", "cublasLt"}));
  EXPECT_EQ(s.tasks[1].dir, d / "tasks/b");
  EXPECT_NE(s.find("b"), nullptr);
  EXPECT_EQ(s.find("c"), nullptr);
}

TEST(Suite, AMissingTaskIsAnErrorUnlessAllowed) {
  TempDir d;
  d.write("a/task.json", taskJson("a"));
  d.write("refused/import-error.txt", "forward draws random numbers\n");
  std::string path = d.write("s.json", R"({"schema": "cudaperf-suite/1", "name": "s", "tasks": ["a", "gone", "refused"]})");
  std::string err = suiteErrorOf(path);
  EXPECT_NE(err.find("s.json.tasks[1]"), std::string::npos) << err;
  EXPECT_NE(err.find("no such task directory"), std::string::npos) << err;
  SuiteOptions allow;
  allow.allowMissing = true;
  Suite s = loadSuite(path, allow);
  ASSERT_EQ(s.tasks.size(), 3u);
  EXPECT_EQ(s.presentCount(), 1u);
  EXPECT_FALSE(s.tasks[1].present);
  EXPECT_EQ(s.tasks[1].name, "gone");
  EXPECT_NE(s.tasks[2].missingReason.find("import refused: forward draws random numbers"), std::string::npos)
      << s.tasks[2].missingReason;
}

TEST(Suite, BadFilesNameTheFieldAtFault) {
  TempDir d;
  d.write("a/task.json", taskJson("a"));
  d.write("a2/task.json", taskJson("a"));
  d.write("bad/task.json", "{\"name\": \"bad\", \"kind\": \"fortran\", \"configs\": [{\"name\": \"x\"}]}");
  d.write("notjson/task.json", "{oops");
  auto suite = [&](const std::string &name, const std::string &body) { return d.write(name, body); };
  EXPECT_NE(suiteErrorOf(d / "none.json").find("cannot be read"), std::string::npos);
  EXPECT_NE(suiteErrorOf(suite("x1.json", "[1]")).find("expected a JSON object"), std::string::npos);
  EXPECT_NE(suiteErrorOf(suite("x2.json", R"({"schema": "cudaperf-suite/9", "name": "s", "tasks": ["a"]})"))
                .find("is not cudaperf-suite/1"),
            std::string::npos);
  EXPECT_NE(suiteErrorOf(suite("x3.json", R"({"schema": "cudaperf-suite/1", "tasks": ["a"]})")).find("missing \"name\""),
            std::string::npos);
  EXPECT_NE(suiteErrorOf(suite("x4.json", R"({"schema": "cudaperf-suite/1", "name": "s", "task": ["a"]})"))
                .find("unknown key \"task\""),
            std::string::npos);
  EXPECT_NE(suiteErrorOf(suite("x5.json", R"({"schema": "cudaperf-suite/1", "name": "s", "tasks": []})"))
                .find("non-empty array"),
            std::string::npos);
  EXPECT_NE(suiteErrorOf(suite("x6.json", R"({"schema": "cudaperf-suite/1", "name": "s", "tasks": ["a", "a2"]})"))
                .find("a second task named \"a\""),
            std::string::npos);
  EXPECT_NE(suiteErrorOf(suite("x7.json", R"({"schema": "cudaperf-suite/1", "name": "s", "tasks": ["bad"]})"))
                .find("\"fortran\" is neither"),
            std::string::npos);
  EXPECT_NE(suiteErrorOf(suite("x8.json", R"({"schema": "cudaperf-suite/1", "name": "s", "tasks": ["notjson"]})"))
                .find("not JSON"),
            std::string::npos);
  EXPECT_NE(suiteErrorOf(suite("x9.json", R"({"schema": "cudaperf-suite/1", "name": "s",
              "disallowed_libraries": ["mkl"], "tasks": ["a"]})"))
                .find("unknown library \"mkl\""),
            std::string::npos);
  EXPECT_NE(suiteErrorOf(suite("x10.json", R"({"schema": "cudaperf-suite/1", "name": "s",
              "tasks": [{"dir": "a", "name": "b"}]})"))
                .find("names the task \"b\""),
            std::string::npos);
  EXPECT_NE(suiteErrorOf(suite("x11.json", R"({"schema": "cudaperf-suite/1", "name": "s", "tasks": [7]})"))
                .find("tasks[0]: expected a task directory"),
            std::string::npos);
}

TEST(Suite, ManifestSplitAndEnvironmentRoot) {
  TempDir d;
  d.write("ds/tasks/t1/task.json", taskJson("t1"));
  d.write("ds/tasks/t2/task.json", taskJson("t2"));
  d.write("ds/tasks/t3/task.json", taskJson("t3"));
  d.write("ds/manifest.jsonl", R"({"task": "t1", "dir": "tasks/t1", "family": "f", "kind": "c", "split": "train"}
{"task": "t2", "dir": "tasks/t2", "family": "g", "kind": "c", "split": "test"}

{"task": "t3", "dir": "tasks/t3", "family": "g", "kind": "c", "split": "test"}
)");
  std::string path = d.write("suites/test.json", R"({"schema": "cudaperf-suite/1", "name": "dataset-test",
    "tasks_from": {"manifest": "${CUDAPERF_BENCH_TEST_DATASET:-../ds/manifest.jsonl}", "split": "test"}})");
  unsetenv("CUDAPERF_BENCH_TEST_DATASET");
  Suite s = loadSuite(path);
  ASSERT_EQ(s.tasks.size(), 2u);
  EXPECT_EQ(s.tasks[0].name, "t2");
  EXPECT_EQ(s.tasks[1].source, "g");
  // The variable, when set, wins; a manifest without the split is an error.
  d.write("other/manifest.jsonl", R"({"task": "t1", "dir": "../ds/tasks/t1", "split": "train"})" "\n");
  setenv("CUDAPERF_BENCH_TEST_DATASET", (d / "other/manifest.jsonl").c_str(), 1);
  EXPECT_NE(suiteErrorOf(path).find("no task in split \"test\""), std::string::npos);
  unsetenv("CUDAPERF_BENCH_TEST_DATASET");
  // --root names the dataset directory.
  SuiteOptions o;
  o.rootOverride = d / "ds";
  EXPECT_EQ(loadSuite(path, o).tasks.size(), 2u);
  std::string noDefault = d.write("suites/nodefault.json", R"({"schema": "cudaperf-suite/1", "name": "x",
    "tasks_from": {"manifest": "${CUDAPERF_BENCH_TEST_UNSET}", "split": "test"}})");
  unsetenv("CUDAPERF_BENCH_TEST_UNSET");
  EXPECT_NE(suiteErrorOf(noDefault).find("CUDAPERF_BENCH_TEST_UNSET is not set"), std::string::npos);
  std::string badLine = d.write("bad/manifest.jsonl", "{\"task\": \"t1\"}\n");
  o.rootOverride = d / "bad";
  EXPECT_NE(suiteErrorOf(path, o).find("manifest.jsonl:1: dir: missing"), std::string::npos);
}
