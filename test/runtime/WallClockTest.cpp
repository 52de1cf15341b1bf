// The wall-clock rule (lib/Runtime/WallClock.cpp) on figures measured on the H100 host
// (data/eval-runs/2026-12-06-h100-trust-split-1/wall-clock-figures.tsv: the red-team suite's
// candidates, each configuration's claimed event median and the worker's own per-call time).
#include "cudaperf/Runtime/WallClock.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace cudaperf::runtime;

namespace {

struct Row {
  std::string candidate, role, config;
  double eventMs = 0, wallMs = 0;
  int launches = 0;
};

std::vector<Row> readFigures(const std::string &run = "2026-12-06-h100-trust-split-1") {
  std::ifstream in(std::string(CUDAPERF_SOURCE_DIR) + "/data/eval-runs/" + run + "/wall-clock-figures.tsv");
  std::vector<Row> rows;
  std::string line;
  std::getline(in, line); // header
  while (std::getline(in, line)) {
    std::stringstream s(line);
    Row r;
    std::string e, w, l, calls, outcome;
    std::getline(s, r.candidate, '\t');
    std::getline(s, r.role, '\t');
    std::getline(s, r.config, '\t');
    std::getline(s, e, '\t');
    std::getline(s, w, '\t');
    std::getline(s, l, '\t');
    r.eventMs = std::stod(e);
    r.wallMs = std::stod(w);
    r.launches = std::stoi(l);
    rows.push_back(r);
  }
  return rows;
}

} // namespace

TEST(WallClock, ForgedFiguresOfTheRedTeamAreCaught) {
  std::vector<Row> rows = readFigures();
  ASSERT_GT(rows.size(), 100u);
  // The hostile candidates whose timed calls report less than their work takes (a patched timer,
  // forged answers, work left on other streams or done on the host).
  std::set<std::string> forgers = {"got_overwrite_elapsed_matmul.cu", "forge_events.cu",
                                   "graph_unjoined_stream_vector_add.cu", "host_compute_raw_driver_vector_add.cu",
                                   "side_stream_unjoined_matmul.cu"};
  std::set<std::string> caught;
  for (const Row &r : rows)
    if (forgers.count(r.candidate) && !wallClockViolation(r.eventMs, r.wallMs, r.launches).empty())
      caught.insert(r.candidate);
  EXPECT_EQ(caught, forgers);
}

TEST(WallClock, HonestFiguresPassUpToOneNoisyBatch) {
  std::vector<Row> rows = readFigures();
  int honest = 0;
  std::vector<std::string> flagged;
  for (const Row &r : rows) {
    if (r.role != "honest")
      continue;
    ++honest;
    if (!wallClockViolation(r.eventMs, r.wallMs, r.launches).empty())
      flagged.push_back(r.candidate + " " + r.config);
  }
  EXPECT_GT(honest, 60);
  // That run timed one batch per configuration: one honest configuration (reduce_sum_two_pass,
  // small: 4.6x its figure there, 1.0x in the same run's other measurement of it) was a descheduled
  // host thread. The worker now takes the fastest of three batches.
  EXPECT_LE(flagged.size(), 1u) << ::testing::PrintToString(flagged);
}

// The second run timed the fastest of three batches: no honest configuration is flagged, and every
// forger that reached the check (the others were stopped earlier: the audit, a wrong answer) is.
TEST(WallClock, SecondRunHonestPassForgersCaught) {
  std::vector<Row> rows = readFigures("2026-12-06-h100-trust-split-2");
  ASSERT_GT(rows.size(), 150u);
  std::set<std::string> forgers = {"got_overwrite_elapsed_matmul.cu", "forge_events.cu",
                                   "graph_unjoined_stream_vector_add.cu", "host_compute_raw_driver_vector_add.cu"};
  std::set<std::string> caught;
  std::vector<std::string> honestFlagged;
  for (const Row &r : rows) {
    bool flagged = !wallClockViolation(r.eventMs, r.wallMs, r.launches).empty();
    if (flagged && forgers.count(r.candidate))
      caught.insert(r.candidate);
    if (flagged && r.role == "honest")
      honestFlagged.push_back(r.candidate + " " + r.config);
  }
  EXPECT_EQ(caught, forgers);
  EXPECT_TRUE(honestFlagged.empty()) << ::testing::PrintToString(honestFlagged);
}

TEST(WallClock, RuleAtItsEdges) {
  WallClockRule rule;
  // A plausible host-bound call: 4 µs of GPU work, 8 µs a call with its launch.
  EXPECT_EQ(wallClockViolation(0.004, 0.008, 1, rule), "");
  // A patched timer: 0.1 µs claimed for a launch.
  EXPECT_NE(wallClockViolation(0.0001, 0.0077, 1, rule), "");
  // A large kernel claiming half its time.
  EXPECT_NE(wallClockViolation(0.5, 1.0, 1, rule), "");
  EXPECT_EQ(wallClockViolation(0.5, 0.75, 1, rule), "");
  // More launches allow more host time, up to the cap.
  EXPECT_EQ(wallClockViolation(0.01, 0.035, 4, rule), "");
  EXPECT_NE(wallClockViolation(0.01, 0.045, 100, rule), "");
}
