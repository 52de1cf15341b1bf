// Issue 33's second static-only reproducer: an entry point that does nothing. Static-only, it
// scored 0.575 against 0.581 for the correct baseline (its unknown terms counted as neutral).
#include <cuda_runtime.h>

extern "C" void transpose(const float *in, float *out, int rows, int cols, cudaStream_t stream) {}
