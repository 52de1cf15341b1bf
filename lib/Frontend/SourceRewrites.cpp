//===- SourceRewrites.cpp - nvcc-only syntax made clang syntax --------------------------===//
#include "cudaperf/Frontend/SourceRewrites.h"
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

/// In an extended asm statement starting at \p I (the asm keyword): the string literals of its
/// template with lone '%' before a letter doubled, and missing commas between operands added.
/// Returns the index after the statement's operands; \p Out receives the rewritten statement text
/// when anything changed.
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
  // The operand lists, up to the asm's closing parenthesis: nvcc accepts operands without the
  // comma between them (`:: "r"(a) "l"(p)`), clang does not.
  std::string Operands;
  int Depth = 1;
  size_t P = K;
  while (P < T.size() && Depth > 0) {
    if (size_t After = skipNonCode(T, P); After != P) {
      Operands += T.slice(P, After).str();
      P = After;
      continue;
    }
    char C = T[P++];
    Operands += C;
    if (C == '(') {
      ++Depth;
    } else if (C == ')' && --Depth == 1) {
      size_t Next = skipSpace(T, P);
      if (Next < T.size() && (T[Next] == '"' || T[Next] == '[')) {
        Operands += ',';
        Changed = true;
      }
    }
  }
  if (!Changed)
    return I + KeywordLen;
  Out = T.slice(I, Start).str() + Template + Operands;
  return P;
}

/// `__shared__ cuda::barrier<...> NAME;` (or cuda::std::barrier, cuda::pipeline_shared_state):
/// nvcc ignores, with a warning, the construction and destruction of a __shared__ variable; clang
/// rejects the declaration. Rewritten, inside functions, to storage of the same size and a
/// reference of the original name and type. \p I is at "__shared__"; returns the index after the
/// declaration, or \p I when it is not one.
size_t rewriteSharedObject(llvm::StringRef T, size_t I, std::string &Out) {
  size_t J = skipSpace(T, I + 10);
  size_t TypeStart = J;
  bool Known = false;
  for (llvm::StringRef Prefix : {"cuda::barrier", "cuda::std::barrier", "cuda::pipeline_shared_state"})
    if (T.substr(J).starts_with(Prefix) && !isIdentChar(T[J + Prefix.size()])) {
      J += Prefix.size();
      Known = true;
    }
  if (!Known)
    return I;
  J = skipSpace(T, J);
  if (J >= T.size() || T[J] != '<')
    return I;
  int Angle = 0;
  for (; J < T.size(); ++J) {
    if (T[J] == ';' || T[J] == '{' || T[J] == '}')
      return I;
    if (T[J] == '<')
      ++Angle;
    else if (T[J] == '>' && --Angle == 0)
      break;
  }
  if (J >= T.size())
    return I;
  llvm::StringRef Type = T.slice(TypeStart, J + 1);
  size_t NameStart = skipSpace(T, J + 1), NameEnd = NameStart;
  while (NameEnd < T.size() && isIdentChar(T[NameEnd]))
    ++NameEnd;
  size_t Semi = skipSpace(T, NameEnd);
  if (NameEnd == NameStart || Semi >= T.size() || T[Semi] != ';')
    return I;
  llvm::StringRef Name = T.slice(NameStart, NameEnd);
  Out += ("__shared__ __cudaperf_uninitialized<" + Type + "> " + Name + "__cudaperf_storage; " +
          Type + " &" + Name + " = " + Name + "__cudaperf_storage.get();")
             .str();
  return Semi + 1;
}

/// Does the declaration head before a '{' name a __global__ or __device__ function? (Not a
/// comment above a host function that mentions them.)
bool opensDeviceFunction(llvm::StringRef Head) {
  if (!Head.contains('('))
    return false;
  for (size_t I = 0; I < Head.size();) {
    if (size_t After = skipNonCode(Head, I); After != I) {
      I = After;
      continue;
    }
    if (wordAt(Head, I, "__global__") || wordAt(Head, I, "__device__"))
      return true;
    ++I;
  }
  return false;
}

/// A kernel launch in device code (dynamic parallelism): `callee<<<config>>>(args)` at \p I (the
/// "<<<"), the callee already copied to the end of \p Out. Clang rejects device-side launches; the
/// launch becomes `__cudaperf_device_launch(config, args)`, which evaluates the same expressions
/// and launches nothing (the child kernel is analysed on its own). Returns the index after the
/// launch, or \p I when the text does not have that shape.
size_t rewriteDeviceLaunch(llvm::StringRef T, size_t I, std::string &Out) {
  // The callee at the end of Out: an identifier, qualified (a::b) and with template arguments.
  size_t E = Out.size();
  while (E > 0 && llvm::isSpace(Out[E - 1]))
    --E;
  size_t B = E;
  while (B > 0) {
    char C = Out[B - 1];
    if (isIdentChar(C) || C == ':') {
      --B;
    } else if (C == '>') {
      int Angle = 0;
      size_t K = B;
      while (K > 0) {
        char D = Out[--K];
        Angle += D == '>' ? 1 : D == '<' ? -1 : 0;
        if (Angle == 0)
          break;
        if (D == ';' || D == '{' || D == '}')
          return I;
      }
      if (Angle != 0)
        return I;
      B = K;
    } else {
      break;
    }
  }
  if (B == E || !(llvm::isAlpha(Out[B]) || Out[B] == '_' || Out[B] == ':'))
    return I;
  // The configuration up to the matching ">>>", then the argument list.
  size_t J = I + 3;
  int Depth = 0;
  std::string Config;
  while (J < T.size()) {
    if (size_t After = skipNonCode(T, J); After != J) {
      Config += T.slice(J, After).str();
      J = After;
      continue;
    }
    if (Depth == 0 && T.substr(J).starts_with(">>>"))
      break;
    char C = T[J++];
    if (C == ';' || C == '{' || C == '}')
      return I;
    Depth += (C == '(' || C == '[') ? 1 : (C == ')' || C == ']') ? -1 : 0;
    Config += C;
  }
  size_t Open = skipSpace(T, J + 3);
  if (J >= T.size() || Open >= T.size() || T[Open] != '(')
    return I;
  size_t K = Open + 1;
  Depth = 1;
  std::string Args;
  while (K < T.size() && Depth > 0) {
    if (size_t After = skipNonCode(T, K); After != K) {
      Args += T.slice(K, After).str();
      K = After;
      continue;
    }
    char C = T[K++];
    Depth += C == '(' ? 1 : C == ')' ? -1 : 0;
    if (Depth > 0)
      Args += C;
  }
  if (Depth != 0)
    return I;
  Out.resize(B);
  Out += "__cudaperf_device_launch(" + Config;
  if (!llvm::StringRef(Args).trim().empty())
    Out += ", " + Args;
  Out += ")";
  return K;
}

} // namespace

std::optional<std::string> rewriteNvccOnlySyntax(llvm::StringRef T) {
  if (!T.contains("alignas") && !T.contains("asm") && !T.contains("cuda::") && !T.contains("<<<"))
    return std::nullopt;
  std::string Out;
  Out.reserve(T.size() + 16);
  bool Any = false;
  size_t I = 0;
  // Braces are matched as if each #if took its first branch (alternative branches often open the
  // same brace twice); braces in directives (#define X {) do not count.
  struct BraceState {
    int Depth = 0;              // inside a function body (or a namespace) when above 0
    std::vector<bool> InDevice; // per open brace: inside a __global__/__device__ function
  };
  BraceState State{0, {false}};
  struct Conditional {
    BraceState AtIf;
    std::optional<BraceState> AfterFirstBranch;
  };
  std::vector<Conditional> Conditionals;
  int &BraceDepth = State.Depth;
  std::vector<bool> &InDevice = State.InDevice;
  size_t HeadStart = 0; // where the declaration before the next '{' begins
  auto atLineStart = [&](size_t P) {
    while (P > 0 && (T[P - 1] == ' ' || T[P - 1] == '\t'))
      --P;
    return P == 0 || T[P - 1] == '\n';
  };
  while (I < T.size()) {
    if (size_t After = skipNonCode(T, I); After != I) {
      Out += T.slice(I, After).str();
      I = After;
      continue;
    }
    if (T[I] == '#' && atLineStart(I)) {
      size_t W = skipSpace(T, I + 1), WEnd = W;
      while (WEnd < T.size() && isIdentChar(T[WEnd]))
        ++WEnd;
      llvm::StringRef Directive = T.slice(W, WEnd);
      if (Directive.starts_with("if")) {
        Conditionals.push_back({State, std::nullopt});
      } else if ((Directive == "else" || Directive.starts_with("elif")) && !Conditionals.empty()) {
        if (!Conditionals.back().AfterFirstBranch)
          Conditionals.back().AfterFirstBranch = State;
        State = Conditionals.back().AtIf;
      } else if (Directive == "endif" && !Conditionals.empty()) {
        if (Conditionals.back().AfterFirstBranch)
          State = *Conditionals.back().AfterFirstBranch;
        Conditionals.pop_back();
      }
      // The directive line, with its continuations, is copied as it is.
      size_t End = I;
      while (End < T.size() && T[End] != '\n')
        End += (T[End] == '\\' && End + 1 < T.size()) ? 2 : 1;
      Out += T.slice(I, End).str();
      I = End;
      HeadStart = I;
      continue;
    }
    if (wordAt(T, I, "__shared__")) {
      if (BraceDepth > 0)
        if (size_t End = rewriteSharedObject(T, I, Out); End != I) {
          I = End;
          Any = true;
          continue;
        }
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
    if (InDevice.back() && T.substr(I).starts_with("<<<"))
      if (size_t End = rewriteDeviceLaunch(T, I, Out); End != I) {
        I = End;
        Any = true;
        continue;
      }
    if (T[I] == '{') {
      ++BraceDepth;
      InDevice.push_back(InDevice.back() || opensDeviceFunction(T.slice(HeadStart, I)));
    } else if (T[I] == '}') {
      --BraceDepth;
      if (InDevice.size() > 1)
        InDevice.pop_back();
    }
    if (T[I] == '{' || T[I] == '}' || T[I] == ';')
      HeadStart = I + 1;
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

/// Why a file that exists is not read: clang prints this message where it names the file.
class NotRegularFileCategory : public std::error_category {
public:
  const char *name() const noexcept override { return "cudaperf-source"; }
  std::string message(int) const override {
    return "not a regular file (a FIFO, device or socket is never read as a source or header)";
  }
};

std::error_code notRegularFile() {
  static const NotRegularFileCategory Category;
  return {1, Category};
}

/// Files that exist but are neither regular files nor directories (FIFOs, /dev/zero, sockets): opening
/// a FIFO waits for a writer and a device never ends, so they are refused before anything opens them
/// (issue 35).
bool isSpecialFile(const llvm::vfs::Status &S) {
  return S.exists() && !S.isRegularFile() && !S.isDirectory();
}

class NvccSourceFileSystem : public llvm::vfs::ProxyFileSystem {
public:
  NvccSourceFileSystem(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> Base,
                       std::vector<std::string> Untouched)
      : ProxyFileSystem(std::move(Base)), Untouched(std::move(Untouched)) {}

  llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine &Path) override {
    auto S = ProxyFileSystem::status(Path);
    if (S && isSpecialFile(*S))
      return notRegularFile();
    if (!S || !S->isRegularFile())
      return S;
    if (auto Text = rewritten(Path.str()))
      return llvm::vfs::Status::copyWithNewSize(*S, (*Text)->size());
    return S;
  }

  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const llvm::Twine &Path) override {
    if (auto Before = ProxyFileSystem::status(Path); Before && isSpecialFile(*Before))
      return notRegularFile();
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
