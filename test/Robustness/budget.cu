// Work bounds per kernel (issue 14: cuda-samples' bf16TensorCoreGemm took 205 s). A fully unrolled
// loop of 256 iterations gives 769 memory accesses; within the default budget it is
// analysed whole, quickly (the missing-barrier search and expression printing were quadratic in
// kernel size). Smaller budgets stop the analyses early, with a note; the report is still complete
// in form and the tool exits 0.
// RUN: %expect-exit 0 --timeout 120 -- %cudaperf-analyze %cuda-builtin-args --format=json %s > %t.json
// RUN: %python %S/Inputs/budget_summary.py %t.json | FileCheck %s --check-prefix=FULL
// RUN: %expect-exit 0 -- %cudaperf-analyze %cuda-builtin-args --format=json --analysis-steps=20000 %s > %t.steps.json
// RUN: %python %S/Inputs/budget_summary.py %t.steps.json | FileCheck %s --check-prefix=STEPS
// RUN: %expect-exit 0 -- %cudaperf-analyze %cuda-builtin-args --format=json --analysis-seconds=0.000001 %s > %t.secs.json
// RUN: %python %S/Inputs/budget_summary.py %t.secs.json | FileCheck %s --check-prefix=SECS
// RUN: %expect-exit 0 -- %cudaperf-analyze %cuda-builtin-args --format=json --max-instantiations=2 %s > %t.inst.json
// RUN: %python %S/Inputs/budget_summary.py %t.inst.json | FileCheck %s --check-prefix=INST
// RUN: %expect-exit 2 -- %cudaperf-analyze %cuda-builtin-args --analysis-seconds=0 %s | FileCheck %s --check-prefix=USAGE

__global__ void unrolled(const float *in, float *out, int n) {
  __shared__ float tile[256];
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < 256; ++k) {
    tile[(threadIdx.x + k) % 256] = in[k * n + threadIdx.x];
    acc += tile[(threadIdx.x * 3 + k) % 256];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

template <int Stride> __global__ void strided(float *p) { p[threadIdx.x * Stride] = 0.0f; }
template __global__ void strided<1>(float *);
template __global__ void strided<2>(float *);
template __global__ void strided<4>(float *);

// FULL: unrolled accesses=769 known=769 budget=no
// FULL: strided<1> accesses=1 known=1 budget=no
// FULL: strided<4> accesses=1 known=1 budget=no
// STEPS: unrolled accesses=769 known={{[0-9]+}} budget=analysis budget exhausted in the coalescing analysis after 20000 evaluation steps (--analysis-steps): facts computed after that point are unknown (the kernel is large; raise the limit to analyse it fully)
// STEPS: strided<1> accesses=1 known=1 budget=no
// SECS: unrolled accesses=769 known={{[0-9]+}} budget=analysis budget exhausted in the coalescing analysis after 1e-06 s (--analysis-seconds)
// INST: strided<2> accesses=1 known=1 budget=no
// INST: strided<4> accesses=0 known=0 budget=no registers=nvrtc
// INST-SAME: note=memory, work and barrier analyses skipped: instantiation 3 of template kernel 'strided' and --max-instantiations=2 (resources and occupancy are still reported)
// USAGE: error: --analysis-seconds must be positive
