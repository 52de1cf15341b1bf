#include "cudaperf/Runtime/Reference.h"
#include "cudaperf/Runtime/Build.h"

#include <chrono>
#include <dlfcn.h>

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

} // namespace cudaperf::runtime
