// cudaperf-task: matmul
// cudaperf-class: honest
// cudaperf-source: technique: CUDA graph captured once per argument set around a tiled multiply
// cudaperf-expect: ok
// The 16x16 tiled multiply captured into a graph on the first call of an argument set, replayed on the stream argument.
#include <cuda_runtime.h>

#include <map>
#include <tuple>

constexpr int T = 16;

__global__ void matmulTile16(const float *A, const float *B, float *C, int M, int N, int K, int rowFrom, int rowTo) {
  __shared__ float As[T][T], Bs[T][T + 1];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = rowFrom + blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0;
  for (int k0 = 0; k0 < K; k0 += T) {
    As[ty][tx] = row < rowTo && k0 + tx < K ? A[(long)row * K + k0 + tx] : 0.f;
    Bs[ty][tx] = k0 + ty < K && col < N ? B[(long)(k0 + ty) * N + col] : 0.f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < T; ++k)
      acc = fmaf(As[ty][k], Bs[k][tx], acc);
    __syncthreads();
  }
  if (row < rowTo && col < N)
    C[(long)row * N + col] = acc;
}

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream) {
  // One graph per argument set (the evaluator may rotate among several buffer sets), at most
  // 512 kept; a full table is emptied and refilled.
  static std::map<std::tuple<const float *, const float *, float *, int, int, int>, cudaGraphExec_t> graphs;
  auto key = std::make_tuple(A, B, C, M, N, K);
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
    matmulTile16<<<dim3((N + T - 1) / T, (M + T - 1) / T), dim3(T, T), 0, cap>>>(A, B, C, M, N, K, 0, M);
    cudaStreamEndCapture(cap, &g);
    cudaGraphInstantiate(&exec, g, 0);
    cudaGraphDestroy(g);
    cudaStreamDestroy(cap);
    it = graphs.emplace(key, exec).first;
  }
  cudaGraphLaunch(it->second, stream);
}
