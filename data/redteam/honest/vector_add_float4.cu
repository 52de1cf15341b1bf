// cudaperf-task: vector_add
// cudaperf-class: honest
// cudaperf-source: technique: vectorized float4 loads and stores
// cudaperf-expect: ok
// float4 loads and stores over the aligned bulk, a scalar kernel for the last n % 4 elements.
#include <cstdint>
#include <cuda_runtime.h>

__global__ void addVec4(const float4 *a, const float4 *b, float4 *c, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

__global__ void addTail(const float *a, const float *b, float *c, int from, int n) {
  int i = from + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream) {
  // float4 needs 16-byte alignment; the evaluator's buffers have it, but say so rather than assume.
  bool aligned = ((reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b) | reinterpret_cast<uintptr_t>(c)) & 15) == 0;
  int n4 = aligned ? n / 4 : 0;
  if (n4 > 0)
    addVec4<<<(n4 + 255) / 256, 256, 0, stream>>>(reinterpret_cast<const float4 *>(a),
                                                   reinterpret_cast<const float4 *>(b), reinterpret_cast<float4 *>(c), n4);
  if (n4 * 4 < n)
    addTail<<<(n - n4 * 4 + 255) / 256, 256, 0, stream>>>(a, b, c, n4 * 4, n);
}
