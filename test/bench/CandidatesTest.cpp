// Candidate directories: the three layouts, and the bad ones (unknown task, empty, mixed layouts).
#include "TempDir.h"

#include "cudaperf/Bench/BenchError.h"
#include "cudaperf/Bench/Candidates.h"

#include <gtest/gtest.h>

using namespace cudaperf::bench;

namespace {

Suite suiteOf(std::initializer_list<const char *> names) {
  Suite s;
  s.name = "s";
  for (const char *n : names) {
    SuiteTask t;
    t.name = n;
    t.kind = "c-to-cuda";
    s.tasks.push_back(t);
  }
  return s;
}

std::string scanError(const std::string &dir, const Suite &suite, CandidateOptions o = {}) {
  try {
    scanCandidates(dir, suite, o);
  } catch (const BenchError &e) {
    EXPECT_EQ(e.kind, BenchError::Kind::Candidates);
    return e.what();
  }
  return "";
}

} // namespace

TEST(Candidates, AllThreeLayouts) {
  TempDir d;
  d.write("c/a.cu", "");
  d.write("c/b/0.cu", "");
  d.write("c/b/1.cu", "");
  d.write("c/b/10.cu", "");
  d.write("c/b/2.cu", "");
  d.write("c/c/0/turn1.cu", "");
  d.write("c/c/0/turn2.cu", "");
  d.write("c/c/1/turn1.cu", "");
  d.write("c/b/notes.txt", "");
  d.write("c/.hidden.cu", "");
  Suite s = suiteOf({"c", "b", "a", "unused"});
  CandidateSet set = scanCandidates(d / "c", s, {});
  ASSERT_EQ(set.files.size(), 8u);
  // Suite order, samples numerically, turns in order.
  EXPECT_EQ(set.files[0].task, "c");
  EXPECT_EQ(set.files[0].sample, "0");
  EXPECT_EQ(set.files[1].turn, 2);
  EXPECT_EQ(set.files[2].sample, "1");
  EXPECT_EQ(set.files[3].task, "b");
  EXPECT_EQ(set.files[6].sample, "10");
  EXPECT_EQ(set.files[7].task, "a");
  EXPECT_EQ(set.files[7].sample, "0");
  EXPECT_EQ(set.files[7].turn, 1);
  EXPECT_EQ(set.samples, 4);
  EXPECT_EQ(set.turns, 2);
  ASSERT_EQ(set.notes.size(), 1u);
  EXPECT_NE(set.notes[0].find("notes.txt: not a .cu file"), std::string::npos);

  CandidateOptions limited;
  limited.turns = 1;
  CandidateSet one = scanCandidates(d / "c", s, limited);
  EXPECT_EQ(one.files.size(), 7u);
  EXPECT_EQ(one.turns, 1);
  EXPECT_EQ(one.notes.size(), 2u);
}

TEST(Candidates, BadDirectoriesGiveClearErrors) {
  TempDir d;
  Suite s = suiteOf({"a", "b"});
  EXPECT_NE(scanError(d / "nowhere", s).find("no such candidate directory"), std::string::npos);
  d.write("empty/README", "");
  EXPECT_NE(scanError(d / "empty", s).find("no candidates"), std::string::npos);
  d.write("unknown/zzz.cu", "");
  std::string err = scanError(d / "unknown", s);
  EXPECT_NE(err.find("a candidate for \"zzz\", which suite s does not have"), std::string::npos) << err;
  d.write("unknowndir/zzz/0.cu", "");
  EXPECT_NE(scanError(d / "unknowndir", s).find("\"zzz\""), std::string::npos);
  d.write("both/a.cu", "");
  d.write("both/a/0.cu", "");
  EXPECT_NE(scanError(d / "both", s).find("has both a.cu and a folder a/"), std::string::npos);
  d.write("sampleboth/a/0.cu", "");
  d.write("sampleboth/a/0/turn1.cu", "");
  EXPECT_NE(scanError(d / "sampleboth", s).find("sample \"0\" has both"), std::string::npos);
  d.write("badturn/a/0/final.cu", "");
  EXPECT_NE(scanError(d / "badturn", s).find("turn<t>.cu files"), std::string::npos);
  d.write("turn0/a/0/turn0.cu", "");
  EXPECT_NE(scanError(d / "turn0", s).find("turn<t>.cu files"), std::string::npos);
  std::filesystem::create_directories(d / "emptysample/a/0");
  EXPECT_NE(scanError(d / "emptysample", s).find("empty sample folder"), std::string::npos);
  d.write("badname/a/-x.cu", "");
  EXPECT_NE(scanError(d / "badname", s).find("is not a sample name"), std::string::npos);
}

TEST(Candidates, SamplesOptionFixesTheSlots) {
  TempDir d;
  d.write("c/a/0.cu", "");
  d.write("c/a/2.cu", "");
  d.write("c/b.cu", "");
  Suite s = suiteOf({"a", "b"});
  CandidateOptions k4;
  k4.samples = 4;
  CandidateSet set = scanCandidates(d / "c", s, k4);
  EXPECT_EQ(set.samples, 4);
  EXPECT_EQ(set.files.size(), 3u);
  CandidateOptions k2;
  k2.samples = 2;
  EXPECT_NE(scanError(d / "c", s, k2).find("sample \"2\" is not one of 0..1"), std::string::npos);
  d.write("named/a/best.cu", "");
  EXPECT_NE(scanError(d / "named", s, k4).find("sample \"best\""), std::string::npos);
  d.write("padded/a/01.cu", "");
  EXPECT_NE(scanError(d / "padded", s, k4).find("sample \"01\""), std::string::npos);
}

TEST(Candidates, PathsOfResultsMapBackToSamplesAndTurns) {
  CandidateFile t = candidateFromPath("/x/cands/relu/3/turn2.cu", "relu");
  EXPECT_EQ(t.sample, "3");
  EXPECT_EQ(t.turn, 2);
  CandidateFile s = candidateFromPath("/x/cands/relu/7.cu", "relu");
  EXPECT_EQ(s.sample, "7");
  EXPECT_EQ(s.turn, 1);
  CandidateFile impl = candidateFromPath("/repo/data/tasks/pytorch/relu/impls/baseline.cu", "relu");
  EXPECT_EQ(impl.sample, "baseline");
  CandidateFile single = candidateFromPath("/x/cands/relu.cu", "relu");
  EXPECT_EQ(single.sample, "0");
  EXPECT_EQ(single.turn, 1);
  EXPECT_TRUE(sampleLess("2", "10"));
  EXPECT_TRUE(sampleLess("10", "9a"));
}

TEST(Candidates, ImplementationsOfEachTask) {
  TempDir d;
  d.write("a/impls/baseline.cu", "");
  d.write("a/impls/tiled.cu", "");
  d.write("b/impls/baseline.cu", "");
  Suite s = suiteOf({"a", "b", "c"});
  s.tasks[0].dir = d / "a";
  s.tasks[1].dir = d / "b";
  s.tasks[2].dir = d / "c";
  CandidateSet set = implCandidates(s);
  ASSERT_EQ(set.files.size(), 3u);
  EXPECT_EQ(set.files[1].sample, "tiled");
  EXPECT_EQ(set.samples, 2);
  Suite none = suiteOf({"c"});
  none.tasks[0].dir = d / "c";
  EXPECT_THROW(implCandidates(none), BenchError);
}
