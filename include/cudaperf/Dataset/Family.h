// A family makes tasks of one kind of computation; index i of a family is always the same task
// for a seed, whatever other families or limits are chosen (docs/dataset.md).
#pragma once

#include "cudaperf/Dataset/Rng.h"
#include "cudaperf/Dataset/Spec.h"

#include <functional>
#include <string>
#include <vector>

namespace cudaperf::dataset {

struct Family {
  std::string name;
  Kind kind = Kind::C;
  std::string description;
  bool heldOut = false; // a test family: all its tasks are in the test split, none in training
  int tasks = 0;        // tasks in the full dataset
  // Fills a task whose name, family and kind are already set (the name is the entry point).
  std::function<void(TaskSpec &, Rng &, int index)> make;
};

// Every family, in a fixed order (C families, then PyTorch ones).
const std::vector<Family> &allFamilies();

// Registration, one function per family file (lib/Dataset/families/*.cpp).
void addMapFamilies(std::vector<Family> &out);
void addRowFamilies(std::vector<Family> &out);
void addPyTorchMapFamilies(std::vector<Family> &out);
void addPyTorchRowFamilies(std::vector<Family> &out);
void addBroadcastFamilies(std::vector<Family> &out);
void addPyTorchBroadcastFamilies(std::vector<Family> &out);
void addReduceFamilies(std::vector<Family> &out);
void addPyTorchReduceFamilies(std::vector<Family> &out);
void addTransposeFamilies(std::vector<Family> &out);
void addPyTorchTransposeFamilies(std::vector<Family> &out);
void addGemmFamilies(std::vector<Family> &out);
void addPyTorchGemmFamilies(std::vector<Family> &out);
void addLinearAlgebraFamilies(std::vector<Family> &out);
void addPyTorchLinearAlgebraFamilies(std::vector<Family> &out);
void addMoreFamilies(std::vector<Family> &out);
void addPyTorchMoreFamilies(std::vector<Family> &out);

} // namespace cudaperf::dataset
