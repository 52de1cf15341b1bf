#include "cudaperf/Counters/CounterMetrics.h"

#include <cctype>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sstream>

using namespace cudaperf::counters;

namespace {

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string stripBackticks(const std::string &s) {
  std::string t = trim(s);
  if (t.size() >= 2 && t.front() == '`' && t.back() == '`')
    return t.substr(1, t.size() - 2);
  return t;
}

struct DocRow {
  std::string name, feature, unit, source, description;
};

// The rows between the metric-table markers of docs/counters.md, header and separator skipped.
std::vector<DocRow> readDocRows(std::string &error) {
  std::ifstream in(std::string(CUDAPERF_SOURCE_DIR) + "/docs/counters.md");
  if (!in) {
    error = "docs/counters.md not found";
    return {};
  }
  std::vector<DocRow> rows;
  std::string line;
  bool inside = false, sawBegin = false, sawEnd = false;
  int tableLine = 0;
  while (std::getline(in, line)) {
    if (line.find("<!-- metric-table:begin") != std::string::npos) {
      inside = sawBegin = true;
      continue;
    }
    if (line.find("<!-- metric-table:end") != std::string::npos) {
      inside = false;
      sawEnd = true;
      continue;
    }
    if (!inside || trim(line).empty())
      continue;
    if (trim(line)[0] != '|') {
      error = "non-table line inside the metric table: " + line;
      return {};
    }
    if (tableLine++ < 2) // header, separator
      continue;
    std::vector<std::string> cells;
    std::stringstream ss(trim(line).substr(1));
    std::string cell;
    while (std::getline(ss, cell, '|'))
      cells.push_back(cell);
    if (cells.size() != 5) {
      error = "row without 5 cells: " + line;
      return {};
    }
    rows.push_back({stripBackticks(cells[0]), stripBackticks(cells[1]), trim(cells[2]), trim(cells[3]),
                    trim(cells[4])});
  }
  if (!sawBegin || !sawEnd)
    error = "metric-table markers missing in docs/counters.md";
  return rows;
}

} // namespace

TEST(CounterMetrics, NamesAndFeaturesAreUniqueAndDocumented) {
  std::set<std::string> names, features;
  for (const MetricInfo &m : metricTable()) {
    EXPECT_TRUE(names.insert(m.name).second) << "duplicate metric " << m.name;
    EXPECT_TRUE(features.insert(m.feature).second) << "duplicate feature " << m.feature;
    EXPECT_GT(std::string(m.description).size(), 10u) << m.name << " has no real description";
    EXPECT_FALSE(std::string(m.unit).empty()) << m.name << " has no unit";
    EXPECT_EQ(std::string(m.description).find('|'), std::string::npos) << m.name << ": '|' breaks the docs table";
    for (char c : std::string(m.feature))
      EXPECT_TRUE(std::islower((unsigned char)c) || std::isdigit((unsigned char)c) || c == '_')
          << "feature " << m.feature << " is not snake_case";
  }
}

TEST(CounterMetrics, HoldsEveryMetricTheModelNeeds) {
  const char *required[] = {
      "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
      "smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
      "lts__t_sectors_srcunit_tex_op_write.sum", "sm__warps_active.avg.pct_of_peak_sustained_active",
      "sm__maximum_warps_per_active_cycle_pct", "gpu__time_duration.sum", "smsp__inst_executed.sum",
      "launch__registers_per_thread"};
  for (const char *name : required)
    EXPECT_NE(findMetric(name), nullptr) << name;
  for (const char *op : {"fadd", "fmul", "ffma", "dadd", "dmul", "dfma", "hadd", "hmul", "hfma"})
    EXPECT_NE(findMetric(std::string("smsp__sass_thread_inst_executed_op_") + op + "_pred_on.sum"), nullptr) << op;
}

TEST(CounterMetrics, RegistersAndTheoreticalOccupancyComeFromLaunchAttributesEverythingElseFromCounters) {
  for (const MetricInfo &m : metricTable()) {
    std::string name = m.name;
    MetricSource expected = name == "launch__registers_per_thread"             ? MetricSource::FunctionAttribute
                            : name == "sm__maximum_warps_per_active_cycle_pct" ? MetricSource::OccupancyApi
                                                                               : MetricSource::Counter;
    EXPECT_EQ(m.source, expected) << m.name;
  }
  EXPECT_STREQ(metricSourceName(MetricSource::Counter), "counter");
  EXPECT_STREQ(metricSourceName(MetricSource::FunctionAttribute), "function attribute");
  EXPECT_STREQ(metricSourceName(MetricSource::OccupancyApi), "occupancy API");
  EXPECT_EQ(findMetric("launch__registers_per_thread.sum"), nullptr);
  EXPECT_EQ(findMetric(""), nullptr);
  std::vector<std::string> names = allMetricNames();
  ASSERT_EQ(names.size(), metricTable().size());
  for (size_t i = 0; i < names.size(); ++i)
    EXPECT_EQ(names[i], metricTable()[i].name);
}

TEST(CounterMetrics, DocsTableEqualsTheCodeTable) {
  std::string error;
  std::vector<DocRow> rows = readDocRows(error);
  ASSERT_TRUE(error.empty()) << error;
  const auto &table = metricTable();
  ASSERT_EQ(rows.size(), table.size()) << "docs/counters.md and lib/Counters/CounterMetrics.cpp list different "
                                          "numbers of metrics";
  for (size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE("row " + std::to_string(i + 1) + " (" + table[i].name + ")");
    EXPECT_EQ(rows[i].name, table[i].name);
    EXPECT_EQ(rows[i].feature, table[i].feature);
    EXPECT_EQ(rows[i].unit, table[i].unit);
    EXPECT_EQ(rows[i].source, metricSourceName(table[i].source));
    EXPECT_EQ(rows[i].description, table[i].description);
  }
}
