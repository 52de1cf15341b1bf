// Sectors per request and shared-memory wavefronts from lane addresses. Expected values are the
// H200 measurements recorded in docs (ENVIRONMENT.md, "Ground truth already measured").
#include "cudaperf/Analysis/WarpRequests.h"
#include <gtest/gtest.h>

using namespace cudaperf;

namespace {

std::vector<int64_t> lanes(int64_t Base, int64_t Stride, unsigned N = 32) {
  std::vector<int64_t> A;
  for (unsigned L = 0; L < N; ++L)
    A.push_back(Base + Stride * L);
  return A;
}

std::vector<std::optional<int64_t>> sharedLanes(int64_t Stride, unsigned Active = 32) {
  std::vector<std::optional<int64_t>> A(32);
  for (unsigned L = 0; L < Active; ++L)
    A[L] = Stride * L;
  return A;
}

TEST(WarpsOfBlock, LinearIdsXFastest) {
  auto W = warpsOfBlock(Dim3{16, 16, 1});
  ASSERT_EQ(W.size(), 8u);
  EXPECT_EQ(W[0][15], (ThreadIndex{15, 0, 0}));
  EXPECT_EQ(W[0][16], (ThreadIndex{0, 1, 0}));
  EXPECT_EQ(W[1][0], (ThreadIndex{0, 2, 0}));

  auto Narrow = warpsOfBlock(Dim3{8, 32, 1});
  EXPECT_EQ(Narrow[0][31], (ThreadIndex{7, 3, 0})); // four rows per warp

  auto Cube = warpsOfBlock(Dim3{4, 4, 4});
  EXPECT_EQ(Cube[0][16], (ThreadIndex{0, 0, 1}));
}

TEST(WarpsOfBlock, PartialLastWarp) {
  auto W = warpsOfBlock(Dim3{100, 1, 1});
  ASSERT_EQ(W.size(), 4u);
  EXPECT_EQ(W[3].size(), 4u);
  EXPECT_EQ(warpCount(Dim3{100, 1, 1}), 4);
  EXPECT_EQ(warpCount(Dim3{32, 8, 1}), 8);
}

TEST(SectorsPerRequest, MeasuredGlobalPatterns) {
  EXPECT_EQ(predictSectorsPerRequest(lanes(0, 4), 4), 4u);        // float unit stride
  EXPECT_EQ(predictSectorsPerRequest(lanes(0, 8), 4), 8u);        // stride 2
  EXPECT_EQ(predictSectorsPerRequest(lanes(0, 16), 4), 16u);      // stride 4
  EXPECT_EQ(predictSectorsPerRequest(lanes(0, 32), 4), 32u);      // stride 8
  EXPECT_EQ(predictSectorsPerRequest(lanes(0, 4 * 33), 4), 32u);  // stride 33
  EXPECT_EQ(predictSectorsPerRequest(lanes(4, 4), 4), 5u);        // in[i + 1]
  EXPECT_EQ(predictSectorsPerRequest(lanes(64, 0), 4), 1u);       // one address
  EXPECT_EQ(predictSectorsPerRequest(lanes(0, 16), 16), 16u);     // float4
  EXPECT_EQ(predictSectorsPerRequest(lanes(0, 8), 8), 8u);        // double
  EXPECT_EQ(predictSectorsPerRequest(lanes(0, 1), 1), 1u);        // char
  EXPECT_EQ(predictSectorsPerRequest(lanes(0, 2), 2), 2u);        // short
}

TEST(SectorsPerRequest, TwoRowsOfA16x16Block) {
  std::vector<int64_t> A;
  auto Warps = warpsOfBlock(Dim3{16, 16, 1});
  for (const ThreadIndex &T : Warps[0])
    A.push_back(T.Y * 4096 + T.X * 4);
  EXPECT_EQ(predictSectorsPerRequest(A, 4), 4u);
}

TEST(SectorsPerRequest, StraddlingAndNegativeAddresses) {
  EXPECT_EQ(predictSectorsPerRequest({30}, 4), 2u);     // crosses a sector boundary
  EXPECT_EQ(predictSectorsPerRequest({-4, 0}, 4), 2u);  // -4 lies in sector -1
  EXPECT_EQ(predictSectorsPerRequest(lanes(8, 16), 16), 17u);
  EXPECT_EQ(predictSectorsPerRequest({}, 4), 0u);
  EXPECT_EQ(predictSectorsPerRequest(lanes(0, 4, 16), 4), 2u); // half a warp
}

TEST(SectorsPerRequest, Ideal) {
  EXPECT_EQ(idealSectorsPerRequest(32, 4), 4u);
  EXPECT_EQ(idealSectorsPerRequest(32, 8), 8u);
  EXPECT_EQ(idealSectorsPerRequest(32, 16), 16u);
  EXPECT_EQ(idealSectorsPerRequest(32, 1), 1u);
  EXPECT_EQ(idealSectorsPerRequest(4, 4), 1u);
}

TEST(SharedWavefronts, MeasuredPatterns) {
  EXPECT_EQ(predictSharedWavefronts(sharedLanes(4), 4), 1u);       // s[t]
  EXPECT_EQ(predictSharedWavefronts(sharedLanes(8), 4), 2u);       // s[2t]
  EXPECT_EQ(predictSharedWavefronts(sharedLanes(128), 4), 32u);    // s[32t], tile[32][32] column
  EXPECT_EQ(predictSharedWavefronts(sharedLanes(132), 4), 1u);     // tile[32][33] column
  EXPECT_EQ(predictSharedWavefronts(sharedLanes(0), 4), 1u);       // broadcast
}

TEST(SharedWavefronts, WideAccessesAsMeasured) {
  EXPECT_EQ(predictSharedWavefronts(sharedLanes(8), 8), 2u);   // double s[t]: 64 words in 32 banks
  EXPECT_EQ(predictSharedWavefronts(sharedLanes(0), 8), 1u);   // double broadcast (measured 1.00)
  EXPECT_EQ(predictSharedWavefronts(sharedLanes(264), 8), 2u); // double s[33t] (measured 2.03)
  EXPECT_EQ(predictSharedWavefronts(sharedLanes(16), 16), 4u); // float4 s[t]: two half-warps of 2
  EXPECT_EQ(predictSharedWavefronts(sharedLanes(32), 16), 8u); // float4 s[2t] (measured 8.00)
  EXPECT_EQ(predictSharedWavefronts(sharedLanes(0), 16), 2u);  // float4 broadcast: one per half
  EXPECT_EQ(predictSharedWavefronts(sharedLanes(16), 8), 4u);  // double s[2t]
  EXPECT_EQ(predictSharedWavefronts(sharedLanes(8, 16), 8), 1u); // second half-warp idle
}

TEST(SharedWavefronts, SubWordLanesShareAWord) {
  EXPECT_EQ(predictSharedWavefronts(sharedLanes(1), 1), 1u); // char s[t]
  EXPECT_EQ(predictSharedWavefronts(sharedLanes(2), 2), 1u);
}

} // namespace
