// entry: void avg_pool2d(const float *x, float *out, int batch_size, int channels, int height, int width, cudaStream_t stream)
// One thread per output element: the sum of its 3x3 window (stride 2, padding 1) over the input
// elements inside it, divided by 9 as count_include_pad=True does. Even height and width make the
// output height / 2 by width / 2.
#include <cuda_runtime.h>

__global__ void avgPool3x3s2(const float *x, float *out, long long planes, int h, int w) {
  int oh = h / 2, ow = w / 2;
  long long o = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (o >= planes * oh * ow)
    return;
  int ox = (int)(o % ow);
  int oy = (int)(o / ow % oh);
  long long plane = o / ((long long)ow * oh);
  const float *p = x + plane * h * w;
  float s = 0.f;
  for (int dy = 0; dy < 3; ++dy) {
    int iy = 2 * oy - 1 + dy;
    if (iy < 0 || iy >= h)
      continue;
    for (int dx = 0; dx < 3; ++dx) {
      int ix = 2 * ox - 1 + dx;
      if (ix >= 0 && ix < w)
        s += p[(long long)iy * w + ix];
    }
  }
  out[o] = s / 9.f;
}

extern "C" void avg_pool2d(const float *x, float *out, int batch_size, int channels, int height, int width,
                           cudaStream_t stream) {
  long long planes = (long long)batch_size * channels;
  long long total = planes * (height / 2) * (width / 2);
  avgPool3x3s2<<<(unsigned)((total + 255) / 256), 256, 0, stream>>>(x, out, planes, height, width);
}
