// Findings are listed by what they cost, in the text output, the JSON and SARIF alike (issue 36,
// docs/json-schema.md): a race first, then the findings with an estimated saving, largest first,
// then the warnings without one, then notes. This file has them in the opposite source order.
// DEFINE: %{checks} = '-*,cuda-missing-barrier,cuda-contended-atomic,cuda-uncoalesced-access,cuda-shared-bank-conflict,cudaperf-unknown-access'
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cudaperf-analyze --checks=%{checks} %cuda-builtin-args %s 2>&1 >/dev/null | FileCheck %s --check-prefix=TEXT
// RUN: %cudaperf-analyze --checks=%{checks} --format=json %cuda-builtin-args %s > %t/report.json
// RUN: %python %S/Inputs/finding_order.py %t/report.json | FileCheck %s --check-prefix=ORDER
// RUN: %cudaperf-analyze --checks=%{checks} --sarif=%t/report.sarif %cuda-builtin-args %s > /dev/null
// RUN: %python %S/Inputs/finding_order.py %t/report.sarif | FileCheck %s --check-prefix=ORDER

__global__ void mixed(const float *in, float *out, float *sum) {
  __shared__ float s[32 * 33];
  unsigned t = threadIdx.x;
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2)
    if (t % (2 * stride) == 0)
      out[t] += s[t + stride];
  float c = s[32 * t];
  int i = blockIdx.x * blockDim.x + t;
  float v = in[2 * i];
  atomicAdd(sum, v);
  s[t] = v;
  out[i] = s[t + 1] + c;
}

int main() {
  float *p = nullptr;
  mixed<<<4096, 256>>>(p, p, p);
}

// TEXT: finding-order.cu:23:12: warning: shared memory read here {{.*}} [cuda-missing-barrier]
// TEXT-NEXT: finding-order.cu:21:3: warning: global atomic: {{.*}} [cuda-contended-atomic]
// TEXT-NEXT: finding-order.cu:20:13: warning: global load {{.*}} [cuda-uncoalesced-access]
// TEXT-NEXT: finding-order.cu:18:13: warning: shared load {{.*}} [cuda-shared-bank-conflict]
// TEXT-NEXT: finding-order.cu:17:17: note: the analysis could not follow {{.*}} [cudaperf-unknown-access]
// TEXT-NOT: {{warning|error|note}}:

// ORDER: cuda-missing-barrier 23 -{{$}}
// ORDER-NEXT: cuda-contended-atomic 21 {{[0-9]+\.?[0-9]*$}}
// ORDER-NEXT: cuda-uncoalesced-access 20 {{[0-9]+\.?[0-9]*$}}
// ORDER-NEXT: cuda-shared-bank-conflict 18 -{{$}}
// ORDER-NEXT: cudaperf-unknown-access 17 -{{$}}
// ORDER-NOT: {{.}}
