// A TaskSpec as files: task.json (c tasks; for pytorch tasks the task.json that
// scripts/import-pytorch-task.py will generate from model.py), reference.c or model.py, impls/.
#pragma once

#include "cudaperf/Dataset/Spec.h"

#include <string>

namespace cudaperf::dataset {

Json taskJson(const TaskSpec &task);
// task.json text in the style of data/tasks (one argument, configuration or input per line).
std::string formatTaskJson(const Json &task);
// The C entry point every implementation defines: "void name(int n, const float *x, ..., cudaStream_t stream)".
std::string entrySignature(const TaskSpec &task);
// Checks the spec (names, configs, shapes, a baseline first) and throws DatasetError on a problem.
void checkTaskSpec(const TaskSpec &task);
// Writes the task directory (created; files overwritten).
void writeTaskFiles(const TaskSpec &task, const std::string &dir);

// The importer's rule for a dimension's size expression (scripts/import-pytorch-task.py,
// infer_dim_expr), mirrored so the predicted task.json is the one it will write.
std::string inferDimExpr(const std::vector<int64_t> &values, const std::vector<ConfigSpec> &configs);
std::string countExpr(const std::vector<std::string> &dims);

} // namespace cudaperf::dataset
