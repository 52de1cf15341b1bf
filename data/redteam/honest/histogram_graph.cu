// cudaperf-task: histogram
// cudaperf-class: honest
// cudaperf-source: technique: CUDA graph (memset + privatized kernel) captured once per argument set
// cudaperf-expect: ok
// The memset and the shared-memory privatized kernel captured together into a graph on the first call
// of an argument set, replayed on the stream argument after that.
#include <cuda_runtime.h>

#include <map>
#include <tuple>

__global__ void histShared(const unsigned char *data, unsigned int *counts, int n) {
  __shared__ unsigned int bins[256];
  bins[threadIdx.x] = 0;
  __syncthreads();
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
    atomicAdd(&bins[data[i]], 1u);
  __syncthreads();
  if (bins[threadIdx.x])
    atomicAdd(&counts[threadIdx.x], bins[threadIdx.x]);
}

extern "C" void histogram(const unsigned char *data, unsigned int *counts, int n, cudaStream_t stream) {
  // One graph per argument set (the evaluator may rotate among several buffer sets), at most
  // 512 kept; a full table is emptied and refilled.
  static std::map<std::tuple<const unsigned char *, unsigned int *, int>, cudaGraphExec_t> graphs;
  auto key = std::make_tuple(data, counts, n);
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
    cudaMemsetAsync(counts, 0, 256 * sizeof(unsigned int), cap);
    int blocks = (n + 4095) / 4096;
    histShared<<<blocks < 528 ? blocks : 528, 256, 0, cap>>>(data, counts, n);
    cudaStreamEndCapture(cap, &g);
    cudaGraphInstantiate(&exec, g, 0);
    cudaGraphDestroy(g);
    cudaStreamDestroy(cap);
    it = graphs.emplace(key, exec).first;
  }
  cudaGraphLaunch(it->second, stream);
}
