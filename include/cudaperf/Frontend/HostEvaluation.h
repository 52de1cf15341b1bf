//===- HostEvaluation.h - The launches an entry point makes, at given sizes -*- C++ -*-===//
//
// What `cudaperf-analyze --task` asks of the front end: run a task's entry point (the
// extern "C" host function every implementation defines) on the Clang AST with its parameters
// bound to one configuration's values, and list the kernel launches it makes, in order, with
// their grid, block, dynamic shared memory and arguments. Parts that cannot be known say why.
// The evaluator (lib/Frontend/HostInterpreter.cpp) is described in docs/architecture.md.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_FRONTEND_HOSTEVALUATION_H
#define CUDAPERF_FRONTEND_HOSTEVALUATION_H

#include "cudaperf/Report/TaskReport.h"
#include <optional>
#include <string>
#include <vector>

namespace cudaperf {

/// What the host code learns when it asks about the device (cudaGetDeviceProperties,
/// cudaDeviceGetAttribute): the device of --arch in cudaperf's tables.
struct HostDevice {
  std::string Name = "H200";
  int Major = 9, Minor = 0;
  int MultiProcessors = 132;
  int WarpSize = 32;
  int MaxThreadsPerBlock = 1024;
  int MaxThreadsPerMultiProcessor = 2048;
  int MaxBlocksPerMultiProcessor = 32;
  int SharedMemPerBlock = 49152;
  int SharedMemPerBlockOptin = 232448;
  int SharedMemPerMultiProcessor = 233472;
  int RegistersPerBlock = 65536;
  int RegistersPerMultiProcessor = 65536;
};

/// One argument of the entry point at one configuration, in the entry's parameter order.
struct HostArgument {
  std::string Name;       // the task's name for it (the candidate may spell its parameter otherwise)
  bool IsPointer = false;
  bool IsInteger = false; // scalars: an integer dtype
  double Scalar = 0;      // scalars
  int64_t Elements = 0;   // pointers: element count
  int64_t ElementBytes = 0;
};

struct HostConfiguration {
  std::string Name;
  std::vector<HostArgument> Args; // the trailing cudaStream_t is implied
};

struct HostEntryRequest {
  std::string Entry; // the extern "C" function's name
  std::vector<HostConfiguration> Configurations;
  HostDevice Device;
  /// Statements and expressions evaluated per configuration before giving up.
  unsigned StepBudget = 2000000;
  unsigned MaxCallDepth = 16;
  unsigned MaxLaunches = 4096;
};

/// The entry point run at one configuration.
struct HostEvaluation {
  std::string Configuration;
  bool EntryFound = false;
  bool Complete = false; // the entry returned; false: evaluation stopped early (Reason says why)
  std::string Reason;
  std::vector<EvaluatedLaunch> Launches;
  std::vector<std::string> Notes; // assumptions that were made (device queries answered, ...)
  unsigned Steps = 0;
};

} // namespace cudaperf

#endif
