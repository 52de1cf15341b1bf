// cudaperf-task: softmax
// cudaperf-class: honest
// cudaperf-source: technique: CUDA graph captured once per argument set, replayed on the stream argument
// cudaperf-expect: ok
// A warp-per-row two-pass softmax (max, then sum of exp, then write), captured into a graph on the
// first call of an argument set and replayed on the stream argument after that.
#include <cuda_runtime.h>

#include <map>
#include <tuple>

__global__ void softmaxWarp(const float *x, float *out, int rows, int cols) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x & 31;
  if (row >= rows)
    return;
  const float *xr = x + (long)row * cols;
  float m = -INFINITY;
  for (int c = lane; c < cols; c += 32)
    m = fmaxf(m, xr[c]);
  for (int o = 16; o; o >>= 1)
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  float s = 0;
  for (int c = lane; c < cols; c += 32)
    s += expf(xr[c] - m);
  for (int o = 16; o; o >>= 1)
    s += __shfl_xor_sync(0xffffffffu, s, o);
  for (int c = lane; c < cols; c += 32)
    out[(long)row * cols + c] = expf(xr[c] - m) / s;
}

extern "C" void softmax(const float *x, float *out, int rows, int cols, cudaStream_t stream) {
  // One graph per argument set (the evaluator may rotate among several buffer sets), at most
  // 512 kept; a full table is emptied and refilled.
  static std::map<std::tuple<const float *, float *, int, int>, cudaGraphExec_t> graphs;
  auto key = std::make_tuple(x, out, rows, cols);
  auto it = graphs.find(key);
  if (it == graphs.end()) {
    if (graphs.size() >= 512) {
      for (auto &kv : graphs)
        cudaGraphExecDestroy(kv.second);
      graphs.clear();
    }
    cudaGraphExec_t exec = nullptr;
    cudaStream_t cap;
    cudaStreamCreateWithFlags(&cap, cudaStreamNonBlocking);
    cudaGraph_t g;
    cudaStreamBeginCapture(cap, cudaStreamCaptureModeThreadLocal);
    softmaxWarp<<<(rows + 7) / 8, 256, 0, cap>>>(x, out, rows, cols);
    cudaStreamEndCapture(cap, &g);
    cudaGraphInstantiate(&exec, g, 0);
    cudaGraphDestroy(g);
    cudaStreamDestroy(cap);
    it = graphs.emplace(key, exec).first;
  }
  cudaGraphLaunch(it->second, stream);
}
