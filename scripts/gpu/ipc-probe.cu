// Does a kernel run slower on memory another process exported to it? (issue 33: a ReLU over
// 4096 x 393216 fp32 took 9.3 ms in the confined runner, 5.3 ms in the worker, same kernel.)
// The parent allocates the buffers, times the kernel on them, exports them (legacy CUDA IPC, and
// VMM allocations exported as POSIX file descriptors), and starts itself as a child that times the
// same kernel on (a) its own cudaMalloc buffers, (b) the parent's through cudaIpcOpenMemHandle,
// (c) the parent's VMM allocation imported and mapped; and a "fresh" child that maps the parent's
// buffers before anything of its own, as the runner does, printing where they landed in 2 MiB pages; the parent keeps its context meanwhile, as
// the worker does. Build: nvcc -O2 -arch=sm_90 ipc-probe.cu -lcuda -o ipc-probe; run: ./ipc-probe [MFLOATS]
#include <cuda.h>
#include <cuda_runtime.h>
#include "probe-util.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#define CD(x)                                                                                                         \
  do {                                                                                                                \
    CUresult r_ = (x);                                                                                                \
    if (r_ != CUDA_SUCCESS) {                                                                                         \
      const char *s_ = nullptr;                                                                                       \
      cuGetErrorString(r_, &s_);                                                                                      \
      fprintf(stderr, "%s: %s\n", #x, s_ ? s_ : "?");                                                                 \
      exit(1);                                                                                                        \
    }                                                                                                                 \
  } while (0)


static double timeRelu(const float *x, float *y, long long n) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  unsigned blocks = unsigned((n + 255) / 256);
  for (int i = 0; i < 3; ++i)
    relu<<<blocks, 256>>>(x, y, n);
  float best = 1e30f;
  for (int i = 0; i < 10; ++i) {
    CK(cudaEventRecord(a));
    relu<<<blocks, 256>>>(x, y, n);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    best = ms < best ? ms : best;
  }
  CK(cudaGetLastError());
  return best;
}

struct Vmm {
  CUmemGenericAllocationHandle handle;
  CUdeviceptr ptr;
  size_t size;
  int fd;
};

static size_t granularity() {
  CUmemAllocationProp p = {};
  p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  p.location.id = 0;
  p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t g = 0;
  CD(cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
  return g;
}

static void mapAccess(CUdeviceptr ptr, size_t size) {
  CUmemAccessDesc d = {};
  d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  d.location.id = 0;
  d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CD(cuMemSetAccess(ptr, size, &d, 1));
}

static Vmm vmmAlloc(size_t bytes) {
  size_t g = granularity();
  Vmm v = {};
  v.size = (bytes + g - 1) / g * g;
  CUmemAllocationProp p = {};
  p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  p.location.id = 0;
  p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  CD(cuMemCreate(&v.handle, v.size, &p, 0));
  CD(cuMemAddressReserve(&v.ptr, v.size, g, 0, 0));
  CD(cuMemMap(v.ptr, v.size, 0, v.handle, 0));
  mapAccess(v.ptr, v.size);
  CD(cuMemExportToShareableHandle(&v.fd, v.handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  return v;
}

static CUdeviceptr vmmImport(int fd, size_t size) {
  CUmemGenericAllocationHandle h;
  CD(cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
  CUdeviceptr ptr;
  CD(cuMemAddressReserve(&ptr, size, granularity(), 0, 0));
  CD(cuMemMap(ptr, size, 0, h, 0));
  mapAccess(ptr, size);
  return ptr;
}

int main(int argc, char **argv) {
  if (argc >= 2 && !strcmp(argv[1], "fresh")) {
    // As the runner: nothing of its own allocated before the parent's buffers are mapped.
    long long n = atoll(argv[2]);
    CK(cudaSetDevice(0));
    CK(cudaFree(nullptr));
    cudaIpcMemHandle_t hx, hy;
    unhex(argv[3], &hx, sizeof hx);
    unhex(argv[4], &hy, sizeof hy);
    void *ix, *iy;
    CK(cudaIpcOpenMemHandle(&ix, hx, cudaIpcMemLazyEnablePeerAccess));
    CK(cudaIpcOpenMemHandle(&iy, hy, cudaIpcMemLazyEnablePeerAccess));
    printf("fresh  parent's, legacy IPC    %.3f ms (mapped at %p, %p: offsets %zu, %zu into 2 MiB)\n",
           timeRelu((const float *)ix, (float *)iy, n), ix, iy, size_t(uintptr_t(ix) % (2u << 20)),
           size_t(uintptr_t(iy) % (2u << 20)));
    printf("fresh  the same at +4096       %.3f ms\n",
           timeRelu((const float *)((char *)ix + 4096), (float *)((char *)iy + 4096), n - 1024));
    return 0;
  }
  if (argc >= 2 && !strcmp(argv[1], "child")) {
    long long n = atoll(argv[2]);
    size_t bytes = size_t(n) * 4;
    CK(cudaSetDevice(0));
    CK(cudaFree(nullptr));
    float *x, *y;
    CK(cudaMalloc(&x, bytes));
    CK(cudaMalloc(&y, bytes));
    CK(cudaMemset(x, 1, bytes));
    printf("child  own cudaMalloc          %.3f ms\n", timeRelu(x, y, n));
    CK(cudaFree(x));
    CK(cudaFree(y));
    cudaIpcMemHandle_t hx, hy;
    unhex(argv[3], &hx, sizeof hx);
    unhex(argv[4], &hy, sizeof hy);
    void *ix, *iy;
    CK(cudaIpcOpenMemHandle(&ix, hx, cudaIpcMemLazyEnablePeerAccess));
    CK(cudaIpcOpenMemHandle(&iy, hy, cudaIpcMemLazyEnablePeerAccess));
    printf("child  parent's, legacy IPC    %.3f ms\n", timeRelu((const float *)ix, (float *)iy, n));
    CK(cudaIpcCloseMemHandle(ix));
    CK(cudaIpcCloseMemHandle(iy));
    size_t vsize = strtoull(argv[7], nullptr, 10);
    CUdeviceptr vx = vmmImport(atoi(argv[5]), vsize), vy = vmmImport(atoi(argv[6]), vsize);
    printf("child  parent's, VMM fd import %.3f ms\n", timeRelu((const float *)vx, (float *)vy, n));
    return 0;
  }
  long long n = argc >= 2 ? atoll(argv[1]) * 1000000LL : 4096LL * 393216LL;
  size_t bytes = size_t(n) * 4;
  CK(cudaSetDevice(0));
  CK(cudaFree(nullptr));
  CD(cuInit(0));
  printf("n = %lld floats (%.2f GB a buffer), VMM granularity %zu\n", n, bytes / 1e9, granularity());
  float *x, *y;
  CK(cudaMalloc(&x, bytes));
  CK(cudaMalloc(&y, bytes));
  CK(cudaMemset(x, 1, bytes));
  printf("parent own cudaMalloc          %.3f ms\n", timeRelu(x, y, n));
  Vmm vx = vmmAlloc(bytes), vy = vmmAlloc(bytes);
  CK(cudaMemset((void *)vx.ptr, 1, bytes));
  printf("parent own VMM                 %.3f ms\n", timeRelu((const float *)vx.ptr, (float *)vy.ptr, n));
  cudaIpcMemHandle_t hx, hy;
  CK(cudaIpcGetMemHandle(&hx, x));
  CK(cudaIpcGetMemHandle(&hy, y));
  fflush(stdout);
  // The VMM descriptors must survive exec.
  fcntl(vx.fd, F_SETFD, 0);
  fcntl(vy.fd, F_SETFD, 0);
  {
    std::string a = hex(&hx, sizeof hx), b = hex(&hy, sizeof hy), nn = std::to_string(n);
    pid_t f = fork();
    if (f == 0) {
      execl("/proc/self/exe", argv[0], "fresh", nn.c_str(), a.c_str(), b.c_str(), (char *)nullptr);
      _exit(127);
    }
    int st = 0;
    waitpid(f, &st, 0);
    fflush(stdout);
  }
  pid_t pid = fork();
  if (pid == 0) {
    std::string a = hex(&hx, sizeof hx), b = hex(&hy, sizeof hy), fx = std::to_string(vx.fd),
                fy = std::to_string(vy.fd), sz = std::to_string(vx.size), nn = std::to_string(n);
    execl("/proc/self/exe", argv[0], "child", nn.c_str(), a.c_str(), b.c_str(), fx.c_str(), fy.c_str(), sz.c_str(),
          (char *)nullptr);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  printf("parent after the child         %.3f ms (child status %d)\n", timeRelu(x, y, n), status);
  return 0;
}
