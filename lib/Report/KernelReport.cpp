#include "cudaperf/Report/KernelReport.h"
#include <string>

namespace cudaperf {

std::string Dim3::str() const {
  return std::to_string(X) + "x" + std::to_string(Y) + "x" + std::to_string(Z);
}

const char *toString(LaunchOrigin O) {
  switch (O) {
  case LaunchOrigin::LaunchSite: return "launch-site";
  case LaunchOrigin::CommandLine: return "cli";
  case LaunchOrigin::LaunchSitePartial: return "launch-site-partial";
  case LaunchOrigin::LaunchBounds: return "launch-bounds";
  case LaunchOrigin::TaskConfig: return "task-config";
  case LaunchOrigin::Assumed: return "assumed";
  }
  return "assumed";
}

const char *toString(Severity S) {
  switch (S) {
  case Severity::Note: return "note";
  case Severity::Warning: return "warning";
  case Severity::Error: return "error";
  }
  return "warning";
}

} // namespace cudaperf
