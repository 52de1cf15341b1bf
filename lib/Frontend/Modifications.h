//===- Modifications.h - Which variables a piece of code may change -*- C++ -*-===//
//
// Shared by the launch-site constant evaluator (a local keeps its initial value only if its
// function never changes it) and the host-code evaluator (what an arm of an unknown condition may
// have changed). A variable may change when it is assigned, incremented, member- or
// element-assigned (`grid.x = ...`), has its address taken (`scanf("%d", &n)`), is bound to a
// non-const reference parameter -- of a function or of an operator, as in `std::cin >> n` -- or is
// passed as an lvalue to a call whose callee is not known.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_FRONTEND_MODIFICATIONS_H
#define CUDAPERF_FRONTEND_MODIFICATIONS_H

#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/DenseSet.h"

namespace cudaperf {

/// Adds the (canonical) variables \p S may change to \p Out.
void collectModifiedVariables(const clang::Stmt *S, llvm::DenseSet<const clang::VarDecl *> &Out);

/// The variable an lvalue expression names at its root (`a` for `a.x[2]`), or null.
const clang::VarDecl *rootVariable(const clang::Expr *E);

} // namespace cudaperf

#endif
