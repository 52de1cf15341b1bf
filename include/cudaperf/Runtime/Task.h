// A task: the entry point every implementation defines, the input configurations, how inputs
// are drawn, and the tolerances outputs are checked with. Loaded from TASK_DIR/task.json and
// validated as a whole, so a malformed task is reported once, with every problem, before any
// build or run. The format is documented in docs/task-format.md.
#pragma once

#include "cudaperf/Runtime/Dtype.h"
#include "cudaperf/Runtime/SizeExpr.h"

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudaperf::runtime {

enum class TaskKind { CToCuda, PyTorchToCuda };

struct Tolerance {
  double atol = 0;
  double rtol = 0;
};
Tolerance defaultTolerance(Dtype d); // f32 1e-4/1e-4, f64 1e-8/1e-8, integers exact

struct Distribution {
  enum class Kind { Uniform, Normal, Constant } kind = Kind::Uniform;
  double a = -1, b = 1; // uniform: [min, max] (integers: inclusive); normal: mean, stddev; constant: value
};

struct Argument {
  enum class Kind { Pointer, Scalar };
  enum class Access { In, Out, InOut }; // pointers only; scalars are inputs
  std::string name;
  Kind kind = Kind::Scalar;
  Dtype dtype = Dtype::F32;
  Access access = Access::In;
  SizeExpr count;                  // pointers: element count
  std::optional<double> value;     // scalars: fixed value when no configuration sets it
  Distribution distribution;       // pointers read by the entry (In, InOut)
  std::optional<Tolerance> tolerance; // outputs: overrides the task's per-dtype tolerance

  bool isPointer() const { return kind == Kind::Pointer; }
  bool isInput() const { return kind == Kind::Scalar || access != Access::Out; }
  bool isOutput() const { return kind == Kind::Pointer && access != Access::In; }
};

struct Config {
  std::string name;
  std::map<std::string, double> params;
};

// A pytorch-to-cuda task's reference (docs/pytorch-tasks.md): a TorchScript export per
// configuration, produced from the task's model.py by scripts/import-pytorch-task.py.
struct PyTorchReference {
  std::string module;   // model.py, relative to the task directory
  std::string exported; // pattern with "{config}", relative: "exported/{config}.pt"
  std::vector<std::string> forwardArgs; // arguments passed to the exported module, in order
  std::vector<std::string> outputs;     // what it returns (a tensor, or a tuple in this order)
  std::map<std::string, std::vector<SizeExpr>> shapes; // every pointer argument's tensor shape

  std::string exportedPath(const std::string &taskDir, const std::string &config) const;
};

struct Task {
  std::string dir; // absolute
  std::string name;
  std::string description;
  TaskKind kind = TaskKind::CToCuda;
  std::string entry;
  std::vector<Argument> args;
  std::vector<Config> configs;
  std::map<Dtype, Tolerance> tolerances; // explicit per-dtype overrides
  std::vector<std::string> flags;        // extra nvcc flags
  std::vector<std::string> referenceFlags; // extra host-compiler flags for reference.c
  std::optional<PyTorchReference> pytorch; // pytorch-to-cuda tasks only

  Tolerance toleranceFor(const Argument &a) const;
  std::string referencePath() const { return dir + "/reference.c"; }
  std::string implPath(const std::string &name) const { return dir + "/impls/" + name + ".cu"; }
  std::string baselinePath() const { return implPath("baseline"); }
  // impls/baseline.cu is there. A c-to-cuda task always has one; a pytorch-to-cuda task may go
  // without (KernelBench problems: PyTorch eager is what the candidate is measured against).
  bool hasBaseline() const;
  std::vector<std::string> implNames() const; // sorted names of impls/*.cu (without .cu)

  // Element counts of every pointer argument (0 for scalars) and the scalar values, per config.
  std::vector<int64_t> counts(const Config &c) const;
  double scalarValue(const Argument &a, const Config &c) const;
};

// Every problem found, one per line: "task.json: args[2].count: ...".
class TaskError : public std::runtime_error {
public:
  explicit TaskError(const std::vector<std::string> &problems);
  std::vector<std::string> problems;
};

// Reads TASK_DIR/task.json; throws TaskError listing all problems (including a missing
// reference.c for a c-to-cuda task, a missing model.py for a pytorch-to-cuda task, or a c-to-cuda
// task's missing impls/baseline.cu). The exported TorchScript files are not required here: they are generated on
// the GPU host (`make tasks`), and the evaluator reports their absence when it needs them.
Task loadTask(const std::string &taskDir);

// task.json is read only if it is a regular file of at most this size.
constexpr size_t kMaxTaskJsonBytes = size_t(16) << 20;
// Why a task flag is refused ("" when allowed): "flags" (nvcc) and "reference_flags" (the host
// compiler) are held to allow-lists unless CUDAPERF_TRUST_TASKS=1 (cudaperf-eval --trust-tasks).
std::string taskFlagRefusal(const std::string &flag, bool nvcc);
// Same checks on an in-memory document; dir is used for file checks only when checkFiles.
Task parseTask(const std::string &jsonText, const std::string &dir, bool checkFiles);

// Keeps only the named configurations, in the task's order (a quick screening run). Throws
// TaskError naming any that the task does not have. An empty list keeps them all.
void selectConfigs(Task &task, const std::vector<std::string> &names);
// The names of a --configs option: "small,large" -> {"small", "large"}; empty items dropped.
std::vector<std::string> parseConfigList(const std::string &text);

// Largest buffer a task may declare, so a typo cannot ask the GPU for a terabyte.
constexpr int64_t kMaxArgumentBytes = int64_t(16) << 30;

} // namespace cudaperf::runtime
