// libcu++ synchronization objects in __shared__ memory (cuda-samples simpleAWBarrier,
// globalToShmemAsyncCopy): nvcc warns that it ignores their construction, clang rejected them.
#include <cuda/barrier>
#include <cooperative_groups.h>
#include <cuda/pipeline>

__global__ void withBarrier(const float *in, float *out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> barrier;
  __shared__ float tile[256];
  if (threadIdx.x == 0)
    init(&barrier, blockDim.x);
  __syncthreads();
  tile[threadIdx.x] = in[threadIdx.x];
  barrier.arrive_and_wait();
  out[threadIdx.x] = tile[255 - threadIdx.x];
}

__global__ void withPipeline(float *out) {
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto pipe = cuda::make_pipeline(cooperative_groups::this_thread_block(), &state);
  pipe.producer_acquire();
  pipe.producer_commit();
  out[threadIdx.x] = 1.0f;
}
