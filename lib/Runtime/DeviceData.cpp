#include "cudaperf/Runtime/DeviceData.h"
#include "cudaperf/Runtime/Dtype.h"
#include "cudaperf/Support/Error.h"

#include <stdexcept>

namespace cudaperf::runtime {

using Json = nlohmann::ordered_json;

DeviceSet layoutSet(const Task &task, const Config &config) {
  DeviceSet set;
  std::vector<int64_t> counts = task.counts(config);
  uint64_t offset = 0;
  auto add = [&](size_t arg, DeviceBuffer::Role role) {
    DeviceBuffer b;
    b.arg = arg;
    b.role = role;
    b.offset = offset;
    b.bytes = uint64_t(counts[arg]) * dtypeSize(task.args[arg].dtype);
    offset += (b.bytes + kSlabAlignment - 1) / kSlabAlignment * kSlabAlignment;
    set.buffers.push_back(b);
  };
  for (size_t i = 0; i < task.args.size(); ++i)
    if (task.args[i].isPointer() && task.args[i].access != Argument::Access::Out)
      add(i, DeviceBuffer::Role::Input);
  for (size_t i = 0; i < task.args.size(); ++i)
    if (task.args[i].isOutput())
      add(i, DeviceBuffer::Role::Expected);
  set.slabBytes = offset ? offset : kSlabAlignment;
  return set;
}

Json deviceDataToJson(const DeviceData &d) { return d.toJson(); }

DeviceData deviceDataFromJson(const Json &doc) {
  try {
    return DeviceData::fromJson(doc);
  } catch (const support::SupportError &e) {
    throw TaskError({e.what()});
  }
}

} // namespace cudaperf::runtime
