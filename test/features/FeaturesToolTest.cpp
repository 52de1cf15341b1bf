// computeFeatures from files, the choice of the candidate's result, and cudaperf-features' exit
// codes and output.
#include "Fixtures.h"

#include "cudaperf/Features/Features.h"
#include "cudaperf/Features/FeaturesError.h"
#include "cudaperf/Support/Sha256.h"
#include "cudaperf/Support/Subprocess.h"

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

using namespace cudaperf;
using namespace cudaperf::features;
using support::Json;

namespace {

struct Files {
  std::string dir, candidate, analysis, result;
};

// A candidate file, the analysis and a JSON Lines result file whose second line is the candidate's.
Files writeFiles(const std::string &name) {
  Files f;
  f.dir = testing::TempDir() + "/cudaperf-features-" + name;
  support::runProcess({"/bin/mkdir", "-p", f.dir}, support::ProcessOptions());
  f.candidate = f.dir + "/cand.cu";
  f.analysis = f.dir + "/analysis.json";
  f.result = f.dir + "/results.jsonl";
  std::string source = "extern \"C\" void toy(float *x, int n) {}\n";
  std::ofstream(f.candidate) << source;
  std::ofstream(f.analysis) << support::writeJson(fixtures::analysisDocument(), 2);
  Json other = fixtures::evalResult(), mine = fixtures::evalResult();
  other["candidate_sha256"] = support::sha256Hex("something else");
  other["outcome"] = "wrong_answer";
  mine["candidate_sha256"] = support::sha256Hex(source);
  std::ofstream(f.result) << support::writeJson(other) << "\n" << support::writeJson(mine) << "\n";
  return f;
}

support::ProcessResult tool(const std::vector<std::string> &args) {
  std::vector<std::string> argv = {CUDAPERF_FEATURES};
  argv.insert(argv.end(), args.begin(), args.end());
  support::ProcessOptions o;
  o.separateStderr = true;
  o.maxCapturedBytes = 1 << 24;
  return support::runProcess(argv, o);
}

} // namespace

TEST(ComputeFeatures, ReadsTheFilesAndPicksTheCandidatesResult) {
  Files f = writeFiles("compute");
  FeatureRequest request;
  request.taskDir = f.dir;
  request.candidatePath = f.candidate;
  request.analysisPath = f.analysis;
  request.resultPath = f.result;
  std::unique_ptr<FeatureSet> set = computeFeatures(request);
  ASSERT_NE(set->result(), nullptr);
  EXPECT_EQ(set->result()->outcome, schema::Outcome::Ok); // not the other candidate's wrong_answer
  EXPECT_EQ(set->records().size(), 2u);
  std::ofstream(f.candidate) << "// changed after the evaluation\n";
  try {
    computeFeatures(request);
    FAIL() << "a result of another file was used";
  } catch (const FeaturesError &e) {
    EXPECT_NE(std::string(e.what()).find("none for " + f.candidate), std::string::npos) << e.what();
  }
}

TEST(ComputeFeatures, AFailingAnalyzerIsAnErrorWithItsMessage) {
  Files f = writeFiles("analyzer");
  std::string fake = f.dir + "/fake-analyzer";
  std::ofstream(fake) << "#!/bin/sh\necho 'task.json: entry: missing' >&2\nexit 1\n";
  support::runProcess({"/bin/chmod", "+x", fake}, support::ProcessOptions());
  FeatureRequest request;
  request.taskDir = f.dir;
  request.candidatePath = f.candidate;
  request.analyzerPath = fake;
  try {
    computeFeatures(request);
    FAIL() << "accepted";
  } catch (const FeaturesError &e) {
    EXPECT_NE(std::string(e.what()).find("exit status 1\ntask.json: entry: missing"), std::string::npos) << e.what();
  }
  // An analyzer that prints the document: its arguments are the --task command line.
  std::ofstream(fake) << "#!/bin/sh\n[ \"$1 $2 $3 $4\" = \"--task " << f.dir << " --config small\" ] || exit 7\ncat "
                      << f.analysis << "\n";
  request.configuration = "small";
  std::unique_ptr<FeatureSet> set = computeFeatures(request);
  ASSERT_EQ(set->records().size(), 1u);
  EXPECT_EQ(set->records()[0].analysis->name, "small");
}

// --save-analysis keeps the analyzer's document as printed, so a later run (--analysis) reads the same launches.
TEST(FeaturesTool, SavesTheAnalyzersDocument) {
  Files f = writeFiles("save");
  std::string fake = f.dir + "/fake-analyzer", saved = f.dir + "/saved.json";
  std::ofstream(fake) << "#!/bin/sh\ncat " << f.analysis << "\n";
  support::runProcess({"/bin/chmod", "+x", fake}, support::ProcessOptions());
  support::ProcessResult r = tool({f.dir, f.candidate, "--analyzer", fake, "--save-analysis", saved, "--result", f.result});
  ASSERT_TRUE(r.succeeded()) << r.describe() << r.errorOutput;
  auto read = [](const std::string &path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  EXPECT_EQ(read(saved), read(f.analysis));
  support::ProcessResult again = tool({f.dir, f.candidate, "--analysis", saved, "--result", f.result});
  ASSERT_TRUE(again.succeeded()) << again.describe() << again.errorOutput;
  EXPECT_EQ(again.output, r.output);
  support::ProcessResult unwritable =
      tool({f.dir, f.candidate, "--analyzer", fake, "--save-analysis", f.dir + "/no/such/dir/a.json"});
  EXPECT_EQ(unwritable.exitCode, 1);
  EXPECT_NE(unwritable.errorOutput.find("a.json: cannot be written"), std::string::npos) << unwritable.errorOutput;
  EXPECT_EQ(tool({f.dir, f.candidate, "--analysis", saved, "--save-analysis", saved}).exitCode, 2);
}

TEST(FeaturesTool, PrintsOneRecordPerConfiguration) {
  Files f = writeFiles("tool");
  support::ProcessResult r = tool({f.dir, f.candidate, "--analysis", f.analysis, "--result", f.result, "--summary"});
  ASSERT_TRUE(r.succeeded()) << r.describe() << r.errorOutput;
  std::stringstream lines(r.output);
  std::string line;
  std::vector<Json> records;
  while (std::getline(lines, line))
    records.push_back(support::parseJson(line));
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0]["configuration"], "small");
  EXPECT_EQ(records[1]["configuration"], "large");
  EXPECT_NE(r.errorOutput.find("small: 3 launches, join complete"), std::string::npos) << r.errorOutput;
}

TEST(FeaturesTool, ExitCodes) {
  Files f = writeFiles("exit");
  EXPECT_EQ(tool({}).exitCode, 2);
  EXPECT_EQ(tool({"--bogus"}).exitCode, 2);
  EXPECT_EQ(tool({"--help"}).exitCode, 0);
  support::ProcessResult missing = tool({f.dir, f.candidate, "--analysis", f.dir + "/none.json"});
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_NE(missing.errorOutput.find("none.json: cannot be read"), std::string::npos) << missing.errorOutput;
  // "large" has a CUB kernel nobody launched from the file: its join is incomplete.
  EXPECT_EQ(tool({f.dir, f.candidate, "--analysis", f.analysis, "--result", f.result, "--require-complete-join"}).exitCode, 3);
  EXPECT_EQ(tool({f.dir, f.candidate, "--analysis", f.analysis, "--result", f.result, "--config", "small",
                  "--require-complete-join"}).exitCode, 0);
  support::ProcessResult list = tool({"--list-features"});
  EXPECT_EQ(list.exitCode, 0);
  EXPECT_EQ(list.output, featureTablesMarkdown());
}
