// cudaperf-task: vector_add
// cudaperf-expect: runtime_fault
// Calls exit(0) from the entry point.
#include <cuda_runtime.h>
#include <cstdlib>
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  exit(0);
}
