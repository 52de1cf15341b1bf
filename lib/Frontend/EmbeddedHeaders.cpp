#include "EmbeddedHeaders.h"

namespace cudaperf {

static const EmbeddedHeader Headers[] = {
#include "EmbeddedHeaders.inc"
};

llvm::ArrayRef<EmbeddedHeader> embeddedHeaders() { return Headers; }

} // namespace cudaperf
