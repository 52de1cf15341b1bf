//===- WorkBudget.h - How much work one kernel's analyses may do -----*- C++ -*-===//
//
// Generated and heavily unrolled kernels (tensor-core GEMMs, template libraries) have tens of
// thousands of instructions; evaluating every address for every sampled warp then takes minutes.
// Each kernel's analyses share one budget of lane-evaluator steps (one IR value evaluated for one
// warp) and of wall-clock seconds. The lane evaluator spends it; loops of the analyses that do
// other per-access work check it. Once it is spent, evaluations return unknown values (flagged
// unsupported), the analyses finish quickly with what they have, and the kernel gets a note.
//
// The budget of the kernel being analysed is reached through currentWorkBudget() (set by
// analyzeModule for the duration of one kernel) so that every evaluator and analysis loop, present
// and future, is bounded without being handed it.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_ANALYSIS_WORKBUDGET_H
#define CUDAPERF_ANALYSIS_WORKBUDGET_H

#include <chrono>
#include <cstdint>
#include <string>

namespace cudaperf {

struct WorkLimits {
  uint64_t EvaluatorSteps = 20'000'000; // ~10 s of evaluation on the development machine
  double Seconds = 30;                  // wall clock per kernel, all analyses together
};

class WorkBudget {
public:
  explicit WorkBudget(WorkLimits Limits);

  /// Spends \p Steps; false once the budget is exhausted (then it stays exhausted).
  bool spend(uint64_t Steps = 1) {
    Used += Steps;
    if (Exhausted)
      return false;
    if (Used > Limits.EvaluatorSteps || (Used - LastClockCheck >= ClockCheckInterval && checkClock()))
      exhaust(Used > Limits.EvaluatorSteps ? "steps" : "seconds");
    return !Exhausted;
  }
  bool exhausted() const { return Exhausted; }
  uint64_t stepsUsed() const { return Used; }
  /// The note for the kernel, e.g. "analysis budget exhausted in the coalescing analysis after
  /// 20000000 evaluation steps (--analysis-steps): facts computed after that point are unknown".
  std::string note() const;
  /// Which analysis is spending (for the note).
  void setPhase(std::string Name) { Phase = std::move(Name); }

private:
  static constexpr uint64_t ClockCheckInterval = 4096;
  bool checkClock();
  void exhaust(const char *What);

  WorkLimits Limits;
  std::chrono::steady_clock::time_point Start;
  uint64_t Used = 0, LastClockCheck = 0;
  bool Exhausted = false;
  std::string ExhaustedBy, ExhaustedIn, Phase;
};

/// The budget of the kernel being analysed on this thread, or null (no bound).
WorkBudget *currentWorkBudget();

/// Makes \p B the current budget for its lifetime.
class ScopedWorkBudget {
public:
  explicit ScopedWorkBudget(WorkBudget &B);
  ~ScopedWorkBudget();
  ScopedWorkBudget(const ScopedWorkBudget &) = delete;
  ScopedWorkBudget &operator=(const ScopedWorkBudget &) = delete;

private:
  WorkBudget *Previous;
};

/// spend() on the current budget; true when there is none.
inline bool spendWork(uint64_t Steps = 1) {
  WorkBudget *B = currentWorkBudget();
  return !B || B->spend(Steps);
}

} // namespace cudaperf

#endif
