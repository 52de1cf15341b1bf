#include "cudaperf/Checks/Check.h"
#include "cudaperf/Report/Writers.h"
#include <gtest/gtest.h>

using namespace cudaperf;

namespace {
FileReport sampleReport() {
  FileReport R;
  R.File = "/src/proj/k.cu";
  R.Analysed = true;
  KernelReport K;
  K.Name = "scale<float>";
  K.MangledName = "_Z5scaleIfEvPT_";
  K.Loc = {"/src/proj/k.cu", 3, 17};
  K.Launch.Grid = Dim3{64, 1, 1};
  K.Launch.Block = Dim3{256, 1, 1};
  K.Launch.Origin = LaunchOrigin::LaunchSite;
  K.Launch.Params["n"] = int64_t(16384);
  MemoryAccess A;
  A.Loc = {"/src/proj/k.cu", 5, 9};
  A.Space = "global";
  A.Op = "store";
  A.Bytes = 4;
  A.Pattern = "strided";
  A.SectorsPerRequest = 32.0;
  K.Accesses.push_back(A);
  R.Kernels.push_back(std::move(K));
  Diagnostic D;
  D.Check = "cuda-example-check";
  D.Level = Severity::Warning;
  D.Message = "example";
  D.Loc = {"/src/proj/k.cu", 5, 9};
  D.Kernel = "scale<float>";
  R.Diagnostics.push_back(D);
  return R;
}
} // namespace

TEST(DisplayPath, RelativeBelowRootElseAsGiven) {
  EXPECT_EQ(displayPath("/src/proj/a/k.cu", "/src/proj"), "a/k.cu");
  EXPECT_EQ(displayPath("/elsewhere/k.cu", "/src/proj"), "/elsewhere/k.cu");
  EXPECT_EQ(displayPath("/src/project2/k.cu", "/src/proj"), "/src/project2/k.cu");
}

TEST(JSONWriter, SchemaV1Shape) {
  ReportOptions O;
  O.SourceRoot = "/src/proj";
  llvm::json::Value V = reportToJSON({sampleReport()}, O);
  const llvm::json::Object *Root = V.getAsObject();
  ASSERT_TRUE(Root);
  EXPECT_EQ(Root->getInteger("schema_version"), 1);
  EXPECT_EQ(Root->getString("arch"), "sm_90");
  const llvm::json::Array *Kernels = Root->getArray("kernels");
  ASSERT_TRUE(Kernels && Kernels->size() == 1);
  const llvm::json::Object *K = (*Kernels)[0].getAsObject();
  EXPECT_EQ(K->getString("name"), "scale<float>");
  EXPECT_EQ(K->getString("file"), "k.cu");
  const llvm::json::Object *L = K->getObject("launch");
  EXPECT_EQ(L->getString("origin"), "launch-site");
  EXPECT_EQ((*L->getArray("block"))[0].getAsInteger(), 256);
  EXPECT_EQ(L->getObject("params")->getInteger("n"), 16384);
  const llvm::json::Object *A = (*K->getArray("accesses"))[0].getAsObject();
  EXPECT_EQ(A->getNumber("sectors_per_request"), 32.0);
  EXPECT_EQ(A->get("bank_conflict_ways")->kind(), llvm::json::Value::Null);
  for (const char *Section : {"sync", "resources", "occupancy", "work"})
    EXPECT_TRUE(K->getObject(Section)) << Section;
  const llvm::json::Object *D = (*Root->getArray("diagnostics"))[0].getAsObject();
  EXPECT_EQ(D->getString("check"), "cuda-example-check");
  EXPECT_EQ(D->getInteger("line"), 5);
}

TEST(SARIFWriter, Structure210) {
  CheckInfo Rule{"cuda-example-check", "An example", "Why it costs.", Severity::Warning};
  ReportOptions O;
  O.SourceRoot = "/src/proj";
  llvm::json::Value V = reportToSARIF({sampleReport()}, {&Rule}, O);
  const llvm::json::Object *Root = V.getAsObject();
  EXPECT_EQ(Root->getString("version"), "2.1.0");
  const llvm::json::Object *Run = (*Root->getArray("runs"))[0].getAsObject();
  const llvm::json::Object *Driver = Run->getObject("tool")->getObject("driver");
  EXPECT_EQ(Driver->getString("name"), "cudaperf-analyze");
  EXPECT_EQ((*Driver->getArray("rules"))[0].getAsObject()->getString("id"), "cuda-example-check");
  const llvm::json::Object *Res = (*Run->getArray("results"))[0].getAsObject();
  EXPECT_EQ(Res->getString("ruleId"), "cuda-example-check");
  EXPECT_EQ(Res->getInteger("ruleIndex"), 0);
  const llvm::json::Object *Phys =
      (*Res->getArray("locations"))[0].getAsObject()->getObject("physicalLocation");
  EXPECT_EQ(Phys->getObject("artifactLocation")->getString("uri"), "k.cu");
  EXPECT_EQ(Phys->getObject("artifactLocation")->getString("uriBaseId"), "SRCROOT");
  EXPECT_EQ(Phys->getObject("region")->getInteger("startLine"), 5);
}
