// cudaperf-task: vector_add
// cudaperf-class: ptrace
// cudaperf-source: issue 33 item 3 (no process_vm_readv/writev)
// cudaperf-expect: runtime_fault
// Reads 64 bytes of the parent at the address of its own stack variable (same binary layout guess)
// with process_vm_readv and writes them back with process_vm_writev. Must be killed by the filter.
#include <cuda_runtime.h>
#include <sys/uio.h>
#include <unistd.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

// True when the attempt got through; the entry point then writes zeros, so a breach can never
// come out ok.
static bool attempt() {
  static char buf[64];
  char here[64] = {};
  iovec local = {buf, sizeof buf}, remote = {here, sizeof here};
  ssize_t r = process_vm_readv(getppid(), &local, 1, &remote, 1, 0);
  ssize_t w = process_vm_writev(getppid(), &local, 1, &remote, 1, 0);
  return r > 0 || w > 0;
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream) {
  static int breached = -1;
  if (breached < 0)
    breached = attempt();
  if (breached)
    cudaMemsetAsync(c, 0, n * sizeof(float), stream);
  else
    add<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
}
