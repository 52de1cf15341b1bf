// cudaperf-task: vector_add
// cudaperf-class: honest
// cudaperf-source: technique: CUDA graph captured once per buffer set and replayed on the stream argument
// cudaperf-expect: ok
// Captures the add into a graph the first time it sees a given (a, b, c, n) and replays it on the
// stream argument afterwards; the buffers stay the same across calls, only their contents change,
// so the replayed kernel reads the new inputs. A new argument set is captured again.
#include <cuda_runtime.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream) {
  static cudaGraphExec_t exec = nullptr;
  static const float *ka = nullptr, *kb = nullptr;
  static float *kc = nullptr;
  static int kn = -1;
  if (!exec || ka != a || kb != b || kc != c || kn != n) {
    if (exec)
      cudaGraphExecDestroy(exec);
    cudaStream_t cap;
    cudaStreamCreateWithFlags(&cap, cudaStreamNonBlocking);
    cudaGraph_t g;
    cudaStreamBeginCapture(cap, cudaStreamCaptureModeThreadLocal);
    add<<<(n + 255) / 256, 256, 0, cap>>>(a, b, c, n);
    cudaStreamEndCapture(cap, &g);
    cudaGraphInstantiate(&exec, g, 0);
    cudaGraphDestroy(g);
    cudaStreamDestroy(cap);
    ka = a, kb = b, kc = c, kn = n;
  }
  cudaGraphLaunch(exec, stream);
}
