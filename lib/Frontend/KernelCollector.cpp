#include "KernelCollector.h"
#include "ConstantEvaluator.h"
#include "HostInterpreter.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace cudaperf {

namespace {

SourceLocation toLocation(const clang::SourceManager &SM, clang::SourceLocation L) {
  SourceLocation Out;
  if (L.isInvalid())
    return Out;
  PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(L));
  if (P.isInvalid())
    return Out;
  Out.File = P.getFilename();
  Out.Line = P.getLine();
  Out.Column = P.getColumn();
  return Out;
}

/// Finds the __shared__ variables a kernel body declares or refers to.
class SharedVarFinder : public RecursiveASTVisitor<SharedVarFinder> {
public:
  llvm::SmallVector<const VarDecl *, 8> Vars;
  bool VisitVarDecl(VarDecl *VD) { note(VD); return true; }
  bool VisitDeclRefExpr(DeclRefExpr *DR) {
    if (auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
      note(VD);
    return true;
  }

private:
  void note(const VarDecl *VD) {
    if (!VD->hasAttr<CUDASharedAttr>())
      return;
    VD = VD->getCanonicalDecl();
    if (llvm::find(Vars, VD) == Vars.end())
      Vars.push_back(VD);
  }
};

class Collector : public RecursiveASTVisitor<Collector> {
public:
  Collector(ASTContext &Ctx, std::vector<KernelReport> &Out)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Eval(Ctx), Names(Ctx), Out(Out) {}

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return false; }

  bool TraverseFunctionDecl(FunctionDecl *FD) {
    const FunctionDecl *Saved = CurrentFunction;
    CurrentFunction = FD;
    bool R = RecursiveASTVisitor::TraverseFunctionDecl(FD);
    CurrentFunction = Saved;
    return R;
  }
  bool TraverseCXXMethodDecl(CXXMethodDecl *MD) {
    const FunctionDecl *Saved = CurrentFunction;
    CurrentFunction = MD;
    bool R = RecursiveASTVisitor::TraverseCXXMethodDecl(MD);
    CurrentFunction = Saved;
    return R;
  }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (FD->hasAttr<CUDAGlobalAttr>() && FD->doesThisDeclarationHaveABody() &&
        !FD->isDependentContext())
      kernelFor(FD);
    return true;
  }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *CE) {
    if (CE->isValueDependent() || CE->isTypeDependent())
      return true;
    const FunctionDecl *Callee = CE->getDirectCallee();
    if (!Callee)
      return true;
    KernelReport *K = kernelFor(Callee->getDefinition() ? Callee->getDefinition() : Callee);
    if (!K)
      return true;
    LaunchSite Site;
    Site.Loc = toLocation(SM, CE->getBeginLoc());
    if (const CallExpr *Config = CE->getConfig()) {
      if (Config->getNumArgs() > 0)
        Site.Grid = Eval.evaluateDim3(Config->getArg(0), CurrentFunction);
      if (Config->getNumArgs() > 1)
        Site.Block = Eval.evaluateDim3(Config->getArg(1), CurrentFunction);
      if (Config->getNumArgs() > 2)
        Site.DynamicSmemBytes = Eval.evaluateInt(Config->getArg(2), CurrentFunction);
      else
        Site.DynamicSmemBytes = 0;
    }
    for (unsigned I = 0; I < Callee->getNumParams(); ++I) {
      std::optional<ParamValue> V;
      if (I < CE->getNumArgs() && I < K->Params.size() && K->Params[I].IsScalar)
        V = Eval.evaluateScalar(CE->getArg(I), CurrentFunction);
      Site.Args.push_back(V);
    }
    K->LaunchSites.push_back(std::move(Site));
    return true;
  }

  /// The mangled name of a kernel the entry point launches; notes the kernel (a template
  /// instantiation may be launched only through cudaLaunchKernel).
  std::string launchedKernel(const FunctionDecl *FD) {
    const FunctionDecl *Def = FD->getDefinition() ? FD->getDefinition() : FD;
    if (KernelReport *K = kernelFor(Def))
      return K->MangledName;
    return Names.getName(Def);
  }

private:
  KernelReport *kernelFor(const FunctionDecl *FD) {
    if (!FD->hasAttr<CUDAGlobalAttr>() || !FD->doesThisDeclarationHaveABody() ||
        FD->isDependentContext())
      return nullptr;
    if (SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation())))
      return nullptr;
    const FunctionDecl *Key = FD->getCanonicalDecl();
    auto It = Index.find(Key);
    if (It != Index.end())
      return &Out[It->second];
    Index[Key] = Out.size();
    Out.push_back(describeKernel(FD));
    return &Out.back();
  }

  KernelReport describeKernel(const FunctionDecl *FD) {
    KernelReport K;
    PrintingPolicy Policy = Ctx.getPrintingPolicy();
    Policy.SuppressTagKeyword = true;
    {
      llvm::raw_string_ostream OS(K.Name);
      FD->getNameForDiagnostic(OS, Policy, /*Qualified=*/true);
    }
    K.MangledName = Names.getName(FD);
    // An instantiation's location is its pattern's, which is where the code is.
    K.Loc = toLocation(SM, FD->getLocation());
    for (const ParmVarDecl *P : FD->parameters()) {
      KernelParam KP;
      KP.Name = P->getNameAsString();
      QualType T = P->getType();
      KP.Type = T.getAsString(Policy);
      if (T->isPointerType()) {
        KP.IsPointer = true;
        QualType Pointee = T->getPointeeType();
        KP.PointeeIsConst = Pointee.isConstQualified();
        KP.PointeeType = Pointee.getUnqualifiedType().getAsString(Policy);
        if (!Pointee->isIncompleteType() && !Pointee->isVoidType())
          KP.PointeeBytes = Ctx.getTypeSizeInChars(Pointee).getQuantity();
      } else {
        KP.IsScalar = T->isIntegralOrEnumerationType() || T->isRealFloatingType();
      }
      K.Params.push_back(std::move(KP));
    }
    if (const auto *LB = FD->getAttr<CUDALaunchBoundsAttr>()) {
      K.LaunchBoundsMaxThreads = Eval.evaluateInt(LB->getMaxThreads(), nullptr);
      if (LB->getMinBlocks())
        K.LaunchBoundsMinBlocks = Eval.evaluateInt(LB->getMinBlocks(), nullptr);
    }
    SharedVarFinder Finder;
    if (const Stmt *Body = FD->getBody())
      Finder.TraverseStmt(const_cast<Stmt *>(Body));
    for (const VarDecl *VD : Finder.Vars)
      K.SharedArrays.push_back(describeShared(VD));
    return K;
  }

  SharedArrayDecl describeShared(const VarDecl *VD) {
    SharedArrayDecl S;
    S.Name = VD->getNameAsString();
    S.Loc = toLocation(SM, VD->getLocation());
    QualType T = VD->getType();
    while (const ArrayType *AT = Ctx.getAsArrayType(T)) {
      if (const auto *CAT = dyn_cast<ConstantArrayType>(AT)) {
        S.Dims.push_back(CAT->getSize().getZExtValue());
      } else {
        S.Dims.push_back(0);
        S.IsDynamic = true;
      }
      T = AT->getElementType();
    }
    S.ElementType = T.getUnqualifiedType().getAsString(Ctx.getPrintingPolicy());
    if (!T->isIncompleteType() && !T->isDependentType())
      S.ElementBytes = Ctx.getTypeSizeInChars(T).getQuantity();
    if (!S.IsDynamic) {
      uint64_t N = S.ElementBytes;
      for (uint64_t D : S.Dims)
        N *= D;
      S.Bytes = N;
    }
    return S;
  }

  ASTContext &Ctx;
  const clang::SourceManager &SM;
  ConstantEvaluator Eval;
  ASTNameGenerator Names;
  std::vector<KernelReport> &Out;
  llvm::DenseMap<const FunctionDecl *, size_t> Index;
  const FunctionDecl *CurrentFunction = nullptr;
};

} // namespace

namespace {

/// The extern "C" definition of \p Name, or null with \p Reason set.
const FunctionDecl *findEntry(ASTContext &Ctx, llvm::StringRef Name, std::string &Reason) {
  const FunctionDecl *CxxOnly = nullptr;
  for (const Decl *D : Ctx.getTranslationUnitDecl()->lookup(DeclarationName(&Ctx.Idents.get(Name)))) {
    const auto *FD = dyn_cast<FunctionDecl>(D);
    const FunctionDecl *Def = nullptr;
    if (!FD || !FD->hasBody(Def) || !Def)
      continue;
    if (Def->isExternC())
      return Def;
    CxxOnly = Def;
  }
  Reason = CxxOnly ? "'" + Name.str() + "' is defined without extern \"C\"; the evaluator calls it by its C name"
                   : "the file defines no extern \"C\" function '" + Name.str() + "'";
  return nullptr;
}

} // namespace

void KernelCollector::HandleTranslationUnit(ASTContext &Ctx) {
  if (Ctx.getDiagnostics().hasErrorOccurred())
    return;
  Collector C(Ctx, Out);
  C.TraverseDecl(Ctx.getTranslationUnitDecl());
  if (!Entry)
    return;
  std::string Reason;
  const FunctionDecl *EntryFn = findEntry(Ctx, Entry->Entry, Reason);
  host::HostInterpreter Interpreter(Ctx, *Entry,
                                    [&](const FunctionDecl *FD) { return C.launchedKernel(FD); });
  for (const HostConfiguration &Config : Entry->Configurations) {
    if (!EntryFn) {
      HostEvaluation E;
      E.Configuration = Config.Name;
      E.Reason = Reason;
      Evaluations.push_back(std::move(E));
      continue;
    }
    Evaluations.push_back(Interpreter.run(EntryFn, Config));
  }
}

} // namespace cudaperf
