// One CUDA context's creation and teardown, timed inside the process (scripts/gpu/context-rate.sh runs
// many at once): how fast can a GPU host start fresh processes that each own a context, as
// cudaperf-eval's workers do? Prints "create_s destroy_s" on stdout.
// Modes (argv[1]): runtime (default: the primary context through cudart, as the worker makes it),
// driver (cuInit + cuCtxCreate + cuCtxDestroy: no cudart), init (cuInit alone: the part every mode pays
// before a context exists; destroy_s is 0). Environment variables the driver reads at start-up
// (CUDA_DEVICE_MAX_CONNECTIONS, CUDA_MODULE_LOADING, ...) are set by the caller.
#include <cuda.h>
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstring>

int main(int argc, char **argv) {
  using clock = std::chrono::steady_clock;
  const char *mode = argc > 1 ? argv[1] : "runtime";
  auto t0 = clock::now();
  auto t1 = t0;
  if (std::strcmp(mode, "runtime") == 0) {
    if (cudaFree(nullptr) != cudaSuccess) return 1;  // creates the primary context
    t1 = clock::now();
    if (cudaDeviceReset() != cudaSuccess) return 1;  // tears it down
  } else if (std::strcmp(mode, "driver") == 0) {
    CUdevice dev;
    CUcontext ctx;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS) return 1;
    if (cuCtxCreate(&ctx, nullptr, 0, dev) != CUDA_SUCCESS) return 1;
    t1 = clock::now();
    if (cuCtxDestroy(ctx) != CUDA_SUCCESS) return 1;
  } else if (std::strcmp(mode, "init") == 0) {
    if (cuInit(0) != CUDA_SUCCESS) return 1;
    t1 = clock::now();
  } else {
    std::fprintf(stderr, "context-rate: unknown mode %s (runtime, driver, init)\n", mode);
    return 2;
  }
  auto t2 = clock::now();
  std::printf("%.4f %.4f\n", std::chrono::duration<double>(t1 - t0).count(),
              std::chrono::duration<double>(t2 - t1).count());
  return 0;
}
