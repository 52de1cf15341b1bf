// Counts what a candidate does through the CUDA runtime while its entry point runs: kernel
// launches and the streams they went to, and copies between host and device. The worker
// executable defines these runtime functions itself (exported with -rdynamic), so a candidate
// built with -cudart shared binds to them and they forward to libcudart.
#pragma once

#include <cuda_runtime_api.h>

namespace cudaperf::worker {

struct CallActivity {
  int kernels = 0;                // launches through <<<>>> or cudaLaunchKernel*
  int kernelsOnDefaultStream = 0; // on stream 0 / legacy / per-thread: unordered with the timed stream
  int kernelsOnOtherStreams = 0;  // on streams the candidate created
  int hostCopies = 0;             // host<->device copies inside the call
  // Distinct streams other than the timed one that kernels went to (first few), so the worker
  // can ask, once the timed stream is done, whether work is still pending on them.
  static constexpr int kMaxStreams = 8;
  cudaStream_t otherStreams[kMaxStreams] = {};
  int otherStreamCount = 0;
};

void beginCandidateCall(cudaStream_t stream);
CallActivity endCandidateCall();

} // namespace cudaperf::worker
