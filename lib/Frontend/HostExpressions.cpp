//===- HostExpressions.cpp - Expressions of host code, with C semantics -------------===//
//
// Integers keep their type's width and signedness (llvm::APSInt): unsigned arithmetic wraps,
// division truncates toward zero, shifts out of range and division by zero are unknown rather
// than guessed. Floating values are doubles, rounded to float after each operation on a float.
// Clang's AST already holds the usual arithmetic conversions as implicit casts, so an operator
// sees operands of its result type (shifts and compound assignments excepted).
//
//===----------------------------------------------------------------------===//
#include "HostInterpreter.h"
#include "clang/AST/RecordLayout.h"
#include "llvm/ADT/APFloat.h"
#include <cmath>

using namespace clang;

namespace cudaperf::host {

namespace {
/// Aggregates larger than this are not modelled element by element.
constexpr uint64_t MaxAggregateElements = 4096;

bool isPlainRecord(const RecordDecl *RD) {
  if (!RD || RD->isUnion() || !RD->isCompleteDefinition())
    return false;
  if (const auto *CXX = dyn_cast<CXXRecordDecl>(RD))
    return CXX->getNumBases() == 0 && CXX->getNumVBases() == 0;
  return true;
}

bool isSingle(QualType T) { return T->isSpecificBuiltinType(BuiltinType::Float); }

/// The expression a wrapper stands for (parentheses, cleanups, default arguments, substituted
/// template arguments, opaque values), or null when \p E is not such a wrapper.
const Expr *wrapped(const Expr *E) {
  switch (E->getStmtClass()) {
  case Stmt::ParenExprClass: return cast<ParenExpr>(E)->getSubExpr();
  case Stmt::ConstantExprClass: return cast<ConstantExpr>(E)->getSubExpr();
  case Stmt::ExprWithCleanupsClass: return cast<ExprWithCleanups>(E)->getSubExpr();
  case Stmt::CXXBindTemporaryExprClass: return cast<CXXBindTemporaryExpr>(E)->getSubExpr();
  case Stmt::CXXDefaultArgExprClass: return cast<CXXDefaultArgExpr>(E)->getExpr();
  case Stmt::CXXDefaultInitExprClass: return cast<CXXDefaultInitExpr>(E)->getExpr();
  case Stmt::SubstNonTypeTemplateParmExprClass:
    return cast<SubstNonTypeTemplateParmExpr>(E)->getReplacement();
  case Stmt::OpaqueValueExprClass: return cast<OpaqueValueExpr>(E)->getSourceExpr();
  default: return nullptr;
  }
}

} // namespace

// --- values of types ------------------------------------------------------------------------

Value HostInterpreter::integerOf(QualType T, int64_t V) {
  unsigned W = T->isBooleanType() ? 1 : unsigned(Ctx.getIntWidth(T));
  bool U = T->isUnsignedIntegerOrEnumerationType() || T->isBooleanType();
  return Value::integer(V, W ? W : 32, U);
}

Value HostInterpreter::truthValue(bool B, QualType T) {
  if (T.isNull() || !T->isIntegralOrEnumerationType())
    T = Ctx.IntTy;
  return integerOf(T, B ? 1 : 0);
}

Value HostInterpreter::zeroOf(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  if (T->isIntegralOrEnumerationType())
    return integerOf(T, 0);
  if (T->isRealFloatingType())
    return Value::floating(0, isSingle(T));
  if (T->isPointerType() || T->isNullPtrType() || T->isBlockPointerType()) {
    Pointer P;
    P.K = Pointer::Kind::Null;
    return Value::pointer(P);
  }
  if (const auto *RT = T->getAs<RecordType>()) {
    if (!isPlainRecord(RT->getDecl()))
      return Value::unknown("a value of type '" + T.getAsString() + "'");
    std::vector<Value> Fields;
    for (const FieldDecl *F : RT->getDecl()->fields())
      Fields.push_back(zeroOf(F->getType()));
    return Value::aggregate(std::move(Fields), false);
  }
  if (const ConstantArrayType *AT = Ctx.getAsConstantArrayType(T)) {
    uint64_t N = AT->getSize().getZExtValue();
    if (N > MaxAggregateElements)
      return Value::unknown("an array of " + std::to_string(N) + " elements (too large to follow)");
    return Value::aggregate(std::vector<Value>(N, zeroOf(AT->getElementType())), true);
  }
  return Value::unknown("a value of type '" + T.getAsString() + "'");
}

Value HostInterpreter::unknownOf(QualType T, const std::string &Why) {
  T = T.getNonReferenceType().getCanonicalType();
  if (const auto *RT = T->getAs<RecordType>()) {
    if (!isPlainRecord(RT->getDecl()))
      return Value::unknown(Why);
    std::vector<Value> Fields;
    for (const FieldDecl *F : RT->getDecl()->fields())
      Fields.push_back(unknownOf(F->getType(), Why));
    return Value::aggregate(std::move(Fields), false);
  }
  if (const ConstantArrayType *AT = Ctx.getAsConstantArrayType(T)) {
    uint64_t N = AT->getSize().getZExtValue();
    if (N > MaxAggregateElements)
      return Value::unknown(Why);
    return Value::aggregate(std::vector<Value>(N, unknownOf(AT->getElementType(), Why)), true);
  }
  return Value::unknown(Why);
}

Value HostInterpreter::convert(const Value &V, QualType To) {
  if (To.isNull())
    return V;
  To = To.getNonReferenceType();
  if (To->isVoidType())
    return V;
  if (!V.known()) {
    if (To->isRecordType() || To->isArrayType())
      return unknownOf(To, V.reason());
    return V;
  }
  if (To->isBooleanType()) {
    std::optional<bool> T = V.truth();
    return T ? integerOf(To, *T) : Value::unknown("the truth of a handle");
  }
  if (To->isIntegralOrEnumerationType()) {
    unsigned W = unsigned(Ctx.getIntWidth(To));
    bool U = To->isUnsignedIntegerOrEnumerationType();
    if (V.isInt()) {
      llvm::APSInt I = V.asInt().extOrTrunc(W);
      I.setIsUnsigned(U);
      return Value::integer(I);
    }
    if (V.isFloat()) {
      llvm::APFloat F(V.asFloat());
      llvm::APSInt I(W, U);
      bool Exact = false;
      if (F.convertToInteger(I, llvm::APFloat::rmTowardZero, &Exact) & llvm::APFloat::opInvalidOp)
        return Value::unknown("the floating value " + std::to_string(V.asFloat()) + " does not fit in '" +
                              To.getAsString() + "'");
      return Value::integer(I);
    }
    if (V.isPointer() && V.asPointer().K == Pointer::Kind::Null)
      return integerOf(To, 0);
    return Value::unknown("a pointer converted to an integer");
  }
  if (To->isRealFloatingType()) {
    if (V.isInt())
      return Value::floating(V.asInt().isUnsigned() ? double(V.asInt().getZExtValue())
                                                    : double(V.asInt().getSExtValue()),
                             isSingle(To));
    if (V.isFloat())
      return Value::floating(V.asFloat(), isSingle(To));
    return Value::unknown("a non-number converted to a floating value");
  }
  if (To->isPointerType() || To->isNullPtrType()) {
    if (V.isPointer())
      return V;
    if (V.isInt() && V.asInt().isZero())
      return zeroOf(To);
    return Value::unknown("an integer converted to a pointer");
  }
  return V;
}

// --- storage --------------------------------------------------------------------------------

Value *HostInterpreter::resolve(const Location &L) {
  std::vector<Value> &Store = L.Global ? GlobalCells : Cells;
  if (L.Cell >= Store.size())
    return nullptr;
  Value *V = &Store[L.Cell];
  for (unsigned I : L.Path) {
    if (!V->isAggregate() || I >= V->elements().size())
      return nullptr;
    V = &V->elements()[I];
  }
  return V;
}

Value HostInterpreter::load(const Place &P) {
  switch (P.K) {
  case Place::Kind::Local: {
    if (Value *V = resolve(P.Loc))
      return *V;
    // The path runs through something that is not modelled: find what stopped it.
    std::vector<Value> &Store = P.Loc.Global ? GlobalCells : Cells;
    if (P.Loc.Cell < Store.size()) {
      const Value *V = &Store[P.Loc.Cell];
      for (unsigned I : P.Loc.Path) {
        if (!V->isAggregate() || I >= V->elements().size())
          return V->known() ? Value::unknown("an element outside the variable") : *V;
        V = &V->elements()[I];
      }
    }
    return Value::unknown("a variable that is no longer live");
  }
  case Place::Kind::Device:
    return Value::unknown("read from device memory on the host");
  case Place::Kind::Function: {
    Pointer F;
    F.K = Pointer::Kind::Function;
    F.Function = P.Function;
    return Value::pointer(F);
  }
  case Place::Kind::Unknown:
    return Value::unknown(P.Reason);
  }
  return Value::unknown("unreachable");
}

void HostInterpreter::store(const Place &P, Value V, QualType T) {
  if (P.K == Place::Kind::Unknown) {
    havocEscaped("written through " + P.Reason);
    return;
  }
  if (P.K != Place::Kind::Local)
    return; // device memory and functions are not host state
  Value *Dst = resolve(P.Loc);
  if (!Dst)
    return;
  if (!V.known() && !T.isNull() && (T->isRecordType() || T->isArrayType()))
    V = unknownOf(T, V.reason());
  *Dst = std::move(V);
}

Location HostInterpreter::newCell(Value V, bool Global) {
  std::vector<Value> &Store = Global ? GlobalCells : Cells;
  Store.push_back(std::move(V));
  Location L;
  L.Cell = unsigned(Store.size() - 1);
  L.Global = Global;
  return L;
}

HostInterpreter::Place HostInterpreter::deref(const Value &P, const Expr *Where) {
  if (!P.known())
    return Place::unknown(P.reason());
  if (!P.isPointer())
    return Place::unknown("not a pointer");
  const Pointer &X = P.asPointer();
  switch (X.K) {
  case Pointer::Kind::Local:
    return Place::local(X.Target);
  case Pointer::Kind::Argument:
  case Pointer::Kind::Scratch: {
    Place D;
    D.K = Place::Kind::Device;
    return D;
  }
  case Pointer::Kind::Function: {
    Place F;
    F.K = Place::Kind::Function;
    F.Function = X.Function;
    return F;
  }
  case Pointer::Kind::Null:
    return Place::unknown("a null pointer dereferenced at " + where(Where));
  case Pointer::Kind::Opaque:
    return Place::unknown("what " + X.Name + " points to");
  }
  return Place::unknown("unreachable");
}

Value HostInterpreter::pointerOffset(const Value &P, const Value &N, QualType PointerT, bool Subtract,
                                     const Expr *Where) {
  if (!P.known())
    return P;
  if (!N.known())
    return Value::unknown("an offset that is not known (" + N.reason() + ")");
  std::optional<int64_t> K = N.asInt64();
  if (!P.isPointer() || !K)
    return Value::unknown("pointer arithmetic at " + where(Where));
  int64_t Count = Subtract ? -*K : *K;
  Pointer X = P.asPointer();
  QualType Pointee = PointerT->isPointerType() ? PointerT->getPointeeType() : QualType();
  int64_t ElementBytes = 1;
  if (!Pointee.isNull() && !Pointee->isVoidType() && !Pointee->isIncompleteType() &&
      !Pointee->isFunctionType())
    ElementBytes = Ctx.getTypeSizeInChars(Pointee).getQuantity();
  switch (X.K) {
  case Pointer::Kind::Argument:
  case Pointer::Kind::Scratch:
    X.OffsetBytes += Count * ElementBytes;
    return Value::pointer(X);
  case Pointer::Kind::Local: {
    if (Count == 0)
      return P;
    if (X.Target.Path.empty())
      return Value::unknown("pointer arithmetic beyond a variable at " + where(Where));
    Location Parent = X.Target;
    Parent.Path.pop_back();
    Value *A = resolve(Parent);
    int64_t Index = int64_t(X.Target.Path.back()) + Count;
    if (!A || !A->isArray() || Index < 0 || Index > int64_t(A->elements().size()))
      return Value::unknown("pointer arithmetic outside an array at " + where(Where));
    X.Target.Path.back() = unsigned(Index);
    return Value::pointer(X);
  }
  default:
    if (Count == 0)
      return P;
    return Value::unknown("pointer arithmetic on " +
                          std::string(X.K == Pointer::Kind::Null ? "a null pointer" : X.Name) + " at " +
                          where(Where));
  }
}

// --- expressions ----------------------------------------------------------------------------

Value HostInterpreter::eval(const Expr *E) {
  if (!E)
    return Value::unknown("no expression");
  Nesting N(*this);
  if (!step(E))
    return Value::unknown(Result.Reason);
  // A temporary only read: its value, without a cell.
  if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
    return convert(eval(M->getSubExpr()), M->getType());
  if (!E->isGLValue())
    return evalPRValue(E);
  Value V = load(evalPlace(E));
  // Name the variable an unknown value was read from (once: the first name is the one to fix).
  if (const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParens()))
    if (!V.known() && isa<VarDecl>(DR->getDecl()) && !llvm::StringRef(V.reason()).starts_with("depends on"))
      return Value::unknown("depends on '" + DR->getDecl()->getNameAsString() + "' (" + V.reason() + ")");
  return V;
}

Value HostInterpreter::evalPRValue(const Expr *E) {
  QualType T = E->getType();
  // Clang's constant evaluator first: literals, sizeof, constexpr variables and functions,
  // template arguments. It refuses anything whose value depends on the run.
  if (!E->isValueDependent() && (T->isIntegralOrEnumerationType() || T->isRealFloatingType()) &&
      !isa<CallExpr>(E) && !E->HasSideEffects(Ctx)) {
    Expr::EvalResult R;
    if (E->EvaluateAsRValue(R, Ctx) && !R.HasSideEffects) {
      if (R.Val.isInt())
        return convert(Value::integer(R.Val.getInt()), T);
      if (R.Val.isFloat()) {
        llvm::APFloat F = R.Val.getFloat();
        bool LosesInfo;
        F.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &LosesInfo);
        return Value::floating(F.convertToDouble(), isSingle(T));
      }
    }
  }
  if (const Expr *Inner = wrapped(E))
    return eval(Inner);
  switch (E->getStmtClass()) {
  case Stmt::OpaqueValueExprClass:
    return Value::unknown("an opaque value");
  case Stmt::CXXNullPtrLiteralExprClass:
  case Stmt::GNUNullExprClass:
  case Stmt::ImplicitValueInitExprClass:
  case Stmt::CXXScalarValueInitExprClass:
    return zeroOf(T);
  case Stmt::CXXThisExprClass: {
    if (Frames.empty() || !Frames.back().This)
      return Value::unknown("'this' outside an object the evaluator follows");
    Pointer P;
    P.K = Pointer::Kind::Local;
    P.Target = *Frames.back().This;
    return Value::pointer(P);
  }
  case Stmt::DeclRefExprClass: {
    const ValueDecl *D = cast<DeclRefExpr>(E)->getDecl();
    if (const auto *EC = dyn_cast<EnumConstantDecl>(D))
      return convert(Value::integer(EC->getInitVal()), T);
    if (const auto *FD = dyn_cast<FunctionDecl>(D)) {
      Pointer P;
      P.K = Pointer::Kind::Function;
      P.Function = FD;
      return Value::pointer(P);
    }
    return Value::unknown("'" + D->getNameAsString() + "' at " + where(E));
  }
  case Stmt::LambdaExprClass:
    return Value::aggregate({}, false); // what it captures is looked up where it is called
  case Stmt::ConditionalOperatorClass: {
    const auto *C = cast<ConditionalOperator>(E);
    Value Cond = eval(C->getCond());
    if (std::optional<bool> B = Cond.truth())
      return eval(*B ? C->getTrueExpr() : C->getFalseExpr());
    Value A = eval(C->getTrueExpr()), B = eval(C->getFalseExpr());
    if (A.sameAs(B))
      return A;
    return Value::unknown("the condition at " + where(C) + " is not known (" + Cond.reason() + ")");
  }
  case Stmt::ImplicitCastExprClass:
  case Stmt::CStyleCastExprClass:
  case Stmt::CXXFunctionalCastExprClass:
  case Stmt::CXXStaticCastExprClass:
  case Stmt::CXXReinterpretCastExprClass:
  case Stmt::CXXConstCastExprClass:
    return evalCast(cast<CastExpr>(E));
  case Stmt::UnaryOperatorClass:
    return evalUnary(cast<UnaryOperator>(E));
  case Stmt::BinaryOperatorClass:
  case Stmt::CompoundAssignOperatorClass:
    return evalBinary(cast<BinaryOperator>(E));
  case Stmt::CallExprClass:
  case Stmt::CXXMemberCallExprClass:
  case Stmt::CXXOperatorCallExprClass:
  case Stmt::CUDAKernelCallExprClass:
  case Stmt::UserDefinedLiteralClass:
    return evalCall(cast<CallExpr>(E), nullptr);
  case Stmt::CXXConstructExprClass:
  case Stmt::CXXTemporaryObjectExprClass:
    return evalConstruct(cast<CXXConstructExpr>(E));
  case Stmt::InitListExprClass:
    return evalInitList(cast<InitListExpr>(E));
  case Stmt::CXXNewExprClass: {
    Pointer P;
    P.Name = "memory from new";
    return Value::pointer(P);
  }
  case Stmt::CXXDeleteExprClass:
    return Value::unknown("delete has no value");
  default:
    return unknownOf(T, std::string("a '") + E->getStmtClassName() + "' expression at " + where(E) +
                            " (not evaluated)");
  }
}

HostInterpreter::Place HostInterpreter::evalPlace(const Expr *E) {
  if (!E)
    return Place::unknown("no expression");
  Nesting N(*this);
  if (!step(E))
    return Place::unknown(Result.Reason);
  if (const Expr *Inner = wrapped(E))
    return evalPlace(Inner);
  switch (E->getStmtClass()) {
  case Stmt::OpaqueValueExprClass:
    return Place::unknown("an opaque value");
  case Stmt::DeclRefExprClass: {
    const ValueDecl *D = cast<DeclRefExpr>(E)->getDecl();
    if (const auto *VD = dyn_cast<VarDecl>(D)) {
      if (auto L = lookupVariable(VD))
        return Place::local(*L);
      return Place::unknown("'" + VD->getNameAsString() + "', which is not in a scope the evaluator follows");
    }
    if (const auto *FD = dyn_cast<FunctionDecl>(D)) {
      Place P;
      P.K = Place::Kind::Function;
      P.Function = FD;
      return P;
    }
    return Place::unknown("'" + D->getNameAsString() + "'");
  }
  case Stmt::MemberExprClass: {
    const auto *ME = cast<MemberExpr>(E);
    const ValueDecl *M = ME->getMemberDecl();
    if (const auto *VD = dyn_cast<VarDecl>(M)) { // a static data member
      if (auto L = lookupVariable(VD))
        return Place::local(*L);
      return Place::unknown("'" + VD->getNameAsString() + "'");
    }
    const auto *FD = dyn_cast<FieldDecl>(M);
    if (!FD)
      return Place::unknown("a member function");
    Place Base = ME->isArrow() ? deref(eval(ME->getBase()), ME) : evalPlace(ME->getBase());
    if (Base.K != Place::Kind::Local)
      return Base;
    if (!isPlainRecord(FD->getParent()))
      return Place::unknown("a member of '" + FD->getParent()->getNameAsString() +
                            "' (unions and derived classes are not followed)");
    Base.Loc.Path.push_back(FD->getFieldIndex());
    return Base;
  }
  case Stmt::ArraySubscriptExprClass: {
    const auto *AS = cast<ArraySubscriptExpr>(E);
    Value Base = eval(AS->getBase());
    Value Index = eval(AS->getIdx());
    return deref(pointerOffset(Base, Index, AS->getBase()->getType(), false, AS), AS);
  }
  case Stmt::UnaryOperatorClass: {
    const auto *U = cast<UnaryOperator>(E);
    if (U->getOpcode() == UO_Deref)
      return deref(eval(U->getSubExpr()), U);
    if (U->getOpcode() == UO_PreInc || U->getOpcode() == UO_PreDec) {
      Place P = evalPlace(U->getSubExpr());
      Value Old = load(P);
      QualType T = U->getSubExpr()->getType();
      Value One = integerOf(Ctx.IntTy, 1);
      Value New = T->isPointerType()
                      ? pointerOffset(Old, One, T, U->getOpcode() == UO_PreDec, U)
                      : arithmetic(U->getOpcode() == UO_PreInc ? BO_Add : BO_Sub, Old,
                                   convert(One, T), T, T, T, U);
      store(P, New, T);
      return P;
    }
    if (U->getOpcode() == UO_Extension)
      return evalPlace(U->getSubExpr());
    return Place::unknown("an lvalue at " + where(E));
  }
  case Stmt::BinaryOperatorClass:
  case Stmt::CompoundAssignOperatorClass: {
    const auto *B = cast<BinaryOperator>(E);
    if (B->getOpcode() == BO_Comma) {
      eval(B->getLHS());
      return evalPlace(B->getRHS());
    }
    if (B->isAssignmentOp()) {
      Place P;
      evalAssignment(B, P);
      return P;
    }
    return Place::unknown("an lvalue at " + where(E));
  }
  case Stmt::ConditionalOperatorClass: {
    const auto *C = cast<ConditionalOperator>(E);
    Value Cond = eval(C->getCond());
    if (std::optional<bool> B = Cond.truth())
      return evalPlace(*B ? C->getTrueExpr() : C->getFalseExpr());
    return Place::unknown("the condition at " + where(C) + " is not known (" + Cond.reason() + ")");
  }
  case Stmt::ImplicitCastExprClass:
  case Stmt::CStyleCastExprClass:
  case Stmt::CXXStaticCastExprClass:
  case Stmt::CXXConstCastExprClass:
  case Stmt::CXXReinterpretCastExprClass:
  case Stmt::CXXFunctionalCastExprClass: {
    const auto *C = cast<CastExpr>(E);
    if (C->getCastKind() == CK_NoOp || C->getCastKind() == CK_LValueBitCast)
      return evalPlace(C->getSubExpr());
    break;
  }
  case Stmt::MaterializeTemporaryExprClass: {
    const auto *M = cast<MaterializeTemporaryExpr>(E);
    Value V = convert(eval(M->getSubExpr()), M->getType());
    Location L = newCell(Value());
    store(Place::local(L), std::move(V), M->getType());
    return Place::local(L);
  }
  case Stmt::CompoundLiteralExprClass: {
    const auto *CL = cast<CompoundLiteralExpr>(E);
    Value V = eval(CL->getInitializer());
    Location L = newCell(Value());
    store(Place::local(L), std::move(V), CL->getType());
    return Place::local(L);
  }
  case Stmt::CallExprClass:
  case Stmt::CXXMemberCallExprClass:
  case Stmt::CXXOperatorCallExprClass: {
    // A followed function returning a reference sets the place; a modelled one (std::min
    // returns const T &) gives a value, which then lives in a temporary.
    Place P = Place::unknown("");
    Value V = evalCall(cast<CallExpr>(E), &P);
    if (P.K != Place::Kind::Unknown || !P.Reason.empty())
      return P;
    Location L = newCell(Value());
    store(Place::local(L), std::move(V), E->getType());
    return Place::local(L);
  }
  case Stmt::StringLiteralClass:
    return Place::unknown("a string literal");
  default:
    break;
  }
  if (E->isPRValue()) {
    Location L = newCell(Value());
    store(Place::local(L), evalPRValue(E), E->getType());
    return Place::local(L);
  }
  return Place::unknown(std::string("a '") + E->getStmtClassName() + "' lvalue at " + where(E) +
                        " (not evaluated)");
}

Value HostInterpreter::evalCast(const CastExpr *C) {
  const Expr *Sub = C->getSubExpr();
  QualType T = C->getType();
  switch (C->getCastKind()) {
  case CK_LValueToRValue:
  case CK_AtomicToNonAtomic:
  case CK_NonAtomicToAtomic:
    return eval(Sub);
  case CK_ArrayToPointerDecay: {
    if (isa<StringLiteral>(Sub->IgnoreParens()) || isa<PredefinedExpr>(Sub->IgnoreParens())) {
      Pointer P;
      P.Name = "a string";
      return Value::pointer(P);
    }
    Place P = evalPlace(Sub);
    if (P.K == Place::Kind::Local) {
      Escaped.insert({P.Loc.Global, P.Loc.Cell});
      Pointer X;
      X.K = Pointer::Kind::Local;
      X.Target = P.Loc;
      X.Target.Path.push_back(0);
      return Value::pointer(X);
    }
    return Value::unknown(P.K == Place::Kind::Device ? "an array in device memory" : P.Reason);
  }
  case CK_FunctionToPointerDecay:
  case CK_BuiltinFnToFnPtr: {
    Place P = evalPlace(Sub);
    return load(P);
  }
  case CK_ToVoid:
    eval(Sub);
    return Value::unknown("void");
  case CK_ConstructorConversion:
  case CK_UserDefinedConversion:
  case CK_NoOp:
  case CK_BitCast:
  case CK_AddressSpaceConversion:
  case CK_IntegralCast:
  case CK_IntegralToBoolean:
  case CK_IntegralToFloating:
  case CK_FloatingToIntegral:
  case CK_FloatingToBoolean:
  case CK_FloatingCast:
  case CK_BooleanToSignedIntegral:
  case CK_PointerToBoolean:
  case CK_NullToPointer:
  case CK_IntegralToPointer:
  case CK_PointerToIntegral:
  case CK_Dependent:
    return convert(eval(Sub), T);
  default:
    eval(Sub);
    return unknownOf(T, std::string("a '") + C->getCastKindName() + "' cast at " + where(C));
  }
}

Value HostInterpreter::evalUnary(const UnaryOperator *U) {
  const Expr *Sub = U->getSubExpr();
  QualType T = U->getType();
  switch (U->getOpcode()) {
  case UO_Plus:
  case UO_Extension:
    return eval(Sub);
  case UO_Minus: {
    Value V = eval(Sub);
    if (V.isInt())
      return Value::integer(-V.asInt());
    if (V.isFloat())
      return Value::floating(-V.asFloat(), V.isSingle());
    return V.known() ? Value::unknown("negation of a non-number") : V;
  }
  case UO_Not: {
    Value V = eval(Sub);
    if (V.isInt())
      return Value::integer(~V.asInt());
    return V.known() ? Value::unknown("complement of a non-integer") : V;
  }
  case UO_LNot: {
    Value V = eval(Sub);
    if (std::optional<bool> B = V.truth())
      return truthValue(!*B, T);
    return V.known() ? Value::unknown("the truth of a handle") : V;
  }
  case UO_AddrOf: {
    const Expr *S = Sub->IgnoreParens();
    // &a[i] and &*p are pointer arithmetic, also into device memory.
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(S))
      return pointerOffset(eval(AS->getBase()), eval(AS->getIdx()), AS->getBase()->getType(), false, AS);
    if (const auto *D = dyn_cast<UnaryOperator>(S); D && D->getOpcode() == UO_Deref)
      return eval(D->getSubExpr());
    Place P = evalPlace(Sub);
    switch (P.K) {
    case Place::Kind::Local: {
      Escaped.insert({P.Loc.Global, P.Loc.Cell});
      Pointer X;
      X.K = Pointer::Kind::Local;
      X.Target = P.Loc;
      return Value::pointer(X);
    }
    case Place::Kind::Function:
      return load(P);
    case Place::Kind::Device:
      return Value::unknown("an address in device memory");
    case Place::Kind::Unknown:
      return Value::unknown(P.Reason);
    }
    return Value::unknown("unreachable");
  }
  case UO_PreInc:
  case UO_PreDec:
    return load(evalPlace(U));
  case UO_PostInc:
  case UO_PostDec: {
    Place P = evalPlace(Sub);
    Value Old = load(P);
    QualType ST = Sub->getType();
    Value One = integerOf(Ctx.IntTy, 1);
    bool Dec = U->getOpcode() == UO_PostDec;
    Value New = ST->isPointerType() ? pointerOffset(Old, One, ST, Dec, U)
                                    : arithmetic(Dec ? BO_Sub : BO_Add, Old, convert(One, ST), ST, ST, ST, U);
    store(P, New, ST);
    return Old;
  }
  default:
    eval(Sub);
    return Value::unknown(std::string("the operator '") + UnaryOperator::getOpcodeStr(U->getOpcode()).str() +
                          "' at " + where(U));
  }
}

Value HostInterpreter::evalBinary(const BinaryOperator *B) {
  BinaryOperatorKind Op = B->getOpcode();
  if (Op == BO_Comma) {
    eval(B->getLHS());
    return eval(B->getRHS());
  }
  if (Op == BO_LAnd || Op == BO_LOr) {
    Value L = eval(B->getLHS());
    std::optional<bool> LB = L.truth();
    if (LB && *LB == (Op == BO_LOr))
      return truthValue(*LB, B->getType()); // short circuit
    Value R = eval(B->getRHS());
    std::optional<bool> RB = R.truth();
    if (LB && RB)
      return truthValue(*RB, B->getType());
    if (RB && *RB == (Op == BO_LOr))
      return truthValue(*RB, B->getType()); // decided by the right side alone
    return Value::unknown(!L.known() ? L.reason() : R.reason());
  }
  if (B->isAssignmentOp()) {
    Place P;
    return evalAssignment(B, P);
  }
  Value L = eval(B->getLHS());
  Value R = eval(B->getRHS());
  return arithmetic(Op, L, R, B->getLHS()->getType(), B->getRHS()->getType(), B->getType(), B);
}

Value HostInterpreter::evalAssignment(const BinaryOperator *B, Place &Target) {
  QualType LT = B->getLHS()->getType();
  if (B->getOpcode() == BO_Assign) {
    Value V = eval(B->getRHS()); // C++17: the right side is sequenced first
    Target = evalPlace(B->getLHS());
    Value Stored = convert(V, LT);
    store(Target, Stored, LT);
    return Stored;
  }
  const auto *CA = cast<CompoundAssignOperator>(B);
  Target = evalPlace(B->getLHS());
  Value Old = load(Target);
  Value R = eval(B->getRHS());
  BinaryOperatorKind Op = BinaryOperator::getOpForCompoundAssignment(B->getOpcode());
  Value New;
  if (LT->isPointerType())
    New = pointerOffset(Old, R, LT, Op == BO_Sub, B);
  else
    New = convert(arithmetic(Op, convert(Old, CA->getComputationLHSType()), R,
                             CA->getComputationLHSType(), B->getRHS()->getType(),
                             CA->getComputationResultType(), B),
                  LT);
  store(Target, New, LT);
  return New;
}

Value HostInterpreter::arithmetic(BinaryOperatorKind Op, const Value &L, const Value &R, QualType LT,
                                  QualType RT, QualType ResultT, const Expr *Where) {
  if (!L.known())
    return L;
  if (!R.known())
    return R;
  // Pointers: arithmetic within an object, comparisons.
  if (L.isPointer() || R.isPointer()) {
    if (Op == BO_Add)
      return L.isPointer() ? pointerOffset(L, R, LT, false, Where) : pointerOffset(R, L, RT, false, Where);
    if (Op == BO_Sub && L.isPointer() && R.isInt())
      return pointerOffset(L, R, LT, true, Where);
    if (!L.isPointer() || !R.isPointer())
      return Value::unknown("an operation on a pointer at " + where(Where));
    const Pointer &A = L.asPointer(), &C = R.asPointer();
    bool SameObject = A.K == C.K && A.Name == C.Name && A.Scratch == C.Scratch &&
                      (A.K != Pointer::Kind::Local ||
                       (A.Target.Cell == C.Target.Cell && A.Target.Global == C.Target.Global)) &&
                      (A.K != Pointer::Kind::Function || A.Function == C.Function);
    bool Distinct = !SameObject && A.K != Pointer::Kind::Opaque && C.K != Pointer::Kind::Opaque;
    if (Op == BO_EQ || Op == BO_NE) {
      if (Distinct || (SameObject && A.K != Pointer::Kind::Local))
        return truthValue((Distinct ? false : A.OffsetBytes == C.OffsetBytes) == (Op == BO_EQ), ResultT);
      if (SameObject && A.Target == C.Target)
        return truthValue(Op == BO_EQ, ResultT);
      return Value::unknown("a pointer comparison at " + where(Where));
    }
    if (SameObject && (A.K == Pointer::Kind::Argument || A.K == Pointer::Kind::Scratch)) {
      int64_t D = A.OffsetBytes - C.OffsetBytes;
      if (Op == BO_Sub) {
        QualType Pointee = LT->getPointeeType();
        int64_t Size = Pointee->isVoidType() ? 1 : Ctx.getTypeSizeInChars(Pointee).getQuantity();
        return integerOf(ResultT, Size ? D / Size : 0);
      }
      switch (Op) {
      case BO_LT: return truthValue(D < 0, ResultT);
      case BO_GT: return truthValue(D > 0, ResultT);
      case BO_LE: return truthValue(D <= 0, ResultT);
      case BO_GE: return truthValue(D >= 0, ResultT);
      default: break;
      }
    }
    return Value::unknown("an operation on pointers at " + where(Where));
  }
  if (L.isFloat() || R.isFloat()) {
    Value A = L.isFloat() ? L : convert(L, Ctx.DoubleTy), C = R.isFloat() ? R : convert(R, Ctx.DoubleTy);
    double X = A.asFloat(), Y = C.asFloat();
    bool Single = isSingle(ResultT);
    switch (Op) {
    case BO_Add: return Value::floating(X + Y, Single);
    case BO_Sub: return Value::floating(X - Y, Single);
    case BO_Mul: return Value::floating(X * Y, Single);
    case BO_Div: return Value::floating(X / Y, Single);
    case BO_LT: return truthValue(X < Y, ResultT);
    case BO_GT: return truthValue(X > Y, ResultT);
    case BO_LE: return truthValue(X <= Y, ResultT);
    case BO_GE: return truthValue(X >= Y, ResultT);
    case BO_EQ: return truthValue(X == Y, ResultT);
    case BO_NE: return truthValue(X != Y, ResultT);
    default: return Value::unknown("a floating operation at " + where(Where));
    }
  }
  if (!L.isInt() || !R.isInt())
    return Value::unknown("an operation on a non-number at " + where(Where));
  llvm::APSInt A = L.asInt(), C = R.asInt();
  switch (Op) {
  case BO_LT: return truthValue(llvm::APSInt::compareValues(A, C) < 0, ResultT);
  case BO_GT: return truthValue(llvm::APSInt::compareValues(A, C) > 0, ResultT);
  case BO_LE: return truthValue(llvm::APSInt::compareValues(A, C) <= 0, ResultT);
  case BO_GE: return truthValue(llvm::APSInt::compareValues(A, C) >= 0, ResultT);
  case BO_EQ: return truthValue(llvm::APSInt::compareValues(A, C) == 0, ResultT);
  case BO_NE: return truthValue(llvm::APSInt::compareValues(A, C) != 0, ResultT);
  case BO_Shl:
  case BO_Shr: {
    // The result has the (promoted) left operand's type; the amount must be within its width.
    std::optional<int64_t> N = R.asInt64();
    if (!N || *N < 0 || *N >= int64_t(A.getBitWidth()))
      return Value::unknown("a shift by " + (N ? std::to_string(*N) : std::string("a huge amount")) +
                            " at " + where(Where) + " (out of range)");
    return convert(Value::integer(Op == BO_Shl ? A << unsigned(*N) : A >> unsigned(*N)), ResultT);
  }
  default:
    break;
  }
  // The other operators have operands of the result type already; be safe about widths.
  unsigned W = std::max(A.getBitWidth(), C.getBitWidth());
  bool U = A.isUnsigned() && C.isUnsigned();
  A = A.extOrTrunc(W);
  C = C.extOrTrunc(W);
  A.setIsUnsigned(U);
  C.setIsUnsigned(U);
  llvm::APSInt X;
  switch (Op) {
  case BO_Add: X = A + C; break;
  case BO_Sub: X = A - C; break;
  case BO_Mul: X = A * C; break;
  case BO_Div:
  case BO_Rem:
    if (C.isZero())
      return Value::unknown("a division by zero at " + where(Where));
    if (!U && A.isMinSignedValue() && C.isAllOnes())
      return Value::unknown("a signed division that overflows at " + where(Where));
    X = Op == BO_Div ? A / C : A % C; // truncates toward zero, as C does
    break;
  case BO_And: X = A & C; break;
  case BO_Or: X = A | C; break;
  case BO_Xor: X = A ^ C; break;
  default:
    return Value::unknown(std::string("the operator '") + BinaryOperator::getOpcodeStr(Op).str() + "' at " +
                          where(Where));
  }
  return convert(Value::integer(X), ResultT);
}

// --- objects --------------------------------------------------------------------------------

Value HostInterpreter::evalInitList(const InitListExpr *IL) {
  QualType T = IL->getType();
  if (IL->isTransparent() && IL->getNumInits() == 1)
    return eval(IL->getInit(0));
  if (const auto *RT = T->getAs<RecordType>()) {
    const RecordDecl *RD = RT->getDecl();
    if (!isPlainRecord(RD)) {
      for (const Expr *I : IL->inits())
        eval(I);
      return unknownOf(T, "an initializer of '" + T.getAsString() + "'");
    }
    std::vector<Value> Fields;
    for (const FieldDecl *F : RD->fields()) {
      unsigned I = F->getFieldIndex();
      Fields.push_back(I < IL->getNumInits() ? convert(eval(IL->getInit(I)), F->getType())
                                             : zeroOf(F->getType()));
    }
    return Value::aggregate(std::move(Fields), false);
  }
  if (const ConstantArrayType *AT = Ctx.getAsConstantArrayType(T)) {
    uint64_t N = AT->getSize().getZExtValue();
    if (N > MaxAggregateElements)
      return Value::unknown("an array of " + std::to_string(N) + " elements (too large to follow)");
    std::vector<Value> Elements;
    for (unsigned I = 0; I < IL->getNumInits() && I < N; ++I)
      Elements.push_back(convert(eval(IL->getInit(I)), AT->getElementType()));
    if (Elements.size() < N) {
      Value Fill = IL->hasArrayFiller() ? eval(IL->getArrayFiller()) : zeroOf(AT->getElementType());
      Elements.resize(N, Fill);
    }
    return Value::aggregate(std::move(Elements), true);
  }
  if (IL->getNumInits() == 0)
    return zeroOf(T);
  return convert(eval(IL->getInit(0)), T);
}

Value HostInterpreter::evalConstruct(const CXXConstructExpr *CE) {
  QualType T = CE->getType();
  const CXXConstructorDecl *Ctor = CE->getConstructor();
  const CXXRecordDecl *RD = Ctor->getParent();
  // dim3: the headers' constructor is in a system header; its meaning is fixed.
  if (RD->getName() == "dim3") {
    if (CE->getNumArgs() == 1 && CE->getArg(0)->getType()->isRecordType()) {
      Value V = eval(CE->getArg(0)); // another dim3, or a uint3
      if (V.isAggregate() && V.elements().size() >= 3)
        return Value::aggregate({V.elements()[0], V.elements()[1], V.elements()[2]}, false);
      return unknownOf(T, V.known() ? "a dim3 from something else" : V.reason());
    }
    std::vector<Value> XYZ;
    for (unsigned I = 0; I < 3; ++I)
      XYZ.push_back(I < CE->getNumArgs() ? convert(eval(CE->getArg(I)), Ctx.UnsignedIntTy)
                                         : integerOf(Ctx.UnsignedIntTy, 1));
    return Value::aggregate(std::move(XYZ), false);
  }
  if (Ctor->isCopyOrMoveConstructor() && CE->getNumArgs() >= 1)
    return convert(eval(CE->getArg(0)), T);
  if (Ctor->isDefaultConstructor() && Ctor->isTrivial())
    return CE->requiresZeroInitialization() ? zeroOf(T) : unknownOf(T, "a default-initialised '" + T.getAsString() + "'");
  if (followable(Ctor) && isPlainRecord(RD)) {
    Location This = newCell(CE->requiresZeroInitialization() ? zeroOf(T)
                                                             : unknownOf(T, "a member not initialised"));
    std::vector<const Expr *> Args(CE->arg_begin(), CE->arg_end());
    callFunction(Ctor, CE, Args, This, nullptr);
    return This.Cell < Cells.size() ? Cells[This.Cell] : Value::unknown("a constructed object");
  }
  for (const Expr *A : CE->arguments())
    eval(A);
  return unknownOf(T, "constructed by '" + RD->getNameAsString() + "', which is not followed");
}

} // namespace cudaperf::host
