// schema::TaskSpec (task.json): every task.json in the repository reads and writes back as the same
// JSON (key order and number spelling included); hostile documents are refused with every problem
// named. The runtime's own rules on top (dtypes, sizes, flags) are tested in test/runtime/TaskTest.cpp.
#include "cudaperf/Schema/TaskSpec.h"
#include "cudaperf/Support/Error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <limits>

namespace fs = std::filesystem;
using namespace cudaperf::schema;
using cudaperf::support::Json;
using cudaperf::support::SupportError;

namespace {

std::vector<std::string> problemsOf(const Json &doc) {
  std::vector<std::string> problems;
  TaskSpec::read(doc, problems);
  return problems;
}
std::vector<std::string> problemsOf(const std::string &text) { return problemsOf(Json::parse(text)); }
std::vector<std::string> problemsOf(const char *text) { return problemsOf(Json::parse(text)); }

bool mentions(const std::vector<std::string> &problems, const std::string &text) {
  return std::any_of(problems.begin(), problems.end(), [&](const std::string &p) { return p == text; });
}

std::string listed(const std::vector<std::string> &problems) {
  std::string s;
  for (const std::string &p : problems)
    s += "\n  " + p;
  return s;
}

// A valid c-to-cuda task with `patch` merged over its top level.
std::string task(const Json &patch = Json::object()) {
  Json doc = Json::parse(R"({"name": "t", "kind": "c-to-cuda", "entry": "run",
    "args": [{"name": "x", "type": "pointer", "dtype": "f32", "access": "in", "count": "n"},
             {"name": "y", "type": "pointer", "dtype": "f32", "access": "out", "count": "n"},
             {"name": "n", "type": "scalar", "dtype": "i32"}],
    "configs": [{"name": "small", "n": 1024}]})");
  for (const auto &kv : patch.items())
    doc[kv.key()] = kv.value();
  return doc.dump();
}

} // namespace

// Every task.json under data/ and test/: read without a problem (test/Task/Inputs/bad-task is
// wrong on purpose and must be refused) and written back as the same JSON.
TEST(TaskSpec, EveryTaskInTheRepositoryRoundTrips) {
  const fs::path root = CUDAPERF_SOURCE_DIR;
  size_t read = 0;
  std::vector<std::string> failures;
  for (const char *top : {"data", "test"})
    for (auto it = fs::recursive_directory_iterator(root / top); it != fs::recursive_directory_iterator(); ++it) {
      if (it->path().filename() != "task.json" || !it->is_regular_file())
        continue;
      std::string rel = fs::relative(it->path(), root).string();
      Json before = cudaperf::support::readJsonFile(it->path().string());
      std::vector<std::string> problems;
      TaskSpec spec = TaskSpec::read(before, problems);
      if (rel == "test/Task/Inputs/bad-task/task.json") {
        EXPECT_TRUE(mentions(problems, "task.json: args[0].type: expected \"pointer\" or \"scalar\"")) << listed(problems);
        EXPECT_TRUE(mentions(problems, "task.json: configs: needs at least one configuration")) << listed(problems);
        continue;
      }
      ++read;
      if (!problems.empty()) {
        failures.push_back(rel + ":" + listed(problems));
        continue;
      }
      std::string a = cudaperf::support::writeJson(before), b = cudaperf::support::writeJson(spec.toJson());
      if (a != b)
        failures.push_back(rel + ": differs\n  read:    " + a.substr(0, 300) + "\n  written: " + b.substr(0, 300));
    }
  EXPECT_GE(read, 36u);
  for (const std::string &f : failures)
    ADD_FAILURE() << f;
}

TEST(TaskSpec, FieldsAreTyped) {
  TaskSpec t = TaskSpec::fromJson(Json::parse(task(Json{{"description", "d"}, {"flags", {"-O3"}}})));
  EXPECT_EQ(t.name, "t");
  EXPECT_EQ(t.description.value_or(""), "d");
  ASSERT_EQ(t.args.size(), 3u);
  EXPECT_TRUE(t.args[1].isOutput());
  EXPECT_FALSE(t.args[0].isOutput());
  EXPECT_EQ(t.args[0].count->get<std::string>(), "n");
  ASSERT_EQ(t.configs.size(), 1u);
  EXPECT_EQ(t.configName(0), "small");
  EXPECT_TRUE(t.configs[0].params.at(0).second.is_number_integer()); // 1024 stays an integer
  EXPECT_EQ(t.flags, std::vector<std::string>{"-O3"});
  EXPECT_EQ(t.findArgument("n"), &t.args[2]);
  EXPECT_EQ(t.findArgument("q"), nullptr);
  // An unnamed configuration is "config<i>", as the evaluator names it.
  TaskSpec unnamed = TaskSpec::fromJson(Json::parse(task(Json{{"configs", Json::parse(R"([{"n": 1}, {"n": 2}])")}})));
  EXPECT_EQ(unnamed.configName(1), "config1");
}

TEST(TaskSpec, HostileDocumentsNameEveryProblem) {
  // Missing keys, wrong types.
  auto p = problemsOf(R"({"name": "t", "kind": "c-to-cuda", "args": {}, "configs": [{"name": 3, "n": "big"}]})");
  EXPECT_TRUE(mentions(p, "task.json: top level: missing \"entry\"")) << listed(p);
  EXPECT_TRUE(mentions(p, "task.json: args: must be an array")) << listed(p);
  EXPECT_TRUE(mentions(p, "task.json: configs[0].name: must be a string")) << listed(p);
  EXPECT_TRUE(mentions(p, "task.json: configs[0].n: parameter values must be finite numbers")) << listed(p);
  EXPECT_TRUE(mentions(problemsOf("[1]"), "task.json: top level: must be an object"));
  EXPECT_TRUE(mentions(problemsOf(task(Json{{"name", 7}})), "task.json: name: must be a string"));
  EXPECT_TRUE(mentions(problemsOf(task(Json{{"description", Json::array()}})), "task.json: description: must be a string"));
  EXPECT_TRUE(mentions(problemsOf(task(Json{{"extra", 1}})), "task.json: top level: unknown key \"extra\""));
  EXPECT_TRUE(mentions(problemsOf(task(Json{{"kind", "fortran"}})),
                       "task.json: kind: \"fortran\" is neither \"c-to-cuda\" nor \"pytorch-to-cuda\""));
  EXPECT_TRUE(mentions(problemsOf(task(Json{{"flags", {"O3"}}})), "task.json: flags: each flag must be a string starting with '-'"));
  // Names: path traversal in the task's name (tools name files by it), C identifiers, the reserved stream.
  EXPECT_TRUE(mentions(problemsOf(task(Json{{"name", "../../etc/cron.d/x"}})),
                       "task.json: name: \"../../etc/cron.d/x\" holds a path separator (a name, not a path)"));
  EXPECT_TRUE(mentions(problemsOf(task(Json{{"name", ".."}})), "task.json: name: \"..\" is not a name"));
  EXPECT_TRUE(mentions(problemsOf(task(Json{{"entry", "run; system"}})), "task.json: entry: \"run; system\" is not a C identifier"));
  auto args = problemsOf(task(Json{{"args", Json::parse(R"([{"name": "2f", "type": "scalar", "dtype": "f32"},
      {"name": "stream", "type": "scalar", "dtype": "f32", "value": 1e308},
      {"name": "y", "type": "pointer", "dtype": "f32", "access": "write", "count": 1.5, "value": 1},
      {"name": "y", "type": "pointer", "dtype": "f32", "access": "out", "count": 4}])")}}));
  EXPECT_TRUE(mentions(args, "task.json: args[0].name: \"2f\" is not a C identifier")) << listed(args);
  EXPECT_TRUE(mentions(args, "task.json: args[1].name: \"stream\" is reserved for the trailing cudaStream_t")) << listed(args);
  EXPECT_TRUE(mentions(args, "task.json: args[2].access: expected \"in\", \"out\" or \"inout\"")) << listed(args);
  EXPECT_TRUE(mentions(args, "task.json: args[2].count: must be a size expression string or an integer")) << listed(args);
  EXPECT_TRUE(mentions(args, "task.json: args[2].value: only scalars have a fixed value")) << listed(args);
  EXPECT_TRUE(mentions(args, "task.json: args[3].name: duplicate argument \"y\"")) << listed(args);
  EXPECT_TRUE(mentions(problemsOf(task(Json{{"args", Json::parse(R"([{"name": "x", "type": "pointer", "dtype": "f32",
      "access": "in", "count": "n"}])")}})),
                       "task.json: args: no output argument (a pointer with access \"out\" or \"inout\")"));
  // Huge numbers: past double's range the JSON reader refuses the text; a value
  // that is not finite (a document built in memory) is refused by the reader of the task.
  try {
    cudaperf::support::parseJson("{\"configs\": [{\"name\": \"a\",\n \"n\": 1e999}]}", "task.json");
    ADD_FAILURE() << "1e999 parsed";
  } catch (const SupportError &e) {
    EXPECT_EQ(std::string(e.what()), "task.json: number overflow parsing '1e999'");
  }
  Json infinite = Json::parse(task());
  infinite["configs"][0]["n"] = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(mentions(problemsOf(infinite), "task.json: configs[0].n: parameter values must be finite numbers"))
      << listed(problemsOf(infinite));
  // Too many entries.
  Json many = Json::array();
  for (int i = 0; i < 300; ++i)
    many.push_back(Json{{"name", "a" + std::to_string(i)}, {"type", "scalar"}, {"dtype", "f32"}});
  EXPECT_TRUE(mentions(problemsOf(task(Json{{"args", many}})), "task.json: args: more than 256 arguments"));
  // Duplicate configurations, and an empty list.
  EXPECT_TRUE(mentions(problemsOf(task(Json{{"configs", Json::parse(R"([{"name": "a", "n": 1}, {"name": "a", "n": 2}])")}})),
                       "task.json: configs[1].name: duplicate configuration \"a\""));
  EXPECT_TRUE(mentions(problemsOf(task(Json{{"configs", Json::array()}})), "task.json: configs: needs at least one configuration"));
}

TEST(TaskSpec, PyTorchReferencePathsStayInsideTheTask) {
  Json pytorch = Json::parse(R"({"module": "model.py", "exported": "exported/{config}.pt", "forward_args": ["x"],
                                 "outputs": ["y"], "shapes": {"x": ["n"], "y": [1024]}})");
  TaskSpec ok = TaskSpec::fromJson(Json::parse(task(Json{{"kind", "pytorch-to-cuda"}, {"pytorch", pytorch}})));
  ASSERT_TRUE(ok.pytorch.has_value());
  EXPECT_EQ(ok.pytorch->shapes.size(), 2u);
  auto with = [&](const char *key, const Json &value) {
    Json p = pytorch;
    p[key] = value;
    return problemsOf(task(Json{{"kind", "pytorch-to-cuda"}, {"pytorch", p}}));
  };
  EXPECT_TRUE(mentions(with("module", "../../x.py"), "task.json: pytorch.module: must be a path inside the task directory"));
  EXPECT_TRUE(mentions(with("module", "/etc/passwd"), "task.json: pytorch.module: must be a path inside the task directory"));
  EXPECT_TRUE(mentions(with("exported", "exported/model.pt"),
                       "task.json: pytorch.exported: must contain {config} (one export per configuration)"));
  EXPECT_TRUE(mentions(with("outputs", Json{"x"}), "task.json: pytorch.outputs: \"x\" is not an output pointer argument"));
  EXPECT_TRUE(mentions(with("shapes", Json{{"y", {1}}}), "task.json: pytorch.shapes: no shape for \"x\""));
  EXPECT_TRUE(mentions(with("shapes", Json{{"x", {true}}, {"y", {1}}}),
                       "task.json: pytorch.shapes.x: each dimension must be a number or a size expression"));
  EXPECT_TRUE(mentions(problemsOf(task(Json{{"kind", "pytorch-to-cuda"}})),
                       "task.json: pytorch: missing (a pytorch-to-cuda task names its exported module)"));
  EXPECT_TRUE(mentions(problemsOf(task(Json{{"pytorch", pytorch}})),
                       "task.json: pytorch: only pytorch-to-cuda tasks have a PyTorch reference"));
}

TEST(TaskSpec, FromJsonThrowsEveryProblemAndTheSummaryOnlyItsOwn) {
  try {
    TaskSpec::fromJson(Json::parse(R"({"name": "t/x", "kind": "c-to-cuda"})"), "dir/task.json");
    FAIL() << "accepted";
  } catch (const SupportError &e) {
    std::string m = e.what();
    EXPECT_EQ(m.rfind("dir/task.json: invalid task\n  task.json: ", 0), 0u) << m;
    EXPECT_NE(m.find("missing \"entry\""), std::string::npos) << m;
    EXPECT_NE(m.find("holds a path separator"), std::string::npos) << m;
  }
  // The bench lists tasks: a task whose arguments are still incomplete is listed; a bad kind is not.
  TaskSummary s = readTaskSummary(Json::parse(R"({"name": "a", "kind": "pytorch-to-cuda", "entry": "a", "args": [],
      "configs": [{"name": "small"}, {"name": "large"}]})"), "/x/task.json");
  EXPECT_EQ(s.name, "a");
  EXPECT_EQ(s.configs, (std::vector<std::string>{"small", "large"}));
  try {
    readTaskSummary(Json::parse(R"({"name": "a", "kind": "fortran", "configs": [{"name": "x"}]})"), "/x/task.json");
    FAIL() << "accepted";
  } catch (const SupportError &e) {
    EXPECT_EQ(std::string(e.what()), "/x/task.json: kind: \"fortran\" is neither \"c-to-cuda\" nor \"pytorch-to-cuda\"");
  }
}
