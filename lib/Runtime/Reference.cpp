#include "cudaperf/Runtime/Reference.h"
#include "cudaperf/Runtime/Build.h"

#include <chrono>
#include <cstdio>
#include <dlfcn.h>
#include <unistd.h>

namespace cudaperf::runtime {

ReferenceLibrary::~ReferenceLibrary() {
  if (handle_)
    dlclose(handle_);
}

bool ReferenceLibrary::load(const std::string &soPath, std::string &error) {
  handle_ = dlopen(soPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    error = dlerror();
    return false;
  }
  invoke_ = reinterpret_cast<void (*)(void *const *)>(dlsym(handle_, kReferenceShimSymbol));
  if (!invoke_) {
    error = soPath + ": no symbol " + kReferenceShimSymbol;
    return false;
  }
  return true;
}

void ReferenceLibrary::invoke(const Task &task, HostArgs &args) const {
  PackedArgs packed = packArgs(task, args);
  invoke_(packed.pointers.data());
}

ExpectedSet computeExpected(const Task &task, const Config &config, uint64_t seed,
                            const ReferenceLibrary &reference) {
  ExpectedSet set;
  set.seed = seed;
  set.inputs = makeHostArgs(task, config, seed);
  HostArgs work = set.inputs;
  auto start = std::chrono::steady_clock::now();
  reference.invoke(task, work);
  set.referenceMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  set.expected = std::move(work.buffers);
  return set;
}

namespace {
constexpr uint64_t kExpectedMagic = 0x32545045'43524543ull; // "CERCEPT2": slim sets

bool writeAll(FILE *f, const void *p, size_t n) { return n == 0 || fwrite(p, 1, n, f) == n; }
bool readAll(FILE *f, void *p, size_t n) { return n == 0 || fread(p, 1, n, f) == n; }

// Only what a worker uses is kept: the inputs of arguments the entry reads and the expected
// values of the ones it writes (the rest are poison, or equal to the inputs).
bool keepInput(const Argument &a) { return a.isPointer() && a.access != Argument::Access::Out; }
bool keepExpected(const Argument &a) { return a.isOutput(); }

bool writeBuffers(FILE *f, const Task &task, const std::vector<std::vector<unsigned char>> &bufs,
                  bool (*keep)(const Argument &)) {
  uint64_t count = bufs.size();
  bool ok = writeAll(f, &count, sizeof count);
  for (size_t i = 0; i < bufs.size(); ++i) {
    bool kept = i < task.args.size() && keep(task.args[i]);
    uint64_t n = kept ? bufs[i].size() : 0;
    ok = ok && writeAll(f, &n, sizeof n) && (!kept || writeAll(f, bufs[i].data(), bufs[i].size()));
  }
  return ok;
}

bool readBuffers(FILE *f, std::vector<std::vector<unsigned char>> &bufs, const std::vector<uint64_t> &sizes) {
  uint64_t count = 0;
  if (!readAll(f, &count, sizeof count) || count != sizes.size())
    return false;
  bufs.assign(count, {});
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t n = 0;
    if (!readAll(f, &n, sizeof n) || n != sizes[i])
      return false;
    bufs[i].resize(n);
    if (!readAll(f, bufs[i].data(), n))
      return false;
  }
  return true;
}
} // namespace

bool saveExpected(const std::string &path, const Task &task, const ExpectedSet &set) {
  std::string tmp = path + ".tmp" + std::to_string(getpid());
  FILE *f = fopen(tmp.c_str(), "wb");
  if (!f)
    return false;
  uint64_t magic = kExpectedMagic, nScalars = set.inputs.scalars.size();
  bool ok = writeAll(f, &magic, sizeof magic) && writeAll(f, &set.seed, sizeof set.seed) &&
            writeAll(f, &set.referenceMs, sizeof set.referenceMs) && writeAll(f, &nScalars, sizeof nScalars) &&
            writeAll(f, set.inputs.scalars.data(), nScalars * sizeof(double)) &&
            writeBuffers(f, task, set.inputs.buffers, keepInput) && writeBuffers(f, task, set.expected, keepExpected);
  ok = (fclose(f) == 0) && ok;
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

bool loadExpected(const std::string &path, const Task &task, const Config &config, ExpectedSet &set) {
  FILE *f = fopen(path.c_str(), "rb");
  if (!f)
    return false;
  std::vector<uint64_t> inputSizes, expectedSizes;
  std::vector<int64_t> counts = task.counts(config);
  for (size_t i = 0; i < task.args.size(); ++i) {
    const Argument &a = task.args[i];
    uint64_t bytes = a.isPointer() ? uint64_t(counts[i]) * dtypeSize(a.dtype) : 0;
    inputSizes.push_back(keepInput(a) ? bytes : 0);
    expectedSizes.push_back(keepExpected(a) ? bytes : 0);
  }
  ExpectedSet loaded;
  uint64_t magic = 0, nScalars = 0;
  bool ok = readAll(f, &magic, sizeof magic) && magic == kExpectedMagic && readAll(f, &loaded.seed, sizeof loaded.seed) &&
            readAll(f, &loaded.referenceMs, sizeof loaded.referenceMs) && readAll(f, &nScalars, sizeof nScalars) &&
            nScalars == task.args.size();
  if (ok) {
    loaded.inputs.scalars.resize(nScalars);
    ok = readAll(f, loaded.inputs.scalars.data(), nScalars * sizeof(double)) &&
         readBuffers(f, loaded.inputs.buffers, inputSizes) && readBuffers(f, loaded.expected, expectedSizes);
  }
  fclose(f);
  if (!ok)
    return false;
  set = std::move(loaded);
  return true;
}

} // namespace cudaperf::runtime
