//===- LaunchConfig.cpp - Which launch configuration a kernel is analysed for -===//
//
// Precedence: a launch site whose grid, block and shared-memory size are all constant; then
// --launch on the command line (a partial --launch=K::256 sets only the block); then
// __launch_bounds__ (block of its max threads); then the assumed block (256). Scalar parameters come
// from --param and from the chosen launch site's constant arguments (--param wins).
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
} // namespace

void resolveLaunchConfig(KernelReport &K, const AnalyzerOptions &Opts) {
  LaunchConfig L;
  L.Block = Opts.AssumedBlock;
  L.Origin = LaunchOrigin::Assumed;
  const LaunchSite *Site = nullptr;
  for (const LaunchSite &S : K.LaunchSites)
    if (S.isConstant()) {
      Site = &S;
      break;
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
    else if (K.LaunchBoundsMaxThreads)
      L.Block = Dim3{*K.LaunchBoundsMaxThreads, 1, 1};
    L.DynamicSmemBytes = Cli->DynamicSmemBytes.value_or(0);
    L.Origin = LaunchOrigin::CommandLine;
  } else if (K.LaunchBoundsMaxThreads && *K.LaunchBoundsMaxThreads > 0) {
    L.Block = Dim3{*K.LaunchBoundsMaxThreads, 1, 1};
    L.Origin = LaunchOrigin::LaunchBounds;
  }
  if (!Site && Cli && Cli->DynamicSmemBytes)
    L.DynamicSmemBytes = *Cli->DynamicSmemBytes;

  // Scalars from the first launch site that knows them, then --param on top.
  const LaunchSite *ArgSite = Site;
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
