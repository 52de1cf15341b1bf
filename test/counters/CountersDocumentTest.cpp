#include "cudaperf/Counters/CountersDocument.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace cudaperf;
using namespace cudaperf::counters;

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
  return doc;
}

std::vector<std::string> keysOf(const json::Value &v) {
  std::vector<std::string> keys;
  for (const auto &item : v.asObject().items())
    keys.push_back(item.first);
  return keys;
}

} // namespace

TEST(CountersDocument, WritesTheDocumentedKeysInOrder) {
  json::Value v = json::parse(writeCountersJson(sampleDocument()));
  EXPECT_EQ(keysOf(v), (std::vector<std::string>{"schema", "program", "gpu", "available", "reason", "dropped_metrics",
                                                 "kernels", "kernels_not_profiled", "max_kernels", "replay_passes",
                                                 "notes"}));
  EXPECT_EQ(v.get("schema")->asString(), "cudaperf-counters/1");
  EXPECT_EQ(v.get("program")->asString(), "./global_strided --n 4");
  EXPECT_EQ(keysOf(*v.get("gpu")), (std::vector<std::string>{"name", "compute_capability"}));
  EXPECT_EQ(v.get("gpu")->get("compute_capability")->asString(), "9.0");
  EXPECT_TRUE(v.get("available")->asBool());
  EXPECT_EQ(v.get("reason")->asString(), "");
  EXPECT_EQ(v.get("dropped_metrics")->get("sm__maximum_warps_per_active_cycle_pct")->asString(),
            "not accepted by the CUPTI host configuration");
  const json::Array &kernels = v.get("kernels")->asArray();
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(keysOf(kernels[0]), (std::vector<std::string>{"name", "demangled", "launch", "metrics"}));
  EXPECT_EQ(kernels[0].get("name")->asString(), "_Z9stride_ldPKfPfi");
  EXPECT_EQ(kernels[0].get("demangled")->asString(), "stride_ld(float const*, float*, int)");
  EXPECT_EQ(kernels[0].get("launch")->asInteger(), 0);
  EXPECT_EQ(kernels[0].get("metrics")->get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")->asNumber(), 131072);
  EXPECT_EQ(kernels[0].get("metrics")->get("gpu__time_duration.sum")->asNumber(), 5344.5);
  EXPECT_EQ(kernels[0].get("metrics")->get("launch__registers_per_thread")->asNumber(), 16);
  EXPECT_EQ(kernels[1].get("launch")->asInteger(), 1);
  EXPECT_EQ(v.get("kernels_not_profiled")->asInteger(), 3);
  EXPECT_EQ(v.get("max_kernels")->asInteger(), 256);
  EXPECT_EQ(v.get("replay_passes")->asInteger(), 7);
}

TEST(CountersDocument, NonFiniteValuesAreLeftOutAndNamed) {
  json::Value v = json::parse(writeCountersJson(sampleDocument()));
  const json::Value &metrics = *v.get("kernels")->asArray()[1].get("metrics");
  EXPECT_EQ(metrics.get("dram__bytes_read.sum"), nullptr);
  ASSERT_NE(metrics.get("dram__bytes_write.sum"), nullptr);
  EXPECT_EQ(metrics.get("dram__bytes_write.sum")->asNumber(), 0);
  bool named = false;
  for (const json::Value &n : v.get("notes")->asArray())
    named = named || n.asString().find("launch 1: dram__bytes_read.sum") != std::string::npos;
  EXPECT_TRUE(named);
}

TEST(CountersDocument, UnavailableDocumentCarriesTheReason) {
  CountersDocument doc;
  doc.program = "./p";
  doc.available = false;
  doc.reason = "profiling not permitted (NVreg_RestrictProfilingToAdminUsers=1?): cuptiRangeProfilerEnable returned "
               "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
  json::Value v = json::parse(writeCountersJson(doc));
  EXPECT_FALSE(v.get("available")->asBool());
  EXPECT_EQ(v.get("reason")->asString(), doc.reason);
  EXPECT_TRUE(v.get("kernels")->asArray().empty());
  EXPECT_TRUE(v.get("dropped_metrics")->asObject().items().empty());
  EXPECT_EQ(v.get("gpu")->get("name")->asString(), "");
}

TEST(CountersDocument, RoundTripsThroughTheParser) {
  CountersDocument doc = sampleDocument();
  CountersDocument back = parseCountersJson(writeCountersJson(doc));
  EXPECT_EQ(back.program, doc.program);
  EXPECT_EQ(back.gpuName, doc.gpuName);
  EXPECT_EQ(back.available, doc.available);
  EXPECT_EQ(back.droppedMetrics, doc.droppedMetrics);
  ASSERT_EQ(back.kernels.size(), 2u);
  EXPECT_EQ(back.kernels[0].metrics, doc.kernels[0].metrics);
  EXPECT_EQ(back.kernels[1].metrics.count("dram__bytes_read.sum"), 0u);
  EXPECT_EQ(back.kernelsNotProfiled, 3u);
  EXPECT_EQ(back.replayPasses, 7u);
  EXPECT_THROW(parseCountersJson(R"({"schema": "cudaperf-counters/2"})"), std::runtime_error);
  EXPECT_THROW(parseCountersJson(R"({"schema": "cudaperf-counters/1", "program": 3})"), std::runtime_error);
}

TEST(CountersDocument, DemanglesOnlyMangledNames) {
  EXPECT_EQ(demangleKernelName("_Z6kernelPfi"), "kernel(float*, int)");
  EXPECT_EQ(demangleKernelName("_Z9transposeILi32EEvPKfPf"), "void transpose<32>(float const*, float*)");
  EXPECT_EQ(demangleKernelName("vector_add"), "vector_add");
  EXPECT_EQ(demangleKernelName("_Znot a name"), "_Znot a name");
}
