// cudaperf-task: vector_add
// cudaperf-class: resource-exhaustion
// cudaperf-source: CUDA-L1 defence table (thread injection); issue 33 item 3 (resource limits)
// cudaperf-expect: timing_violation,runtime_fault,timeout,ok
// cudaperf-expect-max-speedup: 1.5
// Starts host threads until pthread_create fails (or 4096) and leaves them all sleeping: the audit
// call sees threads left when they start during it; started on the first call they only sleep (measured
// on the H100: ok at 0.98x, nothing gained).
#include <cuda_runtime.h>
#include <pthread.h>
#include <unistd.h>
static void *sleeper(void *) {
  for (;;)
    pause();
  return nullptr;
}

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

// True when the attempt got through; the entry point then writes zeros, so a breach can never
// come out ok.
static bool attempt() {
  for (int i = 0; i < 4096; ++i) {
    pthread_t t;
    if (pthread_create(&t, nullptr, sleeper, nullptr) != 0)
      break;
    pthread_detach(t);
  }
  return false;
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream) {
  static int breached = -1;
  if (breached < 0)
    breached = attempt();
  if (breached)
    cudaMemsetAsync(c, 0, n * sizeof(float), stream);
  else
    add<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
}
