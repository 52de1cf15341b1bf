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

} // namespace cudaperf::runtime
