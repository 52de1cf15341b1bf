// cudaperf-task: vector_add
// cudaperf-expect: ok
// Correct, but prints 4 MiB of text per call: output is capped and the evaluator stays healthy.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
__global__ void k(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  static char line[1025];
  memset(line, 'x', 1024);
  line[1024] = 0;
  for (int i = 0; i < 4096; ++i)
    puts(line);
  fflush(stdout);
  k<<<(n + 255) / 256, 256, 0, s>>>(a, b, c, n);
}
