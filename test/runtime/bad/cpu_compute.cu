// cudaperf-task: vector_add
// cudaperf-expect: timing_violation
// Copies the inputs to the host, adds there, and copies the answer back.
#include <cuda_runtime.h>
#include <vector>
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  std::vector<float> ha(n), hb(n), hc(n);
  cudaMemcpy(ha.data(), a, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(hb.data(), b, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i)
    hc[i] = ha[i] + hb[i];
  cudaMemcpy(c, hc.data(), n * sizeof(float), cudaMemcpyHostToDevice);
}
