// lib/Learn's safetensors reader (SafetensorsFile::open, mmap): any file gives the tensors its header
// names, each inside the file and of the size its dtype and shape say, or a LearnError. The bytes are
// written to an in-memory file (memfd) and opened by its /proc path, as a checkpoint file would be.
#include "cudaperf/Learn/Safetensors.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace cudaperf::learn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int fd = memfd_create("fuzz.safetensors", MFD_CLOEXEC);
  if (fd < 0)
    abort();
  size_t written = 0;
  while (written < size) {
    ssize_t n = write(fd, data + written, size - written);
    if (n <= 0)
      abort();
    written += size_t(n);
  }
  try {
    SafetensorsFile file = SafetensorsFile::open("/proc/self/fd/" + std::to_string(fd));
    unsigned sum = 0;
    for (const TensorView &tensor : file.tensors()) {
      if (size_t(tensor.elements()) * dtypeBytes(tensor.dtype) != tensor.bytes)
        abort(); // a view whose byte count disagrees with its shape
      if (tensor.bytes > size)
        abort();
      for (size_t i = 0; i < tensor.bytes; ++i) // every byte of a view lies in the mapping
        sum += tensor.data[i];
      if (file.find(tensor.name) == nullptr)
        abort();
    }
    (void)shapeText({});
    if (sum == 0xdeadbeef)
      write(STDERR_FILENO, "", 0);
  } catch (const LearnError &) {
  }
  close(fd);
  return 0;
}
