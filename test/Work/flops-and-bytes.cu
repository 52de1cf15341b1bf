// FLOP counting rules (contraction, library calls, fp64, guards, loops with known counts) and
// bytes and DRAM estimates of the work analysis, on kernels whose counts are known by hand.
// RUN: %cudaperf-analyze --format=json %cuda-builtin-args %s > %t.json
// RUN: %python %S/Inputs/work_summary.py %t.json | FileCheck %s

// One FFMA per element after contraction: 2 FLOP; x and y read, y written: 12 bytes per element.
__global__ void saxpy(const float *x, float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
// CHECK: saxpy threads=1048576 flops=2097152 fp32=add:0,mul:0,fma:1048576 sass=fadd:0,ffma:1048576,fmul:0 load=8388608 store=4194304 dram_read=8388608 dram_write=4194304 bound=memory

// fmaf() and the rounded intrinsics are one instruction each, like the operators.
__global__ void explicitIntrinsics(const float *x, float *y, const double *u, double *v, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = __fmul_rn(fmaf(a, x[i], y[i]), __fadd_rz(x[i], a));
  v[i] = fma(u[i], u[i], __dadd_rn(v[i], 1.0));
}
// CHECK: explicitIntrinsics threads=1024 flops=7168 fp32=add:1024,mul:1024,fma:1024 fp64=add:1024,mul:0,fma:1024 sass=dadd:1024,dfma:1024,dmul:0,fadd:1024,ffma:1024,fmul:1024 {{.*}}

// The guard keeps 1000 of 1024 threads: exact counts, not a per-thread guess.
__global__ void guarded(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  y[i] = x[i] * x[i] + 1.0f;
}
// CHECK: guarded threads=1024 flops=2000 fp32=add:0,mul:0,fma:1000 sass=fadd:0,ffma:1000,fmul:0 load=4000 store=4000 dram_read=4000 dram_write=4000 bound=memory

// A loop of known count: 64 FMA per thread in fp64 (the first step folds 1*x into an add).
__global__ void horner64(const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double v = x[i], acc = 1.0;
  for (int k = 0; k < 64; ++k)
    acc = acc * v + 0.5;
  y[i] = acc;
}
// CHECK: horner64 threads=65536 flops=8323072 fp64=add:65536,mul:0,fma:4128768 sass=dadd:65536,dfma:4128768,dmul:0 load=524288 store=524288 dram_read=524288 dram_write=524288 bound=compute

// A product that is also stored is not fused: it stays an FMUL and the add an FADD (NVIDIA's
// compiler does so, measured on the corpus); a single-use product fuses.
__global__ void sharedProduct(const float *a, const float *b, float *c, float *d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float p = a[i] * b[i];
  c[i] = p + 1.0f;
  d[i] = p;
  c[i + 256] = a[i] * 3.0f + b[i];
}
// CHECK: sharedProduct threads=256 flops=1024 fp32=add:256,mul:256,fma:256 sass=fadd:256,ffma:256,fmul:256

// Math-library calls and divisions: counted by name, with their fast-path FP instructions.
__global__ void special(const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  y[i] = expf(v) + 1.0f / v;
}
// expf: 1 FADD, 1 FMUL, 4 FFMA; 1/x: 1 FADD, 2 FFMA; the source's add: 16 FLOP per thread.
// CHECK: special threads=256 flops=4096 fp32=add:768,mul:256,fma:1536 sass=fadd:768,ffma:1536,fmul:256 load=1024 store=1024 dram_read=1024 dram_write=1024 bound=memory special=__nv_expf:256,rcp.f32:256

// A stride of 32 floats touches one 32-byte sector in four, one 64-byte DRAM unit in two: the read
// estimate is half the 8 MB range (the H200 reads DRAM in 64-byte units).
__global__ void strided(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i * 32];
}
// CHECK: strided threads=65536 flops=0 load=262144 store=262144 dram_read=4194304 dram_write=262144 bound=memory

// A grid-stride loop: ScalarEvolution cannot count it (the step is blockDim.x * gridDim.x); the
// latch comparison gives ceil((n - i) / stride) per thread.
__global__ void gridStride(const float *x, float *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = 2.0f * x[i];
}
// CHECK: gridStride threads=32768 flops=1048576 fp32=add:0,mul:1048576,fma:0 {{.*}} load=4194304 store=4194304 dram_read=4194304 dram_write=4194304 bound=memory

// A loop whose count is unknown (n depends on run-time input): no totals, a symbolic expression.
__global__ void unknownCount(const float *x, float *y, int n) {
  float s = 0.0f;
  for (int k = 0; k < n; ++k)
    s += x[k];
  y[threadIdx.x] = s;
}
// CHECK: unknownCount threads=256 flops=None expr=0 + 1 * (1 + (-1 + (zext i32 n to i64))<nsw>) {{.*}} dram_read=None

int main(int argc, char **argv) {
  float *x = nullptr, *y = nullptr, *c = nullptr, *d = nullptr;
  double *xd = nullptr, *yd = nullptr;
  saxpy<<<4096, 256>>>(x, y, 2.0f, 1 << 20);
  guarded<<<4, 256>>>(x, y, 1000);
  explicitIntrinsics<<<4, 256>>>(x, y, xd, yd, 2.0f);
  horner64<<<256, 256>>>(xd, yd);
  sharedProduct<<<1, 256>>>(x, y, c, d);
  special<<<1, 256>>>(x, y);
  strided<<<256, 256>>>(x, y);
  gridStride<<<128, 256>>>(x, y, 1 << 20);
  unknownCount<<<1, 256>>>(x, y, argc);
  return 0;
}
