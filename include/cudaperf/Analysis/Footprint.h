//===- Footprint.h - Distinct 32-byte sectors of a set of address ranges -*- C++ -*-===//
//
// The DRAM traffic estimate of an array: the union of the byte ranges its accesses cover over the
// whole grid, in 32-byte sectors. A range carries a density (distinct sectors a warp touches / the
// sectors its span covers, below 1 for strides over 32 bytes); overlapping ranges take the
// largest density. Pure C++.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_ANALYSIS_FOOTPRINT_H
#define CUDAPERF_ANALYSIS_FOOTPRINT_H

#include <cstdint>
#include <vector>

namespace cudaperf {

struct ByteRange {
  int64_t Lo = 0, Hi = 0; // [Lo, Hi) in bytes from the array's base
  double Density = 1.0;
};

/// Bytes in the distinct 32-byte sectors that the union of \p Ranges covers, each merged range
/// weighted by the largest density among its members.
double footprintBytes(std::vector<ByteRange> Ranges);

} // namespace cudaperf

#endif
