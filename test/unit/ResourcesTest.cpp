//===- ResourcesTest.cpp - ptxas -v logs as nvcc and NVRTC print them ----------------------===//
#include "cudaperf/Analysis/Resources.h"
#include <gtest/gtest.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

using namespace cudaperf;

TEST(PtxasLog, NvccFormat) {
  const char *Log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function '_Z2tkILi128EEvPf' for 'sm_90'\n"
      "ptxas info    : Function properties for _Z2tkILi128EEvPf\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 10 registers, used 1 barriers, 512 bytes smem, 368 bytes cmem[0]\n"
      "ptxas info    : Compile time = 20.920 ms\n"
      "ptxas info    : Function properties for _Z6helperv\n" // a non-entry function
      "    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Compiling entry function '_Z5heavyPfPKfi' for 'sm_90'\n"
      "ptxas info    : Function properties for _Z5heavyPfPKfi\n"
      "    424 bytes stack frame, 1164 bytes spill stores, 1224 bytes spill loads\n"
      "ptxas info    : Used 32 registers, used 0 barriers, 424 bytes cumulative stack size\n";
  auto K = parsePtxasLog(Log);
  ASSERT_EQ(K.size(), 2u);
  const KernelResourceUsage &A = K.at("_Z2tkILi128EEvPf");
  EXPECT_EQ(A.Registers, 10);
  EXPECT_EQ(A.Barriers, 1);
  EXPECT_EQ(A.StaticSharedBytes, 512);
  EXPECT_EQ(A.ConstantBytes, 368);
  EXPECT_EQ(A.StackFrameBytes, 0);
  const KernelResourceUsage &B = K.at("_Z5heavyPfPKfi");
  EXPECT_EQ(B.Registers, 32);
  EXPECT_EQ(B.StackFrameBytes, 424);
  EXPECT_EQ(B.SpillStoreBytes, 1164);
  EXPECT_EQ(B.SpillLoadBytes, 1224);
  EXPECT_EQ(B.StaticSharedBytes, 0);
}

TEST(PtxasLog, NvrtcFormat) {
  const char *Log =
      "ptxas info    : Compiling entry function '_Z5spillPfPKf' for 'sm_90'\n"
      "ptxas info    : Function properties for _Z5spillPfPKf\n"
      "ptxas         .     256 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 31 registers, used 0 barriers, 256 bytes cumulative stack size\n";
  auto K = parsePtxasLog(Log);
  ASSERT_EQ(K.count("_Z5spillPfPKf"), 1u);
  EXPECT_EQ(K["_Z5spillPfPKf"].Registers, 31);
  EXPECT_EQ(K["_Z5spillPfPKf"].StackFrameBytes, 256);
  EXPECT_EQ(K["_Z5spillPfPKf"].SpillStoreBytes, 8);
  EXPECT_EQ(K["_Z5spillPfPKf"].SpillLoadBytes, 4);
}

TEST(ResourceRoute, Parses) {
  EXPECT_EQ(parseResourceRoute("nvcc"), ResourceRoute::Nvcc);
  EXPECT_EQ(parseResourceRoute("NVRTC"), ResourceRoute::Nvrtc);
  EXPECT_EQ(parseResourceRoute("estimate"), ResourceRoute::Estimate);
  EXPECT_EQ(parseResourceRoute("whatever"), ResourceRoute::Auto);
}

namespace {
/// A fake toolkit whose nvcc runs \p Script (a shell body), in a fresh directory.
std::string fakeToolkit(const std::string &Name, const std::string &Script) {
  std::string Root = ::testing::TempDir() + "/cudaperf-fake-" + Name;
  std::string Bin = Root + "/bin";
  std::string Cmd = "rm -rf '" + Root + "' && mkdir -p '" + Bin + "'";
  EXPECT_EQ(std::system(Cmd.c_str()), 0);
  std::string Nvcc = Bin + "/nvcc";
  FILE *F = std::fopen(Nvcc.c_str(), "w");
  std::fprintf(F, "#!/bin/sh\n%s\n", Script.c_str());
  std::fclose(F);
  EXPECT_EQ(std::system(("chmod +x '" + Nvcc + "'").c_str()), 0);
  std::FILE *Src = std::fopen((Root + "/k.cu").c_str(), "w");
  std::fprintf(Src, "__global__ void k() {}\nint main() { k<<<1, 1>>>(); }\n");
  std::fclose(Src);
  return Root;
}

cudaperf::ResourceRequest requestFor(const std::string &Root) {
  cudaperf::ResourceRequest R;
  R.File = Root + "/k.cu";
  R.CudaPath = Root;
  R.Route = cudaperf::ResourceRoute::Nvcc;
  R.HasHostCode = true;
  R.CacheDir = "-";
  return R;
}
} // namespace

TEST(ResourcePrefetch, AnswersTheSameRequestOnceCompiled) {
  std::string Root = fakeToolkit(
      "answers", "echo \"ptxas info    : Compiling entry function '_Z1kv' for 'sm_90'\"\n"
                 "echo 'ptxas info    : Used 7 registers, used 0 barriers'");
  cudaperf::prefetchResources(requestFor(Root));
  auto Rep = cudaperf::compileResources(requestFor(Root));
  ASSERT_TRUE(bool(Rep)) << llvm::toString(Rep.takeError());
  EXPECT_EQ(Rep->Kernels.at("_Z1kv").Registers, 7);
  cudaperf::cancelResourcePrefetches();
}

TEST(ResourcePrefetch, CancellingKillsTheCompiler) {
  std::string Root = fakeToolkit("cancel", "sleep 60");
  auto Start = std::chrono::steady_clock::now();
  cudaperf::prefetchResources(requestFor(Root));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  cudaperf::cancelResourcePrefetches();
  double Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  EXPECT_LT(Seconds, 10.0);
}
