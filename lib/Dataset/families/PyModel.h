// model.py of a generated PyTorch problem, in the KernelBench convention (docs/pytorch-tasks.md):
// class Model, the size globals, CONFIGS, TOLERANCE and DISTRIBUTIONS written from the task's
// configurations and arguments, get_inputs() and get_init_inputs().
#pragma once

#include "Common.h"

namespace cudaperf::dataset {

struct PyModel {
  std::string doc;                       // Model's docstring: the task description
  std::string initParams;                // after self: "dim, eps"
  std::vector<std::string> initBody;     // lines of __init__ after super().__init__()
  std::string forwardParams = "x";       // after self
  std::vector<std::string> forwardBody;  // lines of forward; the last returns
  std::vector<std::string> inputs;       // lines of get_inputs() before the return: "x = torch.randn(batch_size, dim)"
  std::string inputList = "[x]";         // what get_inputs returns
  std::string initInputs = "[]";         // what get_init_inputs returns
};

// Sets t.model; DISTRIBUTIONS lists every input pointer's distribution, TOLERANCE t.tolerances' f32 entry.
void setModel(TaskSpec &t, const PyModel &m);

// A (rows x cols)-shaped pytorch task's configurations: small odd sizes, and a large one with
// rows * cols near `largeElements`, cols about 2^colsLog2.
std::vector<ConfigSpec> rowConfigs(Rng &rng, const std::string &rowsName, const std::string &colsName,
                                   long long largeElements);

} // namespace cudaperf::dataset
