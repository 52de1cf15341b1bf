// What one generated task is, before it is written: the task.json contents, the reference
// (reference.c or model.py), the implementations with their strategy labels, and the generator
// parameters that the manifest records (docs/dataset.md).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cudaperf::dataset {

using Json = nlohmann::ordered_json;

// The one error type of lib/Dataset: the message names the family, task or template at fault.
class DatasetError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

enum class Kind { C, PyTorch };
const char *kindName(Kind k);     // "c" | "pytorch" (the manifest's `kind`)
const char *taskKindName(Kind k); // "c-to-cuda" | "pytorch-to-cuda" (task.json's `kind`)

struct ArgSpec {
  std::string name;
  bool pointer = false;
  std::string dtype;  // f32 f64 i32 i64 u32 u8
  std::string access; // pointers: in | out | inout
  std::string count;  // pointers: size expression
  std::optional<double> value; // scalars: fixed value (else set by every configuration)
  Json dist;                   // pointers read by the entry: distribution object (null: default)
  std::vector<std::string> shape; // pytorch tasks: tensor dimensions as size expressions
};

struct ConfigSpec {
  std::string name;
  std::vector<std::pair<std::string, double>> values; // size parameters and per-config scalars
};

enum class Expected { Fast, Slow, Neutral };
const char *expectedName(Expected e);

struct ImplSpec {
  std::string name;                    // file is impls/<name>.cu; "baseline" for the straightforward one
  std::vector<std::string> strategies; // labels (docs/dataset.md lists them)
  Expected expected = Expected::Neutral;
  std::string source;
};

struct TaskSpec {
  std::string name; // set by the generator: <family>_<index>
  std::string family;
  Kind kind = Kind::C;
  std::string description;
  std::vector<ArgSpec> args;
  std::vector<ConfigSpec> configs; // small to large
  Json tolerances;                 // task.json "tolerances" (null: evaluator defaults)
  std::vector<std::string> flags;  // nvcc flags
  std::string reference;           // reference.c (c tasks)
  std::string model;               // model.py (pytorch tasks)
  std::vector<ImplSpec> impls;     // impls[0] is the baseline
  Json params = Json::object();    // generator parameters, for the manifest
  std::string variant;             // split key: tasks of one family with the same variant share a split
};

// C spelling of a task dtype ("f32" -> "float").
std::string cType(const std::string &dtype);
bool isFloatDtype(const std::string &dtype);
// A constant as a C literal of the dtype: 1.5f, 0.25, 3, 7u.
std::string cLiteral(double value, const std::string &dtype);
// A constant as a Python literal (model.py).
std::string pyLiteral(double value);

} // namespace cudaperf::dataset
