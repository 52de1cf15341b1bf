// Which difference between ipc-probe.cu's child (the ReLU on the parent's memory at the parent's
// speed, 5.31 ms) and xctx-probe.cu's child (9.58 ms, as the evaluator's runner) makes the kernel slow
// (issue 33)? Those children differ in the stream (the legacy default stream against a non-blocking
// stream of their own) and in what precedes each timed kernel (the previous kernel, against a 50 MB
// memset that flushes L2). Here one parent and one child each time the same ReLU over a matrix:
// buffers {the parent's through legacy IPC (child only), the process's own} x stream {legacy default,
// non-blocking} x before each call {nothing, a 50 MB memset, a one-thread kernel}; and the same on
// allocations 8 KiB longer than the buffers (the evaluator's guard bytes), exported the same way.
// Build: nvcc -O2 -arch=sm_90 stream-probe.cu -o stream-probe; run: ./stream-probe [MFLOATS]
#include "probe-util.h"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>


static const char *kBefore[] = {"nothing", "50 MB memset", "one-thread kernel"};
constexpr int kCalls = 9;

static void matrix(const char *who, const char *buffers, const float *x, float *y, long long n) {
  void *flush;
  size_t flushBytes = 50u << 20;
  CK(cudaMalloc(&flush, flushBytes));
  int *sink;
  CK(cudaMalloc(&sink, 4));
  cudaStream_t own;
  CK(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  unsigned blocks = unsigned((n + 255) / 256);
  for (int st = 0; st < 2; ++st) {
    cudaStream_t s = st ? own : (cudaStream_t)0;
    for (int before = 0; before < 3; ++before) {
      std::vector<float> ms;
      for (int c = 0; c < kCalls; ++c) {
        if (before == 1)
          CK(cudaMemsetAsync(flush, c, flushBytes, s));
        else if (before == 2)
          tiny<<<1, 1, 0, s>>>(sink);
        CK(cudaEventRecord(a, s));
        relu<<<blocks, 256, 0, s>>>(x, y, n);
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        float t;
        CK(cudaEventElapsedTime(&t, a, b));
        ms.push_back(t);
      }
      std::sort(ms.begin(), ms.end());
      printf("%-6s %-8s %-12s before: %-18s median %.3f ms (min %.3f, max %.3f)\n", who, buffers,
             st ? "non-blocking" : "legacy", kBefore[before], ms[ms.size() / 2], ms.front(), ms.back());
      fflush(stdout);
    }
  }
  CK(cudaFree(flush));
  CK(cudaFree(sink));
  CK(cudaStreamDestroy(own));
}

static void ownBuffers(const char *who, long long n) {
  size_t bytes = size_t(n) * 4;
  float *x, *y;
  CK(cudaMalloc(&x, bytes));
  CK(cudaMalloc(&y, bytes));
  fill<<<4224, 256>>>(x, n, 3);
  CK(cudaMemset(y, 0xff, bytes));
  CK(cudaDeviceSynchronize());
  matrix(who, "own", x, y, n);
  CK(cudaFree(x));
  CK(cudaFree(y));
}

int main(int argc, char **argv) {
  signal(SIGPIPE, SIG_IGN);
  if (argc >= 2 && !strcmp(argv[1], "child")) {
    long long n = atoll(argv[2]);
    CK(cudaSetDevice(0));
    CK(cudaFree(nullptr));
    cudaIpcMemHandle_t hx, hy;
    unhex(argv[3], &hx, sizeof hx);
    unhex(argv[4], &hy, sizeof hy);
    void *x, *y;
    CK(cudaIpcOpenMemHandle(&x, hx, cudaIpcMemLazyEnablePeerAccess));
    CK(cudaIpcOpenMemHandle(&y, hy, cudaIpcMemLazyEnablePeerAccess));
    matrix("child", "parent's", (const float *)x, (float *)y, n);
    if (argc >= 7) {
      unhex(argv[5], &hx, sizeof hx);
      unhex(argv[6], &hy, sizeof hy);
      CK(cudaIpcOpenMemHandle(&x, hx, cudaIpcMemLazyEnablePeerAccess));
      CK(cudaIpcOpenMemHandle(&y, hy, cudaIpcMemLazyEnablePeerAccess));
      matrix("child", "+8K", (const float *)x, (float *)y, n);
    }
    ownBuffers("child", n);
    return 0;
  }
  long long n = argc >= 2 ? atoll(argv[1]) * 1000000LL : 4096LL * 393216LL;
  size_t bytes = size_t(n) * 4;
  CK(cudaSetDevice(0));
  float *x, *y;
  CK(cudaMalloc(&x, bytes));
  CK(cudaMalloc(&y, bytes));
  fill<<<4224, 256>>>(x, n, 1);
  CK(cudaMemset(y, 0xff, bytes));
  CK(cudaDeviceSynchronize());
  printf("n = %lld floats (%.2f GB a buffer)\n", n, bytes / 1e9);
  ownBuffers("parent", n);
  // The same buffers in allocations 8 KiB longer (not a whole number of 2 MiB pages), as the
  // evaluator's guards made them before its allocations were rounded.
  float *x8, *y8;
  CK(cudaMalloc(&x8, bytes + 8192));
  CK(cudaMalloc(&y8, bytes + 8192));
  fill<<<4224, 256>>>(x8, n, 1);
  CK(cudaMemset(y8, 0xff, bytes));
  CK(cudaDeviceSynchronize());
  matrix("parent", "+8K", x8, y8, n);
  cudaIpcMemHandle_t hx, hy, hx8, hy8;
  CK(cudaIpcGetMemHandle(&hx, x));
  CK(cudaIpcGetMemHandle(&hy, y));
  CK(cudaIpcGetMemHandle(&hx8, x8));
  CK(cudaIpcGetMemHandle(&hy8, y8));
  pid_t pid = fork();
  if (pid == 0) {
    std::string nn = std::to_string(n), a = hex(&hx, sizeof hx), b = hex(&hy, sizeof hy), c = hex(&hx8, sizeof hx8),
                d = hex(&hy8, sizeof hy8);
    execl("/proc/self/exe", argv[0], "child", nn.c_str(), a.c_str(), b.c_str(), c.c_str(), d.c_str(), (char *)nullptr);
    _exit(127);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  printf("child status %d\n", st);
  return 0;
}
