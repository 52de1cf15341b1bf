//===- ResourceCompiler.cpp - ptxas's resource report for a file, cached on disk -----------===//
//
// See Resources.h for the routes. Timings on the 2-core development machine (CUDA 13.0), for a
// file of three small kernels: nvcc -cubin 0.75-1.05 s, NVRTC 0.13 s, a cache hit ~1 ms.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Analysis/Resources.h"
#include "cudaperf/Analysis/FaultIsolation.h"
#include "cudaperf/Support/Toolkit.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <set>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>

extern char **environ;

namespace cudaperf {

namespace {

constexpr const char *CacheFormat = "cudaperf-resources-v1";
constexpr unsigned CompileTimeoutSeconds = 300;

int toInt(llvm::StringRef S) {
  int V = 0;
  S.trim().getAsInteger(10, V);
  return V;
}

// --- ptxas -v ---------------------------------------------------------------------------------

/// "Used 10 registers, used 1 barriers, 512 bytes smem, 368 bytes cmem[0]" and the like.
void parseUsedLine(llvm::StringRef Line, KernelResourceUsage &U) {
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  Line.split(Parts, ',');
  for (llvm::StringRef P : Parts) {
    P = P.trim();
    llvm::SmallVector<llvm::StringRef, 4> W;
    P.split(W, ' ', -1, /*KeepEmpty=*/false);
    if (W.size() >= 3 && W[0].equals_insensitive("used") && W[2].starts_with("register"))
      U.Registers = toInt(W[1]);
    else if (W.size() >= 3 && W[0].equals_insensitive("used") && W[2].starts_with("barrier"))
      U.Barriers = toInt(W[1]);
    else if (W.size() >= 3 && W[1] == "bytes" && W[2] == "smem")
      U.StaticSharedBytes = toInt(W[0]);
    else if (W.size() >= 3 && W[1] == "bytes" && W[2] == "cmem[0]")
      U.ConstantBytes = toInt(W[0]);
  }
}

/// "0 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads"
void parsePropertiesLine(llvm::StringRef Line, KernelResourceUsage &U) {
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Line.split(Parts, ',');
  for (llvm::StringRef P : Parts) {
    P = P.trim();
    auto [Num, Rest] = P.split(' ');
    Rest = Rest.trim();
    if (Rest == "bytes stack frame")
      U.StackFrameBytes = toInt(Num);
    else if (Rest == "bytes spill stores")
      U.SpillStoreBytes = toInt(Num);
    else if (Rest == "bytes spill loads")
      U.SpillLoadBytes = toInt(Num);
  }
}

// --- the toolkit --------------------------------------------------------------------------------

std::vector<std::string> toolkitCandidates(const std::string &Explicit) {
  return support::toolkitRoots(Explicit);
}

/// --cuda-path's nvcc first, then support::findNvcc's order ($CUDAPERF_NVCC, the roots, PATH).
std::string findNvcc(const std::string &CudaPath) {
  return support::findNvcc(toolkitCandidates(CudaPath), CudaPath.empty() ? "" : CudaPath + "/bin/nvcc");
}

/// Size and modification time: enough to tell two installed compilers apart for the cache.
std::string fileIdentity(llvm::StringRef Path) {
  llvm::sys::fs::file_status St;
  if (llvm::sys::fs::status(Path, St))
    return "?";
  return (llvm::Twine(St.getSize()) + ":" +
          llvm::Twine(St.getLastModificationTime().time_since_epoch().count()))
      .str();
}

/// NVRTC's entry points, resolved from libnvrtc.so at run time so that the analyzer builds and
/// runs without a toolkit.
struct Nvrtc {
  using Program = void *;
  int (*CreateProgram)(Program *, const char *, const char *, int, const char *const *,
                       const char *const *) = nullptr;
  int (*DestroyProgram)(Program *) = nullptr;
  int (*CompileProgram)(Program, int, const char *const *) = nullptr;
  int (*GetProgramLogSize)(Program, size_t *) = nullptr;
  int (*GetProgramLog)(Program, char *) = nullptr;
  int (*AddNameExpression)(Program, const char *) = nullptr;
  int (*Version)(int *, int *) = nullptr;
  const char *(*GetErrorString)(int) = nullptr;
  std::string Path;
  std::string VersionText;

  static const Nvrtc *load(const std::string &CudaPath) {
    static std::map<std::string, std::unique_ptr<Nvrtc>> Loaded;
    auto It = Loaded.find(CudaPath);
    if (It != Loaded.end())
      return It->second.get();
    std::unique_ptr<Nvrtc> N;
    std::vector<std::string> Names;
    for (const std::string &Root : toolkitCandidates(CudaPath))
      for (const char *Lib : {"/lib64/libnvrtc.so", "/lib64/libnvrtc.so.13", "/lib64/libnvrtc.so.12",
                              "/lib/libnvrtc.so"})
        Names.push_back(Root + Lib);
    for (const char *Lib : {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"})
      Names.push_back(Lib);
    for (const std::string &Name : Names) {
      if (Name.find('/') != std::string::npos && !llvm::sys::fs::exists(Name))
        continue;
      std::string Err;
      auto Lib = llvm::sys::DynamicLibrary::getPermanentLibrary(Name.c_str(), &Err);
      if (!Lib.isValid())
        continue;
      auto Candidate = std::make_unique<Nvrtc>();
      auto Get = [&](auto &Fn, const char *Sym) {
        Fn = reinterpret_cast<std::remove_reference_t<decltype(Fn)>>(Lib.getAddressOfSymbol(Sym));
        return Fn != nullptr;
      };
      if (Get(Candidate->CreateProgram, "nvrtcCreateProgram") &&
          Get(Candidate->DestroyProgram, "nvrtcDestroyProgram") &&
          Get(Candidate->CompileProgram, "nvrtcCompileProgram") &&
          Get(Candidate->GetProgramLogSize, "nvrtcGetProgramLogSize") &&
          Get(Candidate->GetProgramLog, "nvrtcGetProgramLog") &&
          Get(Candidate->AddNameExpression, "nvrtcAddNameExpression") &&
          Get(Candidate->Version, "nvrtcVersion") &&
          Get(Candidate->GetErrorString, "nvrtcGetErrorString")) {
        int Major = 0, Minor = 0;
        Candidate->Version(&Major, &Minor);
        Candidate->Path = Name;
        Candidate->VersionText = "nvrtc " + std::to_string(Major) + "." + std::to_string(Minor);
        N = std::move(Candidate);
        break;
      }
    }
    return (Loaded[CudaPath] = std::move(N)).get();
  }
};

// --- the cache ------------------------------------------------------------------------------------

/// The headers a file includes that are not the toolkit's or the system's: those found next to
/// the including file or in a -I directory. Their contents go into the cache key.
void collectLocalIncludes(const std::string &File, const std::vector<std::string> &IncludeDirs,
                          std::set<std::string> &Seen, std::vector<std::string> &Out) {
  auto Buf = llvm::MemoryBuffer::getFile(File);
  if (!Buf)
    return;
  static const llvm::Regex Include("^[ \t]*#[ \t]*include[ \t]*[\"<]([^\">]+)[\">]");
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  (*Buf)->getBuffer().split(Lines, '\n');
  for (llvm::StringRef Line : Lines) {
    llvm::SmallVector<llvm::StringRef, 2> M;
    if (!Include.match(Line, &M))
      continue;
    std::vector<std::string> Dirs = {llvm::sys::path::parent_path(File).str()};
    Dirs.insert(Dirs.end(), IncludeDirs.begin(), IncludeDirs.end());
    for (const std::string &Dir : Dirs) {
      llvm::SmallString<256> P(Dir.empty() ? "." : Dir);
      llvm::sys::path::append(P, M[1]);
      if (!llvm::sys::fs::is_regular_file(P))
        continue;
      if (Seen.insert(std::string(P)).second) {
        Out.push_back(std::string(P));
        collectLocalIncludes(std::string(P), IncludeDirs, Seen, Out);
      }
      break;
    }
  }
}

std::vector<std::string> includeDirs(const std::vector<std::string> &Args) {
  std::vector<std::string> Dirs;
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef A = Args[I];
    if (A == "-I" && I + 1 < Args.size())
      Dirs.push_back(Args[++I]);
    else if (A.starts_with("-I"))
      Dirs.push_back(A.drop_front(2).str());
  }
  return Dirs;
}

std::string cacheKey(const ResourceRequest &R, llvm::StringRef Route, llvm::StringRef CompilerId) {
  llvm::SHA256 H;
  auto Add = [&](llvm::StringRef S) {
    H.update(S);
    H.update(llvm::StringRef("\0", 1));
  };
  Add(CacheFormat);
  Add(Route);
  Add(CompilerId);
  Add(R.Arch);
  for (const std::string &A : R.Args)
    Add(A);
  for (const std::string &N : R.NameExpressions)
    Add(N);
  std::vector<std::string> Files = {R.File};
  std::set<std::string> Seen = {R.File};
  collectLocalIncludes(R.File, includeDirs(R.Args), Seen, Files);
  for (const std::string &F : Files) {
    Add(F == R.File ? "" : F);
    if (auto Buf = llvm::MemoryBuffer::getFile(F))
      Add((*Buf)->getBuffer());
  }
  return llvm::toHex(H.final(), /*LowerCase=*/true);
}

llvm::json::Value toJSON(const ResourceReport &Rep) {
  llvm::json::Object Kernels;
  for (const auto &[Name, U] : Rep.Kernels)
    Kernels[Name] = llvm::json::Object{{"registers", U.Registers},
                                       {"spill_store_bytes", U.SpillStoreBytes},
                                       {"spill_load_bytes", U.SpillLoadBytes},
                                       {"stack_frame_bytes", U.StackFrameBytes},
                                       {"static_smem_bytes", U.StaticSharedBytes},
                                       {"barriers", U.Barriers},
                                       {"constant_bytes", U.ConstantBytes}};
  return llvm::json::Object{{"format", CacheFormat},
                            {"source", Rep.Source},
                            {"compiler", Rep.Compiler},
                            {"seconds", Rep.Seconds},
                            {"kernels", std::move(Kernels)}};
}

std::optional<ResourceReport> readCache(const std::string &Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return std::nullopt;
  auto V = llvm::json::parse((*Buf)->getBuffer());
  if (!V) {
    llvm::consumeError(V.takeError());
    return std::nullopt;
  }
  const llvm::json::Object *O = V->getAsObject();
  if (!O || O->getString("format") != llvm::StringRef(CacheFormat))
    return std::nullopt;
  ResourceReport Rep;
  Rep.Source = O->getString("source").value_or("").str();
  Rep.Compiler = O->getString("compiler").value_or("").str();
  Rep.Cached = true;
  if (const llvm::json::Object *Ks = O->getObject("kernels"))
    for (const auto &[Name, KV] : *Ks) {
      const llvm::json::Object *K = KV.getAsObject();
      if (!K)
        continue;
      auto I = [&](llvm::StringRef Key) { return int(K->getInteger(Key).value_or(0)); };
      KernelResourceUsage U;
      U.Registers = I("registers");
      U.SpillStoreBytes = I("spill_store_bytes");
      U.SpillLoadBytes = I("spill_load_bytes");
      U.StackFrameBytes = I("stack_frame_bytes");
      U.StaticSharedBytes = I("static_smem_bytes");
      U.Barriers = I("barriers");
      U.ConstantBytes = I("constant_bytes");
      Rep.Kernels[Name.str()] = U;
    }
  return Rep;
}

void writeCache(const std::string &Path, const ResourceReport &Rep) {
  llvm::sys::fs::create_directories(llvm::sys::path::parent_path(Path));
  std::string Tmp = Path + ".tmp" + std::to_string(llvm::sys::Process::getProcessId());
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Tmp, EC);
    if (EC)
      return; // an unwritable cache only costs time
    OS << toJSON(Rep);
  }
  if (llvm::sys::fs::rename(Tmp, Path))
    llvm::sys::fs::remove(Tmp);
}

// --- the compilers --------------------------------------------------------------------------------

/// Runs \p Args (stdout and stderr to \p LogFile) in its own process group, so that a time-out
/// or a cancellation kills nvcc and the compilers it started. Returns the exit code, or -1 with
/// \p ErrMsg set.
int runCancellable(const std::vector<std::string> &Args, const std::string &LogFile,
                   const std::atomic<bool> *Cancel, std::string &ErrMsg) {
  std::vector<char *> Argv;
  for (const std::string &A : Args)
    Argv.push_back(const_cast<char *>(A.c_str()));
  Argv.push_back(nullptr);
  posix_spawn_file_actions_t Files;
  posix_spawn_file_actions_init(&Files);
  posix_spawn_file_actions_addopen(&Files, 1, LogFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&Files, 1, 2);
  posix_spawn_file_actions_addopen(&Files, 0, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t Attr;
  posix_spawnattr_init(&Attr);
  posix_spawnattr_setflags(&Attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&Attr, 0);
  pid_t Pid = 0;
  int Err = posix_spawn(&Pid, Args.front().c_str(), &Files, &Attr, Argv.data(), environ);
  posix_spawn_file_actions_destroy(&Files);
  posix_spawnattr_destroy(&Attr);
  if (Err != 0) {
    ErrMsg = "cannot run " + Args.front() + ": " + std::strerror(Err);
    return -1;
  }
  auto Deadline = std::chrono::steady_clock::now() + std::chrono::seconds(CompileTimeoutSeconds);
  for (;;) {
    int Status = 0;
    pid_t Done = waitpid(Pid, &Status, WNOHANG);
    if (Done == Pid)
      return WIFEXITED(Status) ? WEXITSTATUS(Status) : 128 + WTERMSIG(Status);
    if (Done < 0 && errno != EINTR) {
      ErrMsg = std::string("waitpid: ") + std::strerror(errno);
      return -1;
    }
    bool Cancelled = Cancel && Cancel->load();
    if (Cancelled || std::chrono::steady_clock::now() > Deadline) {
      kill(-Pid, SIGKILL);
      waitpid(Pid, &Status, 0);
      ErrMsg = Cancelled ? "cancelled" : "timed out after " + std::to_string(CompileTimeoutSeconds) + " s";
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

llvm::Expected<std::string> runNvcc(const std::string &Nvcc, const ResourceRequest &R,
                                    const std::atomic<bool> *Cancel) {
  llvm::SmallString<128> Out, Log;
  if (auto EC = llvm::sys::fs::createTemporaryFile("cudaperf-resources", "cubin", Out))
    return llvm::createStringError(EC, "cannot create a temporary file");
  if (auto EC = llvm::sys::fs::createTemporaryFile("cudaperf-resources", "log", Log))
    return llvm::createStringError(EC, "cannot create a temporary file");
  std::vector<std::string> Args = {Nvcc, "-cubin", "-O3", "-arch=" + R.Arch, "-Xptxas", "-v",
                                   "-o", std::string(Out)};
  Args.insert(Args.end(), R.Args.begin(), R.Args.end());
  Args.push_back(R.File);
  std::string ErrMsg;
  int RC = runCancellable(Args, std::string(Log), Cancel, ErrMsg);
  auto Text = llvm::MemoryBuffer::getFile(Log);
  std::string LogText = Text ? (*Text)->getBuffer().str() : "";
  llvm::sys::fs::remove(Out);
  llvm::sys::fs::remove(Log);
  if (RC != 0) {
    llvm::StringRef First = llvm::StringRef(LogText).trim();
    for (llvm::StringRef L : llvm::split(LogText, '\n'))
      if (L.contains("error")) {
        First = L.trim();
        break;
      }
    return llvm::createStringError(std::errc::invalid_argument, "nvcc failed (exit %d): %s", RC,
                                   (ErrMsg.empty() ? First.str() : ErrMsg).c_str());
  }
  return LogText;
}

std::string nvccVersion(const std::string &Nvcc) {
  llvm::SmallString<128> Log;
  if (llvm::sys::fs::createTemporaryFile("cudaperf-nvcc-version", "txt", Log))
    return "nvcc";
  llvm::StringRef Args[] = {Nvcc, "--version"};
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, llvm::StringRef(Log),
                                                llvm::StringRef(Log)};
  llvm::sys::ExecuteAndWait(Nvcc, Args, std::nullopt, Redirects, 30);
  std::string Version = "nvcc";
  // "Cuda compilation tools, release 13.0, V13.0.48"
  if (auto Text = llvm::MemoryBuffer::getFile(Log))
    for (llvm::StringRef L : llvm::split((*Text)->getBuffer(), '\n'))
      if (L.contains("release") && L.rfind(", V") != llvm::StringRef::npos)
        Version = ("nvcc " + L.substr(L.rfind(", V") + 3).trim()).str();
  llvm::sys::fs::remove(Log);
  return Version;
}

llvm::Expected<std::string> runNvrtc(const Nvrtc &N, const ResourceRequest &R) {
  auto Buf = llvm::MemoryBuffer::getFile(R.File);
  if (!Buf)
    return llvm::createStringError(Buf.getError(), "cannot read %s", R.File.c_str());
  std::string Source = (*Buf)->getBuffer().str();
  Nvrtc::Program P = nullptr;
  int RC = N.CreateProgram(&P, Source.c_str(), R.File.c_str(), 0, nullptr, nullptr);
  if (RC != 0)
    return llvm::createStringError(std::errc::invalid_argument, "nvrtcCreateProgram: %s",
                                   N.GetErrorString(RC));
  for (const std::string &E : R.NameExpressions)
    N.AddNameExpression(P, E.c_str());
  std::vector<std::string> Opts = {"-arch=" + R.Arch, "--ptxas-options=-v",
                                   "-I" + llvm::sys::path::parent_path(R.File).str()};
  // The toolkit's headers (cuda_runtime.h and friends) compile under NVRTC for device-only files.
  for (const std::string &Root : toolkitCandidates(R.CudaPath))
    if (llvm::sys::fs::exists(Root + "/include/cuda_runtime.h")) {
      Opts.push_back("-I" + Root + "/include");
      break;
    }
  for (size_t I = 0; I < R.Args.size(); ++I) {
    llvm::StringRef A = R.Args[I];
    // NVRTC takes the preprocessor and language options nvcc does; the rest is nvcc's own.
    if ((A == "-I" || A == "-D" || A == "-U") && I + 1 < R.Args.size()) {
      Opts.push_back((A + R.Args[++I]).str());
    } else if (A.starts_with("-I") || A.starts_with("-D") || A.starts_with("-U") ||
               A.starts_with("-std=") || A.starts_with("-maxrregcount") ||
               A.starts_with("--maxrregcount") || A.starts_with("--use_fast_math") ||
               A.starts_with("-use_fast_math") || A.starts_with("--extended-lambda") ||
               A.starts_with("--expt-") || A.starts_with("-rdc=") || A.starts_with("--fmad=") ||
               A.starts_with("--ftz=") || A.starts_with("--prec-div=") ||
               A.starts_with("--prec-sqrt=")) {
      Opts.push_back(A.str());
    }
  }
  std::vector<const char *> OptPtrs;
  for (const std::string &O : Opts)
    OptPtrs.push_back(O.c_str());
  RC = N.CompileProgram(P, int(OptPtrs.size()), OptPtrs.data());
  size_t Size = 0;
  N.GetProgramLogSize(P, &Size);
  std::string Log(Size, '\0');
  if (Size)
    N.GetProgramLog(P, Log.data());
  N.DestroyProgram(&P);
  if (RC != 0) {
    llvm::StringRef First = llvm::StringRef(Log).trim();
    for (llvm::StringRef L : llvm::split(Log, '\n'))
      if (L.contains("error")) {
        First = L.trim();
        break;
      }
    return llvm::createStringError(std::errc::invalid_argument, "NVRTC failed: %s",
                                   First.str().c_str());
  }
  return Log;
}

} // namespace

std::map<std::string, KernelResourceUsage> parsePtxasLog(llvm::StringRef Log) {
  std::map<std::string, KernelResourceUsage> Kernels;
  std::string Entry;         // the entry function being reported on
  std::string PropertiesFor; // "Function properties for X" precedes its stack/spill line
  for (llvm::StringRef Line : llvm::split(Log, '\n')) {
    Line = Line.trim();
    // NVRTC prefixes continuation lines with "ptxas         ."
    if (Line.starts_with("ptxas"))
      Line = Line.drop_front(5).ltrim();
    if (Line.starts_with("info"))
      Line = Line.drop_front(4).ltrim();
    if (Line.starts_with(":") || Line.starts_with("."))
      Line = Line.drop_front(1).ltrim();
    if (Line.consume_front("Compiling entry function '")) {
      Entry = Line.take_until([](char C) { return C == '\''; }).str();
      Kernels[Entry];
      PropertiesFor.clear();
    } else if (Line.consume_front("Function properties for ")) {
      PropertiesFor = Line.trim().str();
    } else if (Line.contains("bytes stack frame")) {
      if (!PropertiesFor.empty() && Kernels.count(PropertiesFor))
        parsePropertiesLine(Line, Kernels[PropertiesFor]);
      PropertiesFor.clear();
    } else if (Line.starts_with("Used ") && !Entry.empty()) {
      parseUsedLine(Line, Kernels[Entry]);
    }
  }
  return Kernels;
}

ResourceRoute parseResourceRoute(llvm::StringRef S) {
  return llvm::StringSwitch<ResourceRoute>(S.lower())
      .Case("nvcc", ResourceRoute::Nvcc)
      .Case("nvrtc", ResourceRoute::Nvrtc)
      .Case("estimate", ResourceRoute::Estimate)
      .Default(ResourceRoute::Auto);
}

std::string resourceCacheDir() { return support::cacheDirectory(); }

namespace {

llvm::Expected<ResourceReport> compileResourcesNow(const ResourceRequest &R,
                                                   const std::atomic<bool> *Cancel) {
  if (R.Route == ResourceRoute::Estimate)
    return llvm::createStringError(std::errc::operation_not_supported,
                                   "NVIDIA's compiler was not asked for (route 'estimate')");
  std::string Nvcc = R.Route == ResourceRoute::Nvrtc ? "" : findNvcc(R.CudaPath);
  const Nvrtc *N = R.Route == ResourceRoute::Nvcc ? nullptr : Nvrtc::load(R.CudaPath);

  // Order: NVRTC first only for files without host code (it is ~6x faster), else nvcc.
  struct Attempt {
    std::string Route;
    std::string CompilerId;
  };
  std::vector<Attempt> Attempts;
  if (N && (!R.HasHostCode || Nvcc.empty()))
    Attempts.push_back({"nvrtc", N->VersionText + "@" + fileIdentity(N->Path)});
  if (!Nvcc.empty())
    Attempts.push_back(
        {"nvcc", "nvcc@" + fileIdentity(Nvcc) + ";ptxas@" +
                     fileIdentity(llvm::sys::path::parent_path(Nvcc).str() + "/ptxas")});
  if (Attempts.empty())
    return llvm::createStringError(std::errc::no_such_file_or_directory,
                                   "no NVIDIA compiler found (nvcc or libnvrtc.so; set CUDA_PATH)");

  std::string CacheDir = R.CacheDir.empty() ? resourceCacheDir() : R.CacheDir;
  bool UseCache = !CacheDir.empty() && CacheDir != "-";
  std::vector<std::string> Notes;
  std::string LastError;
  for (const Attempt &A : Attempts) {
    std::string CachePath;
    if (UseCache) {
      CachePath = CacheDir + "/resources/" + cacheKey(R, A.Route, A.CompilerId) + ".json";
      if (auto Hit = readCache(CachePath)) {
        Hit->Notes = Notes;
        return *Hit;
      }
    }
    auto Start = std::chrono::steady_clock::now();
    llvm::Expected<std::string> Log = A.Route == "nvrtc" ? runNvrtc(*N, R) : runNvcc(Nvcc, R, Cancel);
    if (!Log) {
      LastError = llvm::toString(Log.takeError());
      Notes.push_back(LastError);
      continue;
    }
    ResourceReport Rep;
    Rep.Source = A.Route;
    Rep.Compiler = A.Route == "nvrtc" ? N->VersionText : nvccVersion(Nvcc);
    Rep.Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    Rep.Kernels = parsePtxasLog(*Log);
    Rep.Notes = Notes;
    if (UseCache)
      writeCache(CachePath, Rep);
    return Rep;
  }
  return llvm::createStringError(std::errc::invalid_argument, "%s", LastError.c_str());
}

/// A register compile running on its own thread (prefetchResources).
struct Prefetch {
  std::thread Worker;
  std::atomic<bool> Cancel{false};
  std::mutex M;
  std::condition_variable Finished;
  bool Done = false;
  std::optional<ResourceReport> Report;
  std::string Error;
};

std::mutex PrefetchesMutex;
std::map<std::string, std::unique_ptr<Prefetch>> Prefetches; // by requestIdentity

std::string requestIdentity(const ResourceRequest &R) {
  std::string Id = R.File + '\n' + R.Arch + '\n' + R.CudaPath + '\n' + R.CacheDir + '\n' +
                   std::to_string(int(R.Route)) + std::to_string(int(R.HasHostCode));
  for (const std::string &A : R.Args)
    Id += '\n' + A;
  Id += "\n--";
  for (const std::string &N : R.NameExpressions)
    Id += '\n' + N;
  return Id;
}

} // namespace

void prefetchResources(const ResourceRequest &R) {
  if (R.Route == ResourceRoute::Estimate)
    return;
  std::lock_guard<std::mutex> Lock(PrefetchesMutex);
  auto &Slot = Prefetches[requestIdentity(R)];
  if (Slot)
    return;
  Slot = std::make_unique<Prefetch>();
  Prefetch *P = Slot.get();
  P->Worker = std::thread([P, R] {
    std::optional<ResourceReport> Report;
    std::string Error;
    // A fault in the prefetch is reported like a failed compile: registers are then estimated.
    if (std::optional<Fault> F = runIsolated([&] {
          llvm::Expected<ResourceReport> Rep = compileResourcesNow(R, &P->Cancel);
          if (Rep)
            Report = std::move(*Rep);
          else
            Error = llvm::toString(Rep.takeError());
        }))
      Error = "the register compile stopped with a fault (" + F->Description + ")";
    std::lock_guard<std::mutex> Lock(P->M);
    P->Report = std::move(Report);
    P->Error = std::move(Error);
    P->Done = true;
    P->Finished.notify_all();
  });
}

void cancelResourcePrefetches() {
  std::map<std::string, std::unique_ptr<Prefetch>> All;
  {
    std::lock_guard<std::mutex> Lock(PrefetchesMutex);
    All.swap(Prefetches);
  }
  for (auto &[Id, P] : All) {
    P->Cancel = true;
    if (P->Worker.joinable())
      P->Worker.join();
  }
}

llvm::Expected<ResourceReport> compileResources(const ResourceRequest &R) {
  Prefetch *P = nullptr;
  {
    std::lock_guard<std::mutex> Lock(PrefetchesMutex);
    auto It = Prefetches.find(requestIdentity(R));
    if (It != Prefetches.end())
      P = It->second.get();
  }
  if (!P)
    return compileResourcesNow(R, nullptr);
  std::unique_lock<std::mutex> Lock(P->M);
  P->Finished.wait(Lock, [P] { return P->Done; });
  if (P->Report)
    return *P->Report;
  return llvm::createStringError(std::errc::invalid_argument, "%s", P->Error.c_str());
}

} // namespace cudaperf
