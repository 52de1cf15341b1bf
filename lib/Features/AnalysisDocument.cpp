#include "cudaperf/Features/AnalysisDocument.h"
#include "cudaperf/Features/FeaturesError.h"
#include "cudaperf/Support/JsonReader.h"

#include "FieldHelpers.h"

#include <cmath>

namespace cudaperf::features {

using support::JsonField;
using detail::optionalDim3;
using detail::readDim3;
using detail::stringOr;

namespace {

int intOr(const JsonField &parent, const char *key) {
  return int(parent.optionalInteger(key, 0, INT32_MAX).value_or(0));
}

// A count that may be absent, null, or a list whose length is the count.
std::optional<int64_t> countOfList(const JsonField &parent, const char *key) {
  auto f = parent.get(key);
  return f ? std::optional<int64_t>(int64_t(f->elements().size())) : std::nullopt;
}

AccessReport readAccess(const JsonField &a) {
  AccessReport r;
  r.space = a.require("space").string();
  r.op = a.require("op").string();
  r.pattern = stringOr(a, "pattern");
  r.bytes = int(a.require("bytes").integer(0, 1 << 20));
  r.sectorsPerRequest = a.optionalNumber("sectors_per_request");
  r.idealSectorsPerRequest = a.optionalNumber("ideal_sectors_per_request");
  r.bankConflictWays = a.optionalNumber("bank_conflict_ways");
  r.idealWavefronts = a.optionalNumber("ideal_wavefronts");
  r.executionsPerThread = a.optionalNumber("executions_per_thread");
  r.laneExecutions = a.optionalNumber("lane_executions");
  r.line = intOr(a, "line");
  r.column = intOr(a, "column");
  return r;
}

void readSync(const JsonField &s, KernelReport &k) {
  k.barriers = s.optionalInteger("barriers", 0);
  k.barriersPerThread = s.optionalNumber("barriers_per_thread");
  k.divergentBarriers = s.optionalInteger("divergent_barriers", 0);
  k.missingBarriers = countOfList(s, "missing_barrier_sites");
  k.redundantBarriers = countOfList(s, "redundant_barrier_sites");
}

void readResources(const JsonField &r, KernelReport &k) {
  k.registers = r.optionalInteger("registers", 0, 1024);
  k.spillStoreBytes = r.optionalInteger("spill_store_bytes", 0);
  k.spillLoadBytes = r.optionalInteger("spill_load_bytes", 0);
  k.localBytes = r.optionalInteger("local_bytes", 0);
  k.staticSmemBytes = r.optionalInteger("static_smem_bytes", 0);
  k.hwBarriers = r.optionalInteger("barriers", 0);
  k.resourceSource = stringOr(r, "source");
}

void readOccupancy(const JsonField &o, KernelReport &k) {
  k.activeBlocksPerSM = o.optionalInteger("active_blocks_per_sm", 0);
  k.activeWarpsPerSM = o.optionalInteger("active_warps_per_sm", 0);
  k.maxWarpsPerSM = o.optionalInteger("max_warps_per_sm", 0);
  k.theoretical = o.optionalNumber("theoretical");
  k.limiter = stringOr(o, "limiter");
  k.occupancyDevice = stringOr(o, "device");
  k.sms = o.optionalInteger("sms", 0);
  k.gridBlocks = o.optionalInteger("grid_blocks", 0);
  k.blocksPerWave = o.optionalInteger("blocks_per_wave", 0);
  k.fullWaves = o.optionalInteger("full_waves", 0);
  k.waves = o.optionalNumber("waves");
  k.lastWaveFraction = o.optionalNumber("last_wave_fraction");
}

void readWork(const JsonField &w, KernelReport &k) {
  k.threads = w.optionalNumber("threads");
  if (auto flops = w.get("flops")) {
    k.flops = flops->optionalNumber("total");
    k.tensorFlops = flops->optionalNumber("tensor");
    for (size_t p = 0; p < kPrecisions.size(); ++p)
      if (auto prec = flops->get(kPrecisions[p]))
        k.flopsByPrecision[p] = prec->optionalNumber("total");
  }
  k.dramReadBytes = w.optionalNumber("dram_read_bytes_estimate");
  k.dramWriteBytes = w.optionalNumber("dram_write_bytes_estimate");
  k.globalLoadBytes = w.optionalNumber("global_load_bytes");
  k.globalStoreBytes = w.optionalNumber("global_store_bytes");
  k.globalLoadSectors = w.optionalNumber("global_load_sectors");
  k.globalStoreSectors = w.optionalNumber("global_store_sectors");
  k.sharedBytes = w.optionalNumber("shared_bytes");
  k.arithmeticIntensity = w.optionalNumber("arithmetic_intensity");
  k.rooflineTimeUs = w.optionalNumber("roofline_time_us");
  k.bound = stringOr(w, "bound");
}

KernelReport readKernel(const JsonField &f) {
  KernelReport k;
  k.name = f.require("name").string();
  k.mangledName = f.require("mangled_name").string();
  k.position.file = stringOr(f, "file");
  k.position.line = intOr(f, "line");
  k.position.column = intOr(f, "column");
  JsonField launch = f.require("launch");
  k.grid = optionalDim3(launch, "grid");
  k.block = readDim3(launch.require("block"));
  k.dynamicSmemBytes = launch.optionalInteger("dynamic_smem_bytes", 0);
  k.launchOrigin = stringOr(launch, "origin");
  if (auto accesses = f.get("accesses"))
    for (const JsonField &a : accesses->elements())
      k.accesses.push_back(readAccess(a));
  k.coalescingEfficiency = f.optionalNumber("coalescing_efficiency");
  if (auto s = f.get("sync"))
    readSync(*s, k);
  if (auto r = f.get("resources"))
    readResources(*r, k);
  if (auto o = f.get("occupancy"))
    readOccupancy(*o, k);
  if (auto w = f.get("work"))
    readWork(*w, k);
  if (auto notes = f.get("notes"))
    for (const JsonField &n : notes->elements())
      k.notes.push_back(n.string());
  return k;
}

Diagnostic readDiagnostic(const JsonField &f) {
  Diagnostic d;
  d.check = f.require("check").string();
  d.severity = stringOr(f, "severity");
  d.message = stringOr(f, "message");
  d.kernel = stringOr(f, "kernel");
  d.file = stringOr(f, "file");
  d.line = intOr(f, "line");
  d.column = intOr(f, "column");
  // Orders the feedback's findings: a NaN or negative value would break that order, so it is refused.
  if (auto saving = f.get("estimated_saving_us")) {
    double us = saving->number();
    if (!std::isfinite(us) || us < 0)
      saving->expected("a finite number of microseconds >= 0");
    d.estimatedSavingUs = us;
  }
  return d;
}

LaunchReport readLaunch(const JsonField &f, int position) {
  LaunchReport l;
  l.index = int(f.require("index").integer(0, INT32_MAX));
  if (l.index != position)
    f.require("index").fail("expected " + std::to_string(position) + " (launches are listed in execution order), got " +
                            std::to_string(l.index));
  l.kernel = f.require("kernel").string();
  l.mangledName = f.require("mangled_name").string();
  if (auto site = f.get("site")) {
    l.site.file = stringOr(*site, "file");
    l.site.line = intOr(*site, "line");
    l.site.column = intOr(*site, "column");
  }
  l.resolved = f.require("resolved").boolean();
  if (auto unresolved = f.get("unresolved"))
    for (const JsonField &u : unresolved->elements())
      l.unresolved.push_back({u.require("part").string(), stringOr(u, "reason")});
  l.grid = optionalDim3(f, "grid");
  l.block = optionalDim3(f, "block");
  l.dynamicSmemBytes = f.optionalInteger("dynamic_smem_bytes", 0);
  if (auto args = f.get("scalar_args"))
    for (const auto &[name, value] : args->members())
      l.scalarArgs[name] = value.isNull() ? std::nullopt : std::optional<double>(value.number());
  if (auto report = f.get("report"))
    l.report = readKernel(*report);
  l.noReportReason = stringOr(f, "no_report_reason");
  if (auto errors = f.get("launch_errors"))
    for (const JsonField &e : errors->elements())
      l.launchErrors.push_back(e.string());
  if (auto same = f.get("same_report_as")) {
    l.sameReportAs = int(same->integer(0, position - 1 < 0 ? 0 : position - 1));
    if (position == 0)
      same->fail("the first launch cannot refer to an earlier one");
  }
  return l;
}

ConfigurationAnalysis readConfiguration(const JsonField &f) {
  ConfigurationAnalysis c;
  c.name = f.require("name").string();
  if (auto values = f.get("values"))
    for (const auto &[name, v] : values->members())
      c.values[name] = v.number();
  if (auto elements = f.get("pointer_elements"))
    for (const auto &[name, v] : elements->members())
      c.pointerElements[name] = v.integer(0);
  c.entryFound = f.optionalBoolean("entry_found").value_or(true);
  c.launchesComplete = f.optionalBoolean("launches_complete").value_or(true);
  c.reason = stringOr(f, "reason");
  std::vector<JsonField> launches = f.require("launches").elements();
  for (size_t i = 0; i < launches.size(); ++i)
    c.launches.push_back(readLaunch(launches[i], int(i)));
  if (auto diagnostics = f.get("diagnostics"))
    for (const JsonField &d : diagnostics->elements())
      c.diagnostics.push_back(readDiagnostic(d));
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
    JsonField root(json, source);
    if (int64_t version = root.require("schema_version").integer(); version != 1)
      root.require("schema_version").fail("expected 1 (the schema this reader knows), got " + std::to_string(version));
    AnalysisDocument doc;
    doc.source = source;
    doc.arch = stringOr(root, "arch");
    for (const JsonField &k : root.require("kernels").elements())
      doc.kernels.push_back(readKernel(k));
    if (auto diagnostics = root.get("diagnostics"))
      for (const JsonField &d : diagnostics->elements())
        doc.diagnostics.push_back(readDiagnostic(d));
    if (auto task = root.get("task"))
      doc.task = TaskInfo{task->require("name").string(), stringOr(*task, "dir"), stringOr(*task, "entry"),
                          stringOr(*task, "kind")};
    if (auto configurations = root.get("configurations"))
      for (const JsonField &c : configurations->elements())
        doc.configurations.push_back(readConfiguration(c));
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
