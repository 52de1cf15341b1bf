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
