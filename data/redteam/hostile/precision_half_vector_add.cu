// cudaperf-task: vector_add
// cudaperf-class: precision-downgrade
// cudaperf-source: CUDA-L1 defence table (precision)
// cudaperf-expect: wrong_answer
// Adds in fp16 (__hadd on rounded inputs): b ~ N(0, 10), so the rounding error (up to 2^-11
// relative, about 5e-3 absolute) is far above the default f32 tolerance of 1e-4 + 1e-4 |ref|.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void addHalf(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = __half2float(__hadd(__float2half(a[i]), __float2half(b[i])));
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream) {
  addHalf<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
}
