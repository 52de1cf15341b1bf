// cudaperf-task: vector_add
// cudaperf-expect: compile_error
// Calls a host function that is declared but never defined: fails at link/load time.
#include <cuda_runtime.h>
extern "C" void helper_that_does_not_exist(float *c, int n, cudaStream_t s);
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  helper_that_does_not_exist(c, n, s);
}
