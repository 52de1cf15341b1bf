// cudaperf-task: vector_add
// cudaperf-class: honest
// cudaperf-source: technique: CUDA graph captured once per buffer set and replayed on the stream argument
// cudaperf-expect: ok
// Captures the add into a graph the first time it sees a given (a, b, c, n) and replays it on the
// stream argument afterwards; the buffers stay the same across calls, only their contents change,
// so the replayed kernel reads the new inputs. A new argument set is captured again.
#include <cuda_runtime.h>

#include <map>
#include <tuple>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream) {
  // One graph per argument set (the evaluator may rotate among several buffer sets), at most
  // 512 kept; a full table is emptied and refilled.
  static std::map<std::tuple<const float *, const float *, float *, int>, cudaGraphExec_t> graphs;
  auto key = std::make_tuple(a, b, c, n);
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
    add<<<(n + 255) / 256, 256, 0, cap>>>(a, b, c, n);
    cudaStreamEndCapture(cap, &g);
    cudaGraphInstantiate(&exec, g, 0);
    cudaGraphDestroy(g);
    cudaStreamDestroy(cap);
    it = graphs.emplace(key, exec).first;
  }
  cudaGraphLaunch(it->second, stream);
}
