// cudaperf-task: transpose
// cudaperf-class: honest
// cudaperf-source: technique: CUDA graph captured once per argument set around a shared-memory tiled transpose
// cudaperf-expect: ok
// The 32x32 padded-tile transpose captured into a graph on the first call of an argument set and replayed on the stream argument.
#include <cuda_runtime.h>

#include <map>
#include <tuple>

constexpr int TD = 32;

__global__ void transposeTile(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[TD][TD + 1]; // +1: no bank conflicts on the transposed read
  int c0 = blockIdx.x * TD, r0 = blockIdx.y * TD;
  for (int dy = threadIdx.y; dy < TD; dy += blockDim.y) {
    int r = r0 + dy, c = c0 + threadIdx.x;
    for (int dx = 0; dx < TD; dx += blockDim.x)
      if (r < rows && c + dx < cols && threadIdx.x + dx < TD)
        tile[dy][threadIdx.x + dx] = in[(long)r * cols + c + dx];
  }
  __syncthreads();
  for (int dy = threadIdx.y; dy < TD; dy += blockDim.y) {
    int c = c0 + dy, r = r0 + threadIdx.x;
    for (int dx = 0; dx < TD; dx += blockDim.x)
      if (c < cols && r + dx < rows && threadIdx.x + dx < TD)
        out[(long)c * rows + r + dx] = tile[threadIdx.x + dx][dy];
  }
}

extern "C" void transpose(const float *in, float *out, int rows, int cols, cudaStream_t stream) {
  // One graph per argument set (the evaluator may rotate among several buffer sets), at most
  // 512 kept; a full table is emptied and refilled.
  static std::map<std::tuple<const float *, float *, int, int>, cudaGraphExec_t> graphs;
  auto key = std::make_tuple(in, out, rows, cols);
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
    transposeTile<<<dim3((cols + TD - 1) / TD, (rows + TD - 1) / TD), dim3(32, 8), 0, cap>>>(in, out, rows, cols);
    cudaStreamEndCapture(cap, &g);
    cudaGraphInstantiate(&exec, g, 0);
    cudaGraphDestroy(g);
    cudaStreamDestroy(cap);
    it = graphs.emplace(key, exec).first;
  }
  cudaGraphLaunch(it->second, stream);
}
