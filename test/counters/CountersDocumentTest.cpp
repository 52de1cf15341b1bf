#include "cudaperf/Counters/CountersDocument.h"

#include <cmath>
#include <stdexcept>
#include <gtest/gtest.h>

using namespace cudaperf;
using namespace cudaperf::counters;
using cudaperf::support::Json;
using cudaperf::support::member;
using cudaperf::support::parseJson;

namespace {

CountersDocument sampleDocument() {
  CountersDocument doc;
  doc.program = "./global_strided --n 4";
  doc.gpuName = "NVIDIA H200";
  doc.computeCapability = "9.0";
  doc.available = true;
  doc.droppedMetrics["sm__maximum_warps_per_active_cycle_pct"] = "not accepted by the CUPTI host configuration";
  KernelCounters a;
  a.name = "_Z9stride_ldPKfPfi";
  a.demangled = demangleKernelName(a.name);
  a.launch = 0;
  a.metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] = 131072;
  a.metrics["gpu__time_duration.sum"] = 5344.5;
  a.metrics["launch__registers_per_thread"] = 16;
  KernelCounters b;
  b.name = "plain_c_kernel";
  b.demangled = demangleKernelName(b.name);
  b.launch = 1;
  b.metrics["dram__bytes_read.sum"] = std::nan("");
  b.metrics["dram__bytes_write.sum"] = 0;
  doc.kernels = {a, b};
  doc.kernelsNotProfiled = 3;
  doc.maxKernels = 256;
  doc.replayPasses = 7;
  doc.notes.push_back("kernel cap of 2 reached at launch 2: later launches are not profiled");
  doc.profilerSeconds["host_initialize"] = 0.25;
  doc.profilerSeconds["passes"] = 0.125;
  doc.profilerSeconds["evaluate"] = std::nan("");
  return doc;
}

std::vector<std::string> keysOf(const Json &v) {
  std::vector<std::string> keys;
  for (const auto &item : v.items())
    keys.push_back(item.key());
  return keys;
}

} // namespace

TEST(CountersDocument, WritesTheDocumentedKeysInOrder) {
  Json v = parseJson(writeCountersJson(sampleDocument()));
  EXPECT_EQ(keysOf(v), (std::vector<std::string>{"schema", "program", "gpu", "available", "reason", "dropped_metrics",
                                                 "kernels", "kernels_not_profiled", "max_kernels", "replay_passes",
                                                 "notes", "profiler_seconds"}));
  EXPECT_EQ(member(v, "schema")->get<std::string>(), "cudaperf-counters/1");
  EXPECT_EQ(member(v, "program")->get<std::string>(), "./global_strided --n 4");
  EXPECT_EQ(keysOf(*member(v, "gpu")), (std::vector<std::string>{"name", "compute_capability"}));
  EXPECT_EQ(member(v, "gpu")->at("compute_capability").get<std::string>(), "9.0");
  EXPECT_TRUE(member(v, "available")->get<bool>());
  EXPECT_EQ(member(v, "reason")->get<std::string>(), "");
  EXPECT_EQ(member(v, "dropped_metrics")->at("sm__maximum_warps_per_active_cycle_pct").get<std::string>(),
            "not accepted by the CUPTI host configuration");
  const Json &kernels = v.at("kernels");
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(keysOf(kernels[0]), (std::vector<std::string>{"name", "demangled", "launch", "metrics"}));
  EXPECT_EQ(member(kernels[0], "name")->get<std::string>(), "_Z9stride_ldPKfPfi");
  EXPECT_EQ(member(kernels[0], "demangled")->get<std::string>(), "stride_ld(float const*, float*, int)");
  EXPECT_EQ(member(kernels[0], "launch")->get<int64_t>(), 0);
  EXPECT_EQ(member(kernels[0], "metrics")->at("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum").get<double>(), 131072);
  EXPECT_EQ(member(kernels[0], "metrics")->at("gpu__time_duration.sum").get<double>(), 5344.5);
  EXPECT_EQ(member(kernels[0], "metrics")->at("launch__registers_per_thread").get<double>(), 16);
  EXPECT_EQ(member(kernels[1], "launch")->get<int64_t>(), 1);
  EXPECT_EQ(member(v, "kernels_not_profiled")->get<int64_t>(), 3);
  EXPECT_EQ(member(v, "max_kernels")->get<int64_t>(), 256);
  EXPECT_EQ(member(v, "replay_passes")->get<int64_t>(), 7);
  // The profiler's phases in seconds; a non-finite one is left out.
  const Json &seconds = v.at("profiler_seconds");
  EXPECT_EQ(keysOf(seconds), (std::vector<std::string>{"host_initialize", "passes"}));
  EXPECT_EQ(member(seconds, "host_initialize")->get<double>(), 0.25);
  EXPECT_EQ(member(seconds, "passes")->get<double>(), 0.125);
}

TEST(CountersDocument, NonFiniteValuesAreLeftOutAndNamed) {
  Json v = parseJson(writeCountersJson(sampleDocument()));
  const Json &metrics = v.at("kernels").at(1).at("metrics");
  EXPECT_EQ(member(metrics, "dram__bytes_read.sum"), nullptr);
  ASSERT_NE(member(metrics, "dram__bytes_write.sum"), nullptr);
  EXPECT_EQ(member(metrics, "dram__bytes_write.sum")->get<double>(), 0);
  bool named = false;
  for (const Json &n : v.at("notes"))
    named = named || n.get<std::string>().find("launch 1: dram__bytes_read.sum") != std::string::npos;
  EXPECT_TRUE(named);
}

TEST(CountersDocument, UnavailableDocumentCarriesTheReason) {
  CountersDocument doc;
  doc.program = "./p";
  doc.available = false;
  doc.reason = "profiling not permitted (NVreg_RestrictProfilingToAdminUsers=1?): cuptiRangeProfilerEnable returned "
               "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
  Json v = parseJson(writeCountersJson(doc));
  EXPECT_FALSE(member(v, "available")->get<bool>());
  EXPECT_EQ(member(v, "reason")->get<std::string>(), doc.reason);
  EXPECT_TRUE(v.at("kernels").empty());
  EXPECT_TRUE(member(v, "dropped_metrics")->empty());
  EXPECT_EQ(member(v, "gpu")->at("name").get<std::string>(), "");
  ASSERT_NE(member(v, "profiler_seconds"), nullptr);
  EXPECT_TRUE(member(v, "profiler_seconds")->empty());
}

// --counters-mode (docs/counters.md, "Counters mode"): an empty mode (per-config) leaves the key out, so those
// documents are the same as before the option; another mode (shared, the evaluator's default) is recorded last.
TEST(CountersDocument, CountersModeOnlyWhenNotPerConfiguration) {
  CountersDocument doc = sampleDocument();
  std::string before = writeCountersJson(doc);
  Json v = parseJson(before);
  EXPECT_EQ(member(v, "counters_mode"), nullptr);
  doc.countersMode = "shared";
  Json shared = parseJson(writeCountersJson(doc));
  std::vector<std::string> keys = keysOf(shared);
  ASSERT_FALSE(keys.empty());
  EXPECT_EQ(keys.back(), "counters_mode");
  keys.pop_back();
  EXPECT_EQ(keys, keysOf(v)); // every other key as in the default mode
  EXPECT_EQ(member(shared, "counters_mode")->get<std::string>(), "shared");
  doc.countersMode.clear();
  EXPECT_EQ(writeCountersJson(doc), before);
}

// --counters-mode joint: one session ran two configurations' calls in turn; five launches in pass 0
// (small: launches 0-1, large: 2-4), launch 3 without a result (not profiled).
TEST(CountersDocument, SplitByLaunchesGivesEachCallItsKernels) {
  CountersDocument doc = sampleDocument();
  doc.kernels.clear();
  for (int launch : {0, 1, 2, 4}) {
    KernelCounters k;
    k.name = "k" + std::to_string(launch);
    k.launch = launch;
    k.metrics["smsp__inst_executed.sum"] = 100.0 + launch;
    doc.kernels.push_back(k);
  }
  doc.kernelsNotProfiled = 1;
  doc.replayPasses = 5;
  doc.notes = {"user replay: the workload ran once per pass, 5 passes"};
  doc.profilerSeconds = {{"pass_start", 0.43}, {"begin_total", 0.3}};
  doc.countersMode = "joint";
  std::vector<CountersDocument> parts = splitByLaunches(doc, {2, 5});
  ASSERT_EQ(parts.size(), 2u);
  const CountersDocument &small = parts[0], &large = parts[1];
  ASSERT_EQ(small.kernels.size(), 2u);
  EXPECT_EQ(small.kernels[0].name, "k0");
  EXPECT_EQ(small.kernels[1].launch, 1);
  EXPECT_EQ(small.kernelsNotProfiled, 0u);
  ASSERT_EQ(large.kernels.size(), 2u);
  EXPECT_EQ(large.kernels[0].name, "k2");
  EXPECT_EQ(large.kernels[0].launch, 0); // re-based: as if profiled alone
  EXPECT_EQ(large.kernels[1].name, "k4");
  EXPECT_EQ(large.kernels[1].launch, 2);
  EXPECT_EQ(large.kernels[1].metrics.at("smsp__inst_executed.sum"), 104.0);
  EXPECT_EQ(large.kernelsNotProfiled, 1u); // launch 3
  // The session's seconds once, in the first document; the rest copied.
  EXPECT_EQ(small.profilerSeconds, doc.profilerSeconds);
  EXPECT_TRUE(large.profilerSeconds.empty());
  for (const CountersDocument &p : parts) {
    EXPECT_EQ(p.available, doc.available);
    EXPECT_EQ(p.gpuName, doc.gpuName);
    EXPECT_EQ(p.replayPasses, 5u);
    EXPECT_EQ(p.countersMode, "joint");
    EXPECT_EQ(p.droppedMetrics, doc.droppedMetrics);
    ASSERT_EQ(p.notes.size(), 2u);
    EXPECT_EQ(p.notes[0], doc.notes[0]);
  }
  EXPECT_NE(small.notes[1].find("call 1's, launches 0 to 2"), std::string::npos) << small.notes[1];
  EXPECT_NE(large.notes[1].find("call 2's, launches 2 to 5"), std::string::npos) << large.notes[1];
  // A call that launched nothing gets an empty document; one call gets everything.
  std::vector<CountersDocument> withEmpty = splitByLaunches(doc, {0, 5});
  EXPECT_TRUE(withEmpty[0].kernels.empty());
  EXPECT_EQ(withEmpty[1].kernels.size(), 4u);
  EXPECT_EQ(splitByLaunches(doc, {5})[0].kernels.size(), 4u);
  EXPECT_THROW(splitByLaunches(doc, {}), std::invalid_argument);
  EXPECT_THROW(splitByLaunches(doc, {3, 2}), std::invalid_argument);
}

TEST(CountersDocument, DemanglesOnlyMangledNames) {
  EXPECT_EQ(demangleKernelName("_Z6kernelPfi"), "kernel(float*, int)");
  EXPECT_EQ(demangleKernelName("_Z9transposeILi32EEvPKfPf"), "void transpose<32>(float const*, float*)");
  EXPECT_EQ(demangleKernelName("vector_add"), "vector_add");
  EXPECT_EQ(demangleKernelName("_Znot a name"), "_Znot a name");
}
