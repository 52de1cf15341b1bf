//===- ConstantEvaluator.h - Launch arguments to numbers -------*- C++ -*-===//
//
// Evaluates the expressions of a launch site (grid, block, shared-memory size, scalar arguments)
// when their values are fixed: constant expressions as clang defines them, plus local variables
// whose initializer is constant and that the enclosing function never modifies (so
// `int n = 1 << 20; k<<<(n + 255) / 256, 256>>>` resolves, as it does for `const int n`).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_FRONTEND_CONSTANTEVALUATOR_H
#define CUDAPERF_FRONTEND_CONSTANTEVALUATOR_H

#include "cudaperf/Report/KernelReport.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <optional>

namespace cudaperf {

class ConstantEvaluator {
public:
  explicit ConstantEvaluator(clang::ASTContext &Ctx) : Ctx(Ctx) {}

  /// \p Scope is the function containing the expression (used to decide whether a local variable
  /// keeps its initial value); may be null.
  std::optional<int64_t> evaluateInt(const clang::Expr *E, const clang::FunctionDecl *Scope);
  std::optional<double> evaluateFloat(const clang::Expr *E, const clang::FunctionDecl *Scope);
  std::optional<ParamValue> evaluateScalar(const clang::Expr *E, const clang::FunctionDecl *Scope);
  /// A dim3 argument: an integer (converted), dim3(a, b, c) with defaults, or a dim3 variable.
  std::optional<Dim3> evaluateDim3(const clang::Expr *E, const clang::FunctionDecl *Scope);

private:
  const clang::VarDecl *unmodifiedLocal(const clang::Expr *E, const clang::FunctionDecl *Scope);
  const llvm::DenseSet<const clang::VarDecl *> &modifiedVars(const clang::FunctionDecl *Scope);
  std::optional<int64_t> evaluateIntImpl(const clang::Expr *E, const clang::FunctionDecl *Scope,
                                         unsigned Depth);

  clang::ASTContext &Ctx;
  llvm::DenseMap<const clang::FunctionDecl *, llvm::DenseSet<const clang::VarDecl *>> Modified;
};

} // namespace cudaperf

#endif
