// cudaperf-task: transpose
// cudaperf-expect: wrong_answer
// Writes zeros: an all-zero output must not pass.
#include <cuda_runtime.h>
extern "C" void transpose(const float *in, float *out, int rows, int cols, cudaStream_t s) {
  cudaMemsetAsync(out, 0, sizeof(float) * rows * cols, s);
}
