#include "cudaperf/Frontend/SourceRewrites.h"
#include <gtest/gtest.h>

using cudaperf::rewriteNvccOnlySyntax;

TEST(SourceRewrites, AlignasAfterSharedKeepsTheLength) {
  std::string In = "  __shared__ alignas(alignof(float4)) float As[64];\n";
  auto Out = rewriteNvccOnlySyntax(In);
  ASSERT_TRUE(Out);
  EXPECT_EQ(*Out, "  __shared__ __alnas(alignof(float4)) float As[64];\n");
  EXPECT_EQ(Out->size(), In.size());
}

TEST(SourceRewrites, LonePercentInExtendedAsmIsDoubled) {
  auto Out = rewriteNvccOnlySyntax("asm volatile(\"mov.u64 %0, %globaltimer;\" : \"=l\"(t));");
  ASSERT_TRUE(Out);
  EXPECT_EQ(*Out, "asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));");
  // Already escaped, operands only, or basic asm (no operands): nothing to do.
  EXPECT_FALSE(rewriteNvccOnlySyntax("asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(l));"));
  EXPECT_FALSE(rewriteNvccOnlySyntax("asm(\"trap;\");"));
  EXPECT_FALSE(rewriteNvccOnlySyntax("__asm__(\" rdtsc; shl $0x20,%rdx \");"));
}

TEST(SourceRewrites, MissingCommaBetweenOperandsIsAdded) {
  auto Out = rewriteNvccOnlySyntax(
      "asm volatile(\"st.release.sys.global.u8 [%1], %0;\" ::\"r\"(v) \"l\"(p) : \"memory\");");
  ASSERT_TRUE(Out);
  EXPECT_EQ(*Out, "asm volatile(\"st.release.sys.global.u8 [%1], %0;\" ::\"r\"(v), \"l\"(p) : \"memory\");");
  EXPECT_FALSE(rewriteNvccOnlySyntax("asm(\"add.s32 %0, %1, %2;\" : \"=r\"(a) : \"r\"(b), \"r\"(c));"));
}

TEST(SourceRewrites, CommentsStringsAndIdentifiersAreLeftAlone) {
  EXPECT_FALSE(rewriteNvccOnlySyntax("// __shared__ alignas(16) float t[4];\n"));
  EXPECT_FALSE(rewriteNvccOnlySyntax("const char *s = \"__shared__ alignas(16)\";\n"));
  EXPECT_FALSE(rewriteNvccOnlySyntax("int my__shared__ alignas_x; int basm(\"%g\" : 1);\n"));
  EXPECT_FALSE(rewriteNvccOnlySyntax("alignas(16) __shared__ float t[4];\n"));
}

TEST(SourceRewrites, DeviceSideLaunchesBecomeCallsAndHostLaunchesStay) {
  std::string In = "__global__ void child(int *p);\n"
                   "__global__ void parent(int *p) {\n"
                   "  if (threadIdx.x == 0) { child<<<dim3(2), 32, 0, s>>>(p + 1); ns::k<float><<<1, 1>>>(); }\n"
                   "}\n"
                   "int main() { child<<<1, 32>>>(nullptr); }\n";
  auto Out = rewriteNvccOnlySyntax(In);
  ASSERT_TRUE(Out);
  EXPECT_NE(Out->find("{ __cudaperf_device_launch(dim3(2), 32, 0, s, p + 1); __cudaperf_device_launch(1, 1); }"),
            std::string::npos)
      << *Out;
  EXPECT_NE(Out->find("int main() { child<<<1, 32>>>(nullptr); }"), std::string::npos) << *Out;
  // A comment above a host function that mentions __global__ does not make it device code.
  EXPECT_FALSE(rewriteNvccOnlySyntax("__global__ void k();\n// Wrapper for the __global__ call\n"
                                     "extern \"C\" void run(int n) { k<<<n, 32>>>(); }\n"));
  // A __device__ variable's initializer is no function body.
  EXPECT_FALSE(rewriteNvccOnlySyntax("__device__ int t[] = {1, 2};\nvoid h() { k<<<1, 1>>>(); }\n"));
}

TEST(SourceRewrites, BracesOfAlternativePreprocessorBranchesCountOnce) {
  // Both branches open the loop's brace; taken once, the host function after the kernel is host
  // code and its launch stays.
  std::string In = "__global__ void k(int *p) {\n"
                   "#ifdef LINKED\n  for (int i = 0; i < 2; i = p[i]) {\n#else\n  for (int i = 0; i < 2; ++i) {\n#endif\n"
                   "    p[i] = 0;\n  }\n}\n"
                   "#define OPEN {\n"
                   "void host(int *p) { k<<<1, 1>>>(p); }\n";
  EXPECT_FALSE(rewriteNvccOnlySyntax(In)) << *rewriteNvccOnlySyntax(In);
}
