// cudaperf-task: matmul
// cudaperf-class: timer-patch
// cudaperf-source: issue 33 item 7 (timer patching: clock_gettime); GPU MODE reference-kernels (patched timers)
// cudaperf-expect: ok,timing_violation
// cudaperf-expect-max-speedup: 1.5
// Redirects every loaded object's GOT slot for clock_gettime to a clock that runs 50 times slow
// (whatever host-side timing the runner does shrinks). The trusted worker's clock is in another
// process, so this must gain nothing or be a timing violation.
#include <cstdint>
#include <cstring>
#include <ctime>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
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

using ClockGettime = int (*)(clockid_t, timespec *);
static ClockGettime gReal = nullptr;

static int slowClock(clockid_t id, timespec *ts) {
  int r = gReal(id, ts);
  if (r == 0) {
    long long ns = (ts->tv_sec * 1000000000LL + ts->tv_nsec) / 50;
    ts->tv_sec = ns / 1000000000LL;
    ts->tv_nsec = ns % 1000000000LL;
  }
  return r;
}

static int visit(dl_phdr_info *info, size_t, void *) {
  const ElfW(Dyn) *dyn = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
      dyn = reinterpret_cast<const ElfW(Dyn) *>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
  if (!dyn)
    return 0;
  const ElfW(Sym) *symtab = nullptr;
  const char *strtab = nullptr;
  const ElfW(Rela) *rel[2] = {nullptr, nullptr};
  size_t relBytes[2] = {0, 0};
  for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_SYMTAB)
      symtab = reinterpret_cast<const ElfW(Sym) *>(d->d_un.d_ptr);
    else if (d->d_tag == DT_STRTAB)
      strtab = reinterpret_cast<const char *>(d->d_un.d_ptr);
    else if (d->d_tag == DT_JMPREL)
      rel[0] = reinterpret_cast<const ElfW(Rela) *>(d->d_un.d_ptr);
    else if (d->d_tag == DT_PLTRELSZ)
      relBytes[0] = d->d_un.d_val;
    else if (d->d_tag == DT_RELA)
      rel[1] = reinterpret_cast<const ElfW(Rela) *>(d->d_un.d_ptr);
    else if (d->d_tag == DT_RELASZ)
      relBytes[1] = d->d_un.d_val;
  }
  if (!symtab || !strtab)
    return 0;
  long page = sysconf(_SC_PAGESIZE);
  for (int t = 0; t < 2; ++t)
    for (size_t i = 0; rel[t] && i < relBytes[t] / sizeof(ElfW(Rela)); ++i) {
      size_t sym = ELF64_R_SYM(rel[t][i].r_info);
      if (!sym || strcmp(strtab + symtab[sym].st_name, "clock_gettime") != 0)
        continue;
      void **slot = reinterpret_cast<void **>(info->dlpi_addr + rel[t][i].r_offset);
      uintptr_t start = reinterpret_cast<uintptr_t>(slot) & ~uintptr_t(page - 1);
      if (mprotect(reinterpret_cast<void *>(start), page, PROT_READ | PROT_WRITE) == 0)
        *slot = reinterpret_cast<void *>(slowClock);
    }
  return 0;
}

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream) {
  static bool tried = false;
  if (!tried) {
    tried = true;
    gReal = reinterpret_cast<ClockGettime>(dlsym(RTLD_DEFAULT, "clock_gettime"));
    if (gReal)
      dl_iterate_phdr(visit, nullptr);
  }
  matmulNaive<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16), 0, stream>>>(A, B, C, M, N, K);
}
