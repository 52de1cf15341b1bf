#include "cudaperf/Tool/Driver.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

namespace cudaperf {

namespace {
/// "256", "16x16", "8x8x4" (positive integers).
std::optional<Dim3> parseDims(llvm::StringRef S) {
  llvm::SmallVector<llvm::StringRef, 3> Parts;
  S.split(Parts, 'x');
  if (Parts.empty() || Parts.size() > 3)
    return std::nullopt;
  int64_t V[3] = {1, 1, 1};
  for (size_t I = 0; I < Parts.size(); ++I)
    if (Parts[I].getAsInteger(10, V[I]) || V[I] <= 0)
      return std::nullopt;
  return Dim3{V[0], V[1], V[2]};
}
} // namespace

std::optional<std::string> parseLaunchOption(llvm::StringRef Spec, LaunchOverride &Out,
                                             std::string &Error) {
  // The kernel name may itself contain "::", so the configuration is taken from the right: the
  // last field is the block or, when it has no 'x' and three fields follow the name, the smem.
  llvm::SmallVector<llvm::StringRef, 6> F;
  Spec.split(F, ':');
  auto fail = [&](const std::string &Why) -> std::optional<std::string> {
    Error = "invalid --launch '" + Spec.str() + "': " + Why +
            " (expected KERNEL:GRID:BLOCK[:SMEM], e.g. saxpy:4096:256 or tile::16x16)";
    return std::nullopt;
  };
  if (F.size() < 3)
    return fail("missing fields");
  size_t N = F.size();
  std::optional<int64_t> Smem;
  // KERNEL:GRID:BLOCK:SMEM when the last field is a plain number and the three before it are a
  // name, a (possibly empty) grid and a block.
  if (N >= 4 && !F[N - 1].empty() && F[N - 1].find('x') == llvm::StringRef::npos &&
      parseDims(F[N - 2]) && (F[N - 3].empty() || parseDims(F[N - 3])) && !F[N - 4].empty()) {
    int64_t S;
    if (F[N - 1].getAsInteger(10, S) || S < 0)
      return fail("shared-memory size must be a non-negative integer");
    Smem = S;
    N -= 1;
  }
  auto Block = parseDims(F[N - 1]);
  if (!Block)
    return fail("bad block '" + F[N - 1].str() + "'");
  std::optional<Dim3> Grid;
  if (!F[N - 2].empty()) {
    Grid = parseDims(F[N - 2]);
    if (!Grid)
      return fail("bad grid '" + F[N - 2].str() + "'");
  }
  std::string Kernel = llvm::join(llvm::ArrayRef<llvm::StringRef>(F).take_front(N - 2), ":");
  if (Kernel.empty())
    return fail("missing kernel name");
  if (Block->count() > 1024)
    return fail("a block has at most 1024 threads");
  Out.Block = Block;
  Out.Grid = Grid;
  Out.DynamicSmemBytes = Smem;
  return Kernel;
}

std::optional<std::string> parseParamOption(llvm::StringRef Spec, std::string &Name,
                                            ParamValue &Value, std::string &Error) {
  size_t Eq = Spec.find('=');
  llvm::StringRef Left = Spec.substr(0, Eq);
  size_t Colon = Left.rfind(':');
  if (Eq == llvm::StringRef::npos || Colon == llvm::StringRef::npos || Colon == 0 ||
      Colon + 1 == Left.size()) {
    Error = "invalid --param '" + Spec.str() + "' (expected KERNEL:NAME=VALUE, e.g. saxpy:n=1048576)";
    return std::nullopt;
  }
  Name = Left.substr(Colon + 1).str();
  llvm::StringRef V = Spec.substr(Eq + 1).trim();
  int64_t I;
  double D;
  if (!V.getAsInteger(0, I))
    Value = I;
  else if (!V.getAsDouble(D))
    Value = D;
  else {
    Error = "invalid --param '" + Spec.str() + "': value '" + V.str() + "' is not a number";
    return std::nullopt;
  }
  return Left.substr(0, Colon).str();
}

} // namespace cudaperf
