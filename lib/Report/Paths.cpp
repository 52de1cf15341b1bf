#include "cudaperf/Report/Writers.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace cudaperf {

const char *toolVersion() { return CUDAPERF_VERSION; }

std::string displayPath(const std::string &File, const std::string &Root) {
  llvm::SmallString<256> Base(Root);
  if (Base.empty())
    llvm::sys::fs::current_path(Base);
  llvm::SmallString<256> Abs(File);
  llvm::sys::fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  llvm::sys::path::remove_dots(Base, /*remove_dot_dot=*/true);
  llvm::StringRef A = Abs, B = Base;
  if (!B.empty() && A.starts_with(B) && A.size() > B.size() &&
      llvm::sys::path::is_separator(A[B.size()]))
    return A.substr(B.size() + 1).str();
  return File;
}

} // namespace cudaperf
