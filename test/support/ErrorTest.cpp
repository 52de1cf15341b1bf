// The error model (docs/architecture.md, "Errors and exit codes"): the exit code follows what failed
// (usage, input, internal), not which library threw.
#include "cudaperf/Support/ArgParser.h"
#include "cudaperf/Support/Error.h"
#include "cudaperf/Support/Json.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <new>

using namespace cudaperf::support;

namespace {

template <class Body> SupportError caught(Body body) {
  try {
    body();
  } catch (const SupportError &e) {
    return e;
  }
  ADD_FAILURE() << "nothing was thrown";
  return SupportError("");
}

TEST(ErrorModel, KindsAndCodes) {
  EXPECT_EQ(exitCodeFor(ErrorKind::Usage), 2);
  EXPECT_EQ(exitCodeFor(ErrorKind::Input), 1);
  EXPECT_EQ(exitCodeFor(ErrorKind::Internal), 70);
  EXPECT_EQ(errorKindOf(SupportError("x")), ErrorKind::Input); // lib/Support's default: an input
  EXPECT_EQ(errorKindOf(UsageError("x")), ErrorKind::Usage);
  EXPECT_EQ(errorKindOf(SupportError("x", ErrorKind::Internal)), ErrorKind::Internal);
  EXPECT_EQ(errorKindOf(std::runtime_error("a library's own error")), ErrorKind::Input);
  EXPECT_EQ(errorKindOf(std::out_of_range("a bug")), ErrorKind::Internal);
  EXPECT_EQ(errorKindOf(std::bad_alloc()), ErrorKind::Input); // a run that failed, not a bug
}

TEST(ErrorModel, ParseJsonIsAnInputError) {
  SupportError e = caught([] { parseJson("{\"a\": 1,", "state.json"); });
  EXPECT_EQ(e.kind(), ErrorKind::Input);
  EXPECT_NE(std::string(e.what()).find("state.json:1:"), std::string::npos) << e.what();
  auto path = std::filesystem::temp_directory_path() / "cudaperf-error-test.json";
  std::ofstream(path) << "{\n  \"step\": 3,\n  \"step\": 4\n}\n";
  e = caught([&] { readJsonFile(path.string()); });
  std::filesystem::remove(path);
  EXPECT_EQ(e.kind(), ErrorKind::Input);
  EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  e = caught([] { readJsonFile("/nonexistent/cudaperf/x.json"); });
  EXPECT_EQ(e.kind(), ErrorKind::Input);
}

TEST(ErrorModel, ArgParserErrorsAreUsage) {
  int jobs = 0;
  ArgParser p("prog", {"[options]"}, "");
  p.option("--jobs", "N", "jobs", [&](const std::string &v) { jobs = int(parseInteger(v, 1, 8)); });
  p.option("--config", "FILE", "a file read at once", [&](const std::string &v) { readJsonFile(v); });
  EXPECT_EQ(caught([&] { p.parse({"--jbos", "2"}); }).kind(), ErrorKind::Usage);
  EXPECT_EQ(caught([&] { p.parse({"--jobs"}); }).kind(), ErrorKind::Usage);
  EXPECT_EQ(caught([&] { p.parse({"--jobs", "x"}); }).kind(), ErrorKind::Usage);
  EXPECT_EQ(caught([&] { p.parse({"--jobs", "9"}); }).kind(), ErrorKind::Usage);
  // Whatever a handler refuses is a bad value of its option.
  EXPECT_EQ(caught([&] { p.parse({"--config", "/nonexistent/x.json"}); }).kind(), ErrorKind::Usage);
  EXPECT_EQ(caught([] { parseOnOff("maybe"); }).kind(), ErrorKind::Usage);
}

TEST(ErrorModel, ContextKeepsTheKind) {
  SupportError e = caught([] { withErrorContext("ids.jsonl: line 3", [] { return parseJson("[1,", "line"); }); });
  EXPECT_EQ(e.kind(), ErrorKind::Input);
  EXPECT_EQ(std::string(e.what()).rfind("ids.jsonl: line 3: line:1:", 0), 0u) << e.what();
  e = caught([] { withErrorContext("--ids", [] { return parseInteger("x"); }); });
  EXPECT_EQ(e.kind(), ErrorKind::Usage);
  e = caught([] { withErrorContext("row", [] { return Json::parse("[1]").at("ids"); }); }); // nlohmann's type_error
  EXPECT_EQ(e.kind(), ErrorKind::Input);
  e = caught([] { withErrorContext("table", [] { return std::vector<int>().at(3); }); });
  EXPECT_EQ(e.kind(), ErrorKind::Internal);
  EXPECT_EQ(withErrorContext("fine", [] { return 7; }), 7);
}

TEST(ErrorModel, ReportErrorPrintsAndMaps) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(reportError("prog", UsageError("unknown option '--x'"), "Try 'prog --help' for more."), 2);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "prog: unknown option '--x'\nTry 'prog --help' for more.\n");
  testing::internal::CaptureStderr();
  EXPECT_EQ(reportError("prog", SupportError("state.json:1:9: syntax error"), "Try 'prog --help' for more."), 1);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "prog: state.json:1:9: syntax error\n"); // no hint
  testing::internal::CaptureStderr();
  EXPECT_EQ(reportError("prog", std::logic_error("broken invariant"), "Try 'prog --help' for more."), 70);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "prog: internal error: broken invariant\n");
}

} // namespace
