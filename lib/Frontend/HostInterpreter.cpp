//===- HostInterpreter.cpp - Statements, control flow and calls of host code ----------===//
#include "HostInterpreter.h"
#include "Modifications.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace cudaperf::host {

namespace {

/// Whether code may launch a kernel (directly, through a call it can follow, or through the
/// runtime's launch functions) or leave the enclosing statement early (return, break, goto,
/// exit). Used to decide whether the arms of an unknown condition can be skipped.
class LaunchOrLeaveFinder : public RecursiveASTVisitor<LaunchOrLeaveFinder> {
public:
  /// \p LeavingCounts: whether return, break and continue count (not for a callee's own body:
  /// they leave only the callee).
  LaunchOrLeaveFinder(std::function<bool(const FunctionDecl *)> CalleeMayLaunch, bool LeavingCounts)
      : CalleeMayLaunch(std::move(CalleeMayLaunch)), LeavingCounts(LeavingCounts) {}
  bool Found = false;
  std::string What;

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *E) { return found("a kernel launch"); }
  bool VisitReturnStmt(ReturnStmt *) { return !LeavingCounts || found("a return"); }
  bool VisitBreakStmt(BreakStmt *) { return !LeavingCounts || found("a break"); }
  bool VisitContinueStmt(ContinueStmt *) { return !LeavingCounts || found("a continue"); }
  bool VisitGotoStmt(GotoStmt *) { return found("a goto"); }
  bool VisitCXXThrowExpr(CXXThrowExpr *) { return found("a throw"); }
  bool VisitCallExpr(CallExpr *C) {
    const FunctionDecl *FD = C->getDirectCallee();
    if (!FD)
      return true;
    if (const IdentifierInfo *II = FD->getIdentifier()) {
      StringRef N = II->getName();
      if (N.starts_with("cudaLaunch") || N == "cudaFuncSetAttribute" || N.starts_with("cudaMalloc") ||
          N == "exit" || N == "abort" || N == "_Exit" || N == "quick_exit")
        return found("a call to '" + N.str() + "'");
    }
    if (CalleeMayLaunch(FD))
      return found("a call to '" + FD->getNameAsString() + "', which may launch kernels");
    return true;
  }
  // A lambda's body is code that runs where the lambda is called, which VisitCallExpr follows.
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }

private:
  bool found(std::string W) {
    Found = true;
    What = std::move(W);
    return false;
  }
  std::function<bool(const FunctionDecl *)> CalleeMayLaunch;
  bool LeavingCounts;
};

} // namespace

HostInterpreter::HostInterpreter(ASTContext &Ctx, const HostEntryRequest &Request, KernelNamer Namer)
    : Ctx(Ctx), Request(Request), Namer(std::move(Namer)) {}

std::string HostInterpreter::where(const Stmt *S) const {
  if (!S)
    return "an unknown place";
  const SourceManager &SM = Ctx.getSourceManager();
  PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(S->getBeginLoc()));
  if (P.isInvalid())
    return "an unknown place";
  return "line " + std::to_string(P.getLine());
}

std::string HostInterpreter::nameOf(const FunctionDecl *FD) const {
  if (!FD)
    return "an unknown function";
  return FD->getQualifiedNameAsString();
}

bool HostInterpreter::followable(const FunctionDecl *FD) const {
  if (!FD)
    return false;
  const FunctionDecl *Def = nullptr;
  if (!FD->hasBody(Def) || !Def)
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  return !SM.isInSystemHeader(SM.getExpansionLoc(Def->getLocation()));
}

bool HostInterpreter::mayLaunch(const FunctionDecl *FD) {
  std::set<const FunctionDecl *> Visited;
  return mayLaunch(FD, Visited);
}

bool HostInterpreter::mayLaunch(const FunctionDecl *FD, std::set<const FunctionDecl *> &Visited) {
  // Whether a launch is reachable through bodies the evaluator follows. Only positive answers are
  // cached: a negative one found while a caller was still being searched may be incomplete.
  if (!followable(FD))
    return false;
  const FunctionDecl *Def = nullptr;
  FD->hasBody(Def);
  if (LaunchingFunctions.count(Def))
    return true;
  if (!Visited.insert(Def).second)
    return false;
  LaunchOrLeaveFinder Inner([&](const FunctionDecl *F) { return mayLaunch(F, Visited); },
                            /*LeavingCounts=*/false);
  Inner.TraverseStmt(const_cast<Stmt *>(Def->getBody()));
  if (Inner.Found)
    LaunchingFunctions.insert(Def);
  return Inner.Found;
}

bool HostInterpreter::mayLaunchOrLeave(const Stmt *S) {
  LaunchOrLeaveFinder F([this](const FunctionDecl *FD) { return mayLaunch(FD); }, /*LeavingCounts=*/true);
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Found;
}

void HostInterpreter::note(const std::string &N) {
  if (NotesSeen.insert(N).second)
    Result.Notes.push_back(N);
}

void HostInterpreter::stop(const std::string &Why) {
  if (Stopped)
    return;
  Stopped = true;
  Result.Reason = Why;
}

bool HostInterpreter::tooDeep(const Stmt *S) {
  constexpr unsigned MaxDepth = 1000;
  if (Depth <= MaxDepth)
    return false;
  stop("code at " + where(S) + " nests more than " + std::to_string(MaxDepth) +
       " statements and expressions deep");
  return true;
}

bool HostInterpreter::step(const Stmt *S) {
  if (Stopped || tooDeep(S))
    return false;
  if (++Steps > Request.StepBudget) {
    stop("the step budget of " + std::to_string(Request.StepBudget) + " was used up at " + where(S) +
         " (a loop that runs very long or does not end?)");
    return false;
  }
  return true;
}

std::optional<Location> HostInterpreter::lookupVariable(const VarDecl *VD) {
  VD = VD->getCanonicalDecl();
  // Innermost frame first; outer frames too, which is how a lambda sees what it captures.
  for (auto F = Frames.rbegin(); F != Frames.rend(); ++F) {
    auto It = F->Vars.find(VD);
    if (It != F->Vars.end())
      return It->second;
  }
  auto It = Globals.find(VD);
  if (It != Globals.end())
    return It->second;
  if (!VD->hasGlobalStorage())
    return std::nullopt;
  // A namespace-scope or static variable, first used now: its initial value (zero, then the
  // initializer). A static local's DeclStmt finds it here and does not run the initializer again.
  const VarDecl *Def = VD->getDefinition();
  QualType T = (Def ? Def : VD)->getType();
  if (!Def && !VD->getAnyInitializer()) {
    Location L = newCell(unknownOf(T, "'" + VD->getNameAsString() + "' is defined in another file"), true);
    Globals[VD] = L;
    return L;
  }
  if (!Def)
    Def = VD;
  Location L = newCell(zeroOf(T), /*Global=*/true);
  Globals[VD] = L;
  if (const Expr *Init = Def->getInit()) {
    if (T->isReferenceType()) {
      Place P = evalPlace(Init);
      if (P.K == Place::Kind::Local)
        Globals[VD] = P.Loc;
      else
        GlobalCells[L.Cell] = Value::unknown("'" + VD->getNameAsString() + "' refers to memory the evaluator cannot see");
    } else {
      Value V = eval(Init);
      store(Place::local(L), std::move(V), T);
    }
  }
  return Globals[VD];
}

void HostInterpreter::declare(const VarDecl *VD) {
  if (VD->isStaticLocal() || VD->hasGlobalStorage()) {
    lookupVariable(VD); // initialised once per run, on first use
    return;
  }
  QualType T = VD->getType();
  const Expr *Init = VD->getInit();
  Frame &F = Frames.back();
  if (T->isReferenceType()) {
    Place P = Init ? evalPlace(Init) : Place::unknown("an uninitialised reference");
    if (P.K == Place::Kind::Local)
      F.Vars[VD->getCanonicalDecl()] = P.Loc;
    else
      F.Vars[VD->getCanonicalDecl()] = newCell(unknownOf(T.getNonReferenceType(),
                                                         P.K == Place::Kind::Device
                                                             ? "read from device memory on the host"
                                                             : P.Reason));
    return;
  }
  Location L = newCell(Value());
  F.Vars[VD->getCanonicalDecl()] = L;
  if (!Init) {
    Cells[L.Cell] = unknownOf(T, "'" + VD->getNameAsString() + "' is not initialised");
    return;
  }
  Value V = eval(Init);
  store(Place::local(L), std::move(V), T);
}

void HostInterpreter::havoc(const Place &P, const std::string &Why) {
  if (P.K == Place::Kind::Local) {
    if (Value *V = resolve(P.Loc)) {
      if (V->isAggregate()) {
        std::function<void(Value &)> Clear = [&](Value &X) {
          if (X.isAggregate())
            for (Value &E : X.elements())
              Clear(E);
          else
            X = Value::unknown(Why);
        };
        Clear(*V);
      } else {
        *V = Value::unknown(Why);
      }
    }
  } else if (P.K == Place::Kind::Unknown) {
    havocEscaped(Why);
  }
}

void HostInterpreter::havocEscaped(const std::string &Why) {
  for (const auto &[Global, C] : Escaped) {
    Location L;
    L.Cell = C;
    L.Global = Global;
    havoc(Place::local(L), Why);
  }
}

bool HostInterpreter::skipUnknownArms(const Stmt *Where, const Value &Cond,
                                      std::initializer_list<const Stmt *> Arms) {
  for (const Stmt *A : Arms)
    if (A && mayLaunchOrLeave(A)) {
      stop("the condition at " + where(Where) + " is not known (" + Cond.reason() +
           ") and what it guards may launch kernels or leave");
      return false;
    }
  // What the arms may change is unknown from here on.
  std::string Why = "may be changed at " + where(Where) + " under a condition that is not known (" +
                    Cond.reason() + ")";
  for (const Stmt *A : Arms)
    if (A)
      havocChangedBy(A, Why);
  return true;
}

void HostInterpreter::havocChangedBy(const Stmt *S, const std::string &Why) {
  llvm::DenseSet<const VarDecl *> Changed;
  collectModifiedVariables(S, Changed);
  for (const VarDecl *VD : Changed)
    if (auto L = lookupVariable(VD))
      havoc(Place::local(*L), Why);
  havocEscaped(Why); // writes through pointers
}

HostInterpreter::Flow HostInterpreter::exec(const Stmt *S) {
  if (!S)
    return Flow::Normal;
  Nesting N(*this);
  if (!step(S))
    return Flow::Stop;
  if (const auto *E = dyn_cast<Expr>(S)) {
    eval(E);
    return Stopped ? Flow::Stop : Flow::Normal;
  }
  switch (S->getStmtClass()) {
  case Stmt::CompoundStmtClass: {
    // The block's locals and temporaries end with it (a pointer to them would dangle).
    size_t Mark = Cells.size();
    Flow F = Flow::Normal;
    for (const Stmt *C : cast<CompoundStmt>(S)->body())
      if ((F = exec(C)) != Flow::Normal)
        break;
    dropCellsFrom(Mark);
    return F;
  }
  case Stmt::DeclStmtClass:
    for (const Decl *D : cast<DeclStmt>(S)->decls()) {
      if (const auto *VD = dyn_cast<VarDecl>(D))
        declare(VD);
      if (Stopped)
        return Flow::Stop;
    }
    return Flow::Normal;
  case Stmt::NullStmtClass:
    return Flow::Normal;
  case Stmt::AttributedStmtClass:
    return exec(cast<AttributedStmt>(S)->getSubStmt());
  case Stmt::LabelStmtClass:
    return exec(cast<LabelStmt>(S)->getSubStmt());
  case Stmt::CXXTryStmtClass:
    return exec(cast<CXXTryStmt>(S)->getTryBlock()); // nothing the evaluator models throws
  case Stmt::IfStmtClass: {
    const auto *If = cast<IfStmt>(S);
    if (Flow F = exec(If->getInit()); F != Flow::Normal)
      return F;
    if (const VarDecl *CV = If->getConditionVariable())
      declare(CV);
    Value C = eval(If->getCond());
    if (Stopped)
      return Flow::Stop;
    std::optional<bool> T = C.truth();
    if (!T)
      return skipUnknownArms(If, C, {If->getThen(), If->getElse()}) ? Flow::Normal : Flow::Stop;
    return exec(*T ? If->getThen() : If->getElse());
  }
  case Stmt::WhileStmtClass: {
    const auto *W = cast<WhileStmt>(S);
    if (const VarDecl *CV = W->getConditionVariable())
      declare(CV);
    return execLoop(W, W->getCond(), W->getBody(), nullptr, /*TestFirst=*/true);
  }
  case Stmt::DoStmtClass: {
    const auto *D = cast<DoStmt>(S);
    return execLoop(D, D->getCond(), D->getBody(), nullptr, /*TestFirst=*/false);
  }
  case Stmt::ForStmtClass: {
    const auto *For = cast<ForStmt>(S);
    if (Flow F = exec(For->getInit()); F != Flow::Normal)
      return F;
    if (const VarDecl *CV = For->getConditionVariable())
      declare(CV);
    return execLoop(For, For->getCond(), For->getBody(), For->getInc(), /*TestFirst=*/true);
  }
  case Stmt::CXXForRangeStmtClass: {
    // Its desugared form: range, begin and end variables, then a plain loop.
    const auto *R = cast<CXXForRangeStmt>(S);
    for (const Stmt *Part : {R->getInit(), static_cast<const Stmt *>(R->getRangeStmt()),
                             static_cast<const Stmt *>(R->getBeginStmt()),
                             static_cast<const Stmt *>(R->getEndStmt())})
      if (Flow F = exec(Part); F != Flow::Normal)
        return F;
    // The loop variable is declared at the top of every iteration.
    const Expr *Cond = R->getCond();
    const Expr *Inc = R->getInc();
    while (true) {
      if (!step(R))
        return Flow::Stop;
      Value C = eval(Cond);
      std::optional<bool> T = C.truth();
      if (!T)
        return skipUnknownArms(R, C, {R->getBody(), R->getLoopVarStmt()}) ? Flow::Normal
                                                                             : Flow::Stop;
      if (!*T)
        return Flow::Normal;
      if (Flow F = exec(R->getLoopVarStmt()); F == Flow::Stop)
        return F;
      Flow F = exec(R->getBody());
      if (F == Flow::Break)
        return Flow::Normal;
      if (F == Flow::Return || F == Flow::Stop)
        return F;
      eval(Inc);
    }
  }
  case Stmt::SwitchStmtClass:
    return execSwitch(cast<SwitchStmt>(S));
  case Stmt::CaseStmtClass:
    return exec(cast<CaseStmt>(S)->getSubStmt());
  case Stmt::DefaultStmtClass:
    return exec(cast<DefaultStmt>(S)->getSubStmt());
  case Stmt::BreakStmtClass:
    return Flow::Break;
  case Stmt::ContinueStmtClass:
    return Flow::Continue;
  case Stmt::ReturnStmtClass: {
    const auto *R = cast<ReturnStmt>(S);
    Frame &F = Frames.back();
    if (const Expr *V = R->getRetValue()) {
      QualType RT = F.Function ? F.Function->getReturnType() : QualType();
      if (!RT.isNull() && RT->isReferenceType()) {
        F.ResultPlace = evalPlace(V);
      } else {
        Value X = eval(V);
        Frames.back().Result = std::move(X);
      }
    }
    return Stopped ? Flow::Stop : Flow::Return;
  }
  default:
    stop(std::string("a '") + S->getStmtClassName() + "' statement at " + where(S) +
         " is not followed by the evaluator");
    return Flow::Stop;
  }
}

HostInterpreter::Flow HostInterpreter::execLoop(const Stmt *Loop, const Expr *Cond, const Stmt *Body,
                                                const Expr *Inc, bool TestFirst) {
  // A long loop that launches nothing (filling host arrays, say) is not run to its end: after
  // LongLoop steps, what it may change becomes unknown, as for a loop whose condition is unknown.
  // A loop whose condition is always true is left to the step budget.
  constexpr unsigned LongLoop = 100000;
  const unsigned Start = Steps;
  bool Checked = false;
  bool AlwaysTrue = false;
  if (!Cond || (!Cond->isValueDependent() && Cond->EvaluateAsBooleanCondition(AlwaysTrue, Ctx) && AlwaysTrue))
    AlwaysTrue = true;
  bool First = true;
  while (true) {
    if (!step(Loop))
      return Flow::Stop;
    if (!Checked && Steps - Start > LongLoop && !AlwaysTrue && (Checked = true) && !mayLaunchOrLeave(Loop)) {
      std::string Why = "may be changed by the loop at " + where(Loop) + ", which took more than " +
                        std::to_string(LongLoop) + " steps and was not followed to its end";
      havocChangedBy(Loop, Why);
      note("the loop at " + where(Loop) + " launches nothing and took more than " + std::to_string(LongLoop) +
           " steps: it was not followed to its end");
      return Flow::Normal;
    }
    if (Cond && (TestFirst || !First)) {
      Value C = eval(Cond);
      if (Stopped)
        return Flow::Stop;
      std::optional<bool> T = C.truth();
      if (!T) {
        // Not known whether (or how often) the loop runs: only loops that launch nothing and
        // leave nothing early are skipped.
        llvm::SmallVector<const Stmt *, 3> Parts{Body, Cond};
        if (Inc)
          Parts.push_back(Inc);
        bool Ok = true;
        for (const Stmt *P : Parts)
          Ok = Ok && skipUnknownArms(Loop, C, {P});
        return Ok ? Flow::Normal : Flow::Stop;
      }
      if (!*T)
        return Flow::Normal;
    }
    First = false;
    size_t Mark = Cells.size(); // what one iteration creates ends with it
    Flow F = exec(Body);
    if (F == Flow::Break)
      return Flow::Normal;
    if (F == Flow::Return || F == Flow::Stop)
      return F;
    if (Inc) {
      eval(Inc);
      if (Stopped)
        return Flow::Stop;
    }
    dropCellsFrom(Mark);
  }
}

void HostInterpreter::dropCellsFrom(size_t Mark) {
  if (Mark >= Cells.size())
    return;
  Cells.resize(Mark);
  Escaped.erase(Escaped.lower_bound({false, unsigned(Mark)}), Escaped.lower_bound({true, 0u}));
}

HostInterpreter::Flow HostInterpreter::execSwitch(const SwitchStmt *S) {
  if (Flow F = exec(S->getInit()); F != Flow::Normal)
    return F;
  if (const VarDecl *CV = S->getConditionVariable())
    declare(CV);
  Value C = eval(S->getCond());
  if (Stopped)
    return Flow::Stop;
  std::optional<int64_t> V = C.asInt64();
  if (!V)
    return skipUnknownArms(S, C, {S->getBody()}) ? Flow::Normal : Flow::Stop;
  // The label to start at: the matching case, else default.
  const SwitchCase *Target = nullptr;
  for (const SwitchCase *SC = S->getSwitchCaseList(); SC; SC = SC->getNextSwitchCase()) {
    if (const auto *Case = dyn_cast<CaseStmt>(SC)) {
      Expr::EvalResult Lo, Hi;
      if (!Case->getLHS()->EvaluateAsInt(Lo, Ctx))
        continue;
      int64_t L = Lo.Val.getInt().getExtValue(), H = L;
      if (Case->getRHS() && Case->getRHS()->EvaluateAsInt(Hi, Ctx))
        H = Hi.Val.getInt().getExtValue();
      if (*V >= L && *V <= H)
        Target = Case;
    } else if (!Target) {
      Target = SC; // default, unless a case matches
    }
  }
  for (const SwitchCase *SC = S->getSwitchCaseList(); SC && Target && isa<DefaultStmt>(Target);
       SC = SC->getNextSwitchCase())
    if (const auto *Case = dyn_cast<CaseStmt>(SC)) {
      Expr::EvalResult Lo;
      if (Case->getLHS()->EvaluateAsInt(Lo, Ctx) && Lo.Val.getInt().getExtValue() == *V)
        Target = Case;
    }
  if (!Target)
    return Flow::Normal;
  const auto *Body = dyn_cast<CompoundStmt>(S->getBody());
  if (!Body)
    return S->getBody() == Target ? (exec(Target) == Flow::Stop ? Flow::Stop : Flow::Normal)
                                  : Flow::Normal;
  // Run from the label on (falling through the cases after it). Labels nested deeper than the
  // switch's own block are not followed.
  bool Running = false;
  for (const Stmt *C : Body->body()) {
    if (!Running) {
      const Stmt *X = C;
      while (const auto *SC = dyn_cast<SwitchCase>(X)) {
        if (SC == Target) {
          Running = true;
          break;
        }
        X = SC->getSubStmt();
      }
      if (!Running)
        continue;
    }
    Flow F = exec(C);
    if (F == Flow::Break)
      return Flow::Normal;
    if (F != Flow::Normal)
      return F;
  }
  if (!Running) {
    stop("the case label for " + std::to_string(*V) + " of the switch at " + where(S) +
         " is nested in a block, which the evaluator does not follow");
    return Flow::Stop;
  }
  return Flow::Normal;
}

Value HostInterpreter::callFunction(const FunctionDecl *FD, const Expr *Site,
                                    llvm::ArrayRef<const Expr *> Args, std::optional<Location> This,
                                    Place *ResultPlace) {
  const FunctionDecl *Def = nullptr;
  FD->hasBody(Def);
  if (Frames.size() >= Request.MaxCallDepth) {
    const auto *CE = dyn_cast_or_null<CallExpr>(Site);
    if (!CE || mayLaunch(Def)) {
      stop("calls nest deeper than " + std::to_string(Request.MaxCallDepth) + " at " + where(Site));
      return Value::unknown("call depth limit");
    }
    return opaqueCall(CE, FD, "calls nest deeper than " + std::to_string(Request.MaxCallDepth));
  }
  // Arguments are evaluated in the caller's frame, then bound in the callee's.
  Frame F;
  F.Function = Def;
  F.This = std::move(This);
  for (unsigned I = 0; I < Def->getNumParams(); ++I) {
    const ParmVarDecl *P = Def->getParamDecl(I);
    QualType T = P->getType();
    const Expr *A = I < Args.size() ? Args[I] : P->getDefaultArg();
    if (T->isReferenceType()) {
      Place Pl = A ? evalPlace(A) : Place::unknown("no argument");
      if (Pl.K == Place::Kind::Local)
        F.Vars[P->getCanonicalDecl()] = Pl.Loc;
      else
        F.Vars[P->getCanonicalDecl()] = newCell(unknownOf(
            T.getNonReferenceType(),
            Pl.K == Place::Kind::Device ? "read from device memory on the host" : Pl.Reason));
    } else {
      Value V = A ? convert(eval(A), T) : unknownOf(T, "no argument for '" + P->getNameAsString() + "'");
      Location L = newCell(Value());
      store(Place::local(L), std::move(V), T);
      F.Vars[P->getCanonicalDecl()] = L;
    }
  }
  if (Stopped)
    return Value::unknown(Result.Reason);
  Frames.push_back(std::move(F));
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Def); Ctor && Frames.back().This) {
    for (const CXXCtorInitializer *Init : Ctor->inits()) {
      const FieldDecl *Field = Init->getMember();
      if (!Init->isMemberInitializer() || !Field)
        continue;
      Place P = Place::local(*Frames.back().This);
      P.Loc.Path.push_back(Field->getFieldIndex());
      store(P, convert(eval(Init->getInit()), Field->getType()), Field->getType());
    }
  }
  Flow Fl = Stopped ? Flow::Stop : exec(Def->getBody());
  Frame Done = std::move(Frames.back());
  Frames.pop_back();
  if (Fl == Flow::Stop)
    return Value::unknown(Result.Reason);
  if (ResultPlace)
    *ResultPlace = Done.ResultPlace ? *Done.ResultPlace
                                    : Place::unknown("'" + nameOf(FD) + "' returned no reference");
  QualType RT = Def->getReturnType();
  if (RT->isVoidType())
    return Value::unknown("'" + nameOf(FD) + "' returns void");
  if (RT->isReferenceType())
    return Done.ResultPlace ? load(*Done.ResultPlace) : Value::unknown("no reference returned");
  return convert(Done.Result, RT);
}

Value HostInterpreter::opaqueCall(const CallExpr *CE, const FunctionDecl *FD, const std::string &Why) {
  std::string Reason = "returned by '" + nameOf(FD) + "' (" + Why + ")";
  std::string Changed = "may be changed by '" + nameOf(FD) + "' at " + where(CE);
  unsigned First = 0;
  if (FD && isa<CXXOperatorCallExpr>(CE) && isa<CXXMethodDecl>(FD) &&
      !cast<CXXMethodDecl>(FD)->isStatic())
    First = 1; // argument 0 is the object
  for (unsigned I = First; I < CE->getNumArgs(); ++I) {
    const Expr *A = CE->getArg(I);
    unsigned P = I - First;
    QualType PT;
    if (FD && P < FD->getNumParams())
      PT = FD->getParamDecl(P)->getType();
    bool ByRef = !PT.isNull() ? PT->isReferenceType() && !PT.getNonReferenceType().isConstQualified()
                              : A->isGLValue();
    if (ByRef) {
      havoc(evalPlace(A), Changed);
      continue;
    }
    QualType AT = A->IgnoreParenImpCasts()->getType();
    if (AT->isPointerType() && !AT->getPointeeType().isConstQualified() &&
        (PT.isNull() || !PT->isPointerType() || !PT->getPointeeType().isConstQualified())) {
      Value V = eval(A);
      if (V.isPointer() && V.asPointer().K == Pointer::Kind::Local)
        havoc(Place::local(V.asPointer().Target), Changed);
      else if (!V.isPointer())
        havocEscaped(Changed);
    } else {
      eval(A); // side effects of the argument
    }
  }
  return unknownOf(CE->getType(), Reason);
}

HostEvaluation HostInterpreter::run(const FunctionDecl *Entry, const HostConfiguration &Conf) {
  Cells.clear();
  GlobalCells.clear();
  Frames.clear();
  Globals.clear();
  Escaped.clear();
  Allocations.clear();
  MaxDynamicSmem.clear();
  NotesSeen.clear();
  Result = HostEvaluation();
  Result.Configuration = Conf.Name;
  Result.EntryFound = true;
  Stopped = false;
  Steps = 0;
  Config = &Conf;

  const FunctionDecl *Def = nullptr;
  Entry->hasBody(Def);
  Frame F;
  F.Function = Def;
  unsigned N = Def->getNumParams();
  if (N != Conf.Args.size() + 1)
    note("the entry point has " + std::to_string(N) + " parameters; the task declares " +
         std::to_string(Conf.Args.size()) + " arguments and a stream");
  for (unsigned I = 0; I < N; ++I) {
    const ParmVarDecl *P = Def->getParamDecl(I);
    QualType T = P->getType().getNonReferenceType();
    Value V;
    if (I < Conf.Args.size()) {
      const HostArgument &A = Conf.Args[I];
      if (A.IsPointer) {
        Pointer Ptr;
        Ptr.K = Pointer::Kind::Argument;
        Ptr.Name = A.Name;
        V = Value::pointer(Ptr);
      } else if (T->isRealFloatingType()) {
        V = Value::floating(A.Scalar, T->isSpecificBuiltinType(BuiltinType::Float));
      } else if (T->isIntegralOrEnumerationType()) {
        V = integerOf(T, int64_t(A.Scalar));
      } else {
        V = Value::unknown("the task's scalar '" + A.Name + "' does not fit the parameter's type");
      }
    } else if (I == Conf.Args.size() && T->isPointerType()) {
      Pointer Stream;
      Stream.Name = "the stream";
      V = Value::pointer(Stream);
    } else {
      V = Value::unknown("the task has no argument for parameter '" + P->getNameAsString() + "'");
    }
    Location L = newCell(Value());
    store(Place::local(L), std::move(V), T);
    F.Vars[P->getCanonicalDecl()] = L;
  }
  Frames.push_back(std::move(F));
  Flow Fl = exec(Def->getBody());
  Frames.pop_back();
  Result.Complete = Fl != Flow::Stop;
  Result.Steps = Steps;
  Config = nullptr;
  return std::move(Result);
}

} // namespace cudaperf::host
