// cudaperf-task: vector_add
// cudaperf-expect: runtime_fault
// Dereferences a null pointer in host code.
#include <cuda_runtime.h>
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  volatile int *p = nullptr;
  *p = n;
}
