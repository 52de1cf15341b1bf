#include "cudaperf/Schema/RewardDocument.h"

#include "ObjectIO.h"

#include "cudaperf/Support/JsonReader.h"

namespace cudaperf::schema {

using support::JsonField;

namespace {

using detail::ObjectReader;
using detail::ObjectWriter;

// A key the writer always writes: present (null allowed), else "PATH.KEY: missing".
JsonField need(ObjectReader &r, const JsonField &object, const char *key) {
  r.take(key);
  return object.require(key);
}

std::optional<double> numberOrNull(const JsonField &f) {
  return f.isNull() ? std::nullopt : std::optional<double>(f.number());
}

template <class T> Json orNull(const std::optional<T> &v) { return v ? Json(*v) : Json(nullptr); }

std::vector<std::string> readStrings(const JsonField &f) {
  if (!f.json().is_array())
    f.expected("an array");
  std::vector<std::string> out;
  for (const JsonField &e : f.elements())
    out.push_back(e.string());
  return out;
}

RewardTerm readTerm(const JsonField &f) {
  RewardTerm t;
  ObjectReader r(f, t.extra, t.keyOrder);
  t.name = need(r, f, "name").string();
  t.group = need(r, f, "group").string();
  t.value = numberOrNull(need(r, f, "value"));
  t.weight = need(r, f, "weight").number();
  t.contribution = need(r, f, "contribution").number();
  t.missing = r.string("missing").value_or("");
  JsonField inputs = need(r, f, "inputs");
  if (!inputs.isObject())
    inputs.expected("an object");
  t.inputs = inputs.json();
  r.keepRest();
  return t;
}

Json writeTerm(const RewardTerm &t) {
  ObjectWriter w;
  w.put("name", Json(t.name));
  w.put("group", Json(t.group));
  w.put("value", orNull(t.value));
  w.put("weight", Json(t.weight));
  w.put("contribution", Json(t.contribution));
  if (!t.missing.empty())
    w.put("missing", Json(t.missing));
  w.put("inputs", t.inputs);
  return w.finish(t.extra, t.keyOrder);
}

RewardLaunch readLaunch(const JsonField &f) {
  RewardLaunch l;
  ObjectReader r(f, l.extra, l.keyOrder);
  l.index = need(r, f, "index").integer();
  l.kernel = need(r, f, "kernel").string();
  l.modeled = need(r, f, "modeled").boolean();
  l.reason = r.string("reason");
  l.modeledTimeUs = r.number("modeled_time_us");
  l.rooflineTimeUs = r.number("roofline_time_us");
  l.dramTimeUs = r.number("dram_time_us");
  l.sharedTimeUs = r.number("shared_time_us");
  l.atomicTimeUs = r.number("atomic_time_us");
  l.utilization = need(r, f, "utilization").number();
  if (auto a = r.take("assumptions"))
    l.assumptions = readStrings(*a);
  r.keepRest();
  return l;
}

Json writeLaunch(const RewardLaunch &l) {
  ObjectWriter w;
  w.put("index", Json(l.index));
  w.put("kernel", Json(l.kernel));
  w.put("modeled", Json(l.modeled));
  w.put("reason", l.reason);
  w.put("modeled_time_us", l.modeledTimeUs);
  w.put("roofline_time_us", l.rooflineTimeUs);
  w.put("dram_time_us", l.dramTimeUs);
  w.put("shared_time_us", l.sharedTimeUs);
  w.put("atomic_time_us", l.atomicTimeUs);
  w.put("utilization", Json(l.utilization));
  if (l.assumptions)
    w.put("assumptions", Json(*l.assumptions));
  return w.finish(l.extra, l.keyOrder);
}

RewardStaticModel readStatic(const JsonField &f) {
  RewardStaticModel s;
  ObjectReader r(f, s.extra, s.keyOrder);
  s.modeled = need(r, f, "modeled").boolean();
  s.reason = r.string("reason");
  s.modeledTimeUs = numberOrNull(need(r, f, "modeled_time_us"));
  s.rooflineTimeUs = numberOrNull(need(r, f, "roofline_time_us"));
  s.predictedRooflineFraction = numberOrNull(need(r, f, "predicted_roofline_fraction"));
  s.coalescingEfficiency = numberOrNull(need(r, f, "coalescing_efficiency"));
  s.bankEfficiency = numberOrNull(need(r, f, "bank_efficiency"));
  s.utilization = numberOrNull(need(r, f, "utilization"));
  s.predictedSectorsPerRequest = numberOrNull(need(r, f, "predicted_sectors_per_request"));
  s.idealSectorsPerRequest = numberOrNull(need(r, f, "ideal_sectors_per_request"));
  s.divergentBarriers = need(r, f, "divergent_barriers").integer();
  s.missingBarriers = need(r, f, "missing_barriers").integer();
  JsonField launches = need(r, f, "launches");
  if (!launches.json().is_array())
    launches.expected("an array");
  for (const JsonField &l : launches.elements())
    s.launches.push_back(readLaunch(l));
  r.keepRest();
  return s;
}

Json writeStatic(const RewardStaticModel &s) {
  ObjectWriter w;
  w.put("modeled", Json(s.modeled));
  w.put("reason", s.reason);
  w.put("modeled_time_us", orNull(s.modeledTimeUs));
  w.put("roofline_time_us", orNull(s.rooflineTimeUs));
  w.put("predicted_roofline_fraction", orNull(s.predictedRooflineFraction));
  w.put("coalescing_efficiency", orNull(s.coalescingEfficiency));
  w.put("bank_efficiency", orNull(s.bankEfficiency));
  w.put("utilization", orNull(s.utilization));
  w.put("predicted_sectors_per_request", orNull(s.predictedSectorsPerRequest));
  w.put("ideal_sectors_per_request", orNull(s.idealSectorsPerRequest));
  w.put("divergent_barriers", Json(s.divergentBarriers));
  w.put("missing_barriers", Json(s.missingBarriers));
  Json launches = Json::array();
  for (const RewardLaunch &l : s.launches)
    launches.push_back(writeLaunch(l));
  w.put("launches", launches);
  return w.finish(s.extra, s.keyOrder);
}

RewardMeasured readMeasured(const JsonField &f) {
  RewardMeasured m;
  ObjectReader r(f, m.extra, m.keyOrder);
  m.sectorsPerRequest = numberOrNull(need(r, f, "sectors_per_request"));
  m.achievedOccupancy = numberOrNull(need(r, f, "achieved_occupancy"));
  m.achievedRooflineFraction = numberOrNull(need(r, f, "achieved_roofline_fraction"));
  r.keepRest();
  return m;
}

Json writeMeasured(const RewardMeasured &m) {
  ObjectWriter w;
  w.put("sectors_per_request", orNull(m.sectorsPerRequest));
  w.put("achieved_occupancy", orNull(m.achievedOccupancy));
  w.put("achieved_roofline_fraction", orNull(m.achievedRooflineFraction));
  return w.finish(m.extra, m.keyOrder);
}

RewardConfiguration readConfiguration(const JsonField &f) {
  RewardConfiguration c;
  ObjectReader r(f, c.extra, c.keyOrder);
  c.name = need(r, f, "name").string();
  c.weight = need(r, f, "weight").number();
  JsonField params = need(r, f, "params");
  if (!params.isObject())
    params.expected("an object");
  for (const auto &[key, value] : params.members())
    c.params.emplace_back(key, value.number());
  JsonField correct = need(r, f, "correct");
  if (!correct.isNull())
    c.correct = correct.boolean();
  c.speedup = numberOrNull(need(r, f, "speedup"));
  c.tie = need(r, f, "tie").boolean();
  c.speedupVsBaseline = r.number("speedup_vs_baseline");
  c.tieVsBaseline = r.boolean("tie_vs_baseline");
  c.medianMs = numberOrNull(need(r, f, "median_ms"));
  c.spread = numberOrNull(need(r, f, "spread"));
  c.predictedSpeedup = numberOrNull(need(r, f, "predicted_speedup"));
  if (auto s = r.take("static"))
    c.staticModel = readStatic(*s);
  if (auto m = r.take("measured"))
    c.measured = readMeasured(*m);
  r.keepRest();
  return c;
}

Json writeConfiguration(const RewardConfiguration &c) {
  ObjectWriter w;
  w.put("name", Json(c.name));
  w.put("weight", Json(c.weight));
  Json params = Json::object();
  for (const auto &[k, v] : c.params)
    params[k] = v;
  w.put("params", params);
  w.put("correct", orNull(c.correct));
  w.put("speedup", orNull(c.speedup));
  w.put("tie", Json(c.tie));
  w.put("speedup_vs_baseline", c.speedupVsBaseline);
  w.put("tie_vs_baseline", c.tieVsBaseline);
  w.put("median_ms", orNull(c.medianMs));
  w.put("spread", orNull(c.spread));
  w.put("predicted_speedup", orNull(c.predictedSpeedup));
  if (c.staticModel)
    w.put("static", writeStatic(*c.staticModel));
  if (c.measured)
    w.put("measured", writeMeasured(*c.measured));
  return w.finish(c.extra, c.keyOrder);
}

RewardConfigIdentity readConfigIdentity(const JsonField &f) {
  RewardConfigIdentity c;
  ObjectReader r(f, c.extra, c.keyOrder);
  c.name = need(r, f, "name").string();
  c.sha256 = need(r, f, "sha256").string();
  r.keepRest();
  return c;
}

Json writeConfigIdentity(const RewardConfigIdentity &c) {
  ObjectWriter w;
  w.put("name", Json(c.name));
  w.put("sha256", Json(c.sha256));
  return w.finish(c.extra, c.keyOrder);
}

} // namespace

RewardDocument RewardDocument::fromJson(const Json &doc, const std::string &document) {
  JsonField root(doc, document);
  RewardDocument d;
  ObjectReader r(root, d.extra, d.keyOrder);
  auto schema = r.take("schema");
  if (!schema)
    throw support::SupportError(document + ": missing \"schema\" (expected \"" + std::string(kRewardSchema) + "\")");
  d.schema = schema->string();
  if (d.schema != kRewardSchema)
    schema->fail("expected \"" + std::string(kRewardSchema) + "\", got \"" + d.schema + "\"");
  d.task = need(r, root, "task").string();
  d.taskKind = need(r, root, "task_kind").string();
  d.candidate = need(r, root, "candidate").string();
  d.candidateSha256 = need(r, root, "candidate_sha256").string();
  d.mode = need(r, root, "mode").string();
  d.outcome = need(r, root, "outcome").string();
  d.detail = need(r, root, "detail").string();
  JsonField gate = need(r, root, "gate");
  if (!gate.isNull())
    d.gate = gate.string();
  d.gateReason = r.string("gate_reason");
  d.total = numberOrNull(need(r, root, "total"));
  d.exclude = need(r, root, "exclude").boolean();
  d.provisional = r.boolean("provisional");
  d.excludeReason = r.string("exclude_reason");
  JsonField terms = need(r, root, "terms");
  if (!terms.json().is_array())
    terms.expected("an array");
  for (const JsonField &t : terms.elements())
    d.terms.push_back(readTerm(t));
  JsonField configurations = need(r, root, "configurations");
  if (!configurations.json().is_array())
    configurations.expected("an array");
  for (const JsonField &c : configurations.elements())
    d.configurations.push_back(readConfiguration(c));
  d.warnings = readStrings(need(r, root, "warnings"));
  d.config = readConfigIdentity(need(r, root, "config"));
  d.feedback = r.string("feedback");
  r.keepRest();
  return d;
}

Json RewardDocument::toJson() const {
  ObjectWriter w;
  w.put("schema", Json(schema));
  w.put("task", Json(task));
  w.put("task_kind", Json(taskKind));
  w.put("candidate", Json(candidate));
  w.put("candidate_sha256", Json(candidateSha256));
  w.put("mode", Json(mode));
  w.put("outcome", Json(outcome));
  w.put("detail", Json(detail));
  w.put("gate", orNull(gate));
  w.put("gate_reason", gateReason);
  w.put("total", orNull(total));
  w.put("exclude", Json(exclude));
  w.put("provisional", provisional);
  w.put("exclude_reason", excludeReason);
  Json termsJson = Json::array();
  for (const RewardTerm &t : terms)
    termsJson.push_back(writeTerm(t));
  w.put("terms", termsJson);
  Json configurationsJson = Json::array();
  for (const RewardConfiguration &c : configurations)
    configurationsJson.push_back(writeConfiguration(c));
  w.put("configurations", configurationsJson);
  w.put("warnings", Json(warnings));
  w.put("config", writeConfigIdentity(config));
  w.put("feedback", feedback);
  return w.finish(extra, keyOrder);
}

const RewardTerm *RewardDocument::term(const std::string &name) const {
  for (const RewardTerm &t : terms)
    if (t.name == name)
      return &t;
  return nullptr;
}

} // namespace cudaperf::schema
