// cudaperf-task: vector_add
// cudaperf-class: cuda-graph-stale
// cudaperf-source: CUDA-L1 defence table (stream injection), through a graph launched on a private stream
// cudaperf-expect: timing_violation,wrong_answer
// Captures the add once and replays the graph on a private stream that the timed stream never waits
// for: graph launches may escape launch counters that only see kernel launches.
#include <cuda_runtime.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream) {
  static cudaStream_t priv = nullptr;
  static cudaGraphExec_t exec = nullptr;
  static const float *ka = nullptr;
  static int kn = -1;
  if (!priv)
    cudaStreamCreateWithFlags(&priv, cudaStreamNonBlocking);
  if (!exec || ka != a || kn != n) {
    if (exec)
      cudaGraphExecDestroy(exec);
    cudaGraph_t g;
    cudaStreamBeginCapture(priv, cudaStreamCaptureModeThreadLocal);
    add<<<(n + 255) / 256, 256, 0, priv>>>(a, b, c, n);
    cudaStreamEndCapture(priv, &g);
    cudaGraphInstantiate(&exec, g, 0);
    cudaGraphDestroy(g);
    ka = a;
    kn = n;
  }
  cudaGraphLaunch(exec, priv);
}
