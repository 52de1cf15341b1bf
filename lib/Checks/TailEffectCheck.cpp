//===- TailEffectCheck.cpp - cuda-tail-effect ---------------------------------------------===//
//
// The grid runs in fewer than 4 waves (a wave: resident blocks per SM × SMs) and its last wave is
// less than half full, so for that wave most SMs sit idle. Needs a known grid (a constant launch
// site or --launch) and the SM count of the assumed device.
//
// Only where the kernel's modelled time makes it matter: when the work analysis gives a roofline
// time for the launch and it is below MinModelledTimeUs, launch latency (a few microseconds)
// dominates and a grid of whole waves gains nothing measurable (saxpy at n = 777), so the check is
// silent (another launch site of the kernel: the time scaled by its share of blocks). The
// estimated saving is the time the partial wave adds over an even spread of the same
// work: T x (ceil(w) - w) / w for w waves, at most T.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Checks/Check.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cmath>

namespace cudaperf {

namespace {

constexpr double MaxWaves = 4.0;
constexpr double MinLastWave = 0.5;
/// Kernel launch latency is a few microseconds; a kernel modelled to run for less than this is
/// dominated by it (docs/checks/cuda-tail-effect.md).
constexpr double MinModelledTimeUs = 5.0;

class TailEffectCheck : public Check {
public:
  const CheckInfo &info() const override {
    static const CheckInfo I{
        "cuda-tail-effect",
        "The last wave of blocks leaves most SMs idle",
        "Blocks run in waves of (resident blocks per SM x SMs). When a grid has few waves and the "
        "last one is mostly empty, a large share of the kernel's time runs on a fraction of the "
        "GPU. Size the grid to whole waves, or use a grid-stride loop over a grid of exactly one "
        "or more full waves.",
        Severity::Warning};
    return I;
  }

  void run(const KernelReport &K, std::vector<Diagnostic> &Out) const override {
    if (!K.Occupancy)
      return;
    const OccupancyFacts &O = *K.Occupancy;
    // Each constant launch site on its own; else the resolved launch (--launch), at the kernel.
    if (!O.LaunchSites.empty()) {
      for (const LaunchSiteOccupancy &S : O.LaunchSites) {
        SourceLocation Loc = K.Loc;
        Loc.Line = unsigned(S.Line);
        Loc.Column = unsigned(S.Column);
        if (!K.LaunchSites.empty())
          Loc.File = K.LaunchSites.front().Loc.File;
        if (S.Waves)
          report(K, O, {S.GridBlocks, S.ActiveBlocksPerSM, *S.Waves}, Loc, Out);
      }
      return;
    }
    if (O.GridBlocks && O.Waves)
      report(K, O, {*O.GridBlocks, O.ActiveBlocksPerSM, *O.Waves}, K.Loc, Out);
  }

private:
  /// One launch: the kernel's resolved one or a constant launch site.
  struct Launch {
    int64_t Grid;
    int64_t ActiveBlocksPerSM;
    WaveFacts W;
  };

  void report(const KernelReport &K, const OccupancyFacts &Kernel, const Launch &L,
              const SourceLocation &Loc, std::vector<Diagnostic> &Out) const {
    const double Waves = L.W.Waves, Last = L.W.LastWaveFraction;
    const int64_t PerWave = L.W.BlocksPerWave, Grid = L.Grid;
    if (Waves >= MaxWaves || Last >= MinLastWave)
      return;
    // The roofline time describes the kernel's resolved launch; another launch site's is scaled
    // by its share of blocks (the same work per block assumed).
    std::optional<double> Modelled = K.Work ? K.Work->RooflineTimeUs : std::nullopt;
    std::optional<int64_t> ResolvedGrid = Kernel.GridBlocks;
    if (Modelled && ResolvedGrid && *ResolvedGrid > 0)
      *Modelled *= double(Grid) / double(*ResolvedGrid);
    else
      Modelled.reset();
    if (Modelled && *Modelled < MinModelledTimeUs)
      return;
    std::string Msg;
    llvm::raw_string_ostream OS(Msg);
    OS << "grid of " << Grid << " blocks of '" << K.Name << "' ";
    if (Waves < 1)
      OS << "fills " << llvm::format(Last < 0.1 ? "%.2g%%" : "%.0f%%", Last * 100)
         << " of one wave of " << PerWave;
    else
      OS << "runs in " << llvm::format("%.2f", Waves) << " waves of " << PerWave
         << "; the last is " << llvm::format("%.0f%%", Last * 100) << " full";
    OS << " (" << L.ActiveBlocksPerSM << " blocks per SM x " << Kernel.SMs.value_or(0)
       << " SMs of " << Kernel.Device.value_or("") << "); a grid of whole waves (a multiple of "
       << PerWave << " blocks, e.g. a grid-stride loop over " << PerWave
       << ") keeps every SM busy";
    Diagnostic D = make(K, Loc, Msg);
    if (Modelled && Waves > 0)
      D.EstimatedSavingUs = std::min(*Modelled, *Modelled * (std::ceil(Waves) - Waves) / Waves);
    Out.push_back(std::move(D));
  }
};

} // namespace

std::unique_ptr<Check> createTailEffectCheck() { return std::make_unique<TailEffectCheck>(); }

} // namespace cudaperf
