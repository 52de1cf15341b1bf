// Kernels only, as NVRTC accepts them: the template is instantiated explicitly.
template <int N>
__global__ void reverse(float *a) {
  __shared__ float s[N];
  s[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  a[threadIdx.x] = s[N - 1 - threadIdx.x];
}
template __global__ void reverse<256>(float *);
