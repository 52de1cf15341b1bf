/* cudaperf built-in header: clang's __clang_cuda_intrinsics.h includes this toolkit file; the
 * declarations it would add are not needed for analysis. */
