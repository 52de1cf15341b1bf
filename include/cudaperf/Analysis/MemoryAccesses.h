//===- MemoryAccesses.h - Every memory instruction of a kernel -*- C++ -*-===//
//
// The inventory shared by the memory analyses (coalescing, shared memory, synchronization): each
// load, store, atomic, nvvm ldu intrinsic and constant-size memcpy/memset of a kernel's device
// function (clang 22 emits __ldg as a plain load marked !invariant.load), with its width, its
// address space resolved from the pointer's base, and its source location. Calls that remain after inlining are listed separately: their memory effects are not
// seen.
//
// Address spaces: clang's NVPTX IR keeps most pointers generic (addrspace 0); the base decides.
//   kernel pointer parameter (or a pointer field of a by-value struct parameter) -> global
//   addrspace(3) global -> shared; addrspace(4) global -> constant; addrspace(1)/(0) global -> global
//   alloca -> local; pointer loaded from memory -> global, with BaseKind::LoadedPointer
//   (data-dependent base); several bases of different spaces or none found -> generic.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_ANALYSIS_MEMORYACCESSES_H
#define CUDAPERF_ANALYSIS_MEMORYACCESSES_H

#include "cudaperf/Report/KernelReport.h"
#include "llvm/ADT/SmallVector.h"
#include <string>
#include <vector>

namespace llvm {
class Function;
class Instruction;
class CallBase;
class Value;
} // namespace llvm

namespace cudaperf {

/// Texture and Surface: fetches through the texture units (tex/tld4 instructions, clang's texture
/// intrinsics as inline PTX) and surface reads and writes (cudaperf_nvcc_compat.h's
/// __cudaperf_surface_load/store); their addresses are a handle and coordinates, not a pointer.
enum class MemorySpace { Global, Shared, Local, Constant, Param, Generic, Texture, Surface };
enum class AccessKind { Load, Store, Atomic };
enum class BaseKind {
  KernelParam,    // a pointer kernel parameter (or read from a by-value struct parameter)
  Variable,       // a __device__, __shared__ or __constant__ variable
  Alloca,         // a local variable or array
  LoadedPointer,  // a pointer read from memory: data-dependent base
  Unknown,        // a call result, an integer turned into a pointer, ...
};

const char *toString(MemorySpace S); // global | shared | local | constant | param | generic | texture | surface
const char *toString(AccessKind K);  // load | store | atomic

struct MemoryInstruction {
  /// The instructions this access stands for: one, or several adjacent scalar accesses that the
  /// NVPTX back end combines into one vector access (see collectMemoryAccesses).
  llvm::SmallVector<llvm::Instruction *, 4> Insts;
  llvm::Value *Pointer = nullptr; // address of the first byte is Pointer + Offset
  int64_t Offset = 0;             // bytes; nonzero for the pieces of a split vector access
  AccessKind Kind = AccessKind::Load;
  unsigned Bytes = 0;     // per thread per instruction (1..16 for vector groups; memcpy chunks)
  unsigned Count = 1;     // machine instructions it stands for (memcpy split into chunks)
  unsigned Align = 1;     // known alignment of Pointer in bytes
  MemorySpace Space = MemorySpace::Generic;
  BaseKind Base = BaseKind::Unknown;
  llvm::Value *BaseValue = nullptr; // the Argument / GlobalVariable / AllocaInst / LoadInst
  SourceLocation Loc;
  std::string Note; // e.g. "memcpy of 64 bytes as 4 accesses of 16 bytes"

  llvm::Instruction *inst() const { return Insts.front(); }
};

struct OpaqueCall {
  llvm::CallBase *Call = nullptr;
  std::string Callee; // empty for an indirect call
  SourceLocation Loc;
};

struct MemoryInventory {
  std::vector<MemoryInstruction> Accesses; // in instruction order
  std::vector<OpaqueCall> Calls;           // calls that may access memory and were not inlined
};

/// Collects the memory instructions of \p F. With \p CombineVectors, adjacent loads (or stores) in
/// one basic block whose addresses are one base plus consecutive constant offsets, whose combined
/// size is a power of two up to 16 bytes and whose first address is aligned to that size, become
/// one access, as the NVPTX load/store vectorizer makes them (a float4 copied field by field is one
/// 16-byte access on the GPU). A vector load or store whose alignment is below its size (clang's SLP
/// vectorizer makes them when it runs without the NVPTX target) is split into aligned pieces, as
/// the NVPTX back end legalizes it.
MemoryInventory collectMemoryAccesses(llvm::Function &F, bool CombineVectors = true);

/// The source location of \p I (its own debug location, else the nearest earlier one in its block).
SourceLocation sourceLocationOf(const llvm::Instruction &I);

/// Resolves the base of \p Ptr: walks GEPs, casts, selects and phis back to what it is derived from.
/// Returns the space and kind; \p BaseValue receives the base (the first one when several agree).
MemorySpace resolveBase(const llvm::Value *Ptr, BaseKind &Kind, const llvm::Value *&BaseValue);

} // namespace cudaperf

#endif
