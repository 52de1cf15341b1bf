#include "cudaperf/Features/AnalysisDocument.h"
#include "cudaperf/Features/FeaturesError.h"
#include "cudaperf/Schema/AnalysisDocument.h"
#include "cudaperf/Support/JsonReader.h"

namespace cudaperf::features {

// The analyzer's document is read by lib/Schema (schema::AnalysisDocument, which owns the wire
// format and names the field path in its errors); this keeps the parts features, joins and rewards
// use, in the shape they use them.
namespace {

template <class T> std::optional<T> flat(const schema::Nullable<T> &v) { return v ? *v : std::nullopt; }

std::optional<double> asDouble(const std::optional<int64_t> &v) {
  return v ? std::optional<double>(double(*v)) : std::nullopt;
}

int position(const std::optional<int64_t> &v) { return int(v.value_or(0)); }

Dim3 toDim3(const schema::Dim3 &d) { return Dim3{d.x, d.y, d.z}; }

std::optional<Dim3> toDim3(const schema::Nullable<schema::Dim3> &d) {
  return d && *d ? std::optional<Dim3>(toDim3(**d)) : std::nullopt;
}

template <class T> std::optional<int64_t> countOf(const std::optional<std::vector<T>> &list) {
  return list ? std::optional<int64_t>(int64_t(list->size())) : std::nullopt;
}

AccessReport toAccess(const schema::Access &a) {
  AccessReport r;
  r.space = a.space;
  r.op = a.op;
  r.pattern = a.pattern.value_or("");
  r.bytes = int(a.bytes);
  r.sectorsPerRequest = flat(a.sectorsPerRequest);
  r.idealSectorsPerRequest = a.idealSectorsPerRequest;
  r.bankConflictWays = flat(a.bankConflictWays);
  r.idealWavefronts = a.idealWavefronts;
  r.executionsPerThread = asDouble(flat(a.executionsPerThread));
  r.laneExecutions = flat(a.laneExecutions);
  r.line = position(a.line);
  r.column = position(a.column);
  return r;
}

void addSync(const schema::SyncSection &s, KernelReport &k) {
  k.barriers = s.barriers;
  k.barriersPerThread = asDouble(flat(s.barriersPerThread));
  k.divergentBarriers = s.divergentBarriers;
  k.missingBarriers = countOf(s.missingBarrierSites);
  k.redundantBarriers = countOf(s.redundantBarrierSites);
}

void addResources(const schema::ResourcesSection &r, KernelReport &k) {
  k.registers = r.registers;
  k.spillStoreBytes = r.spillStoreBytes;
  k.spillLoadBytes = r.spillLoadBytes;
  k.localBytes = r.localBytes;
  k.staticSmemBytes = r.staticSmemBytes;
  k.hwBarriers = r.barriers;
  k.resourceSource = r.source.value_or("");
}

void addOccupancy(const schema::OccupancySection &o, KernelReport &k) {
  k.activeBlocksPerSM = o.activeBlocksPerSM;
  k.activeWarpsPerSM = o.activeWarpsPerSM;
  k.maxWarpsPerSM = o.maxWarpsPerSM;
  k.theoretical = o.theoretical;
  k.limiter = o.limiter.value_or("");
  k.occupancyDevice = o.device.value_or("");
  k.sms = o.sms;
  k.gridBlocks = o.gridBlocks;
  k.blocksPerWave = o.blocksPerWave;
  k.fullWaves = o.fullWaves;
  k.waves = o.waves;
  k.lastWaveFraction = o.lastWaveFraction;
}

void addWork(const schema::WorkSection &w, KernelReport &k) {
  k.threads = flat(w.threads);
  if (w.flops) {
    k.flops = flat(w.flops->total);
    k.tensorFlops = flat(w.flops->tensor);
    for (size_t p = 0; p < kPrecisions.size(); ++p)
      if (const schema::PrecisionFlops *prec = w.flops->precision(kPrecisions[p]))
        k.flopsByPrecision[p] = flat(prec->total);
  }
  k.dramReadBytes = flat(w.dramReadBytesEstimate);
  k.dramWriteBytes = flat(w.dramWriteBytesEstimate);
  k.globalLoadBytes = flat(w.globalLoadBytes);
  k.globalStoreBytes = flat(w.globalStoreBytes);
  k.globalLoadSectors = flat(w.globalLoadSectors);
  k.globalStoreSectors = flat(w.globalStoreSectors);
  k.sharedBytes = flat(w.sharedBytes);
  k.arithmeticIntensity = flat(w.arithmeticIntensity);
  k.rooflineTimeUs = flat(w.rooflineTimeUs);
  k.bound = flat(w.bound).value_or("");
}

KernelReport toKernel(const schema::Kernel &s) {
  KernelReport k;
  k.name = s.name;
  k.mangledName = s.mangledName;
  k.position = {s.file.value_or(""), position(s.line), position(s.column)};
  k.grid = toDim3(s.launch.grid);
  k.block = s.launch.block ? toDim3(*s.launch.block) : Dim3{};
  k.dynamicSmemBytes = s.launch.dynamicSmemBytes;
  k.launchOrigin = s.launch.origin.value_or("");
  if (s.accesses)
    for (const schema::Access &a : *s.accesses)
      k.accesses.push_back(toAccess(a));
  k.coalescingEfficiency = s.coalescingEfficiency;
  if (s.sync)
    addSync(*s.sync, k);
  if (s.resources)
    addResources(*s.resources, k);
  if (s.occupancy)
    addOccupancy(*s.occupancy, k);
  if (s.work)
    addWork(*s.work, k);
  if (s.notes)
    k.notes = *s.notes;
  return k;
}

Diagnostic toDiagnostic(const schema::Diagnostic &s) {
  Diagnostic d;
  d.check = s.check;
  d.severity = s.severity.value_or("");
  d.message = s.message.value_or("");
  d.kernel = s.kernel.value_or("");
  d.file = s.file.value_or("");
  d.line = position(s.line);
  d.column = position(s.column);
  d.estimatedSavingUs = flat(s.estimatedSavingUs);
  return d;
}

std::vector<Diagnostic> toDiagnostics(const std::optional<std::vector<schema::Diagnostic>> &list) {
  std::vector<Diagnostic> out;
  if (list)
    for (const schema::Diagnostic &d : *list)
      out.push_back(toDiagnostic(d));
  return out;
}

LaunchReport toLaunch(const schema::TaskLaunch &s) {
  LaunchReport l;
  l.index = int(s.index);
  l.kernel = s.kernel;
  l.mangledName = s.mangledName;
  if (s.site)
    l.site = {s.site->file.value_or(""), position(s.site->line), position(s.site->column)};
  l.resolved = s.resolved;
  if (s.unresolved)
    for (const schema::UnresolvedPart &u : *s.unresolved)
      l.unresolved.push_back({u.part, u.reason.value_or("")});
  l.grid = toDim3(s.grid);
  l.block = toDim3(s.block);
  l.dynamicSmemBytes = flat(s.dynamicSmemBytes);
  if (s.scalarArgs)
    for (const auto &[name, value] : *s.scalarArgs)
      l.scalarArgs[name] = value;
  if (s.report)
    l.report = toKernel(*s.report);
  l.noReportReason = s.noReportReason.value_or("");
  if (s.launchErrors)
    l.launchErrors = *s.launchErrors;
  if (s.sameReportAs)
    l.sameReportAs = int(*s.sameReportAs);
  return l;
}

ConfigurationAnalysis toConfiguration(const schema::Configuration &s) {
  ConfigurationAnalysis c;
  c.name = s.name;
  if (s.values)
    for (const auto &[name, v] : *s.values)
      c.values[name] = v;
  if (s.pointerElements)
    for (const auto &[name, v] : *s.pointerElements)
      c.pointerElements[name] = v;
  c.entryFound = s.entryFound.value_or(true);
  c.launchesComplete = s.launchesComplete.value_or(true);
  c.reason = s.reason.value_or("");
  for (const schema::TaskLaunch &l : s.launches)
    c.launches.push_back(toLaunch(l));
  c.diagnostics = toDiagnostics(s.diagnostics);
  return c;
}

} // namespace

std::string Dim3::text() const {
  return "[" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + "]";
}

const KernelReport *ConfigurationAnalysis::reportOf(const LaunchReport &launch) const {
  const LaunchReport *l = &launch;
  for (int hops = 0; l && hops <= int(launches.size()); ++hops) { // a chain ends; a cycle does not
    if (l->report)
      return &*l->report;
    if (!l->sameReportAs || *l->sameReportAs >= int(launches.size()))
      return nullptr;
    l = &launches[size_t(*l->sameReportAs)];
  }
  return nullptr;
}

const ConfigurationAnalysis *AnalysisDocument::configuration(const std::string &name) const {
  for (const ConfigurationAnalysis &c : configurations)
    if (c.name == name)
      return &c;
  return nullptr;
}

bool AnalysisDocument::knowsKernel(const std::string &mangledName) const {
  for (const KernelReport &k : kernels)
    if (k.mangledName == mangledName)
      return true;
  for (const ConfigurationAnalysis &c : configurations)
    for (const LaunchReport &l : c.launches)
      if (l.mangledName == mangledName)
        return true;
  return false;
}

AnalysisDocument readAnalysis(const support::Json &json, const std::string &source) {
  try {
    schema::AnalysisDocument read = schema::AnalysisDocument::fromJson(json, source);
    AnalysisDocument doc;
    doc.source = source;
    doc.arch = read.arch.value_or("");
    for (const schema::Kernel &k : read.kernels)
      doc.kernels.push_back(toKernel(k));
    doc.diagnostics = toDiagnostics(read.diagnostics);
    if (read.task)
      doc.task = TaskInfo{read.task->name, read.task->dir.value_or(""), read.task->entry.value_or(""),
                          read.task->kind.value_or("")};
    if (read.configurations)
      for (const schema::Configuration &c : *read.configurations)
        doc.configurations.push_back(toConfiguration(c));
    return doc;
  } catch (const support::SupportError &e) {
    throw FeaturesError(e.what());
  }
}

AnalysisDocument readAnalysisFile(const std::string &path) {
  try {
    return readAnalysis(support::readJsonFile(path), path);
  } catch (const support::SupportError &e) {
    throw FeaturesError(e.what());
  }
}

} // namespace cudaperf::features
