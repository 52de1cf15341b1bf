// A tour of kernel and launch forms the analyzer must resolve: templates, __launch_bounds__, 2D
// and 3D launches, static shared arrays, dynamic shared memory, streams, launches with sizes held
// in const and plain locals.
#include <cstdio>
#include <cuda_runtime.h>

template <typename T>
__global__ void scale(T *data, T factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    data[i] *= factor;
}

__global__ void __launch_bounds__(128, 4) saxpy(float *y, const float *x, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

__global__ void add2d(float *c, const float *a, const float *b, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    c[y * width + x] = a[y * width + x] + b[y * width + x];
}

__global__ void stencil3d(float *out, const float *in, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1)
    return;
  int i = (z * ny + y) * nx + x;
  out[i] = in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] + in[i - nx * ny] + in[i + nx * ny] -
           6.0f * in[i];
}

__global__ void blockSum(float *partial, const float *in, int n) {
  __shared__ float buf[256];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  buf[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s)
      buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0)
    partial[blockIdx.x] = buf[0];
}

__global__ void matmulTiled(float *c, const float *a, const float *b, int n) {
  __shared__ float as[16][16];
  __shared__ float bs[16][16];
  int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += 16) {
    as[threadIdx.y][threadIdx.x] = a[row * n + k0 + threadIdx.x];
    bs[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < 16; ++k)
      acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

__global__ void shiftDynamic(float *out, const float *in, int n) {
  extern __shared__ float window[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  window[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n)
    out[i] = window[(threadIdx.x + 1) % blockDim.x];
}

__global__ void histogram(unsigned *bins, const unsigned char *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[data[i]], 1u);
}

int main() {
  const int n = 1 << 22;
  const int width = 2048, height = 1024;
  int nx = 128, ny = 128, nz = 64; // plain locals, never modified: still constant
  float *a, *b, *c;
  unsigned *bins;
  unsigned char *bytes;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&c, n * sizeof(float));
  cudaMalloc(&bins, 256 * sizeof(unsigned));
  cudaMalloc(&bytes, n);
  cudaStream_t stream;
  cudaStreamCreate(&stream);

  scale<float><<<(n + 255) / 256, 256>>>(a, 2.0f, n);
  scale<double><<<n / 2 / 128, 128, 0, stream>>>(reinterpret_cast<double *>(b), 0.5, n / 2);
  saxpy<<<264, 128>>>(c, a, 3.0f, n);
  dim3 block2(32, 8);
  dim3 grid2((width + block2.x - 1) / block2.x, (height + 7) / 8);
  add2d<<<grid2, block2>>>(c, a, b, width, height);
  stencil3d<<<dim3(nx / 8, ny / 8, nz / 4), dim3(8, 8, 4)>>>(c, a, nx, ny, nz);
  blockSum<<<n / 256, 256>>>(c, a, n);
  matmulTiled<<<dim3(64, 64), dim3(16, 16)>>>(c, a, b, 1024);
  shiftDynamic<<<n / 256, 256, 256 * sizeof(float), stream>>>(c, a, n);
  histogram<<<(n + 511) / 512, 512, 0, stream>>>(bins, bytes, n);

  cudaError_t err = cudaDeviceSynchronize();
  printf("%s\n", cudaGetErrorString(err));
  return err == cudaSuccess ? 0 : 1;
}
