// The real CUDA functions behind the worker's interposed ones: the runtime's are the next
// definition after the executable's (libcudart, which the worker links); the driver's are looked
// up in libcuda.so.1 itself, which libcudart loads privately (not in the global scope).
#pragma once

#include <dlfcn.h>

namespace cudaperf::worker {

template <typename Fn> Fn runtimeFn(const char *name) { return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name)); }

inline void *libcudaHandle() {
  static void *h = [] {
    void *handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    return handle ? handle : dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  }();
  return h;
}

// Null where there is no driver.
template <typename Fn> Fn driverFn(const char *name) {
  void *h = libcudaHandle();
  return h ? reinterpret_cast<Fn>(dlsym(h, name)) : nullptr;
}

} // namespace cudaperf::worker
