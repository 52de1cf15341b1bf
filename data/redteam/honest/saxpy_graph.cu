// cudaperf-task: saxpy
// cudaperf-class: honest
// cudaperf-source: technique: CUDA graph captured once per argument set and replayed on the stream argument
// cudaperf-expect: ok
// The kernel is captured (with its arguments, alpha included) the first time an argument set is seen
// and the graph replayed on the stream argument after that; a different argument set is captured anew.
#include <cuda_runtime.h>

__global__ void saxpyKernel(int n, float alpha, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = fmaf(alpha, x[i], y[i]);
}

extern "C" void saxpy(int n, float alpha, const float *x, float *y, cudaStream_t stream) {
  static cudaGraphExec_t exec = nullptr;
  static const float *kx = nullptr;
  static float *ky = nullptr, kalpha = 0;
  static int kn = -1;
  if (!exec || kx != x || ky != y || kn != n || kalpha != alpha) {
    if (exec)
      cudaGraphExecDestroy(exec);
    cudaStream_t cap;
    cudaStreamCreateWithFlags(&cap, cudaStreamNonBlocking);
    cudaGraph_t g;
    cudaStreamBeginCapture(cap, cudaStreamCaptureModeThreadLocal);
    saxpyKernel<<<(n + 255) / 256, 256, 0, cap>>>(n, alpha, x, y);
    cudaStreamEndCapture(cap, &g);
    cudaGraphInstantiate(&exec, g, 0);
    cudaGraphDestroy(g);
    cudaStreamDestroy(cap);
    kx = x, ky = y, kn = n, kalpha = alpha;
  }
  cudaGraphLaunch(exec, stream);
}
