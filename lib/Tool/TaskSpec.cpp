// Compiled with -fexceptions (lib/Tool/CMakeLists.txt): the boundary where lib/Runtime's TaskError
// becomes a status and a message.
#include "TaskSpec.h"
#include "cudaperf/Runtime/Task.h"

namespace cudaperf {

TaskLoadStatus loadTaskSpec(const std::string &Dir, const std::string &Configs, TaskSpec &Out,
                            std::string &Error) {
  runtime::Task Task;
  try {
    Task = runtime::loadTask(Dir);
  } catch (const runtime::TaskError &E) {
    Error.clear();
    for (const std::string &P : E.problems)
      Error += (Error.empty() ? "" : "\n") + P;
    return TaskLoadStatus::BadTask;
  } catch (const std::exception &E) {
    Error = E.what();
    return TaskLoadStatus::BadTask;
  }
  try {
    if (Configs != "all")
      runtime::selectConfigs(Task, runtime::parseConfigList(Configs));
  } catch (const runtime::TaskError &E) {
    Error = E.problems.empty() ? E.what() : E.problems.front();
    std::string Names;
    for (const runtime::Config &C : Task.configs)
      Names += (Names.empty() ? "" : ", ") + C.name;
    Error += " (it has " + Names + ")";
    return TaskLoadStatus::UnknownConfiguration;
  }
  Out = TaskSpec();
  Out.Name = Task.name;
  Out.Dir = Task.dir;
  Out.Entry = Task.entry;
  Out.Kind = Task.kind == runtime::TaskKind::CToCuda ? "c-to-cuda" : "pytorch-to-cuda";
  Out.Flags = Task.flags;
  for (const runtime::Argument &A : Task.args) {
    TaskSpec::Argument S;
    S.Name = A.name;
    S.IsPointer = A.isPointer();
    S.IsInteger = !runtime::dtypeIsFloat(A.dtype);
    S.ElementBytes = int64_t(runtime::dtypeSize(A.dtype));
    Out.Args.push_back(S);
  }
  try {
    for (const runtime::Config &C : Task.configs) {
      TaskSpec::Configuration S;
      S.Name = C.name;
      S.Elements = Task.counts(C);
      for (const runtime::Argument &A : Task.args)
        S.Scalars.push_back(A.isPointer() ? 0 : Task.scalarValue(A, C));
      Out.Configurations.push_back(std::move(S));
    }
  } catch (const std::exception &E) {
    Error = Dir + "/task.json: " + E.what();
    return TaskLoadStatus::BadTask;
  }
  return TaskLoadStatus::Ok;
}

} // namespace cudaperf
