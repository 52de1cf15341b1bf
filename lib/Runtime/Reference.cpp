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
constexpr uint64_t kExpectedMagic = 0x31545045'43524543ull; // "CERCEPT1"

bool writeAll(FILE *f, const void *p, size_t n) { return n == 0 || fwrite(p, 1, n, f) == n; }
bool readAll(FILE *f, void *p, size_t n) { return n == 0 || fread(p, 1, n, f) == n; }

bool writeBuffers(FILE *f, const std::vector<std::vector<unsigned char>> &bufs) {
  uint64_t count = bufs.size();
  bool ok = writeAll(f, &count, sizeof count);
  for (const auto &b : bufs) {
    uint64_t n = b.size();
    ok = ok && writeAll(f, &n, sizeof n) && writeAll(f, b.data(), b.size());
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

bool saveExpected(const std::string &path, const ExpectedSet &set) {
  std::string tmp = path + ".tmp" + std::to_string(getpid());
  FILE *f = fopen(tmp.c_str(), "wb");
  if (!f)
    return false;
  uint64_t magic = kExpectedMagic, nScalars = set.inputs.scalars.size();
  bool ok = writeAll(f, &magic, sizeof magic) && writeAll(f, &set.seed, sizeof set.seed) &&
            writeAll(f, &set.referenceMs, sizeof set.referenceMs) && writeAll(f, &nScalars, sizeof nScalars) &&
            writeAll(f, set.inputs.scalars.data(), nScalars * sizeof(double)) &&
            writeBuffers(f, set.inputs.buffers) && writeBuffers(f, set.expected);
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
  std::vector<uint64_t> sizes;
  std::vector<int64_t> counts = task.counts(config);
  for (size_t i = 0; i < task.args.size(); ++i)
    sizes.push_back(task.args[i].isPointer() ? uint64_t(counts[i]) * dtypeSize(task.args[i].dtype) : 0);
  ExpectedSet loaded;
  uint64_t magic = 0, nScalars = 0;
  bool ok = readAll(f, &magic, sizeof magic) && magic == kExpectedMagic && readAll(f, &loaded.seed, sizeof loaded.seed) &&
            readAll(f, &loaded.referenceMs, sizeof loaded.referenceMs) && readAll(f, &nScalars, sizeof nScalars) &&
            nScalars == task.args.size();
  if (ok) {
    loaded.inputs.scalars.resize(nScalars);
    ok = readAll(f, loaded.inputs.scalars.data(), nScalars * sizeof(double)) &&
         readBuffers(f, loaded.inputs.buffers, sizes) && readBuffers(f, loaded.expected, sizes);
  }
  fclose(f);
  if (!ok)
    return false;
  set = std::move(loaded);
  return true;
}

} // namespace cudaperf::runtime
