// The per-lane address evaluator on small NVPTX IR functions shaped like clang's -O3 output.
#include "cudaperf/Analysis/LaneAddress.h"
#include "cudaperf/Analysis/MemoryAccesses.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/TargetParser/Triple.h"
#include <gtest/gtest.h>

using namespace cudaperf;
using namespace llvm;

namespace {

const char *Declarations = R"(
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
)";

/// Parses one function and owns the analyses the evaluator needs.
struct Fixture {
  LLVMContext Ctx;
  std::unique_ptr<Module> M;
  Function *F = nullptr;
  std::unique_ptr<TargetLibraryInfoImpl> TLII;
  std::unique_ptr<TargetLibraryInfo> TLI;
  std::unique_ptr<AssumptionCache> AC;
  std::unique_ptr<DominatorTree> DT;
  std::unique_ptr<LoopInfo> LI;
  std::unique_ptr<ScalarEvolution> SE;

  explicit Fixture(const std::string &Body) {
    SMDiagnostic Err;
    M = parseAssemblyString(std::string(Declarations) + Body, Err, Ctx);
    if (!M) {
      std::string Msg;
      raw_string_ostream OS(Msg);
      Err.print("test", OS);
      ADD_FAILURE() << Msg;
      return;
    }
    F = &*std::find_if(M->begin(), M->end(), [](Function &G) { return !G.isDeclaration(); });
    TLII = std::make_unique<TargetLibraryInfoImpl>(Triple(M->getTargetTriple()));
    TLI = std::make_unique<TargetLibraryInfo>(*TLII);
    AC = std::make_unique<AssumptionCache>(*F);
    DT = std::make_unique<DominatorTree>(*F);
    LI = std::make_unique<LoopInfo>(*DT);
    SE = std::make_unique<ScalarEvolution>(*F, *TLI, *AC, *DT, *LI);
  }

  const MemoryInstruction &access(size_t I, MemoryInventory &Inv) {
    Inv = collectMemoryAccesses(*F);
    return Inv.Accesses.at(I);
  }
};

LaunchFacts launch(Dim3 Block, std::vector<std::string> Names,
                   std::map<std::string, int64_t> Known = {}) {
  LaunchFacts L;
  L.Block = Block;
  L.ParamNames = std::move(Names);
  L.KnownIntParams = std::move(Known);
  return L;
}

// out[i] = in[i + 1], i = blockIdx.x * blockDim.x + threadIdx.x
const char *ShiftedCopy = R"(
define void @k(ptr %in, ptr %out) {
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %d = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %m = mul i32 %b, %d
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = add i32 %m, %t
  %w = sext i32 %i to i64
  %p = getelementptr float, ptr %in, i64 %w
  %q = getelementptr i8, ptr %p, i64 4
  %v = load float, ptr %q, align 4
  %o = getelementptr float, ptr %out, i64 %w
  store float %v, ptr %o, align 4
  ret void
}
)";

TEST(LaneAddress, ShiftedUnitStride) {
  Fixture X(ShiftedCopy);
  ASSERT_TRUE(X.F);
  MemoryInventory Inv;
  const MemoryInstruction &Load = X.access(0, Inv);
  EXPECT_EQ(Load.Space, MemorySpace::Global);
  EXPECT_EQ(Load.Bytes, 4u);
  LaneEvaluator E(*X.F, X.SE.get(), X.LI.get(), launch({256, 1, 1}, {"in", "out"}));
  LaneAddressSummary S = summarizeLaneAddresses(E, Load.Pointer, false);
  ASSERT_TRUE(S.Affine);
  EXPECT_EQ(*S.CoefX, 4);
  EXPECT_EQ(*S.CoefY, 0);
  EXPECT_TRUE(S.Flags & LaneUsesThreadIdx);
  EXPECT_FALSE(S.Flags & (LaneDataDependent | LaneUnknownParam | LaneUnsupported));
  for (const SampledWarp &W : S.Warps)
    EXPECT_EQ(predictSectorsPerRequest(W.Addresses, 4), 5u);
}

// out[x * h + y] = in[y * w + x] with a 32x8 block: the store walks a column.
const char *Transpose = R"(
define void @k(ptr %in, ptr %out, i32 %w, i32 %h) {
  %bx = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bx32 = shl i32 %bx, 5
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %x = add i32 %bx32, %tx
  %by = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %by32 = shl nuw nsw i32 %by, 5
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %y = add nuw nsw i32 %by32, %ty
  %yw = mul nsw i32 %y, %w
  %li = add nsw i32 %yw, %x
  %l64 = sext i32 %li to i64
  %lp = getelementptr inbounds float, ptr %in, i64 %l64
  %v = load float, ptr %lp, align 4
  %xh = mul nsw i32 %x, %h
  %si = add nsw i32 %xh, %y
  %s64 = sext i32 %si to i64
  %sp = getelementptr inbounds float, ptr %out, i64 %s64
  store float %v, ptr %sp, align 4
  ret void
}
)";

TEST(LaneAddress, TransposeWithKnownSizes) {
  Fixture X(Transpose);
  ASSERT_TRUE(X.F);
  MemoryInventory Inv = collectMemoryAccesses(*X.F);
  ASSERT_EQ(Inv.Accesses.size(), 2u);
  LaneEvaluator E(*X.F, X.SE.get(), X.LI.get(),
                  launch({32, 8, 1}, {"in", "out", "w", "h"}, {{"w", 2048}, {"h", 1024}}));
  LaneAddressSummary Load = summarizeLaneAddresses(E, Inv.Accesses[0].Pointer, false);
  LaneAddressSummary Store = summarizeLaneAddresses(E, Inv.Accesses[1].Pointer, false);
  EXPECT_EQ(*Load.CoefX, 4);
  EXPECT_EQ(*Load.CoefY, 4 * 2048);
  EXPECT_EQ(*Store.CoefX, 4 * 1024);
  EXPECT_EQ(*Store.CoefY, 4);
  EXPECT_FALSE(Store.Flags & LaneUnknownParam);
  EXPECT_EQ(predictSectorsPerRequest(Load.Warps[0].Addresses, 4), 4u);
  EXPECT_EQ(predictSectorsPerRequest(Store.Warps[0].Addresses, 4), 32u);
}

TEST(LaneAddress, UnknownParameterIsFlaggedAndRepresentative) {
  Fixture X(Transpose);
  ASSERT_TRUE(X.F);
  MemoryInventory Inv = collectMemoryAccesses(*X.F);
  LaneEvaluator E(*X.F, X.SE.get(), X.LI.get(), launch({32, 8, 1}, {"in", "out", "w", "h"}));
  LaneAddressSummary Store = summarizeLaneAddresses(E, Inv.Accesses[1].Pointer, false, 7);
  EXPECT_TRUE(Store.Flags & LaneUnknownParam);
  EXPECT_EQ(Store.UnknownParams, std::set<std::string>{"h"});
  EXPECT_EQ(*Store.CoefX, 4 * 7);
}

// a[(i & 15) << 1], a[i / 2], a[i % 3]: exact per lane, not affine over the warp.
const char *Masks = R"(
define void @k(ptr %a, ptr %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %s = shl i32 %t, 1
  %m = and i32 %s, 30
  %z = zext nneg i32 %m to i64
  %p = getelementptr inbounds float, ptr %a, i64 %z
  %v = load float, ptr %p, align 4
  %h = sdiv i32 %t, 2
  %h64 = sext i32 %h to i64
  %p2 = getelementptr inbounds float, ptr %a, i64 %h64
  %v2 = load float, ptr %p2, align 4
  %r = urem i32 %t, 3
  %r64 = zext i32 %r to i64
  %p3 = getelementptr inbounds float, ptr %a, i64 %r64
  %v3 = load float, ptr %p3, align 4
  ret void
}
)";

TEST(LaneAddress, MasksDivisionsAndRemainders) {
  Fixture X(Masks);
  ASSERT_TRUE(X.F);
  MemoryInventory Inv = collectMemoryAccesses(*X.F, /*CombineVectors=*/false);
  ASSERT_EQ(Inv.Accesses.size(), 3u);
  LaneEvaluator E(*X.F, X.SE.get(), X.LI.get(), launch({64, 1, 1}, {"a", "out"}));
  LaneAddressSummary Mask = summarizeLaneAddresses(E, Inv.Accesses[0].Pointer, false);
  EXPECT_FALSE(Mask.Affine);
  EXPECT_EQ(Mask.Warps[0].Addresses[17] - Mask.Warps[0].Addresses[0], 8); // (17 & 15) << 1 = 2
  EXPECT_EQ(predictSectorsPerRequest(Mask.Warps[0].Addresses, 4), 4u);
  LaneAddressSummary Half = summarizeLaneAddresses(E, Inv.Accesses[1].Pointer, false);
  EXPECT_FALSE(Half.Affine);
  EXPECT_EQ(predictSectorsPerRequest(Half.Warps[0].Addresses, 4), 2u);
  LaneAddressSummary Rem = summarizeLaneAddresses(E, Inv.Accesses[2].Pointer, false);
  EXPECT_EQ(predictSectorsPerRequest(Rem.Warps[0].Addresses, 4), 1u);
  EXPECT_FALSE(Rem.Flags & LaneUnsupported);
}

// s += a[r * n + j] for j < n: a loop whose induction variable is uniform.
const char *RowLoop = R"(
define void @k(ptr %a, ptr %out, i32 %n) {
entry:
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %d = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %m = mul i32 %b, %d
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %r = add i32 %m, %t
  %rn = mul nsw i32 %r, %n
  %pos = icmp sgt i32 %n, 0
  br i1 %pos, label %loop, label %exit
loop:
  %j = phi i32 [ 0, %entry ], [ %j1, %loop ]
  %idx = add nsw i32 %j, %rn
  %i64 = sext i32 %idx to i64
  %p = getelementptr inbounds float, ptr %a, i64 %i64
  %v = load float, ptr %p, align 4
  %j1 = add nuw nsw i32 %j, 1
  %c = icmp eq i32 %j1, %n
  br i1 %c, label %exit, label %loop
exit:
  ret void
}
)";

TEST(LaneAddress, LoopWithUniformInductionVariable) {
  Fixture X(RowLoop);
  ASSERT_TRUE(X.F);
  MemoryInventory Inv = collectMemoryAccesses(*X.F);
  ASSERT_EQ(Inv.Accesses.size(), 1u);
  LaneEvaluator E(*X.F, X.SE.get(), X.LI.get(), launch({128, 1, 1}, {"a", "out", "n"}, {{"n", 64}}));
  LaneAddressSummary S = summarizeLaneAddresses(E, Inv.Accesses[0].Pointer, true);
  ASSERT_TRUE(S.Affine);
  EXPECT_EQ(*S.CoefX, 256);
  EXPECT_TRUE(S.Flags & LaneUsesLoopIteration);
  // Iteration k moves every lane by 4 bytes.
  auto Next = std::find_if(S.Warps.begin(), S.Warps.end(), [&](const SampledWarp &W) {
    return W.Sample.Iteration == 1 && W.Sample.BlockIdx == S.Warps[0].Sample.BlockIdx &&
           W.Sample.Lanes == S.Warps[0].Sample.Lanes;
  });
  ASSERT_NE(Next, S.Warps.end());
  EXPECT_EQ(Next->Addresses[0] - S.Warps[0].Addresses[0], 4);
  EXPECT_EQ(predictSectorsPerRequest(S.Warps[0].Addresses, 4), 32u);
  Loop *L = *X.LI->begin();
  std::string Sym;
  EXPECT_EQ(evaluateTripCount(E, *X.SE, L, Sym), std::optional<int64_t>(64));
  EXPECT_FALSE(Sym.empty());

  LaneEvaluator Unknown(*X.F, X.SE.get(), X.LI.get(), launch({128, 1, 1}, {"a", "out", "n"}));
  EXPECT_EQ(evaluateTripCount(Unknown, *X.SE, L, Sym), std::nullopt);
}

// out[i] = a[idx[i]] and a pointer read from memory.
const char *Gather = R"(
define void @k(ptr %a, ptr %idx, ptr %ptrs) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %t to i64
  %ip = getelementptr inbounds i32, ptr %idx, i64 %t64
  %i = load i32, ptr %ip, align 4
  %i64 = sext i32 %i to i64
  %p = getelementptr inbounds float, ptr %a, i64 %i64
  %v = load float, ptr %p, align 4
  %row = load ptr, ptr %ptrs, align 8
  %q = getelementptr inbounds float, ptr %row, i64 %t64
  store float %v, ptr %q, align 4
  ret void
}
)";

TEST(LaneAddress, DataDependentAddresses) {
  Fixture X(Gather);
  ASSERT_TRUE(X.F);
  MemoryInventory Inv = collectMemoryAccesses(*X.F);
  ASSERT_EQ(Inv.Accesses.size(), 4u);
  EXPECT_EQ(Inv.Accesses[3].Base, BaseKind::LoadedPointer);
  EXPECT_EQ(Inv.Accesses[3].Space, MemorySpace::Global);
  LaneEvaluator E(*X.F, X.SE.get(), X.LI.get(), launch({256, 1, 1}, {"a", "idx", "ptrs"}));
  EXPECT_FALSE(summarizeLaneAddresses(E, Inv.Accesses[0].Pointer, false).Flags & LaneDataDependent);
  EXPECT_TRUE(summarizeLaneAddresses(E, Inv.Accesses[1].Pointer, false).Flags & LaneDataDependent);
  EXPECT_TRUE(summarizeLaneAddresses(E, Inv.Accesses[3].Pointer, false).Flags & LaneDataDependent);
}

// Shared memory and field-by-field float4 stores combined into one 16-byte access.
const char *SharedAndVector = R"(
@s = internal addrspace(3) global [64 x float] undef, align 4
define void @k(ptr %o) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %t to i64
  %sp = getelementptr inbounds [64 x float], ptr addrspacecast (ptr addrspace(3) @s to ptr), i64 0, i64 %t64
  %v = load float, ptr %sp, align 4
  %p = getelementptr inbounds [4 x float], ptr %o, i64 %t64
  store float %v, ptr %p, align 16
  %p1 = getelementptr inbounds i8, ptr %p, i64 4
  store float %v, ptr %p1, align 4
  %p2 = getelementptr inbounds i8, ptr %p, i64 8
  store i32 0, ptr %p2, align 8
  %p3 = getelementptr inbounds i8, ptr %p, i64 12
  store float %v, ptr %p3, align 4
  ret void
}
)";

TEST(MemoryAccesses, SpacesAndVectorGroups) {
  Fixture X(SharedAndVector);
  ASSERT_TRUE(X.F);
  MemoryInventory Inv = collectMemoryAccesses(*X.F);
  ASSERT_EQ(Inv.Accesses.size(), 2u);
  EXPECT_EQ(Inv.Accesses[0].Space, MemorySpace::Shared);
  EXPECT_EQ(Inv.Accesses[1].Space, MemorySpace::Global);
  EXPECT_EQ(Inv.Accesses[1].Bytes, 16u);
  EXPECT_EQ(Inv.Accesses[1].Insts.size(), 4u);
  MemoryInventory Separate = collectMemoryAccesses(*X.F, false);
  EXPECT_EQ(Separate.Accesses.size(), 5u);

  LaneEvaluator E(*X.F, X.SE.get(), X.LI.get(), launch({32, 1, 1}, {"o"}));
  LaneAddressSummary S = summarizeLaneAddresses(E, Inv.Accesses[0].Pointer, false);
  std::vector<std::optional<int64_t>> Lanes(S.Warps[0].Addresses.begin(), S.Warps[0].Addresses.end());
  EXPECT_EQ(predictSharedWavefronts(Lanes, 4), 1u);
  LaneAddressSummary V = summarizeLaneAddresses(E, Inv.Accesses[1].Pointer, false);
  EXPECT_EQ(predictSectorsPerRequest(V.Warps[0].Addresses, 16), 16u);
}

// A grid-stride loop: i starts at the global thread id and steps by blockDim.x * gridDim.x.
const char *GridStride = R"(
define void @k(ptr %a, i32 %n) {
entry:
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %d = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %m = mul i32 %b, %d
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i0 = add i32 %m, %t
  %g = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %step = mul i32 %d, %g
  %c0 = icmp slt i32 %i0, %n
  br i1 %c0, label %loop, label %exit
loop:
  %i = phi i32 [ %i0, %entry ], [ %i1, %loop ]
  %w = sext i32 %i to i64
  %p = getelementptr inbounds double, ptr %a, i64 %w
  store double 0.0, ptr %p, align 8
  %i1 = add i32 %i, %step
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
)";

TEST(LaneAddress, GridStrideLoopStaysCoalesced) {
  Fixture X(GridStride);
  ASSERT_TRUE(X.F);
  MemoryInventory Inv = collectMemoryAccesses(*X.F);
  LaneEvaluator E(*X.F, X.SE.get(), X.LI.get(), launch({256, 1, 1}, {"a", "n"}));
  LaneAddressSummary S = summarizeLaneAddresses(E, Inv.Accesses[0].Pointer, true);
  EXPECT_TRUE(S.Flags & LaneUnknownGrid);
  EXPECT_EQ(*S.CoefX, 8);
  for (const SampledWarp &W : S.Warps)
    EXPECT_EQ(predictSectorsPerRequest(W.Addresses, 8), 8u);
}

} // namespace

namespace {

// An 8x8x4 block over a 256x256 volume, as clang emits it: shifts of every index.
const char *Volume = R"(
declare i32 @llvm.nvvm.read.ptx.sreg.tid.z()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()
define void @k(ptr %in) {
  %3 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %4 = shl i32 %3, 3
  %5 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %6 = add i32 %4, %5
  %7 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %8 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %9 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()
  %10 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.z()
  %11 = shl nuw nsw i32 %7, 11
  %12 = shl i32 %9, 18
  %13 = shl nuw nsw i32 %10, 16
  %14 = shl nuw nsw i32 %8, 8
  %15 = add nuw nsw i32 %13, %14
  %16 = add i32 %12, %15
  %17 = add i32 %11, %16
  %18 = add nsw i32 %6, %17
  %19 = sext i32 %18 to i64
  %20 = getelementptr inbounds float, ptr %in, i64 %19
  %21 = load float, ptr %20, align 4
  ret void
}
)";

TEST(LaneAddress, ThreeDimensionalBlock) {
  Fixture X(Volume);
  ASSERT_TRUE(X.F);
  MemoryInventory Inv = collectMemoryAccesses(*X.F);
  LaneEvaluator E(*X.F, X.SE.get(), X.LI.get(), launch({8, 8, 4}, {"in"}));
  LaneAddressSummary S = summarizeLaneAddresses(E, Inv.Accesses[0].Pointer, false);
  EXPECT_FALSE(S.Flags & LaneUnsupported);
  ASSERT_TRUE(S.Affine);
  EXPECT_EQ(*S.CoefX, 4);
  EXPECT_EQ(*S.CoefY, 1024);
  EXPECT_EQ(*S.CoefZ, 4 * 65536);
  EXPECT_EQ(predictSectorsPerRequest(S.Warps[0].Addresses, 4), 4u);
}

} // namespace

namespace {

// Index arithmetic packed into vectors, as the SLP vectorizer leaves it without a target machine.
const char *Vectorized = R"(
declare i32 @llvm.nvvm.read.ptx.sreg.tid.z()
declare i32 @llvm.vector.reduce.add.v4i32(<4 x i32>)
define void @k(ptr %in) {
  %x = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %y = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %z = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.z()
  %b = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %v0 = insertelement <4 x i32> poison, i32 %x, i64 0
  %v1 = insertelement <4 x i32> %v0, i32 %y, i64 1
  %v2 = insertelement <4 x i32> %v1, i32 %z, i64 2
  %v3 = insertelement <4 x i32> %v2, i32 %b, i64 3
  %s = shl <4 x i32> %v3, <i32 0, i32 8, i32 16, i32 18>
  %r = tail call i32 @llvm.vector.reduce.add.v4i32(<4 x i32> %s)
  %w = sext i32 %r to i64
  %p = getelementptr inbounds float, ptr %in, i64 %w
  %v = load float, ptr %p, align 4
  ret void
}
)";

TEST(LaneAddress, VectorizedIndexArithmetic) {
  Fixture X(Vectorized);
  ASSERT_TRUE(X.F);
  MemoryInventory Inv = collectMemoryAccesses(*X.F);
  LaneEvaluator E(*X.F, X.SE.get(), X.LI.get(), launch({8, 8, 4}, {"in"}));
  LaneAddressSummary S = summarizeLaneAddresses(E, Inv.Accesses[0].Pointer, false);
  EXPECT_FALSE(S.Flags & LaneUnsupported);
  ASSERT_TRUE(S.Affine);
  EXPECT_EQ(*S.CoefX, 4);
  EXPECT_EQ(*S.CoefY, 1024);
  EXPECT_EQ(*S.CoefZ, 4 * 65536);
}

} // namespace

namespace {

// A <2 x float> load aligned to 4 bytes is two 4-byte loads on the GPU; one aligned to 8 stays whole.
const char *MisalignedVector = R"(
define void @k(ptr %a) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %t to i64
  %p = getelementptr inbounds float, ptr %a, i64 %t64
  %q = getelementptr inbounds i8, ptr %p, i64 4
  %v = load <2 x float>, ptr %q, align 4
  %w = load <2 x float>, ptr %a, align 8
  ret void
}
)";

TEST(MemoryAccesses, MisalignedVectorIsSplit) {
  Fixture X(MisalignedVector);
  ASSERT_TRUE(X.F);
  MemoryInventory Inv = collectMemoryAccesses(*X.F);
  ASSERT_EQ(Inv.Accesses.size(), 3u);
  EXPECT_EQ(Inv.Accesses[0].Bytes, 4u);
  EXPECT_EQ(Inv.Accesses[0].Offset, 0);
  EXPECT_EQ(Inv.Accesses[1].Offset, 4);
  EXPECT_EQ(Inv.Accesses[2].Bytes, 8u);
  LaneEvaluator E(*X.F, X.SE.get(), X.LI.get(), launch({32, 1, 1}, {"a"}));
  LaneAddressSummary S = summarizeLaneAddresses(E, Inv.Accesses[1].Pointer, false, 1024,
                                                Inv.Accesses[1].Offset);
  EXPECT_EQ(predictSectorsPerRequest(S.Warps[0].Addresses, 4), 5u); // a[t + 2]: 8 bytes off
}

} // namespace
