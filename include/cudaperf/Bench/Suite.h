// A benchmark suite: the tasks a model's candidates are scored on (docs/bench.md, "Suites").
// data/suites/*.json list task directories, or name a dataset manifest whose split they take.
#pragma once

#include <string>
#include <vector>

namespace cudaperf::bench {

struct SuiteTask {
  std::string name;   // task.json's "name"; candidate files are named by it
  std::string dir;    // absolute
  std::string kind;   // "c-to-cuda" or "pytorch-to-cuda"
  std::vector<std::string> configs;             // configuration names, in task order
  std::vector<std::string> disallowedLibraries; // candidates calling these fail (LibraryPolicy.h)
  std::string source; // where the task came from (a KernelBench file, a dataset family), if known
  // false when the suite lists the task but its task.json is absent and missing tasks are allowed:
  // e.g. a KernelBench problem the importer refused (missingReason says why).
  bool present = true;
  std::string missingReason;
};

struct Suite {
  std::string name, description;
  std::string path; // the suite file ("" for a suite made from results)
  std::vector<SuiteTask> tasks;
  const SuiteTask *find(const std::string &taskName) const;
  size_t presentCount() const;
};

struct SuiteOptions {
  std::string rootOverride; // replaces the suite's "root" (relative to the working directory)
  bool allowMissing = false; // list absent tasks as not present instead of failing
};

// Throws BenchError (Suite) naming the file and field at fault, a task directory that does not
// exist, a task.json that cannot be read, two tasks of one name, an unknown library name.
Suite loadSuite(const std::string &path, const SuiteOptions &options = {});

// The tasks named by results (--results without --suite): one per task directory, read from there.
Suite suiteFromTaskDirs(const std::vector<std::string> &taskDirs);

// Reads TASK_DIR/task.json's name, kind and configuration names; throws BenchError (Suite).
SuiteTask readSuiteTask(const std::string &taskDir);

} // namespace cudaperf::bench
