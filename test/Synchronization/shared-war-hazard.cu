// RUN: %cudaperf-analyze --checks='-*,cuda-shared-war-hazard' %cuda-builtin-args %s 2>&1 >/dev/null | FileCheck %s -implicit-check-not='{{warning|error}}:'
// RUN: %cudaperf-analyze --checks='-*,cuda-shared-war-hazard' %cuda-builtin-args --format=json %s | FileCheck %s --check-prefix=JSON
// Flagged: a loop that reads a shared tile other threads wrote and writes the tile again in its next
// iteration with no barrier after the last read (the tiled matmul missing its second
// __syncthreads()), also when the tile is read in a loop that is not unrolled. Not flagged: the
// same loops with the barrier at the end, a double-buffered tile (the next iteration writes the
// other buffer), a thread overwriting only what it read itself, data-dependent indices (not judged).
#define TILE 16

__global__ void matmulOneBarrier(const float *A, const float *B, float *C, int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0;
  for (int t = 0; t < n / TILE; ++t) {
    As[ty][tx] = A[row * n + t * TILE + tx];
    Bs[ty][tx] = B[(t * TILE + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k)
      acc += As[ty][k] * Bs[k][tx];
// CHECK: :[[@LINE-1]]:14: warning: shared memory read here (by thread (1,0)) is overwritten at line [[@LINE-5]] by thread (0,0) in the next iteration of the loop at line [[@LINE-6]] with no __syncthreads() between the read and the write; add __syncthreads() at the end of the loop body (after the last read) [cuda-shared-war-hazard]
// CHECK: :[[@LINE-2]]:26: warning: shared memory read here (by thread (0,1)) is overwritten at line [[@LINE-5]] by thread (0,0) in the next iteration {{.*}} [cuda-shared-war-hazard]
// JSON: "war_hazard_sites": [
// JSON-NEXT: {
// JSON-NEXT: "column": 14,
// JSON-NEXT: "line": [[@LINE-6]],
// JSON-NEXT: "loop": {
  }
  C[row * n + col] = acc;
}

__global__ void matmulTwoBarriers(const float *A, const float *B, float *C, int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0;
  for (int t = 0; t < n / TILE; ++t) {
    As[ty][tx] = A[row * n + t * TILE + tx];
    Bs[ty][tx] = B[(t * TILE + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k)
      acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

// The tile read in a loop of unknown length (not unrolled).
__global__ void rowTileNoBarrier(const float *in, float *out, int tiles, int width) {
  __shared__ float tile[256];
  float acc = 0;
  for (int t = 0; t < tiles; ++t) {
    tile[threadIdx.x] = in[t * 256 + threadIdx.x];
    __syncthreads();
    for (int k = 0; k < width; ++k)
      acc += tile[(threadIdx.x + k) % 256];
// CHECK: :[[@LINE-1]]:14: warning: shared memory read here (by thread ({{[0-9]+}})) is overwritten at line [[@LINE-4]] by thread ({{[0-9]+}}) in the next iteration of the loop at line [[@LINE-5]] {{.*}} [cuda-shared-war-hazard]
  }
  out[threadIdx.x] = acc;
}

// Double buffering: iteration t+1 writes the buffer iteration t did not read.
__global__ void doubleBuffered(const float *in, float *out, int tiles) {
  __shared__ float buf[2][256];
  float acc = 0;
  for (int t = 0; t < tiles; ++t) {
    buf[t % 2][threadIdx.x] = in[t * 256 + threadIdx.x];
    __syncthreads();
    acc += buf[t % 2][(threadIdx.x + 1) % 256];
  }
  out[threadIdx.x] = acc;
}

// Each thread reads and rewrites only its own element: no other thread's data.
__global__ void ownElement(const float *in, float *out, int steps) {
  __shared__ float s[256];
  s[threadIdx.x] = in[threadIdx.x];
  for (int t = 0; t < steps; ++t)
    s[threadIdx.x] = s[threadIdx.x] * 0.5f + 1.0f;
  out[threadIdx.x] = s[threadIdx.x];
}

// Indices read from memory: not judged.
__global__ void gathered(const int *idx, const float *in, float *out, int tiles) {
  __shared__ float tile[256];
  float acc = 0;
  for (int t = 0; t < tiles; ++t) {
    tile[threadIdx.x] = in[t * 256 + threadIdx.x];
    __syncthreads();
    acc += tile[idx[threadIdx.x]];
  }
  out[threadIdx.x] = acc;
}

int main() {
  float *p = nullptr;
  matmulOneBarrier<<<dim3(64, 64), dim3(TILE, TILE)>>>(p, p, p, 1024);
  matmulTwoBarriers<<<dim3(64, 64), dim3(TILE, TILE)>>>(p, p, p, 1024);
}

// The text summary folds the 16 unrolled copies of each tile read into one line with a count.
// RUN: %cudaperf-analyze --checks='-*' %cuda-builtin-args %s 2>/dev/null | FileCheck %s --check-prefix=SUMMARY
// SUMMARY: kernel matmulOneBarrier
// SUMMARY: line 21:14 load shared 4 B conflict-free, 1.00 wavefronts/request (x16: unrolled or inlined copies){{$}}
// SUMMARY-NEXT: line 21:26 load shared 4 B conflict-free, 1.00 wavefronts/request (x16: unrolled or inlined copies){{$}}
// SUMMARY-NEXT: sync:
