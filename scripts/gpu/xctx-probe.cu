// Is a kernel slower when another process wrote its buffers just before it? (issue 33: KernelBench's
// ReLU, 4096 x 393216 fp32, runs 9.57 ms in the runner and 5.33 ms in the worker; the runner's host
// issues the call in 0.03 ms, and ipc-probe.cu's child ran 5.33 ms on the parent's memory when the
// parent did nothing between calls. In the evaluator the worker fills the input and poisons the output
// before every timed call, in its own context.)
// The parent allocates x and y, exports them through legacy CUDA IPC and starts a child; for each
// timed call the parent first writes (a fill kernel over x, a memset of y, synchronized) or not, then
// lets the child time the kernel on them (a 50 MB L2-flush memset, then events around the kernel, as
// cudaperf-eval's timedCall). Before its timed call the child does nothing, or launches one tiny
// kernel and synchronizes ("settle"), or reads one word of every 64 KiB of x and y ("touch").
// Each of the four modes twice: a child with the parent's environment, then one with an empty
// environment (as the evaluator starts its runner); each child prints the libcuda it loaded.
// Build: nvcc -O2 -arch=sm_90 xctx-probe.cu -o xctx-probe; run: ./xctx-probe [MFLOATS]
#include <cuda_runtime.h>
#include "probe-util.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <csignal>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

__global__ void touch(const float *x, const float *y, long long n, int *sink) {
  long long stride = 16384; // floats: 64 KiB
  int acc = 0;
  for (long long i = (blockIdx.x * (long long)blockDim.x + threadIdx.x) * stride; i < n;
       i += (long long)gridDim.x * blockDim.x * stride)
    acc += int(x[i]) + int(y[i]);
  if (acc == 123456789)
    *sink = acc;
}

static const char *kModes[] = {"parent idle, child plain", "parent writes, child plain", "parent writes, child settle",
                               "parent writes, child touch"};
constexpr int kCalls = 12;

static int child(long long n, const char *hx, const char *hy, int rd, int wr) {
  CK(cudaSetDevice(0));
  CK(cudaFree(nullptr));
  cudaIpcMemHandle_t h1, h2;
  unhex(hx, &h1, sizeof h1);
  unhex(hy, &h2, sizeof h2);
  void *x, *y;
  CK(cudaIpcOpenMemHandle(&x, h1, cudaIpcMemLazyEnablePeerAccess));
  CK(cudaIpcOpenMemHandle(&y, h2, cudaIpcMemLazyEnablePeerAccess));
  {
    // Which driver library this process loaded, and with how much environment (the evaluator starts
    // its runner with a clean environment: does that change the library, and the kernel's speed?).
    int vars = 0;
    for (char **e = environ; *e; ++e)
      ++vars;
    std::string lib = "?";
    if (FILE *m = fopen("/proc/self/maps", "r")) {
      char line[4096];
      while (fgets(line, sizeof line, m))
        if (const char *at = strstr(line, "libcuda.so")) {
          const char *slash = strchr(line, '/');
          lib = slash ? std::string(slash, strcspn(slash, "\n")) : std::string(at);
          break;
        }
      fclose(m);
    }
    int driver = 0;
    cudaDriverGetVersion(&driver);
    printf("child: %d environment variables; driver %d; %s\n", vars, driver, lib.c_str());
    fflush(stdout);
  }
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  void *flush;
  size_t flushBytes = 50u << 20;
  CK(cudaMalloc(&flush, flushBytes));
  int *sink;
  CK(cudaMalloc(&sink, 4));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  unsigned blocks = unsigned((n + 255) / 256);
  for (int mode = 0; mode < 4; ++mode) {
    std::vector<float> ms;
    for (int c = 0; c < kCalls; ++c) {
      char go;
      if (read(rd, &go, 1) != 1)
        return 1;
      if (mode == 2) {
        tiny<<<1, 1, 0, s>>>(sink);
        CK(cudaStreamSynchronize(s));
      } else if (mode == 3) {
        touch<<<528, 256, 0, s>>>((const float *)x, (const float *)y, n, sink);
        CK(cudaStreamSynchronize(s));
      }
      CK(cudaMemsetAsync(flush, c, flushBytes, s));
      CK(cudaEventRecord(a, s));
      relu<<<blocks, 256, 0, s>>>((const float *)x, (float *)y, n);
      CK(cudaEventRecord(b, s));
      CK(cudaEventSynchronize(b));
      float t;
      CK(cudaEventElapsedTime(&t, a, b));
      ms.push_back(t);
      if (write(wr, "k", 1) != 1)
        return 1;
    }
    std::sort(ms.begin(), ms.end());
    printf("%-30s median %.3f ms (min %.3f, max %.3f)\n", kModes[mode], ms[ms.size() / 2], ms.front(), ms.back());
    fflush(stdout);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 2 && !strcmp(argv[1], "child"))
    return child(atoll(argv[2]), argv[3], argv[4], atoi(argv[5]), atoi(argv[6]));
  signal(SIGPIPE, SIG_IGN); // a child that failed must not take the parent with it
  long long n = argc >= 2 ? atoll(argv[1]) * 1000000LL : 4096LL * 393216LL;
  size_t bytes = size_t(n) * 4;
  CK(cudaSetDevice(0));
  float *x, *y;
  CK(cudaMalloc(&x, bytes + 8192));
  CK(cudaMalloc(&y, bytes + 8192));
  fill<<<4224, 256>>>(x, n, 1);
  CK(cudaMemset(y, 0xff, bytes));
  CK(cudaDeviceSynchronize());
  // The evaluator's own timing of the same kernel in this process, for reference.
  {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> ms;
    for (int c = 0; c < kCalls; ++c) {
      fill<<<4224, 256>>>(x, n, c);
      CK(cudaMemset(y, 0xff, bytes));
      CK(cudaEventRecord(a));
      relu<<<unsigned((n + 255) / 256), 256>>>(x, y, n);
      CK(cudaEventRecord(b));
      CK(cudaEventSynchronize(b));
      float t;
      CK(cudaEventElapsedTime(&t, a, b));
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    printf("n = %lld floats (%.2f GB a buffer)\n%-30s median %.3f ms\n", n, bytes / 1e9, "parent, own buffers, own writes",
           ms[ms.size() / 2]);
    fflush(stdout);
  }
  cudaIpcMemHandle_t hx, hy;
  CK(cudaIpcGetMemHandle(&hx, x));
  CK(cudaIpcGetMemHandle(&hy, y));
  for (int clean = 0; clean < 2; ++clean) {
  printf("== child with %s environment\n", clean ? "an empty (as the evaluator's runner)" : "the parent's");
  fflush(stdout);
  int toChild[2], toParent[2];
  if (pipe(toChild) || pipe(toParent))
    return 1;
  pid_t pid = fork();
  if (pid == 0) {
    std::string nn = std::to_string(n), a = hex(&hx, sizeof hx), b = hex(&hy, sizeof hy),
                r = std::to_string(toChild[0]), w = std::to_string(toParent[1]);
    char *noEnv[] = {nullptr};
    if (clean)
      execle("/proc/self/exe", argv[0], "child", nn.c_str(), a.c_str(), b.c_str(), r.c_str(), w.c_str(), (char *)nullptr,
             noEnv);
    else
      execl("/proc/self/exe", argv[0], "child", nn.c_str(), a.c_str(), b.c_str(), r.c_str(), w.c_str(), (char *)nullptr);
    _exit(127);
  }
  close(toChild[0]);
  close(toParent[1]);
  for (int mode = 0; mode < 4; ++mode)
    for (int c = 0; c < kCalls; ++c) {
      if (mode > 0) {
        fill<<<4224, 256>>>(x, n, c + 7);
        CK(cudaMemset(y, 0xff, bytes));
        CK(cudaDeviceSynchronize());
      }
      char k;
      if (write(toChild[1], "g", 1) != 1 || read(toParent[0], &k, 1) != 1)
        break;
    }
  close(toChild[1]);
  close(toParent[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  printf("child status %d\n", st);
  fflush(stdout);
  }
  return 0;
}
