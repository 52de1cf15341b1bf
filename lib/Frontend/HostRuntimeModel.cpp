//===- HostRuntimeModel.cpp - The CUDA runtime and C library, as host code sees them ---===//
//
// Calls whose callee has no body the evaluator can follow (the runtime, libc, the headers'
// templates) but whose effect on launches is known:
//   launches       <<<>>>, cudaLaunchKernel, cudaLaunchCooperativeKernel, cudaLaunchKernelEx(C)
//   attributes     cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)
//   memory         cudaMalloc, cudaMallocAsync, cudaMallocManaged (scratch: an opaque pointer with
//                  a byte size), cudaMallocHost; frees, memsets and copies succeed (a copy into
//                  host memory makes it unknown)
//   device queries cudaGetDevice (0), cudaGetDeviceCount (1), cudaDeviceGetAttribute and
//                  cudaGetDeviceProperties from cudaperf's table for --arch (HostDevice)
//   the rest of the runtime returns cudaSuccess; its out-parameters become unknown
//   C/C++ math     min, max (also std::), fmin(f), fmax(f), ceil(f), floor(f), trunc(f), round(f),
//                  sqrt(f), abs, fabs(f), log2(f), pow(f), __builtin_expect
//
//===----------------------------------------------------------------------===//
#include "HostInterpreter.h"
#include "clang/AST/Attr.h"
#include "clang/Basic/SourceManager.h"
#include <cmath>

using namespace clang;

namespace cudaperf::host {

namespace {

SourceLocation siteOf(ASTContext &Ctx, const Expr *E) {
  SourceLocation Out;
  const clang::SourceManager &SM = Ctx.getSourceManager();
  PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(E->getBeginLoc()));
  if (P.isValid()) {
    Out.File = P.getFilename();
    Out.Line = P.getLine();
    Out.Column = P.getColumn();
  }
  return Out;
}

std::optional<unsigned> fieldIndex(QualType RecordT, StringRef Name) {
  const auto *RT = RecordT.getNonReferenceType()->getAs<RecordType>();
  if (!RT)
    return std::nullopt;
  for (const FieldDecl *F : RT->getDecl()->fields())
    if (F->getName() == Name)
      return F->getFieldIndex();
  return std::nullopt;
}

/// The static type an argument had before implicit conversions (`&p` of `float **` passed as
/// `void **`).
QualType writtenType(const Expr *A) { return A->IgnoreParenImpCasts()->getType(); }

bool isMathName(StringRef N) {
  static const char *const Names[] = {"min",   "max",    "fmin",  "fminf", "fmax",  "fmaxf", "ceil",
                                      "ceilf", "floor",  "floorf", "trunc", "truncf", "round", "roundf",
                                      "sqrt",  "sqrtf",  "abs",   "labs",  "llabs", "fabs",  "fabsf",
                                      "log2",  "log2f",  "pow",   "powf"};
  for (const char *X : Names)
    if (N == X)
      return true;
  return false;
}

} // namespace

std::optional<int64_t> HostInterpreter::deviceAttribute(int64_t A) {
  const HostDevice &D = Request.Device;
  // Numbering of enum cudaDeviceAttr (CUDA's driver_types.h).
  switch (A) {
  case 1: return D.MaxThreadsPerBlock;
  case 2: case 3: return 1024; // max block x, y
  case 4: return 64;           // max block z
  case 5: return 2147483647;   // max grid x
  case 6: case 7: return 65535;
  case 8: return D.SharedMemPerBlock;
  case 10: return D.WarpSize;
  case 12: return D.RegistersPerBlock;
  case 16: return D.MultiProcessors;
  case 39: return D.MaxThreadsPerMultiProcessor;
  case 75: return D.Major;
  case 76: return D.Minor;
  case 81: return D.SharedMemPerMultiProcessor;
  case 82: return D.RegistersPerMultiProcessor;
  case 97: return D.SharedMemPerBlockOptin;
  case 106: return D.MaxBlocksPerMultiProcessor;
  default: return std::nullopt;
  }
}

void HostInterpreter::fillDeviceProperties(const Place &Props, QualType RecordT) {
  const HostDevice &D = Request.Device;
  const std::map<std::string, int64_t> Known = {
      {"multiProcessorCount", D.MultiProcessors},
      {"warpSize", D.WarpSize},
      {"maxThreadsPerBlock", D.MaxThreadsPerBlock},
      {"maxThreadsPerMultiProcessor", D.MaxThreadsPerMultiProcessor},
      {"maxBlocksPerMultiProcessor", D.MaxBlocksPerMultiProcessor},
      {"sharedMemPerBlock", D.SharedMemPerBlock},
      {"sharedMemPerBlockOptin", D.SharedMemPerBlockOptin},
      {"sharedMemPerMultiprocessor", D.SharedMemPerMultiProcessor},
      {"regsPerBlock", D.RegistersPerBlock},
      {"regsPerMultiprocessor", D.RegistersPerMultiProcessor},
      {"major", D.Major},
      {"minor", D.Minor}};
  const auto *RT = RecordT->getAs<RecordType>();
  if (!RT || Props.K != Place::Kind::Local)
    return;
  havoc(Props, "a device property cudaperf's table does not hold");
  for (const FieldDecl *F : RT->getDecl()->fields()) {
    Place P = Props;
    P.Loc.Path.push_back(F->getFieldIndex());
    auto It = Known.find(F->getNameAsString());
    if (It != Known.end() && F->getType()->isIntegralOrEnumerationType()) {
      store(P, integerOf(F->getType(), It->second), F->getType());
    } else if (F->getName() == "maxThreadsDim" || F->getName() == "maxGridSize") {
      const int64_t Dims[2][3] = {{1024, 1024, 64}, {2147483647, 65535, 65535}};
      const int64_t *V = Dims[F->getName() == "maxGridSize"];
      for (unsigned I = 0; I < 3; ++I) {
        Place E = P;
        E.Loc.Path.push_back(I);
        store(E, integerOf(Ctx.IntTy, V[I]), Ctx.IntTy);
      }
    }
  }
  note("device queries are answered for the " + D.Name + " (sm_" + std::to_string(D.Major) +
       std::to_string(D.Minor) + "), the device cudaperf assumes for --arch");
}

const FunctionDecl *HostInterpreter::kernelOf(const Value &F, std::string &Reason) {
  if (F.isPointer() && F.asPointer().K == Pointer::Kind::Function) {
    const FunctionDecl *FD = F.asPointer().Function;
    if (FD && FD->hasAttr<CUDAGlobalAttr>())
      return FD;
    Reason = "'" + nameOf(FD) + "' is not a __global__ kernel";
    return nullptr;
  }
  Reason = F.known() ? "the function launched is not known" : F.reason();
  return nullptr;
}

void HostInterpreter::recordLaunch(const FunctionDecl *Kernel, const std::string &KernelReason,
                                   const Value &Grid, const Value &Block, const Value &Smem,
                                   std::vector<Value> Args, const Expr *Site, const char *Via) {
  if (Result.Launches.size() >= Request.MaxLaunches) {
    stop("more than " + std::to_string(Request.MaxLaunches) + " launches at " + where(Site));
    return;
  }
  EvaluatedLaunch L;
  L.Via = Via;
  L.Site = siteOf(Ctx, Site);
  if (Kernel)
    L.MangledName = Namer(Kernel);
  else
    L.Unresolved.push_back({"kernel", KernelReason});
  auto Dims = [&](const Value &V, const char *Part) -> std::optional<Dim3> {
    if (!V.isAggregate() || V.elements().size() < 3) {
      L.Unresolved.push_back({Part, V.known() ? "not a dim3" : V.reason()});
      return std::nullopt;
    }
    int64_t XYZ[3];
    for (unsigned I = 0; I < 3; ++I) {
      std::optional<int64_t> X = V.elements()[I].asInt64();
      if (!X) {
        L.Unresolved.push_back({Part, std::string(1, "xyz"[I]) + ": " + V.elements()[I].reason()});
        return std::nullopt;
      }
      XYZ[I] = *X;
    }
    return Dim3{XYZ[0], XYZ[1], XYZ[2]};
  };
  L.Grid = Dims(Grid, "grid");
  L.Block = Dims(Block, "block");
  L.DynamicSmemBytes = Smem.asInt64();
  if (!L.DynamicSmemBytes)
    L.Unresolved.push_back({"dynamic_smem", Smem.known() ? "not an integer" : Smem.reason()});
  if (Kernel) {
    const FunctionDecl *Def = Kernel;
    for (unsigned I = 0; I < Def->getNumParams(); ++I) {
      QualType PT = Def->getParamDecl(I)->getType();
      Value A = I < Args.size() ? convert(Args[I], PT) : Value::unknown("no argument");
      std::optional<ParamValue> Scalar;
      std::optional<LaunchPointerArg> Ptr;
      if (PT->isPointerType()) {
        LaunchPointerArg P;
        if (A.isPointer()) {
          const Pointer &X = A.asPointer();
          switch (X.K) {
          case Pointer::Kind::Argument:
            P.K = LaunchPointerArg::Kind::Argument;
            P.Argument = X.Name;
            P.OffsetBytes = X.OffsetBytes;
            for (const HostArgument &TA : Config->Args)
              if (TA.Name == X.Name)
                P.ArgumentElementBytes = TA.ElementBytes;
            break;
          case Pointer::Kind::Scratch:
            P.K = LaunchPointerArg::Kind::Scratch;
            P.ScratchId = X.Scratch;
            P.OffsetBytes = X.OffsetBytes;
            if (X.Scratch < Allocations.size())
              P.ScratchBytes = Allocations[X.Scratch].Bytes;
            break;
          case Pointer::Kind::Null:
            P.K = LaunchPointerArg::Kind::Null;
            break;
          default:
            P.K = LaunchPointerArg::Kind::Host;
            P.Reason = X.K == Pointer::Kind::Opaque ? X.Name : "a host variable";
            break;
          }
        } else {
          P.K = LaunchPointerArg::Kind::Unknown;
          P.Reason = A.known() ? "not a pointer" : A.reason();
        }
        Ptr = P;
      } else if (A.isInt()) {
        if (auto X = A.asInt64())
          Scalar = ParamValue(*X);
      } else if (A.isFloat()) {
        Scalar = ParamValue(A.asFloat());
      }
      L.ScalarArgs.push_back(Scalar);
      L.PointerArgs.push_back(Ptr);
    }
    auto It = MaxDynamicSmem.find(Kernel->getCanonicalDecl());
    if (It != MaxDynamicSmem.end())
      L.MaxDynamicSmemAttribute = It->second;
  }
  Result.Launches.push_back(std::move(L));
}

Value HostInterpreter::launchThroughArgArray(const FunctionDecl *Kernel, const std::string &KernelReason,
                                             const Value &Grid, const Value &Block, const Value &Smem,
                                             const Value &ArgArray, const Expr *Site, const char *Via) {
  // args[i] points to the i-th argument's value.
  std::vector<Value> Args;
  unsigned N = Kernel ? Kernel->getNumParams() : 0;
  for (unsigned I = 0; I < N; ++I) {
    Value Slot = pointerOffset(ArgArray, integerOf(Ctx.IntTy, I), Ctx.getPointerType(Ctx.VoidPtrTy), false, Site);
    Value ArgPointer = load(deref(Slot, Site));
    Args.push_back(load(deref(ArgPointer, Site)));
  }
  recordLaunch(Kernel, KernelReason, Grid, Block, Smem, std::move(Args), Site, Via);
  return Value::unknown("a launch's status");
}

bool HostInterpreter::modelCall(const CallExpr *CE, const FunctionDecl *FD, Value &Out) {
  if (!FD || !FD->getIdentifier())
    return false;
  StringRef N = FD->getName();
  unsigned NArgs = CE->getNumArgs();
  auto Arg = [&](unsigned I) { return CE->getArg(I); };
  Value Success = CE->getType()->isIntegralOrEnumerationType() ? integerOf(CE->getType(), 0)
                                                              : Value::unknown("void");
  auto OutParam = [&](unsigned I) { return deref(eval(Arg(I)), CE); };
  auto OutType = [&](unsigned I) { return writtenType(Arg(I))->getPointeeType(); };

  // --- launches
  if ((N == "cudaLaunchKernel" || N == "cudaLaunchCooperativeKernel") && NArgs >= 4) {
    std::string Why;
    const FunctionDecl *K = kernelOf(eval(Arg(0)), Why);
    Value Smem = NArgs > 4 ? eval(Arg(4)) : integerOf(Ctx.getSizeType(), 0);
    Out = launchThroughArgArray(K, Why, eval(Arg(1)), eval(Arg(2)), Smem, eval(Arg(3)), CE,
                                "cudaLaunchKernel");
    Out = Success;
    return true;
  }
  if ((N == "cudaLaunchKernelEx" || N == "cudaLaunchKernelExC") && NArgs >= 2) {
    Place ConfigPlace = OutParam(0);
    Value Config = load(ConfigPlace);
    QualType ConfigT = OutType(0);
    auto Field = [&](StringRef Name) {
      std::optional<unsigned> I = fieldIndex(ConfigT, Name);
      if (!I || !Config.isAggregate() || *I >= Config.elements().size())
        return Value::unknown(Config.known() ? "the launch configuration's '" + Name.str() + "'"
                                             : Config.reason());
      return Config.elements()[*I];
    };
    std::string Why;
    const FunctionDecl *K = kernelOf(eval(Arg(1)), Why);
    if (N == "cudaLaunchKernelExC" && NArgs >= 3) {
      launchThroughArgArray(K, Why, Field("gridDim"), Field("blockDim"), Field("dynamicSmemBytes"),
                            eval(Arg(2)), CE, "cudaLaunchKernelEx");
    } else {
      std::vector<Value> Args;
      for (unsigned I = 2; I < NArgs; ++I)
        Args.push_back(eval(Arg(I)));
      recordLaunch(K, Why, Field("gridDim"), Field("blockDim"), Field("dynamicSmemBytes"),
                   std::move(Args), CE, "cudaLaunchKernelEx");
    }
    Out = Success;
    return true;
  }
  if (N == "cudaFuncSetAttribute" && NArgs >= 3) {
    std::string Why;
    const FunctionDecl *K = kernelOf(eval(Arg(0)), Why);
    std::optional<int64_t> Attr = eval(Arg(1)).asInt64();
    Value V = eval(Arg(2));
    if (K && Attr && *Attr == 8) { // cudaFuncAttributeMaxDynamicSharedMemorySize
      if (auto Bytes = V.asInt64())
        MaxDynamicSmem[K->getCanonicalDecl()] = *Bytes;
      else
        note("the dynamic shared memory limit set at " + where(CE) + " is not known (" + V.reason() + ")");
    }
    Out = Success;
    return true;
  }

  // --- memory
  if (N.starts_with("cudaMalloc") && N != "cudaMallocArray" && N != "cudaMalloc3DArray" &&
      N != "cudaMallocMipmappedArray" && N != "cudaMallocPitch" && N != "cudaMalloc3D" && NArgs >= 2) {
    Place Target = OutParam(0);
    std::optional<int64_t> Bytes = eval(Arg(1)).asInt64();
    Pointer P;
    if (N == "cudaMallocHost") {
      P.Name = "host memory from cudaMallocHost";
    } else {
      P.K = Pointer::Kind::Scratch;
      P.Scratch = unsigned(Allocations.size());
      Allocations.push_back({Bytes});
    }
    store(Target, Value::pointer(P), OutType(0));
    Out = Success;
    return true;
  }
  if (N == "cudaHostAlloc" && NArgs >= 2) {
    Pointer P;
    P.Name = "host memory from cudaHostAlloc";
    store(OutParam(0), Value::pointer(P), OutType(0));
    Out = Success;
    return true;
  }
  if (N.starts_with("cudaMemcpy") || N.starts_with("cudaMemset") || N.starts_with("cudaFree")) {
    // A copy into host memory makes that memory unknown; nothing else changes on the host.
    Value Dst = NArgs > 0 ? eval(Arg(0)) : Value();
    if (N.starts_with("cudaMemcpy") && Dst.isPointer() && Dst.asPointer().K == Pointer::Kind::Local)
      havoc(Place::local(Dst.asPointer().Target), "copied from the device at " + where(CE));
    for (unsigned I = 1; I < NArgs; ++I)
      eval(Arg(I));
    Out = Success;
    return true;
  }

  // --- device queries
  if (N == "cudaGetDevice" && NArgs >= 1) {
    store(OutParam(0), integerOf(OutType(0), 0), OutType(0));
    Out = Success;
    return true;
  }
  if (N == "cudaGetDeviceCount" && NArgs >= 1) {
    store(OutParam(0), integerOf(OutType(0), 1), OutType(0));
    Out = Success;
    return true;
  }
  if (N == "cudaDeviceGetAttribute" && NArgs >= 2) {
    Value A = eval(Arg(1));
    std::optional<int64_t> V = A.asInt64() ? deviceAttribute(*A.asInt64()) : std::nullopt;
    store(OutParam(0),
          V ? integerOf(OutType(0), *V)
            : Value::unknown(A.known() ? "device attribute " + std::to_string(*A.asInt64()) +
                                             " is not in cudaperf's device table"
                                       : A.reason()),
          OutType(0));
    if (V)
      note("device queries are answered for the " + Request.Device.Name + " (sm_" +
           std::to_string(Request.Device.Major) + std::to_string(Request.Device.Minor) +
           "), the device cudaperf assumes for --arch");
    Out = Success;
    return true;
  }
  if ((N == "cudaGetDeviceProperties" || N == "cudaGetDeviceProperties_v2") && NArgs >= 1) {
    fillDeviceProperties(OutParam(0), OutType(0));
    Out = Success;
    return true;
  }
  if (N.starts_with("cudaOccupancy")) {
    Value R = opaqueCall(CE, FD, "depends on the kernel's registers, known only after compilation");
    Out = Success;
    return true;
  }
  if (N.starts_with("cuda")) {
    // Streams, events, synchronisation, errors: success; what they write becomes unknown, except
    // the handles they create, which are opaque.
    if ((N.starts_with("cudaStreamCreate") || N.starts_with("cudaEventCreate")) && NArgs >= 1) {
      Pointer H;
      H.Name = N.starts_with("cudaStream") ? "a stream" : "an event";
      store(OutParam(0), Value::pointer(H), OutType(0));
      for (unsigned I = 1; I < NArgs; ++I)
        eval(Arg(I));
    } else {
      opaqueCall(CE, FD, "a CUDA runtime call");
    }
    Out = CE->getType()->isPointerType() ? Value::pointer(Pointer()) : Success;
    return true;
  }

  // --- C and C++ math
  if (N == "__builtin_expect" && NArgs >= 1) {
    Out = eval(Arg(0));
    return true;
  }
  if (N == "exit" || N == "abort" || N == "_Exit" || N == "quick_exit") {
    stop("the entry point calls '" + N.str() + "' at " + where(CE));
    Out = Value::unknown("exit");
    return true;
  }
  const DeclContext *DC = FD->getDeclContext()->getRedeclContext();
  bool StdOrGlobal = DC->isTranslationUnit() || DC->isStdNamespace() ||
                     (isa<LinkageSpecDecl>(FD->getDeclContext()));
  if (!StdOrGlobal || !isMathName(N))
    return false;
  QualType RT = CE->getType();
  std::vector<Value> A;
  for (unsigned I = 0; I < NArgs; ++I)
    A.push_back(eval(Arg(I)));
  for (const Value &V : A)
    if (!V.known()) {
      Out = V;
      return true;
    }
  if ((N == "min" || N == "max" || N.starts_with("fmin") || N.starts_with("fmax")) && A.size() == 2) {
    Value X = convert(A[0], RT), Y = convert(A[1], RT);
    bool Less;
    if (X.isInt() && Y.isInt())
      Less = llvm::APSInt::compareValues(X.asInt(), Y.asInt()) < 0;
    else if (X.number() && Y.number())
      Less = *X.number() < *Y.number();
    else
      return false;
    bool Min = N == "min" || N.starts_with("fmin");
    Out = (Less == Min) ? X : Y;
    return true;
  }
  if (A.size() == 1 && (N == "abs" || N == "labs" || N == "llabs") && A[0].isInt()) {
    Out = convert(A[0].asInt().isNegative() ? Value::integer(-A[0].asInt()) : A[0], RT);
    return true;
  }
  if (A.empty() || !A[0].number())
    return false;
  double X = *A[0].number(), R;
  if (N.starts_with("ceil")) R = std::ceil(X);
  else if (N.starts_with("floor")) R = std::floor(X);
  else if (N.starts_with("trunc")) R = std::trunc(X);
  else if (N.starts_with("round")) R = std::round(X);
  else if (N.starts_with("sqrt")) R = std::sqrt(X);
  else if (N.starts_with("fabs") || N == "abs") R = std::fabs(X);
  else if (N.starts_with("log2")) R = std::log2(X);
  else if (N.starts_with("pow") && A.size() == 2 && A[1].number()) R = std::pow(X, *A[1].number());
  else return false;
  Out = convert(Value::floating(R, false), RT);
  return true;
}

Value HostInterpreter::evalCall(const CallExpr *CE, Place *ResultPlace) {
  // A kernel launch with the triple-chevron syntax.
  if (const auto *K = dyn_cast<CUDAKernelCallExpr>(CE)) {
    const CallExpr *Config = K->getConfig();
    Value Grid = Config && Config->getNumArgs() > 0 ? eval(Config->getArg(0)) : Value::unknown("no grid");
    Value Block = Config && Config->getNumArgs() > 1 ? eval(Config->getArg(1)) : Value::unknown("no block");
    Value Smem = Config && Config->getNumArgs() > 2 ? eval(Config->getArg(2)) : integerOf(Ctx.getSizeType(), 0);
    std::string Why;
    const FunctionDecl *Kernel = K->getDirectCallee();
    if (!Kernel)
      Kernel = kernelOf(eval(K->getCallee()), Why);
    std::vector<Value> Args;
    for (const Expr *A : K->arguments())
      Args.push_back(eval(A));
    recordLaunch(Kernel, Why, Grid, Block, Smem, std::move(Args), K, "<<<>>>");
    return Value::unknown("a kernel launch has no value");
  }

  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD) {
    Value Callee = eval(CE->getCallee());
    if (Callee.isPointer() && Callee.asPointer().K == Pointer::Kind::Function)
      FD = Callee.asPointer().Function;
  }
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(FD);
  bool Method = MD && !MD->isStatic();
  // The object of a member call: `obj.f()`, `p->f()`, or argument 0 of a member operator.
  std::vector<const Expr *> Args(CE->arg_begin(), CE->arg_end());
  const Expr *Object = nullptr;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(CE))
    Object = MC->getImplicitObjectArgument();
  else if (Method && isa<CXXOperatorCallExpr>(CE) && !Args.empty()) {
    Object = Args.front();
    Args.erase(Args.begin());
  }

  // Trivial copy and move assignment (dim3 g; g = dim3(4, 2);).
  if (Method && Object && (MD->isCopyAssignmentOperator() || MD->isMoveAssignmentOperator()) &&
      (MD->isTrivial() || MD->isDefaulted()) && Args.size() == 1) {
    Value V = eval(Args[0]);
    Place Target = evalPlace(Object);
    store(Target, V, Object->getType());
    if (ResultPlace)
      *ResultPlace = Target;
    return V;
  }
  // dim3 <-> uint3 conversions of the headers.
  if (Method && Object && isa<CXXConversionDecl>(MD) && MD->getParent()->getName() == "dim3")
    return convert(eval(Object), CE->getType());

  if (followable(FD)) {
    std::optional<Location> This;
    if (Method && Object) {
      Place P = Object->getType()->isPointerType() ? deref(eval(Object), CE) : evalPlace(Object);
      if (P.K == Place::Kind::Local)
        This = P.Loc;
    }
    return callFunction(FD, CE, Args, This, ResultPlace);
  }
  Value R;
  if (modelCall(CE, FD, R))
    return R;
  if (Method && Object && !MD->isConst())
    havoc(Object->getType()->isPointerType() ? deref(eval(Object), CE) : evalPlace(Object),
          "may be changed by '" + nameOf(FD) + "' at " + where(CE));
  if (!FD)
    return opaqueCall(CE, nullptr, "called through a pointer the evaluator does not know");
  return opaqueCall(CE, FD,
                    FD->hasBody() ? "its body is in a system header" : "its body is not in this file");
}

} // namespace cudaperf::host
