//===- LaunchConfig.cpp - Which launch configuration a kernel is analysed for -===//
//
// Precedence: a launch site whose grid, block and shared-memory size are all constant (and
// valid); then --launch on the command line (a partial --launch=K::256 sets only the block); then
// the constant parts of a launch site whose grid is not constant (its block, and its dynamic shared
// memory when constant: "launch-site-partial"); then __launch_bounds__ (block of its max threads);
// then the assumed block (256). Scalar parameters come from --param and from the chosen launch
// site's constant arguments (--param wins). A site with a grid or block that cannot launch (a zero
// dimension, say) is never used: cuda-invalid-launch-config reports it.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Analysis/AnalysisContext.h"

namespace cudaperf {

namespace {
template <typename MapT>
const typename MapT::mapped_type *lookupKernel(const MapT &Map, const KernelReport &K) {
  for (const std::string &Key : {K.Name, K.MangledName, K.Name.substr(0, K.Name.find('<'))}) {
    auto It = Map.find(Key);
    if (It != Map.end())
      return &It->second;
  }
  return nullptr;
}

// Limits of every CUDA device since compute capability 2.0 (CUDA C++ Programming Guide,
// "Features and Technical Specifications"), and the dynamic shared memory a kernel gets without
// cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize).
constexpr int64_t MaxGrid[3] = {2147483647, 65535, 65535};
constexpr int64_t MaxBlock[3] = {1024, 1024, 64};
constexpr int64_t MaxThreadsPerBlock = 1024;
constexpr int64_t DefaultDynamicSmemLimit = 48 * 1024;

void dimProblems(const Dim3 &D, const int64_t (&Max)[3], const char *What,
                 std::vector<std::string> &Out) {
  const int64_t V[3] = {D.X, D.Y, D.Z};
  for (unsigned I = 0; I < 3; ++I) {
    std::string Dim = std::string(What) + "." + "xyz"[I];
    if (V[I] < 1)
      Out.push_back(Dim + " is " + std::to_string(V[I]) + "; every dimension must be at least 1");
    else if (V[I] > Max[I])
      Out.push_back(Dim + " is " + std::to_string(V[I]) + ", above the limit of " + std::to_string(Max[I]));
  }
}
} // namespace

std::vector<std::string> launchConfigProblems(const LaunchSite &S) {
  std::vector<std::string> Out;
  if (S.Grid)
    dimProblems(*S.Grid, MaxGrid, "grid", Out);
  if (S.Block) {
    dimProblems(*S.Block, MaxBlock, "block", Out);
    if (Out.empty() && S.Block->count() > MaxThreadsPerBlock)
      Out.push_back("the block has " + std::to_string(S.Block->count()) + " threads; at most " +
                    std::to_string(MaxThreadsPerBlock) + " are allowed");
  }
  if (S.DynamicSmemBytes && *S.DynamicSmemBytes < 0)
    Out.push_back("dynamic shared memory is " + std::to_string(*S.DynamicSmemBytes) + " bytes");
  // Only an evaluated launch knows whether cudaFuncSetAttribute raised the limit.
  if (S.Evaluated && S.DynamicSmemBytes && *S.DynamicSmemBytes > DefaultDynamicSmemLimit &&
      (!S.MaxDynamicSmemAttribute || *S.MaxDynamicSmemAttribute < *S.DynamicSmemBytes))
    Out.push_back(std::to_string(*S.DynamicSmemBytes) + " bytes of dynamic shared memory exceed the " +
                  std::to_string(S.MaxDynamicSmemAttribute.value_or(DefaultDynamicSmemLimit)) +
                  (S.MaxDynamicSmemAttribute ? " bytes the kernel's cudaFuncSetAttribute allows"
                                             : " bytes a kernel gets without cudaFuncSetAttribute("
                                               "cudaFuncAttributeMaxDynamicSharedMemorySize)"));
  return Out;
}

void resolveLaunchConfig(KernelReport &K, const AnalyzerOptions &Opts) {
  LaunchConfig L;
  L.Block = Opts.AssumedBlock;
  L.Origin = LaunchOrigin::Assumed;
  const LaunchSite *Site = nullptr, *Partial = nullptr;
  for (LaunchSite &S : K.LaunchSites)
    S.Problems = launchConfigProblems(S);
  for (const LaunchSite &S : K.LaunchSites) {
    if (!S.Problems.empty())
      continue;
    if (S.isConstant()) {
      Site = &S;
      break;
    }
    if (!Partial && S.Block)
      Partial = &S;
  }
  const LaunchOverride *Cli = lookupKernel(Opts.Launches, K);
  if (Site) {
    L.Grid = Site->Grid;
    L.Block = *Site->Block;
    L.DynamicSmemBytes = *Site->DynamicSmemBytes;
    L.Origin = LaunchOrigin::LaunchSite;
  } else if (Cli && (Cli->Block || Cli->Grid)) {
    L.Grid = Cli->Grid;
    if (Cli->Block)
      L.Block = *Cli->Block;
    else if (Partial)
      L.Block = *Partial->Block;
    else if (K.LaunchBoundsMaxThreads)
      L.Block = Dim3{*K.LaunchBoundsMaxThreads, 1, 1};
    L.DynamicSmemBytes = Cli->DynamicSmemBytes.value_or(0);
    L.Origin = LaunchOrigin::CommandLine;
  } else if (Partial) {
    L.Block = *Partial->Block;
    L.DynamicSmemBytes = Partial->DynamicSmemBytes.value_or(0);
    L.Origin = LaunchOrigin::LaunchSitePartial;
  } else if (K.LaunchBoundsMaxThreads && *K.LaunchBoundsMaxThreads > 0) {
    L.Block = Dim3{*K.LaunchBoundsMaxThreads, 1, 1};
    L.Origin = LaunchOrigin::LaunchBounds;
  }
  if (!Site && Cli && Cli->DynamicSmemBytes)
    L.DynamicSmemBytes = *Cli->DynamicSmemBytes;

  // Scalars from the chosen launch site, else the first one, then --param on top.
  const LaunchSite *ArgSite = Site ? Site : Partial;
  if (!ArgSite && !K.LaunchSites.empty())
    ArgSite = &K.LaunchSites.front();
  if (ArgSite)
    for (size_t I = 0; I < ArgSite->Args.size() && I < K.Params.size(); ++I)
      if (ArgSite->Args[I])
        L.Params[K.Params[I].Name] = *ArgSite->Args[I];
  if (const auto *P = lookupKernel(Opts.Params, K))
    for (const auto &[Name, Value] : *P)
      L.Params[Name] = Value;
  K.Launch = std::move(L);
}

} // namespace cudaperf
