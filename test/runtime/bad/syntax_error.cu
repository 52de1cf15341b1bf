// cudaperf-task: vector_add
// cudaperf-expect: compile_error
// Does not compile.
#include <cuda_runtime.h>
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  this is not C++;
}
