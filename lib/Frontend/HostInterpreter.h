//===- HostInterpreter.h - Runs a host function on the Clang AST -*- C++ -*-===//
//
// A small interpreter of C/C++ host code, enough to follow what an entry point does with its
// size arguments before it launches kernels: locals, dim3 and other plain structs, arrays,
// integer and floating arithmetic with C semantics, casts, sizeof, if/else, loops, switch, calls
// to functions (and templates, lambdas) with bodies in the file, the CUDA runtime calls that
// matter for launches (cudaMalloc*, cudaFuncSetAttribute, device queries, cudaLaunchKernel*), and
// every kernel launch. What it cannot know becomes an unknown value with the reason; control flow
// that depends on an unknown value and may launch a kernel stops the run (the launches found so
// far are kept). A step budget bounds the work.
//
// Statements and calls are in HostInterpreter.cpp, expressions in HostExpressions.cpp, the CUDA
// runtime and C library in HostRuntimeModel.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_FRONTEND_HOSTINTERPRETER_H
#define CUDAPERF_FRONTEND_HOSTINTERPRETER_H

#include "HostValue.h"
#include "cudaperf/Frontend/HostEvaluation.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseSet.h"
#include <functional>
#include <map>
#include <set>

namespace cudaperf::host {

class HostInterpreter {
public:
  /// Gives a launched kernel's mangled name (and lets the caller note the kernel).
  using KernelNamer = std::function<std::string(const clang::FunctionDecl *)>;

  HostInterpreter(clang::ASTContext &Ctx, const HostEntryRequest &Request, KernelNamer Namer);

  /// Runs \p Entry with its parameters bound to \p Config's arguments.
  HostEvaluation run(const clang::FunctionDecl *Entry, const HostConfiguration &Config);

private:
  enum class Flow { Normal, Break, Continue, Return, Stop };

  /// What a glvalue expression designates.
  struct Place {
    enum class Kind { Local, Device, Function, Unknown };
    Kind K = Kind::Unknown;
    Location Loc;
    const clang::FunctionDecl *Function = nullptr;
    std::string Reason;
    static Place local(Location L) {
      Place P;
      P.K = Kind::Local;
      P.Loc = std::move(L);
      return P;
    }
    static Place unknown(std::string Why) {
      Place P;
      P.Reason = std::move(Why);
      return P;
    }
  };

  struct Frame {
    const clang::FunctionDecl *Function = nullptr;
    std::map<const clang::VarDecl *, Location> Vars;
    std::optional<Location> This;
    Value Result;
    std::optional<Place> ResultPlace; // functions returning a reference
  };

  // --- statements and calls (HostInterpreter.cpp)
  Flow exec(const clang::Stmt *S);
  Flow execLoop(const clang::Stmt *Loop, const clang::Expr *Cond, const clang::Stmt *Body,
                const clang::Expr *Inc, bool TestFirst);
  Flow execSwitch(const clang::SwitchStmt *S);
  /// The arms of a condition that is not known: when they can neither launch nor leave, what
  /// they may change becomes unknown and evaluation goes on; otherwise it stops.
  bool skipUnknownArms(const clang::Stmt *Where, const Value &Cond,
                       std::initializer_list<const clang::Stmt *> Arms);
  void declare(const clang::VarDecl *VD);
  /// Runs \p FD's body (a constructor's member initializers first) with \p Args bound to its
  /// parameters; \p Site is the call or construction.
  Value callFunction(const clang::FunctionDecl *FD, const clang::Expr *Site,
                     llvm::ArrayRef<const clang::Expr *> Args, std::optional<Location> This,
                     Place *ResultPlace);
  /// A call the evaluator does not follow: the result is unknown, and what the callee may change
  /// through non-const references and pointers becomes unknown.
  Value opaqueCall(const clang::CallExpr *CE, const clang::FunctionDecl *FD, const std::string &Why);
  void havoc(const Place &P, const std::string &Why);
  /// What \p S may change (its variables, and memory reached through pointers) becomes unknown.
  void havocChangedBy(const clang::Stmt *S, const std::string &Why);
  void havocEscaped(const std::string &Why);
  void stop(const std::string &Why);
  bool step(const clang::Stmt *S);

  // --- expressions (HostExpressions.cpp)
  Value eval(const clang::Expr *E);        // the value of any expression (glvalues are loaded)
  Value evalPRValue(const clang::Expr *E); // prvalue forms
  Place evalPlace(const clang::Expr *E);   // glvalue forms
  Value evalCast(const clang::CastExpr *E);
  Value evalUnary(const clang::UnaryOperator *U);
  Value evalBinary(const clang::BinaryOperator *B);
  Value evalAssignment(const clang::BinaryOperator *B, Place &Target);
  Value evalCall(const clang::CallExpr *CE, Place *ResultPlace);
  Value evalConstruct(const clang::CXXConstructExpr *CE);
  Value evalInitList(const clang::InitListExpr *IL);
  Value arithmetic(clang::BinaryOperatorKind Op, const Value &L, const Value &R, clang::QualType LT,
                   clang::QualType RT, clang::QualType ResultT, const clang::Expr *Where);
  Value pointerOffset(const Value &P, const Value &N, clang::QualType PointerT, bool Subtract,
                      const clang::Expr *Where);
  Value convert(const Value &V, clang::QualType To);
  Value load(const Place &P);
  void store(const Place &P, Value V, clang::QualType T);
  Place deref(const Value &P, const clang::Expr *Where);
  Value *resolve(const Location &L);
  Value zeroOf(clang::QualType T);
  Value unknownOf(clang::QualType T, const std::string &Why);
  Location newCell(Value V, bool Global = false);
  /// Ends the locals and temporaries created since Cells had \p Mark entries (a block or a loop
  /// iteration is over; pointers to them would dangle).
  void dropCellsFrom(size_t Mark);
  std::optional<Location> lookupVariable(const clang::VarDecl *VD);
  Value integerOf(clang::QualType T, int64_t V);
  Value truthValue(bool B, clang::QualType T);

  // --- the CUDA runtime and C library (HostRuntimeModel.cpp)
  /// Models \p CE when its callee is a function the evaluator knows; returns false otherwise.
  bool modelCall(const clang::CallExpr *CE, const clang::FunctionDecl *FD, Value &Result);
  void recordLaunch(const clang::FunctionDecl *Kernel, const std::string &KernelReason,
                    const Value &Grid, const Value &Block, const Value &Smem,
                    std::vector<Value> Args, const clang::Expr *Site, const char *Via);
  Value launchThroughArgArray(const clang::FunctionDecl *Kernel, const std::string &KernelReason,
                              const Value &Grid, const Value &Block, const Value &Smem,
                              const Value &ArgArray, const clang::Expr *Site, const char *Via);
  const clang::FunctionDecl *kernelOf(const Value &FunctionPointer, std::string &Reason);
  std::optional<int64_t> deviceAttribute(int64_t Attribute);
  void fillDeviceProperties(const Place &Props, clang::QualType RecordT);

  std::string where(const clang::Stmt *S) const;     // "line 12"
  std::string nameOf(const clang::FunctionDecl *FD) const;
  bool followable(const clang::FunctionDecl *FD) const; // a body outside system headers
  bool mayLaunchOrLeave(const clang::Stmt *S);
  bool mayLaunch(const clang::FunctionDecl *FD); // its body (or a callee's) may launch a kernel
  bool mayLaunch(const clang::FunctionDecl *FD, std::set<const clang::FunctionDecl *> &Visited);

  clang::ASTContext &Ctx;
  const HostEntryRequest &Request;
  KernelNamer Namer;

  // State of one run.
  std::vector<Value> Cells;       // locals and temporaries; a block's are dropped when it ends
  std::vector<Value> GlobalCells; // namespace-scope and static variables
  std::vector<Frame> Frames;
  std::map<const clang::VarDecl *, Location> Globals;
  std::set<std::pair<bool, unsigned>> Escaped; // (global, cell) whose address was taken
  struct Allocation {
    std::optional<int64_t> Bytes;
  };
  std::vector<Allocation> Allocations;
  std::map<const clang::FunctionDecl *, int64_t> MaxDynamicSmem;
  const HostConfiguration *Config = nullptr;
  HostEvaluation Result;
  bool Stopped = false;
  unsigned Steps = 0;
  unsigned Depth = 0; // nesting of statements and expressions being evaluated (bounds the C++ stack)
  /// Counts one level of nesting for as long as it lives; false when nesting is too deep.
  struct Nesting {
    HostInterpreter &I;
    explicit Nesting(HostInterpreter &I) : I(I) { ++I.Depth; }
    ~Nesting() { --I.Depth; }
  };
  bool tooDeep(const clang::Stmt *S);
  std::set<std::string> NotesSeen;
  void note(const std::string &N);

  // Cached across runs: functions known to (possibly) launch a kernel.
  llvm::DenseSet<const clang::FunctionDecl *> LaunchingFunctions;
};

} // namespace cudaperf::host

#endif
