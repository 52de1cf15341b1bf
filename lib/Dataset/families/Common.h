// Small pieces every family uses: argument and distribution constructors, the entry point's
// parameter list, implementation records and the preludes of generated sources.
#pragma once

#include "cudaperf/Dataset/Rng.h"
#include "cudaperf/Dataset/Spec.h"
#include "cudaperf/Dataset/Template.h"

#include <string>
#include <vector>

namespace cudaperf::dataset {

Json uniformDist(double lo, double hi);
Json normalDist(double mean, double stddev);

ArgSpec pointerArg(const std::string &name, const std::string &dtype, const std::string &access,
                   const std::string &count, Json dist = nullptr);
ArgSpec sizeArg(const std::string &name); // an i32 size parameter set by every configuration
ArgSpec scalarArg(const std::string &name, const std::string &dtype, double value);

// "const float *x, float *y, int n" (the entry's parameters without the stream).
std::string entryParams(const TaskSpec &t);
// "x, y, n": the arguments in order, for forwarding.
std::string argNames(const TaskSpec &t);

ImplSpec implementation(const std::string &name, std::vector<std::string> strategies, Expected expected,
                        std::string source);

// Start of every implementation: the runtime header. implementation() adds smCount(), the GPU's
// multiprocessor count (queried once, for grids sized to the device), where the source calls it.
std::string cudaPrelude();
// reference.c's includes and integer helpers.
std::string referencePrelude();

// A config value (size parameters are integers).
ConfigSpec config(const std::string &name, std::vector<std::pair<std::string, double>> values);

// Round v up to a multiple of m.
long long roundUp(long long v, long long m);

} // namespace cudaperf::dataset
