//===- KernelCollector.h - Kernels and launch sites from the AST -*- C++ -*-===//
#ifndef CUDAPERF_FRONTEND_KERNELCOLLECTOR_H
#define CUDAPERF_FRONTEND_KERNELCOLLECTOR_H

#include "cudaperf/Report/KernelReport.h"
#include "clang/AST/ASTConsumer.h"
#include <vector>

namespace cudaperf {

/// Collects every __global__ kernel defined outside system headers (each used instantiation of a
/// kernel template), its parameters, launch bounds and shared arrays, and the launch sites
/// `k<<<...>>>(...)` of the file, with the parts that evaluate to constants.
class KernelCollector : public clang::ASTConsumer {
public:
  explicit KernelCollector(std::vector<KernelReport> &Out) : Out(Out) {}
  void HandleTranslationUnit(clang::ASTContext &Ctx) override;

private:
  std::vector<KernelReport> &Out;
};

} // namespace cudaperf

#endif
