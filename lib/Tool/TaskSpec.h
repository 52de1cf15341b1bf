//===- TaskSpec.h - A task, as --task needs it --------------------------*- C++ -*-===//
//
// The task loader is lib/Runtime's (loadTask: the same validation cudaperf-eval applies), which
// throws TaskError; the analyzer side is built without exceptions, so TaskSpec.cpp -- the one
// translation unit of lib/Tool compiled with them -- calls it and hands back plain data or the
// loader's problems.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_TOOL_TASKSPEC_H
#define CUDAPERF_TOOL_TASKSPEC_H

#include <cstdint>
#include <string>
#include <vector>

namespace cudaperf {

struct TaskSpec {
  struct Argument {
    std::string Name;
    bool IsPointer = false;
    bool IsInteger = false; // dtype is an integer type
    int64_t ElementBytes = 0;
  };
  struct Configuration {
    std::string Name;
    std::vector<double> Scalars;   // per argument (scalars; 0 for pointers)
    std::vector<int64_t> Elements; // per argument (pointers; 0 for scalars)
  };
  std::string Name, Dir, Entry, Kind;
  std::vector<std::string> Flags; // nvcc flags of task.json
  std::vector<Argument> Args;
  std::vector<Configuration> Configurations;
};

enum class TaskLoadStatus { Ok, BadTask, UnknownConfiguration };

/// Loads TASK_DIR/task.json and keeps the configurations named in \p Configs ("all", or names
/// separated by commas). On failure, \p Error holds the problems, one per line.
TaskLoadStatus loadTaskSpec(const std::string &Dir, const std::string &Configs, TaskSpec &Out,
                            std::string &Error);

} // namespace cudaperf

#endif
