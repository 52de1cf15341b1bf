// A finding is reported once per check and source location, with the template instantiations and
// unrolled copies it covers (issue 14: 1,965 bank-conflict reports from one file): in the message,
// and as "kernels" and "occurrences" in JSON and SARIF.
// RUN: %expect-exit 0 -- %cudaperf-analyze %cuda-builtin-args %s 2>&1 | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect-exit 0 -- %cudaperf-analyze %cuda-builtin-args --format=json --sarif=%t.sarif %s > %t.json
// RUN: %python -c "import json; [print(d['check'], d['line'], d.get('kernels'), d.get('occurrences')) for d in json.load(open('%t.json'))['diagnostics']]" | FileCheck %s --check-prefix=JSON
// RUN: %python -c "import json; [print(r['ruleId'], r['properties'].get('kernels'), r['properties'].get('occurrences')) for r in json.load(open('%t.sarif'))['runs'][0]['results']]" | FileCheck %s --check-prefix=SARIF

template <int Stride> __global__ void columns(float *out) {
  __shared__ float tile[32 * 32 * 4];
  tile[threadIdx.x * Stride * 32] = 1.0f;
  // CHECK: :[[@LINE-1]]:35: warning: {{.*}}; reported once for 3 instantiations (columns<1>, columns<2>, columns<4>) [cuda-shared-bank-conflict]
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x];
}
template __global__ void columns<1>(float *);
template __global__ void columns<2>(float *);
template __global__ void columns<4>(float *);

__global__ void unrolledStrided(const float *in, float *out) {
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < 8; ++k)
    acc += in[(threadIdx.x * 8 + k) * 32];
  // CHECK: :[[@LINE-1]]:12: warning: {{.*}}; reported once for 8 copies of this code (unrolled iterations or inlined calls) [cuda-uncoalesced-access]
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// JSON: cuda-shared-bank-conflict 11 ['columns<1>', 'columns<2>', 'columns<4>'] 3
// JSON: cuda-uncoalesced-access 24 ['unrolledStrided'] 8
// SARIF: cuda-shared-bank-conflict ['columns<1>', 'columns<2>', 'columns<4>'] 3
// SARIF: cuda-uncoalesced-access ['unrolledStrided'] 8
