// lib/Features' reader of the analyzer's JSON (readAnalysis), which the reward service and
// cudaperf-features apply to every candidate's analysis: any bytes give a document or a
// FeaturesError/SupportError, never a signal; what it returns keeps the reader's promises (a
// launch's same_report_as names an earlier launch; an estimated saving is finite and
// >= 0, so the feedback can order findings by it).
#include "cudaperf/Features/AnalysisDocument.h"
#include "cudaperf/Features/FeaturesError.h"
#include "cudaperf/Support/Json.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

using namespace cudaperf;

namespace {
void checkDiagnostics(const std::vector<features::Diagnostic> &diagnostics) {
  for (const features::Diagnostic &d : diagnostics)
    if (d.estimatedSavingUs && (!std::isfinite(*d.estimatedSavingUs) || *d.estimatedSavingUs < 0))
      abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  try {
    support::Json json = support::parseJson(text, "fuzz.json");
    features::AnalysisDocument doc = features::readAnalysis(json, "fuzz.json");
    checkDiagnostics(doc.diagnostics);
    for (const features::ConfigurationAnalysis &c : doc.configurations) {
      checkDiagnostics(c.diagnostics);
      for (const features::LaunchReport &l : c.launches) {
        if (l.sameReportAs && (*l.sameReportAs < 0 || *l.sameReportAs >= l.index))
          abort();
        (void)c.reportOf(l);
        (void)doc.knowsKernel(l.mangledName);
      }
    }
  } catch (const support::SupportError &) {
  } catch (const features::FeaturesError &) {
  }
  return 0;
}
