//===- WorkBudget.cpp - Steps and seconds per kernel ------------------------------------===//
#include "cudaperf/Analysis/WorkBudget.h"
#include <cstdio>

namespace cudaperf {

namespace {
thread_local WorkBudget *Current = nullptr;
}

WorkBudget::WorkBudget(WorkLimits Limits) : Limits(Limits), Start(std::chrono::steady_clock::now()) {}

bool WorkBudget::checkClock() {
  LastClockCheck = Used;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count() > Limits.Seconds;
}

void WorkBudget::exhaust(const char *What) {
  Exhausted = true;
  ExhaustedBy = What;
  ExhaustedIn = Phase;
}

std::string WorkBudget::note() const {
  if (!Exhausted)
    return "";
  std::string Where = ExhaustedIn.empty() ? "" : " in the " + ExhaustedIn + " analysis";
  std::string Limit;
  if (ExhaustedBy == "steps") {
    Limit = "after " + std::to_string(Limits.EvaluatorSteps) + " evaluation steps (--analysis-steps)";
  } else {
    char Buf[64];
    std::snprintf(Buf, sizeof Buf, "after %g s (--analysis-seconds)", Limits.Seconds);
    Limit = Buf;
  }
  return "analysis budget exhausted" + Where + " " + Limit +
         ": facts computed after that point are unknown (the kernel is large; raise the limit to "
         "analyse it fully)";
}

WorkBudget *currentWorkBudget() { return Current; }

ScopedWorkBudget::ScopedWorkBudget(WorkBudget &B) : Previous(Current) { Current = &B; }
ScopedWorkBudget::~ScopedWorkBudget() { Current = Previous; }

} // namespace cudaperf
