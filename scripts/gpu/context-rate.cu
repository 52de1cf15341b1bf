// One CUDA context's creation and teardown, timed inside the process (scripts/gpu/context-rate.sh runs
// many at once): how fast can a GPU host start fresh processes that each own a context, as
// cudaperf-eval's workers do? Prints "create_s destroy_s" on stdout.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>

int main() {
  using clock = std::chrono::steady_clock;
  auto t0 = clock::now();
  if (cudaFree(nullptr) != cudaSuccess) return 1;  // creates the primary context
  auto t1 = clock::now();
  if (cudaDeviceReset() != cudaSuccess) return 1;  // tears it down
  auto t2 = clock::now();
  std::printf("%.4f %.4f\n", std::chrono::duration<double>(t1 - t0).count(),
              std::chrono::duration<double>(t2 - t1).count());
  return 0;
}
