//===- SourceRewrites.cpp - nvcc-only syntax made clang syntax --------------------------===//
#include "SourceRewrites.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <mutex>

namespace cudaperf {

namespace {

bool isIdentChar(char C) { return llvm::isAlnum(C) || C == '_'; }

/// Skips a comment, string or character literal starting at \p I; returns the index after it, or
/// \p I when none starts there.
size_t skipNonCode(llvm::StringRef T, size_t I) {
  if (T.substr(I).starts_with("//"))
    return std::min(T.size(), T.find('\n', I) == llvm::StringRef::npos ? T.size() : T.find('\n', I));
  if (T.substr(I).starts_with("/*")) {
    size_t E = T.find("*/", I + 2);
    return E == llvm::StringRef::npos ? T.size() : E + 2;
  }
  if (T[I] == '"' || T[I] == '\'') {
    char Q = T[I];
    size_t J = I + 1;
    while (J < T.size() && T[J] != Q && T[J] != '\n')
      J += T[J] == '\\' ? 2 : 1;
    return std::min(T.size(), J + 1);
  }
  return I;
}

bool wordAt(llvm::StringRef T, size_t I, llvm::StringRef W) {
  return T.substr(I).starts_with(W) && (I == 0 || !isIdentChar(T[I - 1])) &&
         (I + W.size() >= T.size() || !isIdentChar(T[I + W.size()]));
}

size_t skipSpace(llvm::StringRef T, size_t I) {
  while (I < T.size() && llvm::isSpace(T[I]))
    ++I;
  return I;
}

/// In an extended asm statement starting at \p I (the asm keyword), the string literals of its
/// template with lone '%' before a letter doubled. Returns the index after the template; \p Out
/// receives the rewritten template text when anything changed.
size_t rewriteAsmTemplate(llvm::StringRef T, size_t I, size_t KeywordLen, std::string &Out,
                          bool &Changed) {
  size_t J = skipSpace(T, I + KeywordLen);
  for (llvm::StringRef Q : {"volatile", "__volatile__", "__volatile", "inline", "goto"})
    if (wordAt(T, J, Q))
      J = skipSpace(T, J + Q.size());
  if (J >= T.size() || T[J] != '(')
    return I + KeywordLen;
  size_t Start = skipSpace(T, J + 1), K = Start;
  std::string Template;
  // Adjacent string literals (and the space between them).
  while (K < T.size() && T[K] == '"') {
    size_t End = skipNonCode(T, K);
    llvm::StringRef Lit = T.slice(K, End);
    for (size_t P = 0; P < Lit.size(); ++P) {
      Template += Lit[P];
      if (Lit[P] != '%')
        continue;
      if (P + 1 < Lit.size() && Lit[P + 1] == '%') {
        Template += Lit[++P];
        continue;
      }
      if (P + 1 < Lit.size() && llvm::isAlpha(Lit[P + 1])) {
        Template += '%';
        Changed = true;
      }
    }
    size_t Next = skipSpace(T, End);
    Template += T.slice(End, Next).str();
    K = Next;
  }
  // Only extended asm (with operands) interprets '%'.
  if (K >= T.size() || T[K] != ':' || K == Start) {
    Changed = false;
    return I + KeywordLen;
  }
  Out = T.slice(I, Start).str() + Template;
  return K;
}

} // namespace

std::optional<std::string> rewriteNvccOnlySyntax(llvm::StringRef T) {
  if (!T.contains("alignas") && !T.contains("asm"))
    return std::nullopt;
  std::string Out;
  Out.reserve(T.size() + 16);
  bool Any = false;
  size_t I = 0;
  while (I < T.size()) {
    if (size_t After = skipNonCode(T, I); After != I) {
      Out += T.slice(I, After).str();
      I = After;
      continue;
    }
    if (wordAt(T, I, "__shared__")) {
      size_t J = skipSpace(T, I + 10);
      if (wordAt(T, J, "alignas")) {
        Out += T.slice(I, J).str() + "__alnas";
        I = J + 7;
        Any = true;
        continue;
      }
    }
    for (llvm::StringRef Kw : {"asm", "__asm__", "__asm"}) {
      if (!wordAt(T, I, Kw))
        continue;
      std::string Rewritten;
      bool Changed = false;
      size_t End = rewriteAsmTemplate(T, I, Kw.size(), Rewritten, Changed);
      if (Changed) {
        Out += Rewritten;
        I = End;
        Any = true;
      } else {
        Out += T.slice(I, I + Kw.size()).str();
        I += Kw.size();
      }
      goto Next;
    }
    if (isIdentChar(T[I])) { // copy whole identifiers, so no keyword is found inside one
      size_t J = I;
      while (J < T.size() && isIdentChar(T[J]))
        ++J;
      Out += T.slice(I, J).str();
      I = J;
      continue;
    }
    Out += T[I++];
  Next:;
  }
  if (!Any)
    return std::nullopt;
  return Out;
}

namespace {

class RewrittenFile : public llvm::vfs::File {
public:
  RewrittenFile(llvm::vfs::Status S, std::shared_ptr<const std::string> Text)
      : S(std::move(S)), Text(std::move(Text)) {}
  llvm::ErrorOr<llvm::vfs::Status> status() override { return S; }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> getBuffer(const llvm::Twine &Name, int64_t,
                                                               bool, bool) override {
    return llvm::MemoryBuffer::getMemBufferCopy(*Text, Name);
  }
  std::error_code close() override { return {}; }

private:
  llvm::vfs::Status S;
  std::shared_ptr<const std::string> Text;
};

class NvccSourceFileSystem : public llvm::vfs::ProxyFileSystem {
public:
  NvccSourceFileSystem(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> Base,
                       std::vector<std::string> Untouched)
      : ProxyFileSystem(std::move(Base)), Untouched(std::move(Untouched)) {}

  llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine &Path) override {
    auto S = ProxyFileSystem::status(Path);
    if (!S || !S->isRegularFile())
      return S;
    if (auto Text = rewritten(Path.str()))
      return llvm::vfs::Status::copyWithNewSize(*S, (*Text)->size());
    return S;
  }

  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const llvm::Twine &Path) override {
    auto F = ProxyFileSystem::openFileForRead(Path);
    if (!F)
      return F;
    auto Text = rewritten(Path.str());
    if (!Text)
      return F;
    auto S = (*F)->status();
    if (!S)
      return F;
    return std::unique_ptr<llvm::vfs::File>(std::make_unique<RewrittenFile>(
        llvm::vfs::Status::copyWithNewSize(*S, (*Text)->size()), *Text));
  }

private:
  /// The rewritten contents of \p Path, or std::nullopt when it is left as it is.
  std::optional<std::shared_ptr<const std::string>> rewritten(const std::string &Path) {
    std::lock_guard<std::mutex> Lock(M);
    auto It = Cache.find(Path);
    if (It != Cache.end())
      return It->second ? std::optional(It->second) : std::nullopt;
    std::shared_ptr<const std::string> Result;
    if (!untouched(Path))
      if (auto Buf = getUnderlyingFS().getBufferForFile(Path))
        if (auto Text = rewriteNvccOnlySyntax((*Buf)->getBuffer()))
          Result = std::make_shared<const std::string>(std::move(*Text));
    Cache[Path] = Result;
    return Result ? std::optional(Result) : std::nullopt;
  }

  bool untouched(llvm::StringRef Path) const {
    for (const std::string &D : Untouched)
      if (!D.empty() && Path.starts_with(D))
        return true;
    return false;
  }

  std::vector<std::string> Untouched;
  std::mutex M;
  llvm::StringMap<std::shared_ptr<const std::string>> Cache;
};

} // namespace

llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>
createNvccSourceFileSystem(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> Base,
                           std::vector<std::string> UntouchedDirs) {
  return llvm::makeIntrusiveRefCnt<NvccSourceFileSystem>(std::move(Base), std::move(UntouchedDirs));
}

} // namespace cudaperf
