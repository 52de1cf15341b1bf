// The measurements the reward's static model stands on (docs/reward.md, "The config file"), on the
// GPU it runs on; prints one JSON document (cudaperf-reward-calibration/1) on stdout:
//
//   occupancy_memory   copy bandwidth (4-byte and 16-byte accesses, grid-stride) against theoretical
//                      occupancy, limited with dynamic shared memory: the occupancy at which 90% and
//                      95% of the best bandwidth is reached (structural.needed_occupancy_memory);
//   occupancy_compute  FP32 FMA throughput (8 independent chains per thread) against occupancy
//                      (structural.needed_occupancy_compute);
//   launch_overhead    a call timed the way cudaperf-eval times one (events around the call on a
//                      non-blocking stream), with one and with two empty launches
//                      (static_model.launch_overhead_us);
//   atomics            same-address atomicAdd per thread, and the same guarded to one lane per warp
//                      (static_model.same_address_atomic_ns).
//
// Build and run (GPU host): nvcc -O3 -arch=sm_90 -o /tmp/reward-calibrate scripts/gpu/reward-calibrate.cu
//                           /tmp/reward-calibrate > reward-calibration.json
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                                                   \
  do {                                                                                                             \
    cudaError_t e_ = (x);                                                                                          \
    if (e_ != cudaSuccess) {                                                                                       \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));                    \
      std::exit(1);                                                                                                \
    }                                                                                                              \
  } while (0)

__global__ void copy4(const float *__restrict__ in, float *__restrict__ out, size_t n) {
  extern __shared__ char pad[]; // occupancy limiter only
  (void)pad;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

__global__ void copy16(const float4 *__restrict__ in, float4 *__restrict__ out, size_t n) {
  extern __shared__ char pad[];
  (void)pad;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

__global__ void fmaChains(float *out, int iterations, float a, float b) {
  extern __shared__ char pad[];
  (void)pad;
  float x[8];
  for (int k = 0; k < 8; ++k)
    x[k] = threadIdx.x + k;
  for (int i = 0; i < iterations; ++i)
#pragma unroll
    for (int k = 0; k < 8; ++k)
      x[k] = fmaf(x[k], a, b);
  float s = 0;
  for (int k = 0; k < 8; ++k)
    s += x[k];
  if (s == 12345.0f) // never true; keeps the chains alive
    out[blockIdx.x] = s;
}

__global__ void empty() {}

__global__ void sameAddressAtomic(const float *in, float *acc, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(acc, in[i]);
}

__global__ void sameAddressAtomicLane0(const float *in, float *acc, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && threadIdx.x % 32 == 0)
    atomicAdd(acc, in[i]);
}

namespace {

cudaStream_t stream;
cudaEvent_t start, stop;

template <typename F> float medianMs(F call, int runs) {
  std::vector<float> t;
  for (int r = 0; r < runs + 3; ++r) {
    CHECK(cudaEventRecord(start, stream));
    call();
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (r >= 3)
      t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

struct Point {
  double occupancy, value;
};

// Occupancy levels of 256-thread blocks: 1..8 resident blocks per SM, forced with dynamic
// shared memory; the achieved residency is read back from the occupancy calculator.
template <typename Kernel> std::vector<std::pair<int, double>> occupancyLevels(Kernel kernel, int smPerSM) {
  std::vector<std::pair<int, double>> levels;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  for (int blocks = 1; blocks <= 8; ++blocks) {
    int smem = blocks == 8 ? 0 : smPerSM / blocks - 2048;
    if (smem > 200 * 1024)
      smem = 200 * 1024;
    int active = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, kernel, 256, smem));
    levels.push_back({smem, active * 256.0 / 2048.0});
  }
  return levels;
}

void printCurve(const char *name, const std::vector<Point> &p, const char *unit) {
  double best = 0;
  for (const Point &x : p)
    best = std::max(best, x.value);
  double at90 = -1, at95 = -1;
  for (const Point &x : p) { // ascending occupancy
    if (at90 < 0 && x.value >= 0.9 * best)
      at90 = x.occupancy;
    if (at95 < 0 && x.value >= 0.95 * best)
      at95 = x.occupancy;
  }
  std::printf("  \"%s\": {\"unit\": \"%s\", \"best\": %.6g, \"occupancy_at_90pct\": %.4f, \"occupancy_at_95pct\": %.4f, "
              "\"points\": [",
              name, unit, best, at90, at95);
  for (size_t i = 0; i < p.size(); ++i)
    std::printf("%s{\"occupancy\": %.4f, \"value\": %.6g}", i ? ", " : "", p[i].occupancy, p[i].value);
  std::printf("]},\n");
}

} // namespace

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  int sms = prop.multiProcessorCount;
  int smemPerSM = int(prop.sharedMemPerMultiprocessor);
  std::printf("{\n  \"schema\": \"cudaperf-reward-calibration/1\",\n  \"gpu\": \"%s\", \"sms\": %d, "
              "\"shared_memory_per_sm\": %d,\n",
              prop.name, sms, smemPerSM);

  // Copy bandwidth against occupancy: 1 GiB in, 1 GiB out, grid of exactly one wave.
  size_t bytes = size_t(1) << 30;
  float *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, bytes));
  CHECK(cudaMalloc(&out, bytes));
  CHECK(cudaMemsetAsync(in, 1, bytes, stream));
  for (int wide = 0; wide < 2; ++wide) {
    std::vector<Point> curve;
    auto levels = wide ? occupancyLevels(copy16, smemPerSM) : occupancyLevels(copy4, smemPerSM);
    for (const auto &level : levels) {
      int smem = level.first;
      double occupancy = level.second;
      int blocksPerSM = int(occupancy * 2048 / 256 + 0.5);
      int grid = sms * blocksPerSM;
      float ms = medianMs(
          [&] {
            if (wide)
              copy16<<<grid, 256, smem, stream>>>(reinterpret_cast<const float4 *>(in), reinterpret_cast<float4 *>(out),
                                                  bytes / 16);
            else
              copy4<<<grid, 256, smem, stream>>>(in, out, bytes / 4);
          },
          10);
      CHECK(cudaGetLastError());
      curve.push_back({occupancy, 2.0 * bytes / (ms * 1e-3) / 1e12});
    }
    printCurve(wide ? "occupancy_memory_16B" : "occupancy_memory_4B", curve, "TB/s (read + write)");
  }

  // FMA throughput against occupancy.
  {
    std::vector<Point> curve;
    for (const auto &level : occupancyLevels(fmaChains, smemPerSM)) {
      int smem = level.first;
      double occupancy = level.second;
      int blocksPerSM = int(occupancy * 2048 / 256 + 0.5);
      int grid = sms * blocksPerSM * 4; // four waves
      int iterations = 4096;
      float ms = medianMs([&] { fmaChains<<<grid, 256, smem, stream>>>(out, iterations, 0.999f, 0.001f); }, 5);
      CHECK(cudaGetLastError());
      double flops = 2.0 * 8 * iterations * double(grid) * 256;
      curve.push_back({occupancy, flops / (ms * 1e-3) / 1e12});
    }
    printCurve("occupancy_compute", curve, "FP32 TFLOP/s");
  }

  // A call as the evaluator times it: events around the call on the stream.
  float one = medianMs([] { empty<<<1, 32, 0, stream>>>(); }, 200);
  float two = medianMs([] {
    empty<<<1, 32, 0, stream>>>();
    empty<<<1, 32, 0, stream>>>();
  }, 200);
  std::printf("  \"launch_overhead\": {\"one_launch_us\": %.4f, \"two_launches_us\": %.4f, \"per_extra_launch_us\": %.4f},\n",
              one * 1e3, two * 1e3, (two - one) * 1e3);

  // Same-address atomics: 2^22 threads; every thread, then one lane per warp.
  int n = 1 << 22;
  float perThread = medianMs([&] { sameAddressAtomic<<<n / 256, 256, 0, stream>>>(in, out, n); }, 10);
  float perWarp = medianMs([&] { sameAddressAtomicLane0<<<n / 256, 256, 0, stream>>>(in, out, n); }, 10);
  CHECK(cudaGetLastError());
  std::printf("  \"atomics\": {\"threads\": %d, \"same_address_ms\": %.5f, \"same_address_ns_per_thread\": %.5f, "
              "\"lane0_ms\": %.5f, \"lane0_ns_per_atomic\": %.5f}\n}\n",
              n, perThread, perThread * 1e6 / n, perWarp, perWarp * 1e6 / (n / 32));
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return 0;
}
