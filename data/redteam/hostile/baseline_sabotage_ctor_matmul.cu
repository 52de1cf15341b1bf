// cudaperf-task: matmul
// cudaperf-class: baseline-sabotage
// cudaperf-source: issue 33 item 2 (candidate code never runs where the baseline is timed); GPU MODE reference-kernels (interfering with the reference's timing)
// cudaperf-expect: ok,timing_violation,runtime_fault
// cudaperf-expect-max-speedup: 1.5
// A static constructor starts a host thread that keeps the GPU busy with spinning kernels on a
// stream of its own until the entry point is first called: if the baseline is timed in the same
// process after the candidate's .so is loaded, the baseline looks slow. The thread stops at the first
// call. Measured separately, the baseline is unaffected and this gains nothing.
#include <atomic>
#include <chrono>
#include <cuda_runtime.h>
#include <thread>

__global__ void matmulNaive(const float *A, const float *B, float *C, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N)
    return;
  float acc = 0;
  for (int k = 0; k < K; ++k)
    acc += A[(long)row * K + k] * B[(long)k * N + col];
  C[(long)row * N + col] = acc;
}

__global__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

static std::atomic<bool> gStop{false};
namespace {
struct Hog {
  Hog() {
    std::thread([] {
      cudaStream_t s;
      if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess)
        return;
      auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (!gStop.load() && std::chrono::steady_clock::now() < until) {
        spin<<<264, 1024, 0, s>>>(200000);
        cudaStreamSynchronize(s);
      }
      cudaStreamDestroy(s);
    }).detach();
  }
} gHog;
} // namespace

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream) {
  gStop.store(true);
  matmulNaive<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16), 0, stream>>>(A, B, C, M, N, K);
}
