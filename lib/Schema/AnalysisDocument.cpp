#include "cudaperf/Schema/AnalysisDocument.h"

#include "ObjectIO.h"

#include "cudaperf/Support/JsonReader.h"

#include <cmath>
#include <utility>

namespace cudaperf::schema {

using support::JsonField;

namespace {

using detail::ObjectReader;

// Where the reader records the paths of the keys it kept.
struct ReadContext {
  std::vector<std::string> &unknown;
};

// One object read member by member: ObjectReader, the analysis document's value types on top.
class Reader {
public:
  Reader(const JsonField &f, KeptKeys &kept, ReadContext &ctx) : field_(f), kept_(kept), ctx_(ctx), r_(f, kept.extra, kept.keyOrder) {}

  std::optional<JsonField> take(const char *key) { return r_.take(key); }
  JsonField require(const char *key) {
    r_.take(key);
    return field_.require(key);
  }
  std::optional<std::string> string(const char *key) { return r_.string(key); }
  std::optional<double> number(const char *key) { return r_.number(key); }
  std::optional<bool> boolean(const char *key) { return r_.boolean(key); }
  std::optional<int64_t> integer(const char *key, int64_t min = INT64_MIN, int64_t max = INT64_MAX) {
    auto f = take(key);
    return f ? std::optional<int64_t>(f->integer(min, max)) : std::nullopt;
  }
  Nullable<double> nullableNumber(const char *key) { return r_.nullableNumber(key); }
  Nullable<int64_t> nullableInteger(const char *key, int64_t min = INT64_MIN) {
    auto f = take(key);
    if (!f)
      return std::nullopt;
    return f->isNull() ? std::optional<int64_t>() : std::optional<int64_t>(f->integer(min));
  }
  Nullable<std::string> nullableString(const char *key) {
    auto f = take(key);
    if (!f)
      return std::nullopt;
    return f->isNull() ? std::optional<std::string>() : std::optional<std::string>(f->string());
  }
  std::optional<Json> object(const char *key) { return r_.object(key); }
  std::optional<std::vector<std::string>> strings(const char *key) {
    return list<std::string>(key, [](const JsonField &e) { return e.string(); });
  }
  std::optional<std::vector<int64_t>> integers(const char *key) {
    return list<int64_t>(key, [](const JsonField &e) { return e.integer(); });
  }
  template <class T, class Read> std::optional<std::vector<T>> list(const char *key, Read read) {
    auto f = take(key);
    if (!f)
      return std::nullopt;
    std::vector<T> out;
    for (const JsonField &e : f->elements())
      out.push_back(read(e));
    return out;
  }
  // An object whose members are all of one kind, in their order.
  template <class T, class Read>
  std::optional<std::vector<std::pair<std::string, T>>> members(const char *key, Read read) {
    auto f = take(key);
    if (!f)
      return std::nullopt;
    std::vector<std::pair<std::string, T>> out;
    for (const auto &[name, value] : f->members())
      out.emplace_back(name, read(value));
    return out;
  }
  template <class T, class Read> std::optional<T> nested(const char *key, Read read) {
    auto f = take(key);
    return f ? std::optional<T>(read(*f, ctx_)) : std::nullopt;
  }
  template <class T, class Read> Nullable<T> nullableNested(const char *key, Read read) {
    auto f = take(key);
    if (!f)
      return std::nullopt;
    return f->isNull() ? std::optional<T>() : std::optional<T>(read(*f, ctx_));
  }
  // Call last: the keys not taken are kept, and their paths recorded.
  void finish() {
    r_.keepRest();
    for (const auto &kv : kept_.extra.items())
      ctx_.unknown.push_back(field_.path().empty() ? kv.key() : field_.path() + "." + kv.key());
  }
  ReadContext &context() { return ctx_; }

private:
  const JsonField &field_;
  KeptKeys &kept_;
  ReadContext &ctx_;
  ObjectReader r_;
};

// Whole numbers as integers, as llvm::json writes a whole double; others as they are.
Json number(double v) {
  if (std::isfinite(v) && std::fabs(v) < 9e15 && v == std::floor(v))
    return int64_t(v);
  return v;
}

Json nullableNumber(const std::optional<double> &v) { return v ? number(*v) : Json(); }

class Writer {
public:
  void put(const char *key, const std::optional<std::string> &v) {
    if (v)
      out_[key] = *v;
  }
  void put(const char *key, const std::optional<int64_t> &v) {
    if (v)
      out_[key] = *v;
  }
  void put(const char *key, const std::optional<bool> &v) {
    if (v)
      out_[key] = *v;
  }
  void put(const char *key, const std::optional<double> &v) {
    if (v)
      out_[key] = number(*v);
  }
  void put(const char *key, const Nullable<double> &v) {
    if (v)
      out_[key] = nullableNumber(*v);
  }
  void put(const char *key, const Nullable<int64_t> &v) {
    if (v)
      out_[key] = *v ? Json(**v) : Json();
  }
  void put(const char *key, const Nullable<std::string> &v) {
    if (v)
      out_[key] = *v ? Json(**v) : Json();
  }
  void put(const char *key, const std::optional<std::vector<std::string>> &v) {
    if (v)
      out_[key] = *v;
  }
  void put(const char *key, const std::optional<std::vector<int64_t>> &v) {
    if (v)
      out_[key] = *v;
  }
  void put(const char *key, const std::optional<Json> &v) {
    if (v)
      out_[key] = *v;
  }
  void put(const char *key, Json v) { out_[key] = std::move(v); }
  template <class T, class Write> void list(const char *key, const std::optional<std::vector<T>> &v, Write write) {
    if (!v)
      return;
    Json a = Json::array();
    for (const T &e : *v)
      a.push_back(write(e));
    out_[key] = std::move(a);
  }
  template <class T, class Write>
  void members(const char *key, const std::optional<std::vector<std::pair<std::string, T>>> &v, Write write) {
    if (!v)
      return;
    Json o = Json::object();
    for (const auto &[name, value] : *v)
      o[name] = write(value);
    out_[key] = std::move(o);
  }
  template <class T, class Write> void nested(const char *key, const std::optional<T> &v, Write write) {
    if (v)
      out_[key] = write(*v);
  }
  template <class T, class Write> void nullableNested(const char *key, const Nullable<T> &v, Write write) {
    if (v)
      out_[key] = *v ? write(**v) : Json();
  }
  Json finish(const KeptKeys &kept) {
    for (const auto &kv : kept.extra.items())
      if (!out_.contains(kv.key()))
        out_[kv.key()] = kv.value();
    return detail::inReadOrder(std::move(out_), kept.keyOrder);
  }

private:
  Json out_ = Json::object();
};

constexpr int64_t kMaxPosition = INT32_MAX; // a line or column

// ---- small values ----

} // namespace

Dim3 readDim3(const JsonField &f) {
  std::vector<JsonField> e = f.elements();
  if (e.empty() || e.size() > 3)
    f.fail("expected [x, y, z] with 1 to 3 numbers, got " + std::to_string(e.size()));
  Dim3 d;
  d.rank = int(e.size());
  d.x = e[0].integer(0);
  if (e.size() > 1)
    d.y = e[1].integer(0);
  if (e.size() > 2)
    d.z = e[2].integer(0);
  return d;
}

namespace {

Dim3 readNestedDim3(const JsonField &f, ReadContext &) { return readDim3(f); }

Json writeDim3(const Dim3 &d) {
  Json a = Json::array({d.x});
  if (d.rank > 1)
    a.push_back(d.y);
  if (d.rank > 2)
    a.push_back(d.z);
  return a;
}

Position readPosition(const JsonField &f, ReadContext &ctx) {
  Position p;
  Reader r(f, p, ctx);
  p.line = r.integer("line", 0, kMaxPosition);
  p.column = r.integer("column", 0, kMaxPosition);
  r.finish();
  return p;
}

Json writePosition(const Position &p) {
  Writer w;
  w.put("line", p.line);
  w.put("column", p.column);
  return w.finish(p);
}

std::optional<double> numberOrNull(const JsonField &f) {
  return f.isNull() ? std::nullopt : std::optional<double>(f.number());
}

Json writeNumberOrNull(const std::optional<double> &v) { return nullableNumber(v); }

// ---- accesses ----

ThreadCoefficients readCoefficients(const JsonField &f, ReadContext &ctx) {
  ThreadCoefficients c;
  Reader r(f, c, ctx);
  c.x = r.integer("x");
  c.y = r.integer("y");
  c.z = r.integer("z");
  r.finish();
  return c;
}

Json writeCoefficients(const ThreadCoefficients &c) {
  Writer w;
  w.put("x", c.x);
  w.put("y", c.y);
  w.put("z", c.z);
  return w.finish(c);
}

Access readAccess(const JsonField &f, ReadContext &ctx) {
  Access a;
  Reader r(f, a, ctx);
  a.file = r.string("file");
  a.line = r.integer("line", 0, kMaxPosition);
  a.column = r.integer("column", 0, kMaxPosition);
  a.space = r.require("space").string();
  a.op = r.require("op").string();
  a.bytes = r.require("bytes").integer(0, 1 << 20);
  a.pattern = r.string("pattern");
  a.sectorsPerRequest = r.nullableNumber("sectors_per_request");
  a.bankConflictWays = r.nullableNumber("bank_conflict_ways");
  a.executionsPerThread = r.nullableInteger("executions_per_thread");
  a.executionsPerThreadExpr = r.string("executions_per_thread_expr");
  a.laneExecutions = r.nullableNumber("lane_executions");
  a.launchSectorsPerRequest = r.number("launch_sectors_per_request");
  a.base = r.string("base");
  a.loopDepth = r.integer("loop_depth");
  a.gridStrideLoop = r.boolean("grid_stride_loop");
  a.laneGuarded = r.boolean("lane_guarded");
  a.address = r.string("address");
  a.threadCoefficients = r.nullableNested<ThreadCoefficients>("thread_coefficients", readCoefficients);
  a.strideBytes = r.integer("stride_bytes");
  a.strideElements = r.number("stride_elements");
  a.unknownParams = r.strings("unknown_params");
  a.misalignmentBytes = r.integer("misalignment_bytes");
  a.structStride = r.boolean("struct_stride");
  a.idealSectorsPerRequest = r.number("ideal_sectors_per_request");
  a.sectorsPerRequestTypical = r.number("sectors_per_request_typical");
  a.sectorsPerRequestWorst = r.number("sectors_per_request_worst");
  a.array = r.string("array");
  a.arrayDims = r.integers("array_dims");
  a.elementBytes = r.integer("element_bytes");
  a.idealWavefronts = r.number("ideal_wavefronts");
  a.unknownReason = r.string("unknown_reason");
  a.unknownLoopLine = r.integer("unknown_loop_line");
  a.notes = r.strings("notes");
  r.finish();
  return a;
}

Json writeAccess(const Access &a) {
  Writer w;
  w.put("file", a.file);
  w.put("line", a.line);
  w.put("column", a.column);
  w.put("space", Json(a.space));
  w.put("op", Json(a.op));
  w.put("bytes", Json(a.bytes));
  w.put("pattern", a.pattern);
  w.put("sectors_per_request", a.sectorsPerRequest);
  w.put("bank_conflict_ways", a.bankConflictWays);
  w.put("executions_per_thread", a.executionsPerThread);
  w.put("executions_per_thread_expr", a.executionsPerThreadExpr);
  w.put("lane_executions", a.laneExecutions);
  w.put("launch_sectors_per_request", a.launchSectorsPerRequest);
  w.put("base", a.base);
  w.put("loop_depth", a.loopDepth);
  w.put("grid_stride_loop", a.gridStrideLoop);
  w.put("lane_guarded", a.laneGuarded);
  w.put("address", a.address);
  w.nullableNested("thread_coefficients", a.threadCoefficients, writeCoefficients);
  w.put("stride_bytes", a.strideBytes);
  w.put("stride_elements", a.strideElements);
  w.put("unknown_params", a.unknownParams);
  w.put("misalignment_bytes", a.misalignmentBytes);
  w.put("struct_stride", a.structStride);
  w.put("ideal_sectors_per_request", a.idealSectorsPerRequest);
  w.put("sectors_per_request_typical", a.sectorsPerRequestTypical);
  w.put("sectors_per_request_worst", a.sectorsPerRequestWorst);
  w.put("array", a.array);
  w.put("array_dims", a.arrayDims);
  w.put("element_bytes", a.elementBytes);
  w.put("ideal_wavefronts", a.idealWavefronts);
  w.put("unknown_reason", a.unknownReason);
  w.put("unknown_loop_line", a.unknownLoopLine);
  w.put("notes", a.notes);
  return w.finish(a);
}

// ---- sync ----

BarrierSite readBarrierSite(const JsonField &f, ReadContext &ctx) {
  BarrierSite s;
  Reader r(f, s, ctx);
  s.line = r.integer("line");
  s.column = r.integer("column");
  s.inLoop = r.boolean("in_loop");
  s.executionsPerThread = r.nullableInteger("executions_per_thread");
  s.divergent = r.boolean("divergent");
  s.redundant = r.boolean("redundant");
  r.finish();
  return s;
}

Json writeBarrierSite(const BarrierSite &s) {
  Writer w;
  w.put("line", s.line);
  w.put("column", s.column);
  w.put("in_loop", s.inLoop);
  w.put("executions_per_thread", s.executionsPerThread);
  w.put("divergent", s.divergent);
  w.put("redundant", s.redundant);
  return w.finish(s);
}

DivergentBarrierSite readDivergentSite(const JsonField &f, ReadContext &ctx) {
  DivergentBarrierSite s;
  Reader r(f, s, ctx);
  s.line = r.integer("line");
  s.column = r.integer("column");
  s.condition = r.nested<Position>("condition", readPosition);
  r.finish();
  return s;
}

Json writeDivergentSite(const DivergentBarrierSite &s) {
  Writer w;
  w.put("line", s.line);
  w.put("column", s.column);
  w.nested("condition", s.condition, writePosition);
  return w.finish(s);
}

MissingBarrierSite readMissingSite(const JsonField &f, ReadContext &ctx) {
  MissingBarrierSite s;
  Reader r(f, s, ctx);
  s.line = r.integer("line");
  s.column = r.integer("column");
  s.write = r.nested<Position>("write", readPosition);
  s.readerThread = r.string("reader_thread");
  s.writerThread = r.string("writer_thread");
  r.finish();
  return s;
}

Json writeMissingSite(const MissingBarrierSite &s) {
  Writer w;
  w.put("line", s.line);
  w.put("column", s.column);
  w.nested("write", s.write, writePosition);
  w.put("reader_thread", s.readerThread);
  w.put("writer_thread", s.writerThread);
  return w.finish(s);
}

WarHazardSite readWarSite(const JsonField &f, ReadContext &ctx) {
  WarHazardSite s;
  Reader r(f, s, ctx);
  s.line = r.integer("line");
  s.column = r.integer("column");
  s.write = r.nested<Position>("write", readPosition);
  s.loop = r.nested<Position>("loop", readPosition);
  s.readerThread = r.string("reader_thread");
  s.writerThread = r.string("writer_thread");
  r.finish();
  return s;
}

Json writeWarSite(const WarHazardSite &s) {
  Writer w;
  w.put("line", s.line);
  w.put("column", s.column);
  w.nested("write", s.write, writePosition);
  w.nested("loop", s.loop, writePosition);
  w.put("reader_thread", s.readerThread);
  w.put("writer_thread", s.writerThread);
  return w.finish(s);
}

AtomicSite readAtomicSite(const JsonField &f, ReadContext &ctx) {
  AtomicSite s;
  Reader r(f, s, ctx);
  s.line = r.integer("line");
  s.column = r.integer("column");
  s.space = r.string("space");
  s.lanesPerAddress = r.integer("lanes_per_address");
  s.threadsPerAddress = r.integer("threads_per_address");
  s.sharedAcrossBlocks = r.boolean("shared_across_blocks");
  s.compilerAggregatesWarp = r.boolean("compiler_aggregates_warp");
  s.executionsPerThread = r.nullableInteger("executions_per_thread");
  s.gridBlocks = r.integer("grid_blocks");
  r.finish();
  return s;
}

Json writeAtomicSite(const AtomicSite &s) {
  Writer w;
  w.put("line", s.line);
  w.put("column", s.column);
  w.put("space", s.space);
  w.put("lanes_per_address", s.lanesPerAddress);
  w.put("threads_per_address", s.threadsPerAddress);
  w.put("shared_across_blocks", s.sharedAcrossBlocks);
  w.put("compiler_aggregates_warp", s.compilerAggregatesWarp);
  w.put("executions_per_thread", s.executionsPerThread);
  w.put("grid_blocks", s.gridBlocks);
  return w.finish(s);
}

SyncSection readSync(const JsonField &f, ReadContext &ctx) {
  SyncSection s;
  Reader r(f, s, ctx);
  s.barriers = r.integer("barriers", 0);
  s.barriersInLoops = r.integer("barriers_in_loops", 0);
  s.barriersPerThread = r.nullableInteger("barriers_per_thread", 0);
  s.barriersPerThreadNote = r.string("barriers_per_thread_note");
  s.divergentBarriers = r.integer("divergent_barriers", 0);
  auto sites = [&](const char *key, auto read) {
    using T = decltype(read(std::declval<const JsonField &>(), ctx));
    return r.list<T>(key, [&](const JsonField &e) { return read(e, ctx); });
  };
  s.barrierSites = sites("barrier_sites", readBarrierSite);
  s.divergentBarrierSites = sites("divergent_barrier_sites", readDivergentSite);
  s.redundantBarrierSites = sites("redundant_barrier_sites", readPosition);
  s.missingBarrierSites = sites("missing_barrier_sites", readMissingSite);
  s.warHazardSites = sites("war_hazard_sites", readWarSite);
  s.atomicSites = sites("atomic_sites", readAtomicSite);
  s.warpPrimitives = r.strings("warp_primitives");
  s.atomics = r.object("atomics");
  r.finish();
  return s;
}

Json writeSync(const SyncSection &s) {
  Writer w;
  w.put("barriers", s.barriers);
  w.put("barriers_in_loops", s.barriersInLoops);
  w.put("barriers_per_thread", s.barriersPerThread);
  w.put("barriers_per_thread_note", s.barriersPerThreadNote);
  w.put("divergent_barriers", s.divergentBarriers);
  w.list("barrier_sites", s.barrierSites, writeBarrierSite);
  w.list("divergent_barrier_sites", s.divergentBarrierSites, writeDivergentSite);
  w.list("redundant_barrier_sites", s.redundantBarrierSites, writePosition);
  w.list("missing_barrier_sites", s.missingBarrierSites, writeMissingSite);
  w.list("war_hazard_sites", s.warHazardSites, writeWarSite);
  w.list("atomic_sites", s.atomicSites, writeAtomicSite);
  w.put("warp_primitives", s.warpPrimitives);
  w.put("atomics", s.atomics);
  return w.finish(s);
}

// ---- resources ----

ResourcesSection readResources(const JsonField &f, ReadContext &ctx) {
  ResourcesSection s;
  Reader r(f, s, ctx);
  s.registers = r.integer("registers", 0, 1024);
  s.spillStoreBytes = r.integer("spill_store_bytes", 0);
  s.spillLoadBytes = r.integer("spill_load_bytes", 0);
  s.localBytes = r.integer("local_bytes", 0);
  s.staticSmemBytes = r.integer("static_smem_bytes", 0);
  s.barriers = r.integer("barriers", 0);
  s.constantBytes = r.integer("constant_bytes", 0);
  s.source = r.string("source");
  s.arch = r.string("arch");
  s.compiler = r.string("compiler");
  s.cached = r.boolean("cached");
  r.finish();
  return s;
}

Json writeResources(const ResourcesSection &s) {
  Writer w;
  w.put("registers", s.registers);
  w.put("spill_store_bytes", s.spillStoreBytes);
  w.put("spill_load_bytes", s.spillLoadBytes);
  w.put("local_bytes", s.localBytes);
  w.put("static_smem_bytes", s.staticSmemBytes);
  w.put("barriers", s.barriers);
  w.put("constant_bytes", s.constantBytes);
  w.put("source", s.source);
  w.put("arch", s.arch);
  w.put("compiler", s.compiler);
  w.put("cached", s.cached);
  return w.finish(s);
}

// ---- occupancy ----

OccupancyLimits readLimits(const JsonField &f, ReadContext &ctx) {
  OccupancyLimits l;
  Reader r(f, l, ctx);
  l.registers = r.integer("registers");
  l.sharedMemory = r.integer("shared_memory");
  l.warps = r.integer("warps");
  l.blocks = r.integer("blocks");
  l.barriers = r.integer("barriers");
  r.finish();
  return l;
}

Json writeLimits(const OccupancyLimits &l) {
  Writer w;
  w.put("registers", l.registers);
  w.put("shared_memory", l.sharedMemory);
  w.put("warps", l.warps);
  w.put("blocks", l.blocks);
  w.put("barriers", l.barriers);
  return w.finish(l);
}

OccupancyLaunchSite readOccupancySite(const JsonField &f, ReadContext &ctx) {
  OccupancyLaunchSite s;
  Reader r(f, s, ctx);
  s.line = r.integer("line");
  s.column = r.integer("column");
  s.gridBlocks = r.integer("grid_blocks", 0);
  s.blockSize = r.integer("block_size", 0);
  s.dynamicSmemBytes = r.integer("dynamic_smem_bytes", 0);
  s.activeBlocksPerSM = r.integer("active_blocks_per_sm", 0);
  s.theoretical = r.number("theoretical");
  s.blocksPerWave = r.integer("blocks_per_wave", 0);
  s.waves = r.number("waves");
  s.lastWaveFraction = r.number("last_wave_fraction");
  r.finish();
  return s;
}

Json writeOccupancySite(const OccupancyLaunchSite &s) {
  Writer w;
  w.put("line", s.line);
  w.put("column", s.column);
  w.put("grid_blocks", s.gridBlocks);
  w.put("block_size", s.blockSize);
  w.put("dynamic_smem_bytes", s.dynamicSmemBytes);
  w.put("active_blocks_per_sm", s.activeBlocksPerSM);
  w.put("theoretical", s.theoretical);
  w.put("blocks_per_wave", s.blocksPerWave);
  w.put("waves", s.waves);
  w.put("last_wave_fraction", s.lastWaveFraction);
  return w.finish(s);
}

OccupancyRaise readRaise(const JsonField &f, ReadContext &ctx) {
  OccupancyRaise o;
  Reader r(f, o, ctx);
  o.change = r.string("change");
  o.value = r.integer("value");
  o.activeBlocksPerSM = r.integer("active_blocks_per_sm", 0);
  o.theoretical = r.number("theoretical");
  o.text = r.string("text");
  r.finish();
  return o;
}

Json writeRaise(const OccupancyRaise &o) {
  Writer w;
  w.put("change", o.change);
  w.put("value", o.value);
  w.put("active_blocks_per_sm", o.activeBlocksPerSM);
  w.put("theoretical", o.theoretical);
  w.put("text", o.text);
  return w.finish(o);
}

OccupancySection readOccupancy(const JsonField &f, ReadContext &ctx) {
  OccupancySection o;
  Reader r(f, o, ctx);
  o.arch = r.string("arch");
  o.device = r.string("device");
  o.sms = r.integer("sms", 0);
  o.blockSize = r.integer("block_size", 0);
  o.dynamicSmemBytes = r.integer("dynamic_smem_bytes", 0);
  o.launchOrigin = r.string("launch_origin");
  o.registers = r.integer("registers", 0);
  o.staticSmemBytes = r.integer("static_smem_bytes", 0);
  o.activeBlocksPerSM = r.integer("active_blocks_per_sm", 0);
  o.activeWarpsPerSM = r.integer("active_warps_per_sm", 0);
  o.maxWarpsPerSM = r.integer("max_warps_per_sm", 0);
  o.theoretical = r.number("theoretical");
  o.limiter = r.string("limiter");
  o.limits = r.nested<OccupancyLimits>("limits", readLimits);
  o.allocatedRegistersPerBlock = r.integer("allocated_registers_per_block", 0);
  o.allocatedSmemPerBlock = r.integer("allocated_smem_per_block", 0);
  o.problem = r.string("problem");
  o.gridBlocks = r.integer("grid_blocks", 0);
  o.blocksPerWave = r.integer("blocks_per_wave", 0);
  o.fullWaves = r.integer("full_waves", 0);
  o.waves = r.number("waves");
  o.lastWaveFraction = r.number("last_wave_fraction");
  o.launchSites =
      r.list<OccupancyLaunchSite>("launch_sites", [&](const JsonField &e) { return readOccupancySite(e, ctx); });
  o.raise = r.nested<OccupancyRaise>("raise", readRaise);
  r.finish();
  return o;
}

Json writeOccupancy(const OccupancySection &o) {
  Writer w;
  w.put("arch", o.arch);
  w.put("device", o.device);
  w.put("sms", o.sms);
  w.put("block_size", o.blockSize);
  w.put("dynamic_smem_bytes", o.dynamicSmemBytes);
  w.put("launch_origin", o.launchOrigin);
  w.put("registers", o.registers);
  w.put("static_smem_bytes", o.staticSmemBytes);
  w.put("active_blocks_per_sm", o.activeBlocksPerSM);
  w.put("active_warps_per_sm", o.activeWarpsPerSM);
  w.put("max_warps_per_sm", o.maxWarpsPerSM);
  w.put("theoretical", o.theoretical);
  w.put("limiter", o.limiter);
  w.nested("limits", o.limits, writeLimits);
  w.put("allocated_registers_per_block", o.allocatedRegistersPerBlock);
  w.put("allocated_smem_per_block", o.allocatedSmemPerBlock);
  w.put("problem", o.problem);
  w.put("grid_blocks", o.gridBlocks);
  w.put("blocks_per_wave", o.blocksPerWave);
  w.put("full_waves", o.fullWaves);
  w.put("waves", o.waves);
  w.put("last_wave_fraction", o.lastWaveFraction);
  w.list("launch_sites", o.launchSites, writeOccupancySite);
  w.nested("raise", o.raise, writeRaise);
  return w.finish(o);
}

// ---- work ----

PrecisionFlops readPrecision(const JsonField &f, ReadContext &ctx) {
  PrecisionFlops p;
  Reader r(f, p, ctx);
  p.total = r.nullableNumber("total");
  p.add = r.nullableNumber("add");
  p.mul = r.nullableNumber("mul");
  p.fma = r.nullableNumber("fma");
  p.library = r.nullableNumber("library");
  p.division = r.nullableNumber("division");
  p.sqrt = r.nullableNumber("sqrt");
  p.special = r.nullableNumber("special");
  r.finish();
  return p;
}

Json writePrecision(const PrecisionFlops &p) {
  Writer w;
  w.put("total", p.total);
  w.put("add", p.add);
  w.put("mul", p.mul);
  w.put("fma", p.fma);
  w.put("library", p.library);
  w.put("division", p.division);
  w.put("sqrt", p.sqrt);
  w.put("special", p.special);
  return w.finish(p);
}

WorkFlops readFlops(const JsonField &f, ReadContext &ctx) {
  WorkFlops fl;
  Reader r(f, fl, ctx);
  fl.total = r.nullableNumber("total");
  fl.perThread = r.nullableNumber("per_thread");
  fl.library = r.nullableNumber("library");
  fl.tensor = r.nullableNumber("tensor");
  fl.specialFunctions = r.members<std::optional<double>>("special_functions", numberOrNull);
  fl.tensorByType = r.members<std::optional<double>>("tensor_by_type", numberOrNull);
  fl.perThreadExpr = r.string("per_thread_expr");
  // Every other object-valued key is a precision.
  for (const auto &[name, value] : f.members())
    if (value.isObject() && name != "special_functions" && name != "tensor_by_type")
      fl.byPrecision.emplace_back(name, *r.nested<PrecisionFlops>(name.c_str(), readPrecision));
  r.finish();
  return fl;
}

Json writeFlops(const WorkFlops &fl) {
  Writer w;
  w.put("total", fl.total);
  w.put("per_thread", fl.perThread);
  w.put("library", fl.library);
  w.put("tensor", fl.tensor);
  for (const auto &[name, p] : fl.byPrecision)
    w.put(name.c_str(), writePrecision(p));
  w.members("special_functions", fl.specialFunctions, writeNumberOrNull);
  w.members("tensor_by_type", fl.tensorByType, writeNumberOrNull);
  w.put("per_thread_expr", fl.perThreadExpr);
  return w.finish(fl);
}

ArrayTraffic readArray(const JsonField &f, ReadContext &ctx) {
  ArrayTraffic a;
  Reader r(f, a, ctx);
  a.array = r.nullableString("array");
  a.dramReadBytesEstimate = r.nullableNumber("dram_read_bytes_estimate");
  a.dramWriteBytesEstimate = r.nullableNumber("dram_write_bytes_estimate");
  a.rangeKnown = r.boolean("range_known");
  a.globalLoadBytes = r.nullableNumber("global_load_bytes");
  a.reuseFactor = r.number("reuse_factor");
  a.stagedInShared = r.boolean("staged_in_shared");
  a.line = r.integer("line");
  a.column = r.integer("column");
  r.finish();
  return a;
}

Json writeArray(const ArrayTraffic &a) {
  Writer w;
  w.put("array", a.array);
  w.put("dram_read_bytes_estimate", a.dramReadBytesEstimate);
  w.put("dram_write_bytes_estimate", a.dramWriteBytesEstimate);
  w.put("range_known", a.rangeKnown);
  w.put("global_load_bytes", a.globalLoadBytes);
  w.put("reuse_factor", a.reuseFactor);
  w.put("staged_in_shared", a.stagedInShared);
  w.put("line", a.line);
  w.put("column", a.column);
  return w.finish(a);
}

Roofline readRoofline(const JsonField &f, ReadContext &ctx) {
  Roofline o;
  Reader r(f, o, ctx);
  o.device = r.string("device");
  o.dramBytesPerSecond = r.number("dram_bytes_per_second");
  o.bandwidthSource = r.string("bandwidth_source");
  o.computeTimeUs = r.number("compute_time_us");
  o.memoryTimeUs = r.number("memory_time_us");
  o.ridgeFp32FlopPerByte = r.number("ridge_fp32_flop_per_byte");
  r.finish();
  return o;
}

Json writeRoofline(const Roofline &o) {
  Writer w;
  w.put("device", o.device);
  w.put("dram_bytes_per_second", o.dramBytesPerSecond);
  w.put("bandwidth_source", o.bandwidthSource);
  w.put("compute_time_us", o.computeTimeUs);
  w.put("memory_time_us", o.memoryTimeUs);
  w.put("ridge_fp32_flop_per_byte", o.ridgeFp32FlopPerByte);
  return w.finish(o);
}

Loop readLoop(const JsonField &f, ReadContext &ctx) {
  Loop l;
  Reader r(f, l, ctx);
  l.line = r.integer("line");
  l.depth = r.integer("depth");
  l.tripCountExpr = r.string("trip_count_expr");
  l.tripCountKnown = r.boolean("trip_count_known");
  r.finish();
  return l;
}

Json writeLoop(const Loop &l) {
  Writer w;
  w.put("line", l.line);
  w.put("depth", l.depth);
  w.put("trip_count_expr", l.tripCountExpr);
  w.put("trip_count_known", l.tripCountKnown);
  return w.finish(l);
}

WorkSection readWork(const JsonField &f, ReadContext &ctx) {
  WorkSection s;
  Reader r(f, s, ctx);
  s.threads = r.nullableNumber("threads");
  s.flops = r.nested<WorkFlops>("flops", readFlops);
  s.sassFpInstructions = r.members<std::optional<double>>("sass_fp_instructions", numberOrNull);
  s.intOps = r.nullableNumber("int_ops");
  s.globalLoadBytes = r.nullableNumber("global_load_bytes");
  s.globalStoreBytes = r.nullableNumber("global_store_bytes");
  s.globalLoadSectors = r.nullableNumber("global_load_sectors");
  s.globalStoreSectors = r.nullableNumber("global_store_sectors");
  s.globalSectors = r.nullableNumber("global_sectors");
  s.sharedBytes = r.nullableNumber("shared_bytes");
  s.dramReadBytesEstimate = r.nullableNumber("dram_read_bytes_estimate");
  s.dramWriteBytesEstimate = r.nullableNumber("dram_write_bytes_estimate");
  s.dramWriteBytesEstimateAtomic = r.nullableNumber("dram_write_bytes_estimate_atomic");
  s.arithmeticIntensity = r.nullableNumber("arithmetic_intensity");
  s.rooflineTimeUs = r.nullableNumber("roofline_time_us");
  s.bound = r.nullableString("bound");
  s.arrays = r.list<ArrayTraffic>("arrays", [&](const JsonField &e) { return readArray(e, ctx); });
  s.l2ArithmeticIntensity = r.number("l2_arithmetic_intensity");
  s.roofline = r.nested<Roofline>("roofline", readRoofline);
  s.loops = r.list<Loop>("loops", [&](const JsonField &e) { return readLoop(e, ctx); });
  s.notes = r.strings("notes");
  r.finish();
  return s;
}

Json writeWork(const WorkSection &s) {
  Writer w;
  w.put("threads", s.threads);
  w.nested("flops", s.flops, writeFlops);
  w.members("sass_fp_instructions", s.sassFpInstructions, writeNumberOrNull);
  w.put("int_ops", s.intOps);
  w.put("global_load_bytes", s.globalLoadBytes);
  w.put("global_store_bytes", s.globalStoreBytes);
  w.put("global_load_sectors", s.globalLoadSectors);
  w.put("global_store_sectors", s.globalStoreSectors);
  w.put("global_sectors", s.globalSectors);
  w.put("shared_bytes", s.sharedBytes);
  w.put("dram_read_bytes_estimate", s.dramReadBytesEstimate);
  w.put("dram_write_bytes_estimate", s.dramWriteBytesEstimate);
  w.put("dram_write_bytes_estimate_atomic", s.dramWriteBytesEstimateAtomic);
  w.put("arithmetic_intensity", s.arithmeticIntensity);
  w.put("roofline_time_us", s.rooflineTimeUs);
  w.put("bound", s.bound);
  w.list("arrays", s.arrays, writeArray);
  w.put("l2_arithmetic_intensity", s.l2ArithmeticIntensity);
  w.nested("roofline", s.roofline, writeRoofline);
  w.list("loops", s.loops, writeLoop);
  w.put("notes", s.notes);
  return w.finish(s);
}

// ---- kernels ----

KernelParameter readParameter(const JsonField &f, ReadContext &ctx) {
  KernelParameter p;
  Reader r(f, p, ctx);
  p.name = r.string("name");
  p.type = r.string("type");
  p.pointee = r.string("pointee");
  p.pointeeBytes = r.integer("pointee_bytes", 0);
  p.isConst = r.boolean("const");
  r.finish();
  return p;
}

Json writeParameter(const KernelParameter &p) {
  Writer w;
  w.put("name", p.name);
  w.put("type", p.type);
  w.put("pointee", p.pointee);
  w.put("pointee_bytes", p.pointeeBytes);
  w.put("const", p.isConst);
  return w.finish(p);
}

LaunchBounds readLaunchBounds(const JsonField &f, ReadContext &ctx) {
  LaunchBounds b;
  Reader r(f, b, ctx);
  b.maxThreads = r.integer("max_threads", 0);
  b.minBlocks = r.nullableInteger("min_blocks", 0);
  r.finish();
  return b;
}

Json writeLaunchBounds(const LaunchBounds &b) {
  Writer w;
  w.put("max_threads", b.maxThreads);
  w.put("min_blocks", b.minBlocks);
  return w.finish(b);
}

SharedArray readSharedArray(const JsonField &f, ReadContext &ctx) {
  SharedArray s;
  Reader r(f, s, ctx);
  s.name = r.string("name");
  s.elementType = r.string("element_type");
  s.elementBytes = r.integer("element_bytes", 0);
  s.dims = r.integers("dims");
  s.bytes = r.integer("bytes", 0);
  s.dynamic = r.boolean("dynamic");
  s.line = r.integer("line", 0, kMaxPosition);
  r.finish();
  return s;
}

Json writeSharedArray(const SharedArray &s) {
  Writer w;
  w.put("name", s.name);
  w.put("element_type", s.elementType);
  w.put("element_bytes", s.elementBytes);
  w.put("dims", s.dims);
  w.put("bytes", s.bytes);
  w.put("dynamic", s.dynamic);
  w.put("line", s.line);
  return w.finish(s);
}

KernelLaunch readKernelLaunch(const JsonField &f, ReadContext &ctx) {
  KernelLaunch l;
  Reader r(f, l, ctx);
  l.grid = r.nullableNested<Dim3>("grid", readNestedDim3);
  JsonField block = r.require("block");
  if (!block.isNull())
    l.block = readDim3(block);
  l.dynamicSmemBytes = r.integer("dynamic_smem_bytes", 0);
  l.origin = r.string("origin");
  l.params = r.members<double>("params", [](const JsonField &v) { return v.number(); });
  l.pointerExtentBytes = r.members<int64_t>("pointer_extent_bytes", [](const JsonField &v) { return v.integer(0); });
  r.finish();
  return l;
}

Json writeKernelLaunch(const KernelLaunch &l) {
  Writer w;
  w.nullableNested("grid", l.grid, writeDim3);
  w.put("block", l.block ? writeDim3(*l.block) : Json());
  w.put("dynamic_smem_bytes", l.dynamicSmemBytes);
  w.put("origin", l.origin);
  w.members("params", l.params, number);
  w.members("pointer_extent_bytes", l.pointerExtentBytes, [](int64_t v) { return Json(v); });
  return w.finish(l);
}

LaunchSite readLaunchSite(const JsonField &f, ReadContext &ctx) {
  LaunchSite s;
  Reader r(f, s, ctx);
  s.file = r.string("file");
  s.line = r.integer("line", 0, kMaxPosition);
  s.column = r.integer("column", 0, kMaxPosition);
  s.grid = r.nullableNested<Dim3>("grid", readNestedDim3);
  s.block = r.nullableNested<Dim3>("block", readNestedDim3);
  s.dynamicSmemBytes = r.nullableInteger("dynamic_smem_bytes", 0);
  s.constant = r.boolean("constant");
  s.scalarArgs = r.list<std::optional<double>>("scalar_args", numberOrNull);
  s.problems = r.strings("problems");
  s.evaluated = r.boolean("evaluated");
  s.maxDynamicSmemAttribute = r.integer("max_dynamic_smem_attribute");
  r.finish();
  return s;
}

Json writeLaunchSite(const LaunchSite &s) {
  Writer w;
  w.put("file", s.file);
  w.put("line", s.line);
  w.put("column", s.column);
  w.nullableNested("grid", s.grid, writeDim3);
  w.nullableNested("block", s.block, writeDim3);
  w.put("dynamic_smem_bytes", s.dynamicSmemBytes);
  w.put("constant", s.constant);
  w.list("scalar_args", s.scalarArgs, writeNumberOrNull);
  w.put("problems", s.problems);
  w.put("evaluated", s.evaluated);
  w.put("max_dynamic_smem_attribute", s.maxDynamicSmemAttribute);
  return w.finish(s);
}

AnalysisFault readFault(const JsonField &f, ReadContext &ctx) {
  AnalysisFault a;
  Reader r(f, a, ctx);
  a.analysis = r.string("analysis");
  a.fault = r.string("fault");
  r.finish();
  return a;
}

Json writeFault(const AnalysisFault &a) {
  Writer w;
  w.put("analysis", a.analysis);
  w.put("fault", a.fault);
  return w.finish(a);
}

template <class T> auto withContext(T (*read)(const JsonField &, ReadContext &), ReadContext &ctx) {
  return [read, &ctx](const JsonField &e) { return read(e, ctx); };
}

Kernel readKernel(const JsonField &f, ReadContext &ctx) {
  Kernel k;
  Reader r(f, k, ctx);
  k.name = r.require("name").string();
  k.mangledName = r.require("mangled_name").string();
  k.file = r.string("file");
  k.line = r.integer("line", 0, kMaxPosition);
  k.column = r.integer("column", 0, kMaxPosition);
  k.parameters = r.list<KernelParameter>("parameters", withContext(readParameter, ctx));
  k.launchBounds = r.nullableNested<LaunchBounds>("launch_bounds", readLaunchBounds);
  k.sharedArrays = r.list<SharedArray>("shared_arrays", withContext(readSharedArray, ctx));
  k.launch = readKernelLaunch(r.require("launch"), ctx);
  k.launchSites = r.list<LaunchSite>("launch_sites", withContext(readLaunchSite, ctx));
  k.accesses = r.list<Access>("accesses", withContext(readAccess, ctx));
  k.sync = r.nested<SyncSection>("sync", readSync);
  k.resources = r.nested<ResourcesSection>("resources", readResources);
  k.occupancy = r.nested<OccupancySection>("occupancy", readOccupancy);
  k.work = r.nested<WorkSection>("work", readWork);
  k.coalescingEfficiency = r.number("coalescing_efficiency");
  k.analysisFaults = r.list<AnalysisFault>("analysis_faults", withContext(readFault, ctx));
  k.notes = r.strings("notes");
  r.finish();
  return k;
}

Json writeKernel(const Kernel &k) {
  Writer w;
  w.put("name", Json(k.name));
  w.put("mangled_name", Json(k.mangledName));
  w.put("file", k.file);
  w.put("line", k.line);
  w.put("column", k.column);
  w.list("parameters", k.parameters, writeParameter);
  w.nullableNested("launch_bounds", k.launchBounds, writeLaunchBounds);
  w.list("shared_arrays", k.sharedArrays, writeSharedArray);
  w.put("launch", writeKernelLaunch(k.launch));
  w.list("launch_sites", k.launchSites, writeLaunchSite);
  w.list("accesses", k.accesses, writeAccess);
  w.nested("sync", k.sync, writeSync);
  w.nested("resources", k.resources, writeResources);
  w.nested("occupancy", k.occupancy, writeOccupancy);
  w.nested("work", k.work, writeWork);
  w.put("coalescing_efficiency", k.coalescingEfficiency);
  w.list("analysis_faults", k.analysisFaults, writeFault);
  w.put("notes", k.notes);
  return w.finish(k);
}

Diagnostic readDiagnostic(const JsonField &f, ReadContext &ctx) {
  Diagnostic d;
  Reader r(f, d, ctx);
  d.check = r.require("check").string();
  d.severity = r.string("severity");
  d.message = r.string("message");
  d.kernel = r.string("kernel");
  d.file = r.string("file");
  d.line = r.integer("line", 0, kMaxPosition);
  d.column = r.integer("column", 0, kMaxPosition);
  d.kernels = r.strings("kernels");
  d.occurrences = r.integer("occurrences", 0);
  // Orders the feedback's findings: a NaN or negative value would break that order, so it is refused.
  if (auto saving = r.take("estimated_saving_us")) {
    if (saving->isNull()) {
      d.estimatedSavingUs = std::optional<double>();
    } else {
      double us = saving->number();
      if (!std::isfinite(us) || us < 0)
        saving->expected("a finite number of microseconds >= 0");
      d.estimatedSavingUs = us;
    }
  }
  r.finish();
  return d;
}

Json writeDiagnostic(const Diagnostic &d) {
  Writer w;
  w.put("check", Json(d.check));
  w.put("severity", d.severity);
  w.put("message", d.message);
  w.put("kernel", d.kernel);
  w.put("file", d.file);
  w.put("line", d.line);
  w.put("column", d.column);
  w.put("kernels", d.kernels);
  w.put("occurrences", d.occurrences);
  w.put("estimated_saving_us", d.estimatedSavingUs);
  return w.finish(d);
}

FileTarget readFileTarget(const JsonField &f, ReadContext &ctx) {
  FileTarget t;
  Reader r(f, t, ctx);
  t.arch = r.string("arch");
  t.origin = r.string("origin");
  t.deviceIrArch = r.string("device_ir_arch");
  t.notes = r.strings("notes");
  r.finish();
  return t;
}

Json writeFileTarget(const FileTarget &t) {
  Writer w;
  w.put("arch", t.arch);
  w.put("origin", t.origin);
  w.put("device_ir_arch", t.deviceIrArch);
  w.put("notes", t.notes);
  return w.finish(t);
}

FileEntry readFileEntry(const JsonField &f, ReadContext &ctx) {
  FileEntry e;
  Reader r(f, e, ctx);
  e.file = r.string("file");
  e.analysed = r.boolean("analysed");
  e.kernels = r.integer("kernels", 0);
  e.target = r.nested<FileTarget>("target", readFileTarget);
  r.finish();
  return e;
}

Json writeFileEntry(const FileEntry &e) {
  Writer w;
  w.put("file", e.file);
  w.put("analysed", e.analysed);
  w.put("kernels", e.kernels);
  w.nested("target", e.target, writeFileTarget);
  return w.finish(e);
}

ToolInfo readTool(const JsonField &f, ReadContext &ctx) {
  ToolInfo t;
  Reader r(f, t, ctx);
  t.name = r.string("name");
  t.version = r.string("version");
  r.finish();
  return t;
}

Json writeTool(const ToolInfo &t) {
  Writer w;
  w.put("name", t.name);
  w.put("version", t.version);
  return w.finish(t);
}

// ---- --task ----

TaskInfo readTask(const JsonField &f, ReadContext &ctx) {
  TaskInfo t;
  Reader r(f, t, ctx);
  t.name = r.require("name").string();
  t.dir = r.string("dir");
  t.entry = r.string("entry");
  t.kind = r.string("kind");
  r.finish();
  return t;
}

Json writeTask(const TaskInfo &t) {
  Writer w;
  w.put("name", Json(t.name));
  w.put("dir", t.dir);
  w.put("entry", t.entry);
  w.put("kind", t.kind);
  return w.finish(t);
}

SourceSite readSite(const JsonField &f, ReadContext &ctx) {
  SourceSite s;
  Reader r(f, s, ctx);
  s.file = r.string("file");
  s.line = r.integer("line", 0, kMaxPosition);
  s.column = r.integer("column", 0, kMaxPosition);
  r.finish();
  return s;
}

Json writeSite(const SourceSite &s) {
  Writer w;
  w.put("file", s.file);
  w.put("line", s.line);
  w.put("column", s.column);
  return w.finish(s);
}

UnresolvedPart readUnresolved(const JsonField &f, ReadContext &ctx) {
  UnresolvedPart u;
  Reader r(f, u, ctx);
  u.part = r.require("part").string();
  u.reason = r.string("reason");
  r.finish();
  return u;
}

Json writeUnresolved(const UnresolvedPart &u) {
  Writer w;
  w.put("part", Json(u.part));
  w.put("reason", u.reason);
  return w.finish(u);
}

PointerArg readPointerArg(const JsonField &f, ReadContext &ctx) {
  PointerArg p;
  Reader r(f, p, ctx);
  p.argument = r.string("argument");
  p.offsetBytes = r.integer("offset_bytes");
  p.offsetElements = r.nullableInteger("offset_elements");
  p.scratch = r.boolean("scratch");
  p.scratchId = r.integer("scratch_id", 0);
  p.bytes = r.nullableInteger("bytes", 0);
  p.isNull = r.boolean("null");
  p.host = r.boolean("host");
  p.what = r.string("what");
  p.unknown = r.boolean("unknown");
  p.reason = r.string("reason");
  r.finish();
  return p;
}

Json writePointerArg(const PointerArg &p) {
  Writer w;
  w.put("argument", p.argument);
  w.put("offset_bytes", p.offsetBytes);
  w.put("offset_elements", p.offsetElements);
  w.put("scratch", p.scratch);
  w.put("scratch_id", p.scratchId);
  w.put("bytes", p.bytes);
  w.put("null", p.isNull);
  w.put("host", p.host);
  w.put("what", p.what);
  w.put("unknown", p.unknown);
  w.put("reason", p.reason);
  return w.finish(p);
}

TaskLaunch readLaunch(const JsonField &f, ReadContext &ctx, int64_t position) {
  TaskLaunch l;
  Reader r(f, l, ctx);
  JsonField index = r.require("index");
  l.index = index.integer(0, INT32_MAX);
  if (l.index != position)
    index.fail("expected " + std::to_string(position) + " (launches are listed in execution order), got " +
               std::to_string(l.index));
  l.kernel = r.require("kernel").string();
  l.mangledName = r.require("mangled_name").string();
  l.via = r.string("via");
  l.site = r.nested<SourceSite>("site", readSite);
  l.resolved = r.require("resolved").boolean();
  l.unresolved = r.list<UnresolvedPart>("unresolved", withContext(readUnresolved, ctx));
  l.grid = r.nullableNested<Dim3>("grid", readNestedDim3);
  l.block = r.nullableNested<Dim3>("block", readNestedDim3);
  l.dynamicSmemBytes = r.nullableInteger("dynamic_smem_bytes", 0);
  l.scalarArgs = r.members<std::optional<double>>("scalar_args", numberOrNull);
  l.pointerArgs = r.members<PointerArg>("pointer_args", withContext(readPointerArg, ctx));
  l.maxDynamicSmemAttribute = r.integer("max_dynamic_smem_attribute");
  l.launchErrors = r.strings("launch_errors");
  l.report = r.nested<Kernel>("report", readKernel);
  if (auto same = r.take("same_report_as")) {
    if (position == 0)
      same->fail("the first launch cannot refer to an earlier one");
    l.sameReportAs = same->integer(0, position - 1);
  }
  l.noReportReason = r.string("no_report_reason");
  r.finish();
  return l;
}

Json writeLaunch(const TaskLaunch &l) {
  Writer w;
  w.put("index", Json(l.index));
  w.put("kernel", Json(l.kernel));
  w.put("mangled_name", Json(l.mangledName));
  w.put("via", l.via);
  w.nested("site", l.site, writeSite);
  w.put("resolved", Json(l.resolved));
  w.list("unresolved", l.unresolved, writeUnresolved);
  w.nullableNested("grid", l.grid, writeDim3);
  w.nullableNested("block", l.block, writeDim3);
  w.put("dynamic_smem_bytes", l.dynamicSmemBytes);
  w.members("scalar_args", l.scalarArgs, writeNumberOrNull);
  w.members("pointer_args", l.pointerArgs, writePointerArg);
  w.put("max_dynamic_smem_attribute", l.maxDynamicSmemAttribute);
  w.put("launch_errors", l.launchErrors);
  w.nested("report", l.report, writeKernel);
  w.put("same_report_as", l.sameReportAs);
  w.put("no_report_reason", l.noReportReason);
  return w.finish(l);
}

Configuration readConfiguration(const JsonField &f, ReadContext &ctx) {
  Configuration c;
  Reader r(f, c, ctx);
  c.name = r.require("name").string();
  c.values = r.members<double>("values", [](const JsonField &v) { return v.number(); });
  c.pointerElements = r.members<int64_t>("pointer_elements", [](const JsonField &v) { return v.integer(0); });
  c.entryFound = r.boolean("entry_found");
  c.launchesComplete = r.boolean("launches_complete");
  std::vector<JsonField> launches = r.require("launches").elements();
  for (size_t i = 0; i < launches.size(); ++i)
    c.launches.push_back(readLaunch(launches[i], ctx, int64_t(i)));
  c.diagnostics = r.list<Diagnostic>("diagnostics", withContext(readDiagnostic, ctx));
  c.notes = r.strings("notes");
  c.reason = r.string("reason");
  r.finish();
  return c;
}

Json writeConfiguration(const Configuration &c) {
  Writer w;
  w.put("name", Json(c.name));
  w.members("values", c.values, number);
  w.members("pointer_elements", c.pointerElements, [](int64_t v) { return Json(v); });
  w.put("entry_found", c.entryFound);
  w.put("launches_complete", c.launchesComplete);
  Json launches = Json::array();
  for (const TaskLaunch &l : c.launches)
    launches.push_back(writeLaunch(l));
  w.put("launches", std::move(launches));
  w.list("diagnostics", c.diagnostics, writeDiagnostic);
  w.put("notes", c.notes);
  w.put("reason", c.reason);
  return w.finish(c);
}

} // namespace

const PrecisionFlops *WorkFlops::precision(const std::string &name) const {
  for (const auto &[n, p] : byPrecision)
    if (n == name)
      return &p;
  return nullptr;
}

AnalysisDocument AnalysisDocument::fromJson(const Json &json, const std::string &document) {
  AnalysisDocument doc;
  ReadContext ctx{doc.unknownKeyPaths};
  JsonField root(json, document);
  Reader r(root, doc, ctx);
  JsonField version = r.require("schema_version");
  doc.schemaVersion = version.integer();
  if (doc.schemaVersion != kAnalysisSchemaVersion)
    version.fail("expected 1 (the schema this reader knows), got " + std::to_string(doc.schemaVersion));
  doc.tool = r.nested<ToolInfo>("tool", readTool);
  doc.arch = r.string("arch");
  doc.gpu = r.string("gpu");
  doc.files = r.list<FileEntry>("files", withContext(readFileEntry, ctx));
  for (const JsonField &k : r.require("kernels").elements())
    doc.kernels.push_back(readKernel(k, ctx));
  doc.diagnostics = r.list<Diagnostic>("diagnostics", withContext(readDiagnostic, ctx));
  doc.task = r.nested<TaskInfo>("task", readTask);
  doc.configurations = r.list<Configuration>("configurations", withContext(readConfiguration, ctx));
  r.finish();
  return doc;
}

Json AnalysisDocument::toJson() const {
  Writer w;
  w.put("schema_version", Json(schemaVersion));
  w.nested("tool", tool, writeTool);
  w.put("arch", arch);
  w.put("gpu", gpu);
  w.list("files", files, writeFileEntry);
  Json ks = Json::array();
  for (const Kernel &k : kernels)
    ks.push_back(writeKernel(k));
  w.put("kernels", std::move(ks));
  w.list("diagnostics", diagnostics, writeDiagnostic);
  w.nested("task", task, writeTask);
  w.list("configurations", configurations, writeConfiguration);
  return w.finish(*this);
}

} // namespace cudaperf::schema
