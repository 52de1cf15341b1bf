// The size the evaluator allocates for a buffer another process maps through CUDA IPC (the worker's
// argument buffers, which the candidate's runner imports). From 2 MiB up, an allocation that is not a
// whole number of 2 MiB pages is mapped in the importing process with small pages: on an H100 (driver
// 580) the KernelBench ReLU over 6.44 GB buffers ran 9.56 ms in the importer against 5.30 ms in the
// exporter when each allocation was 8 KiB longer than the buffer, and 5.30 ms in both when it was not
// (data/eval-runs/2026-12-06-h100-relu-pages/, scripts/gpu/stream-probe.cu).
#pragma once

#include <cstddef>

namespace cudaperf::runtime {

inline constexpr size_t kIpcLargePage = size_t(2) << 20;

// BYTES rounded up to whole 2 MiB pages from 2 MiB up; smaller allocations are left as they are.
constexpr size_t ipcAllocationBytes(size_t bytes) {
  return bytes < kIpcLargePage ? bytes : (bytes + kIpcLargePage - 1) / kIpcLargePage * kIpcLargePage;
}

} // namespace cudaperf::runtime
