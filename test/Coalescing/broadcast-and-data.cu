// One address for the whole warp is a broadcast (1 sector); addresses computed from loaded values
// are data-dependent and never guessed (no sectors, no warning).
// RUN: %cudaperf-analyze %cuda-builtin-args %s 2>&1 | FileCheck %s -implicit-check-not='{{warning|error}}:'
// RUN: %cudaperf-analyze %cuda-builtin-args --format=json %s > %t.json
// RUN: %python %S/Inputs/accesses.py %t.json | FileCheck %s --check-prefix=JSON
// RUN: %cudaperf-analyze %cuda-builtin-args --format=json --launch=broadcast::16x16 %s > %t.launch.json
// RUN: %python %S/Inputs/accesses.py %t.launch.json | FileCheck %s --check-prefix=JSON
// CHECK-NOT: [cuda-uncoalesced-access]

__global__ void broadcast(const float *scale, const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] * scale[0] + scale[blockIdx.x + 1];
}
// JSON-DAG: broadcast 12:20 load 4 broadcast sectors=1 ideal=1 exec=1 coef=0,0,0
// JSON-DAG: broadcast 12:31 load 4 broadcast sectors=1 ideal=1 exec=1 coef=0,0,0

__global__ void gather(const float *in, const int *idx, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[idx[i]];
}
// JSON-DAG: gather 19:12 load 4 data-dependent sectors=- ideal=- exec=1 coef=-
// JSON-DAG: gather 19:15 load 4 coalesced sectors=4

// The row pointer is read from memory: the base is data.
__global__ void rows(float *const *rowPtr, float *out) {
  const float *row = rowPtr[blockIdx.x];
  out[blockIdx.x * blockDim.x + threadIdx.x] = row[threadIdx.x];
}
// JSON-DAG: rows 27:48 load 4 data-dependent sectors=- ideal=- exec=1 coef=4,0,0
// JSON-DAG: rows 26:22 load 8 broadcast sectors=1

// A work queue: the index comes from an atomic.
__global__ void queue(int *counter, float *out) {
  int slot = atomicAdd(counter, 1);
  out[slot] = 1.0f;
}
// JSON-DAG: queue 34:14 atomic 4 broadcast sectors=1
// JSON-DAG: queue 35:13 store 4 data-dependent sectors=- ideal=- exec=1 coef=-
