//===- KernelCollector.h - Kernels and launch sites from the AST -*- C++ -*-===//
#ifndef CUDAPERF_FRONTEND_KERNELCOLLECTOR_H
#define CUDAPERF_FRONTEND_KERNELCOLLECTOR_H

#include "cudaperf/Frontend/HostEvaluation.h"
#include "cudaperf/Report/KernelReport.h"
#include "clang/AST/ASTConsumer.h"
#include <vector>

namespace cudaperf {

/// Collects every __global__ kernel defined outside system headers (each used instantiation of a
/// kernel template), its parameters, launch bounds and shared arrays, and the launch sites
/// `k<<<...>>>(...)` of the file, with the parts that evaluate to constants. With an entry
/// request (--task), also runs the entry point at each configuration (HostInterpreter).
class KernelCollector : public clang::ASTConsumer {
public:
  KernelCollector(std::vector<KernelReport> &Out, const HostEntryRequest *Entry,
                  std::vector<HostEvaluation> &Evaluations)
      : Out(Out), Entry(Entry), Evaluations(Evaluations) {}
  void HandleTranslationUnit(clang::ASTContext &Ctx) override;

private:
  std::vector<KernelReport> &Out;
  const HostEntryRequest *Entry;
  std::vector<HostEvaluation> &Evaluations;
};

} // namespace cudaperf

#endif
