//===- HostValue.h - Values of the host-code evaluator ---------*- C++ -*-===//
//
// What a host expression evaluates to: an integer with its C type's width and signedness, a
// floating value (rounded to float where the type is float), a pointer to something the evaluator
// can name (a task argument, a scratch allocation, a local variable, a function), an aggregate
// (struct fields or array elements, e.g. a dim3), or unknown -- always with the reason, so a launch
// that cannot be resolved can say why.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_FRONTEND_HOSTVALUE_H
#define CUDAPERF_FRONTEND_HOSTVALUE_H

#include "llvm/ADT/APSInt.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>
#include <vector>

namespace clang {
class FunctionDecl;
}

namespace cudaperf::host {

/// A storage location: a memory cell of the evaluator and a path of field / element indices
/// into the aggregate it holds (`grid.x` is {cell of grid, [0]}).
struct Location {
  unsigned Cell = 0;
  bool Global = false; // a namespace-scope or static variable (kept for the whole run)
  llvm::SmallVector<unsigned, 2> Path;
  bool operator==(const Location &O) const {
    return Cell == O.Cell && Global == O.Global && Path == O.Path;
  }
};

struct Pointer {
  enum class Kind {
    Null,
    Argument, // a pointer argument of the entry point (device memory)
    Scratch,  // memory from cudaMalloc and friends
    Local,    // a host variable (or a part of one)
    Function, // a function, e.g. a kernel passed to cudaLaunchKernel
    Opaque,   // a handle the evaluator does not look into (a stream, an event)
  };
  Kind K = Kind::Opaque;
  std::string Name;     // Argument: the task argument; Opaque: what it is
  unsigned Scratch = 0; // Scratch: index of the allocation
  int64_t OffsetBytes = 0;
  Location Target;      // Local
  const clang::FunctionDecl *Function = nullptr;
  bool isDevice() const { return K == Kind::Argument || K == Kind::Scratch; }
};

class Value {
public:
  enum class Kind { Unknown, Int, Float, Pointer, Aggregate };

  Value() : Reason("uninitialised") {}
  static Value unknown(std::string Why) {
    Value V;
    V.Reason = std::move(Why);
    return V;
  }
  static Value integer(llvm::APSInt I) {
    Value V;
    V.K = Kind::Int;
    V.Int = std::move(I);
    return V;
  }
  static Value integer(int64_t X, unsigned Width, bool IsUnsigned) {
    return integer(llvm::APSInt(llvm::APInt(Width, uint64_t(X), /*isSigned=*/!IsUnsigned), IsUnsigned));
  }
  static Value floating(double D, bool Single) {
    Value V;
    V.K = Kind::Float;
    V.Single = Single;
    V.Float = Single ? double(float(D)) : D;
    return V;
  }
  static Value pointer(Pointer P) {
    Value V;
    V.K = Kind::Pointer;
    V.Ptr = std::move(P);
    return V;
  }
  static Value aggregate(std::vector<Value> Elements, bool IsArray) {
    Value V;
    V.K = Kind::Aggregate;
    V.Elements = std::move(Elements);
    V.Array = IsArray;
    return V;
  }

  Kind kind() const { return K; }
  bool known() const { return K != Kind::Unknown; }
  bool isInt() const { return K == Kind::Int; }
  bool isFloat() const { return K == Kind::Float; }
  bool isPointer() const { return K == Kind::Pointer; }
  bool isAggregate() const { return K == Kind::Aggregate; }
  bool isArray() const { return K == Kind::Aggregate && Array; }

  const llvm::APSInt &asInt() const { return Int; }
  double asFloat() const { return Float; }
  bool isSingle() const { return Single; }
  const Pointer &asPointer() const { return Ptr; }
  std::vector<Value> &elements() { return Elements; }
  const std::vector<Value> &elements() const { return Elements; }
  const std::string &reason() const { return Reason; }

  /// Integers and floats as a number, for reports.
  std::optional<double> number() const {
    if (K == Kind::Int)
      return Int.isUnsigned() ? double(Int.getZExtValue()) : double(Int.getSExtValue());
    if (K == Kind::Float)
      return Float;
    return std::nullopt;
  }
  /// Integers that fit into int64_t.
  std::optional<int64_t> asInt64() const {
    if (K != Kind::Int)
      return std::nullopt;
    if (Int.isUnsigned() ? Int.getActiveBits() > 63 : Int.getSignificantBits() > 64)
      return std::nullopt;
    return Int.isUnsigned() ? int64_t(Int.getZExtValue()) : Int.getSExtValue();
  }
  /// A known truth value: nonzero numbers, non-null pointers. Unknown otherwise.
  std::optional<bool> truth() const {
    if (K == Kind::Int)
      return !Int.isZero();
    if (K == Kind::Float)
      return Float != 0;
    if (K == Kind::Pointer && Ptr.K != Pointer::Kind::Opaque)
      return Ptr.K != Pointer::Kind::Null;
    return std::nullopt;
  }
  /// Same value (for merging the arms of an unknown condition).
  bool sameAs(const Value &O) const {
    if (K != O.K)
      return false;
    switch (K) {
    case Kind::Unknown: return false;
    case Kind::Int: return Int == O.Int && Int.isUnsigned() == O.Int.isUnsigned();
    case Kind::Float: return Float == O.Float;
    case Kind::Pointer:
      return Ptr.K == O.Ptr.K && Ptr.Name == O.Ptr.Name && Ptr.Scratch == O.Ptr.Scratch &&
             Ptr.OffsetBytes == O.Ptr.OffsetBytes && Ptr.Target == O.Ptr.Target &&
             Ptr.Function == O.Ptr.Function;
    case Kind::Aggregate:
      if (Elements.size() != O.Elements.size())
        return false;
      for (size_t I = 0; I < Elements.size(); ++I)
        if (!Elements[I].sameAs(O.Elements[I]))
          return false;
      return true;
    }
    return false;
  }

private:
  Kind K = Kind::Unknown;
  llvm::APSInt Int;
  double Float = 0;
  bool Single = false;
  bool Array = false;
  Pointer Ptr;
  std::vector<Value> Elements;
  std::string Reason; // Unknown: why
};

} // namespace cudaperf::host

#endif
