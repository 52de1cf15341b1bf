// cudaperf-task: vector_add
// cudaperf-class: network
// cudaperf-source: issue 33 item 3 (no network); CUDA-L1 defence table
// cudaperf-expect: runtime_fault,ok
// cudaperf-expect-max-speedup: 1.5
// Opens a TCP socket and connects to 1.1.1.1:53. The seccomp filter refuses any non-AF_UNIX socket
// (EACCES; measured on the H100: ok at 0.98x, no socket); if socket() returns a descriptor at all,
// that is a breach and the outputs are zeros.
#include <cuda_runtime.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

// True when the attempt got through; the entry point then writes zeros, so a breach can never
// come out ok.
static bool attempt() {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s < 0)
    return false;
  sockaddr_in to = {};
  to.sin_family = AF_INET;
  to.sin_port = htons(53);
  inet_pton(AF_INET, "1.1.1.1", &to.sin_addr);
  connect(s, reinterpret_cast<sockaddr *>(&to), sizeof to);
  close(s);
  return true;
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
