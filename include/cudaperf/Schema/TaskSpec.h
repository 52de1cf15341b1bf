// A task directory's description, TASK_DIR/task.json (docs/task-format.md): one typed definition of
// the format that the evaluator (runtime::loadTask) and the bench (bench::readSuiteTask) read.
//
// lib/Schema owns the document's shape: which keys exist, their types, which are required, names
// that must be C identifiers, paths that must stay inside the task directory, configurations whose
// values are finite numbers. What needs the runtime's types (dtype names, size expressions, input
// distributions, buffer sizes, the flag allow-lists) is checked by lib/Runtime on top of this.
//
// A task author fixes every problem in one pass: read() collects all of them, one per line in the
// runtime's spelling ("task.json: args[2].name: \"2f\" is not a C identifier"); fromJson() throws
// them together. Unknown keys are problems (a misspelled key must not be silently ignored).
// Key order and number spelling (1024 stays an integer) are kept, so toJson() writes back what was read.
#pragma once

#include "cudaperf/Support/Json.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cudaperf::schema {

using support::Json;

// args[i].
struct TaskArgument {
  std::string name;                  // a C identifier, not "stream"
  std::string type;                  // "pointer" or "scalar"
  std::string dtype;                 // the element type's name (lib/Runtime checks it)
  std::optional<std::string> access; // pointers: "in", "out", "inout"
  std::optional<Json> count;         // pointers: a size expression string or a whole number
  std::optional<Json> value;         // scalars: a fixed number
  std::optional<Json> tolerance;     // outputs: {"atol": x, "rtol": y}
  std::vector<std::string> keyOrder;

  bool isPointer() const { return type == "pointer"; }
  bool isOutput() const { return isPointer() && access && (*access == "out" || *access == "inout"); }
};

// configs[i]: a name and numbers (size parameters, scalar values), in document order.
struct TaskConfig {
  std::optional<std::string> name; // absent: "config<i>" (effectiveName)
  std::vector<std::pair<std::string, Json>> params; // each a finite number, spelled as read
  std::vector<std::string> keyOrder;
};

// "pytorch" (pytorch-to-cuda tasks).
struct TaskPyTorch {
  std::string module, exported; // paths inside the task directory; exported holds "{config}"
  std::vector<std::string> forwardArgs, outputs;
  std::vector<std::pair<std::string, Json>> shapes; // argument -> array of dimensions (numbers or size expressions)
  std::vector<std::string> keyOrder;
};

struct TaskSpec {
  std::string name;  // a plain name (plainNameProblem): candidate files are named by it
  std::string kind;  // "c-to-cuda" or "pytorch-to-cuda"
  std::optional<std::string> description;
  std::string entry; // a C identifier
  std::vector<TaskArgument> args;
  std::vector<TaskConfig> configs;
  std::optional<Json> inputs;     // an object: argument name -> distribution (lib/Runtime reads it)
  std::optional<Json> tolerances; // an object: dtype -> {"atol", "rtol"}
  std::optional<std::vector<std::string>> flags, referenceFlags; // each starts with '-'
  std::optional<TaskPyTorch> pytorch;
  std::vector<std::string> keyOrder;

  // Reads what it can and appends every problem ("task.json: WHERE: WHAT") to `problems`; the
  // result is complete only when no problem was added.
  static TaskSpec read(const Json &doc, std::vector<std::string> &problems);
  // read(), throwing support::SupportError "DOCUMENT: invalid task" with every problem on its own line.
  static TaskSpec fromJson(const Json &doc, const std::string &document = "task.json");
  Json toJson() const;

  const TaskArgument *findArgument(std::string_view argName) const;
  // configs[i]'s name, or "config<i>" when it has none.
  std::string configName(size_t i) const;
};

// What a reader that lists tasks needs (the bench): the name, the kind and the configuration names,
// held to read()'s rules for those members; the other members are left to the evaluator, which
// checks the whole task when it loads it. Throws support::SupportError with every problem of these
// members, each prefixed with `document` (the task.json's path) instead of "task.json".
struct TaskSummary {
  std::string name, kind;
  std::vector<std::string> configs; // configName(i), in task order
};
TaskSummary readTaskSummary(const Json &doc, const std::string &document);

// Upper bound on a task.json's argument and configuration counts (a hostile file must not make the
// evaluator allocate per entry without limit).
constexpr size_t kMaxTaskArguments = 256;
constexpr size_t kMaxTaskConfigs = 1024;

} // namespace cudaperf::schema
