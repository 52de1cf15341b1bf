#include "ConstantEvaluator.h"
#include "Modifications.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace cudaperf {

namespace {
constexpr unsigned MaxDepth = 16;

const Expr *skipWrappers(const Expr *E) {
  while (true) {
    E = E->IgnoreParens();
    if (const auto *C = dyn_cast<ImplicitCastExpr>(E)) E = C->getSubExpr();
    else if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E)) E = M->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E)) E = B->getSubExpr();
    else if (const auto *W = dyn_cast<ExprWithCleanups>(E)) E = W->getSubExpr();
    else if (const auto *F = dyn_cast<CXXFunctionalCastExpr>(E)) E = F->getSubExpr();
    else if (const auto *S = dyn_cast<CStyleCastExpr>(E)) E = S->getSubExpr();
    else if (const auto *S = dyn_cast<CXXStaticCastExpr>(E)) E = S->getSubExpr();
    else if (const auto *D = dyn_cast<CXXDefaultArgExpr>(E)) E = D->getExpr();
    else return E;
  }
}
} // namespace

const llvm::DenseSet<const VarDecl *> &
ConstantEvaluator::modifiedVars(const FunctionDecl *Scope) {
  auto It = Modified.find(Scope);
  if (It != Modified.end())
    return It->second;
  auto &Set = Modified[Scope];
  if (Scope && Scope->hasBody())
    collectModifiedVariables(Scope->getBody(), Set);
  return Set;
}

const VarDecl *ConstantEvaluator::unmodifiedLocal(const Expr *E, const FunctionDecl *Scope) {
  const auto *DR = dyn_cast<DeclRefExpr>(skipWrappers(E));
  if (!DR)
    return nullptr;
  const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
  if (!VD || !VD->hasInit() || VD->getType()->isReferenceType())
    return nullptr;
  if (VD->getType().isConstQualified())
    return VD; // a const variable never changes
  if (!Scope || !VD->isLocalVarDecl() || VD->isStaticLocal())
    return nullptr;
  if (modifiedVars(Scope).contains(VD->getCanonicalDecl()))
    return nullptr;
  return VD;
}

std::optional<int64_t> ConstantEvaluator::evaluateInt(const Expr *E, const FunctionDecl *Scope) {
  return evaluateIntImpl(E, Scope, 0);
}

std::optional<int64_t> ConstantEvaluator::evaluateIntImpl(const Expr *E, const FunctionDecl *Scope,
                                                          unsigned Depth) {
  if (!E || Depth > MaxDepth || E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  Expr::EvalResult R;
  if (E->EvaluateAsInt(R, Ctx))
    return R.Val.getInt().getExtValue();
  const Expr *S = skipWrappers(E);
  if (const VarDecl *VD = unmodifiedLocal(S, Scope))
    return evaluateIntImpl(VD->getInit(), Scope, Depth + 1);
  if (const auto *U = dyn_cast<UnaryOperator>(S)) {
    auto V = evaluateIntImpl(U->getSubExpr(), Scope, Depth + 1);
    if (!V)
      return std::nullopt;
    switch (U->getOpcode()) {
    case UO_Minus: return -*V;
    case UO_Plus: return *V;
    case UO_Not: return ~*V;
    default: return std::nullopt;
    }
  }
  if (const auto *B = dyn_cast<BinaryOperator>(S)) {
    auto L = evaluateIntImpl(B->getLHS(), Scope, Depth + 1);
    auto Rv = evaluateIntImpl(B->getRHS(), Scope, Depth + 1);
    if (!L || !Rv)
      return std::nullopt;
    int64_t A = *L, C = *Rv;
    switch (B->getOpcode()) {
    case BO_Add: return A + C;
    case BO_Sub: return A - C;
    case BO_Mul: return A * C;
    // INT64_MIN / -1 overflows (and traps on x86): not a constant either.
    case BO_Div: return C && !(C == -1 && A == INT64_MIN) ? std::optional<int64_t>(A / C) : std::nullopt;
    case BO_Rem: return C && !(C == -1 && A == INT64_MIN) ? std::optional<int64_t>(A % C) : std::nullopt;
    case BO_Shl: return (C >= 0 && C < 63) ? std::optional<int64_t>(A << C) : std::nullopt;
    case BO_Shr: return (C >= 0 && C < 63) ? std::optional<int64_t>(A >> C) : std::nullopt;
    case BO_And: return A & C;
    case BO_Or: return A | C;
    case BO_Xor: return A ^ C;
    case BO_LT: return A < C;
    case BO_GT: return A > C;
    case BO_LE: return A <= C;
    case BO_GE: return A >= C;
    case BO_EQ: return A == C;
    case BO_NE: return A != C;
    default: return std::nullopt;
    }
  }
  if (const auto *ME = dyn_cast<MemberExpr>(S)) {
    // block.x of a dim3 variable that keeps its initial value.
    if (const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl())) {
      const Expr *Base = ME->getBase()->IgnoreParenImpCasts();
      if (!ME->isArrow() && Base->getType()->getAsCXXRecordDecl() &&
          Base->getType()->getAsCXXRecordDecl()->getName() == "dim3")
        if (auto D = evaluateDim3(Base, Scope)) {
          StringRef F = FD->getName();
          if (F == "x") return D->X;
          if (F == "y") return D->Y;
          if (F == "z") return D->Z;
        }
    }
    return std::nullopt;
  }
  if (const auto *C = dyn_cast<ConditionalOperator>(S)) {
    auto Cond = evaluateIntImpl(C->getCond(), Scope, Depth + 1);
    if (!Cond)
      return std::nullopt;
    return evaluateIntImpl(*Cond ? C->getTrueExpr() : C->getFalseExpr(), Scope, Depth + 1);
  }
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    // min/max helpers, as in `std::min(n, 1024)`.
    const FunctionDecl *FD = Call->getDirectCallee();
    if (FD && Call->getNumArgs() == 2 && FD->getIdentifier()) {
      StringRef Name = FD->getName();
      auto A = evaluateIntImpl(Call->getArg(0), Scope, Depth + 1);
      auto B = evaluateIntImpl(Call->getArg(1), Scope, Depth + 1);
      if (A && B && (Name == "min" || Name == "max"))
        return Name == "min" ? std::min(*A, *B) : std::max(*A, *B);
    }
  }
  return std::nullopt;
}

std::optional<double> ConstantEvaluator::evaluateFloat(const Expr *E, const FunctionDecl *Scope) {
  if (!E || E->isValueDependent())
    return std::nullopt;
  llvm::APFloat F(0.0);
  if (E->EvaluateAsFloat(F, Ctx)) {
    bool LosesInfo;
    F.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &LosesInfo);
    return F.convertToDouble();
  }
  if (const VarDecl *VD = unmodifiedLocal(E, Scope))
    return evaluateFloat(VD->getInit(), nullptr);
  return std::nullopt;
}

std::optional<ParamValue> ConstantEvaluator::evaluateScalar(const Expr *E,
                                                            const FunctionDecl *Scope) {
  if (!E)
    return std::nullopt;
  QualType T = E->getType();
  if (T->isRealFloatingType()) {
    if (auto F = evaluateFloat(E, Scope))
      return ParamValue(*F);
    return std::nullopt;
  }
  if (T->isIntegralOrEnumerationType())
    if (auto I = evaluateInt(E, Scope))
      return ParamValue(*I);
  return std::nullopt;
}

std::optional<Dim3> ConstantEvaluator::evaluateDim3(const Expr *E, const FunctionDecl *Scope) {
  for (unsigned Depth = 0; E && Depth < MaxDepth; ++Depth) {
    const Expr *S = skipWrappers(E);
    if (S->getType()->isIntegralOrEnumerationType()) {
      auto X = evaluateInt(S, Scope);
      if (!X)
        return std::nullopt;
      return Dim3{*X, 1, 1};
    }
    if (const auto *CE = dyn_cast<CXXConstructExpr>(S)) {
      const CXXConstructorDecl *Ctor = CE->getConstructor();
      if (Ctor && (Ctor->isCopyOrMoveConstructor() ||
                   (CE->getNumArgs() == 1 && !CE->getArg(0)->getType()->isIntegralOrEnumerationType()))) {
        E = CE->getArg(0);
        continue;
      }
      int64_t V[3] = {1, 1, 1};
      if (CE->getNumArgs() > 3)
        return std::nullopt;
      for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
        auto X = evaluateInt(skipWrappers(CE->getArg(I)), Scope);
        if (!X)
          return std::nullopt;
        V[I] = *X;
      }
      return Dim3{V[0], V[1], V[2]};
    }
    if (const auto *IL = dyn_cast<InitListExpr>(S)) {
      int64_t V[3] = {1, 1, 1};
      for (unsigned I = 0; I < IL->getNumInits() && I < 3; ++I) {
        auto X = evaluateInt(IL->getInit(I), Scope);
        if (!X)
          return std::nullopt;
        V[I] = *X;
      }
      return Dim3{V[0], V[1], V[2]};
    }
    if (const VarDecl *VD = unmodifiedLocal(S, Scope)) {
      E = VD->getInit();
      continue;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

} // namespace cudaperf
