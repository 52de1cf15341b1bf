#include "cudaperf/Dataset/Family.h"

namespace cudaperf::dataset {

const std::vector<Family> &allFamilies() {
  static const std::vector<Family> families = [] {
    std::vector<Family> f;
    addMapFamilies(f);
    addRowFamilies(f);
    addBroadcastFamilies(f);
    addReduceFamilies(f);
    addTransposeFamilies(f);
    addGemmFamilies(f);
    addLinearAlgebraFamilies(f);
    addMoreFamilies(f);
    addPyTorchMapFamilies(f);
    addPyTorchRowFamilies(f);
    addPyTorchBroadcastFamilies(f);
    addPyTorchReduceFamilies(f);
    addPyTorchTransposeFamilies(f);
    addPyTorchGemmFamilies(f);
    addPyTorchLinearAlgebraFamilies(f);
    addPyTorchMoreFamilies(f);
    return f;
  }();
  return families;
}

} // namespace cudaperf::dataset
