//===- NvccArgs.cpp - nvcc command lines to clang CUDA command lines ------===//
//
// Compile databases of CUDA projects hold nvcc commands. Clang's CUDA driver rejects most nvcc-only
// options, so they are dropped (target selection, device linking, ptxas/nvlink pass-through,
// diagnostics control) or translated (host options wrapped in -Xcompiler, --use_fast_math,
// --fmad=false, --std). The analyzer sets the GPU arch itself (--arch), so every arch option of the
// command is dropped as well.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Frontend/Frontend.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using llvm::StringRef;

namespace cudaperf {

namespace {
// Options that take a value: as "-opt=value", "-opt value", or "-optvalue" for the short ones.
const char *const DropWithValue[] = {
    "-gencode", "--generate-code", "-arch", "--gpu-architecture", "-code", "--gpu-code",
    "-Xptxas", "--ptxas-options", "-Xnvlink", "--nvlink-options", "-Xcudafe", "-Xfatbin",
    "--fatbin-options", "-ccbin", "--compiler-bindir", "--default-stream", "-maxrregcount",
    "--maxrregcount", "-t", "--threads", "-diag-suppress", "--diag-suppress", "-diag-error",
    "--diag-error", "-diag-warn", "--diag-warn", "-rdc", "--relocatable-device-code", "-ftz",
    "--ftz", "-prec-div", "--prec-div", "-prec-sqrt", "--prec-sqrt",
    "-dlto", "--dlto", "-split-compile", "--split-compile", "--cuda-gpu-arch", "--offload-arch",
    "-odir", "--output-directory", "-MF", "-MT", "-MQ", "--dependency-output",
    "-Xarch_device", "-Xarch_host", "--keep-dir", "-keep-dir", "--cudart", "-cudart",
    "--cudadevrt", "-cudadevrt"};

const char *const DropAlone[] = {
    "--expt-relaxed-constexpr", "-expt-relaxed-constexpr", "--expt-extended-lambda",
    "-expt-extended-lambda", "--extended-lambda", "-extended-lambda", "-dc", "--device-c", "-dw",
    "--device-w", "-dlink", "--device-link", "-lineinfo", "--generate-line-info", "-G",
    "--device-debug", "-keep", "--keep", "-cubin", "--cubin", "-ptx", "--ptx", "-fatbin",
    "--fatbin", "--resource-usage", "-res-usage", "-forward-unknown-to-host-compiler",
    "--forward-unknown-to-host-compiler", "-Wno-deprecated-gpu-targets",
    "--Wno-deprecated-gpu-targets", "-Wno-deprecated-declarations", "--display-error-number",
    "-src-in-ptx", "--source-in-ptx", "-restrict", "--restrict", "-cuda", "--cuda",
    "-MD", "-MMD", "-M", "-MM", "-MP", "--extensible-whole-program", "-ewp", "-static-global-template-stub"};

bool matchesValueOption(StringRef Arg, StringRef Opt, bool &ValueIsNext) {
  if (Arg == Opt) {
    ValueIsNext = true;
    return true;
  }
  ValueIsNext = false;
  return Arg.starts_with(Opt) && Arg.size() > Opt.size() && Arg[Opt.size()] == '=';
}

void appendHostOptions(StringRef List, std::vector<std::string> &Out) {
  llvm::SmallVector<StringRef, 8> Parts;
  List.split(Parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef P : Parts)
    Out.push_back(P.trim().str());
}
} // namespace

std::vector<std::string> translateNvccArgs(const std::vector<std::string> &Args) {
  static const llvm::StringSet<> Alone = [] {
    llvm::StringSet<> S;
    for (const char *A : DropAlone)
      S.insert(A);
    return S;
  }();
  std::vector<std::string> Out;
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef A = Args[I];
    if (I == 0) { // the compiler itself: nvcc, clang++, g++ ...
      Out.push_back(A.ends_with("nvcc") ? "clang++" : A.str());
      continue;
    }
    if (Alone.contains(A))
      continue;
    bool Next = false;
    // -Xcompiler / --compiler-options: host options, comma-separated.
    if (matchesValueOption(A, "-Xcompiler", Next) ||
        matchesValueOption(A, "--compiler-options", Next)) {
      if (Next) {
        if (I + 1 < Args.size())
          appendHostOptions(Args[++I], Out);
      } else {
        appendHostOptions(A.substr(A.find('=') + 1), Out);
      }
      continue;
    }
    if (A == "--use_fast_math" || A == "-use_fast_math") {
      Out.push_back("-ffast-math");
      continue;
    }
    if (A.starts_with("--fmad=") || A.starts_with("-fmad=")) {
      if (A.ends_with("false"))
        Out.push_back("-ffp-contract=off");
      continue;
    }
    if (A == "-x" && I + 1 < Args.size() && (Args[I + 1] == "cu" || Args[I + 1] == "cuda")) {
      Out.push_back("-x");
      Out.push_back("cuda");
      ++I;
      continue;
    }
    if (matchesValueOption(A, "--std", Next) || (A == "-std" && (Next = true))) {
      std::string Value = Next ? (I + 1 < Args.size() ? Args[++I] : "") : A.substr(A.find('=') + 1).str();
      if (!Value.empty())
        Out.push_back("-std=" + Value);
      continue;
    }
    // nvcc's "-Werror kind[,kind]" takes a value; a following word that is no option and no file
    // is that value.
    if ((A == "-Werror" || A == "--Werror") && I + 1 < Args.size() &&
        !StringRef(Args[I + 1]).starts_with("-") && StringRef(Args[I + 1]).find('.') == StringRef::npos) {
      ++I;
      continue;
    }
    bool Dropped = false;
    for (const char *Opt : DropWithValue) {
      if (matchesValueOption(A, Opt, Next)) {
        if (Next)
          ++I;
        Dropped = true;
        break;
      }
    }
    // Glued short forms: -arch=sm_90 is handled above; -archsm_90 is not nvcc syntax, but
    // -Werror=... and -Werror alone appear in real databases.
    if (Dropped || A.starts_with("-Werror") || A.starts_with("--Werror") ||
        A.starts_with("--cuda-gpu-arch=") || A.starts_with("--offload-arch="))
      continue;
    Out.push_back(A.str());
  }
  return Out;
}

std::vector<std::string> nvccCodeGenerationFlags(const std::vector<std::string> &Args) {
  std::vector<std::string> Out;
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef A = Args[I];
    bool Next = false;
    if (A == "--expt-relaxed-constexpr" || A == "-expt-relaxed-constexpr" ||
        A == "--expt-extended-lambda" || A == "-expt-extended-lambda" ||
        A == "--extended-lambda" || A == "-extended-lambda" || A == "--use_fast_math" ||
        A == "-use_fast_math" || A.starts_with("--fmad=") || A.starts_with("-fmad=") ||
        A.starts_with("--ftz=") || A.starts_with("-ftz=") || A.starts_with("--prec-div=") ||
        A.starts_with("-prec-div=") || A.starts_with("--prec-sqrt=") || A.starts_with("-prec-sqrt=")) {
      Out.push_back(A.str());
    } else if (A == "-dc" || A == "--device-c" || A == "-rdc=true" ||
               A == "--relocatable-device-code=true") {
      Out.push_back("-rdc=true");
    } else if ((A == "-rdc" || A == "--relocatable-device-code") && I + 1 < Args.size()) {
      if (Args[++I] == "true")
        Out.push_back("-rdc=true");
    } else if (matchesValueOption(A, "-maxrregcount", Next) ||
               matchesValueOption(A, "--maxrregcount", Next)) {
      if (Next && I + 1 < Args.size())
        Out.push_back("-maxrregcount=" + Args[++I]);
      else if (!Next)
        Out.push_back("-maxrregcount=" + A.substr(A.find('=') + 1).str());
    }
  }
  return Out;
}

std::vector<std::string> sourceMeaningFlags(const clang::tooling::CompilationDatabase &DB,
                                            const std::string &File) {
  llvm::SmallString<256> Abs(File);
  llvm::sys::fs::make_absolute(Abs);
  std::vector<clang::tooling::CompileCommand> Commands = DB.getCompileCommands(Abs);
  if (Commands.empty())
    return {};
  const clang::tooling::CompileCommand &C = Commands.front();
  auto absolute = [&](StringRef Path) {
    llvm::SmallString<256> P(Path);
    if (!llvm::sys::path::is_absolute(P)) {
      llvm::SmallString<256> Dir(C.Directory);
      llvm::sys::fs::make_absolute(Dir);
      llvm::sys::path::append(Dir, P);
      P = Dir;
    }
    return std::string(P);
  };
  std::vector<std::string> Args = translateNvccArgs(C.CommandLine), Out;
  for (size_t I = 1; I < Args.size(); ++I) {
    StringRef A = Args[I];
    for (StringRef PathOpt : {"-I", "-isystem", "-iquote", "-include"}) {
      if (A == PathOpt && I + 1 < Args.size()) {
        Out.push_back(A.str());
        Out.push_back(absolute(Args[++I]));
        A = "";
        break;
      }
      if (PathOpt == "-I" && A.starts_with("-I") && A.size() > 2) {
        Out.push_back("-I" + absolute(A.drop_front(2)));
        A = "";
        break;
      }
    }
    if (A.empty())
      continue;
    if ((A.starts_with("-D") || A.starts_with("-U")) && A.size() > 2)
      Out.push_back(A.str());
    else if ((A == "-D" || A == "-U") && I + 1 < Args.size())
      Out.push_back(A.str() + Args[++I]);
    else if (A.starts_with("-std="))
      Out.push_back(A.str());
  }
  // What changes the code NVIDIA's compiler makes (and so the registers); translateNvccArgs drops
  // these for clang.
  for (std::string &F : nvccCodeGenerationFlags(C.CommandLine))
    Out.push_back(std::move(F));
  return Out;
}

} // namespace cudaperf
