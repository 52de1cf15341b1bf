// What scripts/gpu/ipc-probe.cu and xctx-probe.cu share: a CUDA runtime check that exits with the
// call's text, and the hex form a child process gets an IPC handle in through its arguments.
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
