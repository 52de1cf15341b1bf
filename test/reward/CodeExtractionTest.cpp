// The extraction rule of CodeExtraction.h (docs/reward.md, "Completions"), case by case: the
// policy's prompt asks for one complete .cu file in a single ```cuda block.
#include "cudaperf/Reward/CodeExtraction.h"

#include <gtest/gtest.h>

using namespace cudaperf::reward;

namespace {

std::string codeOf(const std::string &completion) {
  std::optional<ExtractedCode> c = extractCodeBlock(completion);
  return c ? c->code : "<none>";
}

} // namespace

TEST(CodeExtraction, NoBlockIsNone) {
  EXPECT_FALSE(extractCodeBlock(""));
  EXPECT_FALSE(extractCodeBlock("I would tile the transpose through shared memory."));
  EXPECT_NE(noCodeBlockReason("plain prose").find("no fenced code block"), std::string::npos);
  // A fence line with nothing after it (a completion cut right after the fence).
  EXPECT_FALSE(extractCodeBlock("Here it is:\n```cuda"));
  // Only blocks of other languages.
  EXPECT_FALSE(extractCodeBlock("```python\nimport torch\n```\n```sh\nnvcc x.cu\n```\n"));
  EXPECT_NE(noCodeBlockReason("```python\nx\n```\n").find("2 fences"), std::string::npos);
}

TEST(CodeExtraction, OneBlockInsideProse) {
  std::string completion = "The naive kernel writes with a stride of `rows` floats; tiling fixes that.\n\n"
                           "```cuda\n#include <cuda_runtime.h>\n__global__ void k() {}\n```\n\n"
                           "This stages a 32x33 tile in shared memory.";
  std::optional<ExtractedCode> c = extractCodeBlock(completion);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->code, "#include <cuda_runtime.h>\n__global__ void k() {}\n");
  EXPECT_EQ(c->language, "cuda");
  EXPECT_TRUE(c->terminated);
  EXPECT_EQ(c->blockIndex, 0);
}

TEST(CodeExtraction, LanguageTags) {
  EXPECT_EQ(codeOf("```cuda\nA\n```"), "A\n");
  EXPECT_EQ(codeOf("```cu\nA\n```"), "A\n");
  EXPECT_EQ(codeOf("```cpp\nA\n```"), "A\n");
  EXPECT_EQ(codeOf("```c++\nA\n```"), "A\n");
  EXPECT_EQ(codeOf("```c\nA\n```"), "A\n");
  EXPECT_EQ(codeOf("```\nA\n```"), "A\n"); // unlabeled
  EXPECT_EQ(extractCodeBlock("```\nA\n```")->language, "");
  EXPECT_EQ(codeOf("```CUDA \r\nA\n```"), "A\n"); // case and trailing blanks, CRLF fence line
  EXPECT_EQ(codeOf("```python\nA\n```"), "<none>");
  EXPECT_EQ(codeOf("```text\nA\n```"), "<none>");
}

TEST(CodeExtraction, SeveralBlocksTheFirstCodeBlockWins) {
  // Other languages are skipped, whatever their place.
  std::optional<ExtractedCode> c = extractCodeBlock("Reference:\n```python\ny = x.t()\n```\nMine:\n```cuda\nK\n```\n");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->code, "K\n");
  EXPECT_EQ(c->blockIndex, 1);
  // Two code blocks: the first one, whichever of the code tags it has (the rule of lib/Learn's
  // extractCandidateSource, which the trainer applies to the same completions).
  EXPECT_EQ(codeOf("```cuda\nFIRST\n```\nor, shorter:\n```cuda\nSECOND\n```\n"), "FIRST\n");
  EXPECT_EQ(codeOf("```cpp\nHOST\n```\n```cuda\nKERNEL\n```\n"), "HOST\n");
  EXPECT_EQ(codeOf("```\nUNLABELED\n```\n```cuda\nKERNEL\n```\n"), "UNLABELED\n");
}

TEST(CodeExtraction, UnterminatedFenceRunsToTheEnd) {
  std::optional<ExtractedCode> c = extractCodeBlock("Here:\n```cuda\nint a;\nint b;");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->code, "int a;\nint b;");
  EXPECT_FALSE(c->terminated);
  // An unterminated block of another language hides everything after it.
  EXPECT_FALSE(extractCodeBlock("```python\nx = 1\n__global__ void k() {}\n"));
}

TEST(CodeExtraction, BackticksInsideProseAndCodeAreNotFences) {
  // Inline ``` in a sentence does not open a block; only ``` at the start of a line does.
  std::string completion = "I answer in a ```cuda block as asked, see below; ``` also appears here.\n"
                           "```cuda\nconst char *s = \"```\"; // not a fence: not at a line start\n```\nDone.";
  std::optional<ExtractedCode> c = extractCodeBlock(completion);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->code, "const char *s = \"```\"; // not a fence: not at a line start\n");
  EXPECT_EQ(c->blockIndex, 0);
  // Inline code spans with single backticks are prose.
  EXPECT_EQ(codeOf("Use `__syncthreads()` and ``tile[ty][tx]``.\n```cuda\nK\n```"), "K\n");
}

TEST(CodeExtraction, ChatEndTokenAfterTheBlock) {
  // What the policy's own answers look like (lib/Learn's candidateAnswer, then the end token).
  EXPECT_EQ(codeOf("```cuda\nK\n```<|im_end|>"), "K\n");
}
