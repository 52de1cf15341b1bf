#include "Modifications.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace cudaperf {

const VarDecl *rootVariable(const Expr *E) {
  while (E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      if (ME->isArrow())
        return nullptr; // changes what the pointer points to, not the pointer
      E = ME->getBase();
    } else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
      // a[i] of a local array changes a; of a pointer, the memory it points to.
      if (!AS->getBase()->IgnoreParenImpCasts()->getType()->isArrayType())
        return nullptr;
      E = AS->getBase();
    } else if (const auto *DR = dyn_cast<DeclRefExpr>(E)) {
      return dyn_cast<VarDecl>(DR->getDecl());
    } else {
      return nullptr;
    }
  }
  return nullptr;
}

namespace {

class ModificationFinder : public RecursiveASTVisitor<ModificationFinder> {
public:
  explicit ModificationFinder(llvm::DenseSet<const VarDecl *> &Out) : Out(Out) {}

  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->isAssignmentOp())
      note(B->getLHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf)
      note(U->getSubExpr());
    return true;
  }
  bool VisitCallExpr(CallExpr *C) {
    const FunctionDecl *FD = C->getDirectCallee();
    // An operator that is a member function takes its object as argument 0 (`std::cin >> n`:
    // argument 1 is `n`, bound to the operator's parameter 0).
    unsigned First = 0;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(C)) {
      if (Op->isAssignmentOp() && Op->getNumArgs() > 0)
        note(Op->getArg(0));
      if (FD && isa<CXXMethodDecl>(FD) && !cast<CXXMethodDecl>(FD)->isStatic())
        First = 1;
    }
    for (unsigned I = First; I < C->getNumArgs(); ++I) {
      const Expr *Arg = C->getArg(I);
      if (!FD) {
        // Unknown signature: an argument passed as an lvalue may be bound to a reference.
        if (Arg->isGLValue())
          note(Arg);
        continue;
      }
      unsigned P = I - First;
      if (P >= FD->getNumParams())
        continue; // variadic: by value
      QualType T = FD->getParamDecl(P)->getType();
      if (T->isReferenceType() && !T.getNonReferenceType().isConstQualified())
        note(Arg);
    }
    return true;
  }

private:
  void note(const Expr *E) {
    if (const VarDecl *VD = rootVariable(E))
      Out.insert(VD->getCanonicalDecl());
  }
  llvm::DenseSet<const VarDecl *> &Out;
};

} // namespace

void collectModifiedVariables(const Stmt *S, llvm::DenseSet<const VarDecl *> &Out) {
  if (S)
    ModificationFinder(Out).TraverseStmt(const_cast<Stmt *>(S));
}

} // namespace cudaperf
