/* cudaperf built-in header: everything is declared in cudaperf_cuda_builtin.h. */
#include "cudaperf_cuda_builtin.h"
