// cudaperf-task: vector_add
// cudaperf-expect: compile_error
// Entry point with the wrong arguments (no stream).
#include <cuda_runtime.h>
extern "C" void vector_add(const float *a, const float *b, float *c, int n) {}
