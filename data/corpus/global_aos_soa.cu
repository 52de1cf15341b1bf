// Array of structures against structure of arrays. A 4-byte-aligned struct is read field by field, so lanes of
// one field load are sizeof(struct) bytes apart.
#include "corpus_util.h"

struct Point4 { float x, y, z, w; };                  // 16 bytes, 4-byte aligned
struct Point3 { float x, y, z; };                     // 12 bytes
struct Particle { float x, y, z, vx, vy, vz; };       // 24 bytes

// @kernel pattern=strided; note=reads only .x of a 16-byte struct: lanes 16 bytes apart
__global__ void aos_read_x(const Point4* __restrict__ p, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = p[i].x * 2.0f;  // @ld.global 4B exp=16 @st.global 4B exp=4
}

// @kernel pattern=coalesced
__global__ void soa_read_x(const float* __restrict__ x, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] * 2.0f;  // @ld.global 4B exp=4 @st.global 4B exp=4
}

// @kernel pattern=strided; note=three field loads of a 12-byte struct, each with lanes 12 bytes apart (12 sectors)
__global__ void aos_sum_xyz(const Point3* __restrict__ p, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = p[i].x + p[i].y + p[i].z;  // @ld.global 4B exp=12 insts=3 @st.global 4B exp=4
}

// @kernel pattern=coalesced; note=three unit-stride loads
__global__ void soa_sum_xyz(const float* __restrict__ x, const float* __restrict__ y, const float* __restrict__ z,
                            float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] + y[i] + z[i];  // @ld.global 4B exp=4 insts=3 @st.global 4B exp=4
}

// @kernel pattern=strided; note=reads all six fields of a 24-byte struct and writes three: each access has lanes 24 bytes apart (24 sectors)
__global__ void aos_update(Particle* __restrict__ p, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    Particle q = p[i];  // @ld.global 4B exp=24 insts=6
    q.x += q.vx * dt;
    q.y += q.vy * dt;
    q.z += q.vz * dt;
    p[i].x = q.x;  // @st.global 4B exp=24
    p[i].y = q.y;  // @st.global 4B exp=24
    p[i].z = q.z;  // @st.global 4B exp=24
  }
}

// @kernel pattern=coalesced; note=six unit-stride loads, three unit-stride stores
__global__ void soa_update(float* __restrict__ x, float* __restrict__ y, float* __restrict__ z,
                           const float* __restrict__ vx, const float* __restrict__ vy, const float* __restrict__ vz,
                           int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] += vx[i] * dt;  // @ld.global 4B exp=4 insts=2 @st.global 4B exp=4
    y[i] += vy[i] * dt;  // @ld.global 4B exp=4 insts=2 @st.global 4B exp=4
    z[i] += vz[i] * dt;  // @ld.global 4B exp=4 insts=2 @st.global 4B exp=4
  }
}

int main() {
  const int n = 1 << 22;
  float* out = deviceAlloc<float>(n);
  {
    Point4* p = deviceRandomElements<Point4>(n, 71);
    aos_read_x<<<(n + 255) / 256, 256>>>(p, out, n);
    CHECK_LAUNCH();
  }
  float* x = deviceRandomFloats(n, 72);
  float* y = deviceRandomFloats(n, 73);
  float* z = deviceRandomFloats(n, 74);
  soa_read_x<<<(n + 255) / 256, 256>>>(x, out, n);
  CHECK_LAUNCH();
  {
    Point3* p = deviceRandomElements<Point3>(n, 75);
    aos_sum_xyz<<<(n + 255) / 256, 256>>>(p, out, n);
    CHECK_LAUNCH();
  }
  soa_sum_xyz<<<(n + 255) / 256, 256>>>(x, y, z, out, n);
  CHECK_LAUNCH();
  {
    Particle* p = deviceRandomElements<Particle>(n, 76);
    aos_update<<<(n + 255) / 256, 256>>>(p, n, 0.01f);
    CHECK_LAUNCH();
  }
  {
    float* vx = deviceRandomFloats(n, 77);
    float* vy = deviceRandomFloats(n, 78);
    float* vz = deviceRandomFloats(n, 79);
    soa_update<<<(n + 255) / 256, 256>>>(x, y, z, vx, vy, vz, n, 0.01f);
    CHECK_LAUNCH();
  }
  printf("global_aos_soa: ok\n");
  return 0;
}
