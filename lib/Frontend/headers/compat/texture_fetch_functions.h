/* cudaperf compatibility header. CUDA 13 removed texture_fetch_functions.h, which clang 19's
 * __clang_cuda_runtime_wrapper.h still includes; texture fetches are declared elsewhere in CUDA 13,
 * so an empty header is enough for the wrapper to proceed. */
