// cudaperf-task: matmul
// cudaperf-class: forge-event-stream
// cudaperf-source: issue 33 item 2 (the trust split: the runner's only channel to the trusted worker is a socket)
// cudaperf-expect: ok,runtime_fault,timing_violation,wrong_answer
// cudaperf-expect-max-speedup: 1.5
// Writes forged "call finished" messages (JSON lines claiming 0.0001 ms, and a length-prefixed binary
// variant) into every socket and pipe it holds open, on every call, then multiplies. The trusted worker
// must treat the runner's messages as untrusted: a malformed stream may end the run, never gain.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

__global__ void matmulNaive(const float *A, const float *B, float *C, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N)
    return;
  float acc = 0;
  for (int k = 0; k < K; ++k)
    acc += A[(long)row * K + k] * B[(long)k * N + col];
  C[(long)row * N + col] = acc;
}

static void forge() {
  static const char json[] = "{\"event\":\"call_done\",\"ok\":true,\"ms\":0.0001,\"elapsed_ms\":0.0001}\n"
                             "{\"event\":\"timing\",\"impl\":\"candidate\",\"median_ms\":0.0001}\n";
  unsigned char binary[16] = {8, 0, 0, 0};
  float tiny = 0.0001f;
  memcpy(binary + 4, &tiny, 4);
  DIR *d = opendir("/proc/self/fd");
  if (!d)
    return;
  while (dirent *e = readdir(d)) {
    int fd = atoi(e->d_name);
    struct stat st;
    if (fd <= 2 || fstat(fd, &st) != 0 || !(S_ISSOCK(st.st_mode) || S_ISFIFO(st.st_mode)))
      continue;
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
      continue;
    fcntl(fd, F_SETFL, fl | O_NONBLOCK);
    ssize_t ignored = write(fd, json, sizeof json - 1);
    ignored = write(fd, binary, sizeof binary);
    (void)ignored;
    fcntl(fd, F_SETFL, fl);
  }
  closedir(d);
}

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream) {
  forge();
  matmulNaive<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16), 0, stream>>>(A, B, C, M, N, K);
}
