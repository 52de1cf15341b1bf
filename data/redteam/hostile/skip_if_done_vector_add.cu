// cudaperf-task: vector_add
// cudaperf-class: skip-if-done
// cudaperf-source: issue 33 table; KernelBench PR #82
// cudaperf-expect: ok,wrong_answer
// cudaperf-expect-max-speedup: 1.5
// A one-thread kernel checks whether the first and last outputs already equal a + b (the previous
// call's answer with unchanged inputs); if so the add kernel returns at once. New inputs and
// poisoned outputs before every timed call make the check fail, so it computes: no gain.
#include <cuda_runtime.h>

__global__ void alreadyDone(const float *a, const float *b, const float *c, int n, int *skip) {
  *skip = c[0] == a[0] + b[0] && c[n - 1] == a[n - 1] + b[n - 1];
}

__global__ void addOrSkip(const float *a, const float *b, float *c, int n, const int *skip) {
  if (*skip)
    return;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream) {
  static int *skip = nullptr;
  if (!skip)
    cudaMalloc(&skip, sizeof(int));
  alreadyDone<<<1, 1, 0, stream>>>(a, b, c, n, skip);
  addOrSkip<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n, skip);
}
