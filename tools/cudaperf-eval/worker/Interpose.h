// Counts what a candidate does through the CUDA runtime and driver while its entry point runs:
// kernel launches and the streams they went to, and copies between host and device; during the
// audit call it also records each launch (kernel, grid, block, dynamic shared memory, stream).
// The worker executable defines these functions itself (exported with -rdynamic), so a candidate
// built with -cudart shared binds to them and they forward to libcudart or libcuda.
#pragma once

#include <cuda_runtime_api.h>
#include <string>
#include <vector>

namespace cudaperf::worker {

struct CallActivity {
  int kernels = 0;                // launches through <<<>>>, cudaLaunchKernel* or cuLaunchKernel*
  int kernelsOnDefaultStream = 0; // on stream 0 / legacy / per-thread: unordered with the timed stream
  int kernelsOnOtherStreams = 0;  // on streams the candidate created
  int hostCopies = 0;             // host<->device copies inside the call
  // Distinct streams other than the timed one that kernels went to (first few), so the worker
  // can ask, once the timed stream is done, whether work is still pending on them.
  static constexpr int kMaxStreams = 8;
  cudaStream_t otherStreams[kMaxStreams] = {};
  int otherStreamCount = 0;
};

// One kernel launch of a recorded call, in launch order.
struct LaunchRecord {
  std::string kernel; // mangled name ("<unknown>" when the runtime cannot name it)
  unsigned grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  size_t dynamicSmemBytes = 0;
  const char *stream = "timed"; // "timed", "default" or "other"
};
constexpr size_t kMaxRecordedLaunches = 256;

void beginCandidateCall(cudaStream_t stream, bool recordLaunches = false);
// The stream is gone (the candidate destroyed it during the call): not queried afterwards.
void forgetStream(cudaStream_t s);
CallActivity endCandidateCall();
// The launches of the last call begun with recordLaunches (names resolved by endCandidateCall).
const std::vector<LaunchRecord> &recordedLaunches();
bool recordedLaunchesTruncated();

} // namespace cudaperf::worker
