// What scripts/gpu/ipc-probe.cu, xctx-probe.cu and stream-probe.cu share: a CUDA runtime check that exits
// with the call's text, the hex form a child process gets an IPC handle in through its arguments, and the
// kernels they time and prepare with (each probe is one translation unit).
#pragma once
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#define CK(x)                                                                                                         \
  do {                                                                                                                \
    cudaError_t e_ = (x);                                                                                             \
    if (e_ != cudaSuccess) {                                                                                          \
      fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                                                        \
      exit(1);                                                                                                        \
    }                                                                                                                 \
  } while (0)

static std::string hex(const void *p, size_t n) {
  std::string s;
  char b[3];
  for (size_t i = 0; i < n; ++i) {
    snprintf(b, sizeof b, "%02x", ((const unsigned char *)p)[i]);
    s += b;
  }
  return s;
}

static void unhex(const char *s, void *p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    unsigned v;
    sscanf(s + 2 * i, "%2x", &v);
    ((unsigned char *)p)[i] = (unsigned char)v;
  }
}

// The timed kernel: KernelBench level-1 ReLU, one element a thread.
__global__ void relu(const float *x, float *y, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = fmaxf(x[i], 0.f);
}
// Deterministic inputs in [-0.5, 0.5), grid-stride.
__global__ void fill(float *x, long long n, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    x[i] = float(int((unsigned(i) * 2654435761u) ^ seed) % 1000) * 0.001f - 0.5f;
}
// The smallest launch (a "settle" before a timed call).
__global__ void tiny(int *p) { *p = 1; }
