// A pointer argument with a distribution, for the generator's tests.
#pragma once

#include "cudaperf/Runtime/Task.h"

inline cudaperf::runtime::Argument pointerArgument(cudaperf::runtime::Dtype d, cudaperf::runtime::Distribution::Kind k,
                                                   double a, double b) {
  cudaperf::runtime::Argument arg;
  arg.kind = cudaperf::runtime::Argument::Kind::Pointer;
  arg.dtype = d;
  arg.distribution.kind = k;
  arg.distribution.a = a;
  arg.distribution.b = b;
  return arg;
}
