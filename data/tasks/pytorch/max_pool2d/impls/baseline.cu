// entry: void max_pool2d(const float *x, float *out, int batch_size, int channels, int height, int width, cudaStream_t stream)
// One thread per output element: the maximum of its 2x2 window.
#include <cuda_runtime.h>

__global__ void maxPool2x2(const float *x, float *out, long long planes, int h, int w) {
  int oh = h / 2, ow = w / 2;
  long long o = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (o >= planes * oh * ow)
    return;
  int ox = (int)(o % ow);
  int oy = (int)(o / ow % oh);
  long long plane = o / ((long long)ow * oh);
  const float *p = x + plane * h * w + (long long)(2 * oy) * w + 2 * ox;
  out[o] = fmaxf(fmaxf(p[0], p[1]), fmaxf(p[w], p[w + 1]));
}

extern "C" void max_pool2d(const float *x, float *out, int batch_size, int channels, int height, int width,
                           cudaStream_t stream) {
  long long planes = (long long)batch_size * channels;
  long long total = planes * (height / 2) * (width / 2);
  maxPool2x2<<<(unsigned)((total + 255) / 256), 256, 0, stream>>>(x, out, planes, height, width);
}
