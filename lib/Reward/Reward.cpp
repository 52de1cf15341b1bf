// computeReward: the gate, then (for a candidate that passed) the speed, structural, counter and
// learned terms, each a weighted value with the inputs it used (docs/reward.md, "Terms").
#include "cudaperf/Reward/Reward.h"
#include "cudaperf/Reward/RewardError.h"

#include <algorithm>
#include <cmath>

namespace cudaperf::reward {

using support::Json;

namespace {

Json optionalJson(const std::optional<double> &v) { return v ? Json(*v) : Json(nullptr); }

double clamp(double v, double lo, double hi) { return std::max(lo, std::min(hi, v)); }

// 1 at the roofline, 0 at 10^-decades of it, log-linear between.
double rooflineScore(double fraction, double decades) {
  if (!(fraction > 0))
    return 0;
  return clamp(1 + std::log10(std::min(1.0, fraction)) / decades, 0, 1);
}

// ln(s) with near-ties set to 0 and the result capped at ±ln(cap).
struct CappedLog {
  double value = 0;
  bool tie = false;
  double band = 0;
};

CappedLog cappedLog(double speedup, double candidateSpread, double referenceSpread, const SpeedupConfig &sc) {
  CappedLog r;
  r.band = std::max(sc.tieMinLog, sc.tieSpreadFactor * std::hypot(candidateSpread, referenceSpread));
  double l = std::log(std::max(speedup, 1e-300));
  r.tie = std::fabs(l) <= r.band;
  double cap = std::log(sc.cap);
  r.value = r.tie ? 0 : clamp(l, -cap, cap);
  return r;
}

bool isPytorchTask(const features::EvalResult &result, const features::FeatureSet *analysis) {
  if (analysis && analysis->analysis().task && !analysis->analysis().task->kind.empty())
    return analysis->analysis().task->kind == "pytorch-to-cuda";
  return std::any_of(result.configs.begin(), result.configs.end(),
                     [](const features::EvalConfiguration &c) { return c.pytorchEager.has_value(); });
}

const features::ConfigurationRecord *recordFor(const features::FeatureSet *set, const std::string &name) {
  if (!set)
    return nullptr;
  for (const features::ConfigurationRecord &r : set->records())
    if (r.analysis->name == name)
      return &r;
  return nullptr;
}

std::optional<double> configFeature(const features::ConfigurationRecord *r, const char *name) {
  return r ? features::configurationFeature(r->features, name) : std::nullopt;
}

// A weighted mean over configurations of one per-configuration value; nullopt when none has it.
template <typename Get>
std::optional<double> meanOverConfigurations(const std::vector<ConfigurationReward> &configs, Get get,
                                             Json &perConfiguration) {
  double num = 0, den = 0;
  perConfiguration = Json::object();
  for (const ConfigurationReward &c : configs) {
    std::optional<double> v = get(c);
    perConfiguration[c.name] = optionalJson(v);
    if (v && c.weight > 0) {
      num += *v * c.weight;
      den += c.weight;
    }
  }
  if (den <= 0)
    return std::nullopt;
  return num / den;
}

// A term whose value is unknown counts as neutral (0.5 of its weight), so a candidate the analyzer
// cannot read is neither rewarded nor punished for it.
constexpr double kNeutral = 0.5;

RewardTerm valuedTerm(std::string name, std::string group, std::optional<double> value, double weight,
                      std::string missingReason, Json inputs) {
  RewardTerm t;
  t.name = std::move(name);
  t.group = std::move(group);
  t.value = value;
  t.weight = weight;
  t.contribution = weight * value.value_or(kNeutral);
  if (!value)
    t.missing = missingReason.empty() ? "unknown" : std::move(missingReason);
  t.inputs = std::move(inputs);
  return t;
}

// Per configuration: what was measured and what the static model says.
std::vector<ConfigurationReward> collectConfigurations(const RewardConfig &config, const RewardInputs &in,
                                                       const EvalDetails &details) {
  const features::EvalResult &result = *in.result;
  const support::RooflinePeaks *peaks =
      in.analysis ? features::rooflinePeaksFor(&result, in.analysis->analysis().arch) : nullptr;
  const support::RooflinePeaks *baselinePeaks =
      in.baselineAnalysis ? features::rooflinePeaksFor(&result, in.baselineAnalysis->analysis().arch) : nullptr;
  // The configurations the result has, in its order; without a result's configs (a compile
  // error), those the analysis has.
  std::vector<std::string> names;
  for (const features::EvalConfiguration &c : result.configs)
    names.push_back(c.name);
  if (names.empty() && in.analysis)
    for (const features::ConfigurationRecord &r : in.analysis->records())
      names.push_back(r.analysis->name);

  std::vector<ConfigurationReward> out;
  for (const std::string &name : names) {
    ConfigurationReward c;
    c.name = name;
    c.weight = config.speedup.configurationWeight(name);
    for (const ConfigurationChecks &d : details.configs)
      if (d.name == name)
        c.params = d.params;
    if (const features::EvalConfiguration *m = result.configuration(name)) {
      c.correct = m->correct;
      if (m->candidate) {
        c.candidateMedianMs = m->candidate->medianMs;
        c.candidateSpread = m->candidate->spread;
      }
      const features::TimingSummary *reference = m->pytorchEager ? &*m->pytorchEager
                                                 : m->baseline   ? &*m->baseline
                                                                 : nullptr;
      if (m->speedup && m->candidate && reference) {
        c.speedup = m->speedup;
        CappedLog l = cappedLog(*m->speedup, m->candidate->spread, reference->spread, config.speedup);
        c.tie = l.tie;
        c.tieBand = l.band;
      }
      if (m->pytorchEager && m->baseline && m->candidate && m->candidate->medianMs > 0) {
        c.speedupVsBaseline = m->baseline->medianMs / m->candidate->medianMs;
        CappedLog l = cappedLog(*c.speedupVsBaseline, m->candidate->spread, m->baseline->spread, config.speedup);
        c.tieVsBaseline = l.tie;
        c.tieBandVsBaseline = l.band;
      }
    }
    const features::ConfigurationRecord *record = recordFor(in.analysis, name);
    if (record) {
      c.model = modelConfiguration(*record, config, peaks);
      c.predictedSectorsPerRequest = c.model->predictedSectorsPerRequest;
      c.idealSectorsPerRequest = c.model->idealSectorsPerRequest;
      c.predictedOccupancy = configFeature(record, "mean_theoretical_occupancy");
      if (const features::ConfigurationRecord *base = recordFor(in.baselineAnalysis, name)) {
        ConfigurationModel b = modelConfiguration(*base, config, baselinePeaks);
        if (b.modeled && c.model->modeled && c.model->modeledUs > 0)
          c.predictedSpeedup = b.modeledUs / c.model->modeledUs;
      }
      if (record->measured && record->measured->counters && record->measured->counters->available) {
        c.countersMeasured = true;
        c.measuredSectorsPerRequest = configFeature(record, "measured_global_sectors_per_request");
        c.achievedOccupancy = configFeature(record, "measured_mean_achieved_occupancy");
        c.achievedRooflineFraction = configFeature(record, "achieved_roofline_fraction");
      }
    } else if (const features::EvalConfiguration *m = result.configuration(name)) {
      c.countersMeasured = m->counters && m->counters->available;
    }
    out.push_back(std::move(c));
  }
  return out;
}

RewardTerm speedupTerm(const RewardConfig &config, const std::vector<ConfigurationReward> &configs, bool pytorch) {
  const SpeedupConfig &sc = config.speedup;
  double lnCap = std::log(sc.cap);
  // Each reference: the weighted mean of capped logs over configurations that have it.
  auto aggregate = [&](bool vsBaseline, Json &per) -> std::optional<double> {
    double num = 0, den = 0;
    per = Json::array();
    for (const ConfigurationReward &c : configs) {
      std::optional<double> s = vsBaseline ? c.speedupVsBaseline : c.speedup;
      if (!s)
        continue;
      double band = vsBaseline ? c.tieBandVsBaseline : c.tieBand;
      bool tie = vsBaseline ? c.tieVsBaseline : c.tie;
      double l = tie ? 0 : clamp(std::log(std::max(*s, 1e-300)), -lnCap, lnCap);
      per.push_back(Json::object({{"configuration", c.name},
                                  {"speedup", *s},
                                  {"tie", tie},
                                  {"tie_band", std::exp(band) - 1},
                                  {"capped_log", l},
                                  {"weight", c.weight}}));
      num += l * c.weight;
      den += c.weight;
    }
    if (den <= 0)
      return std::nullopt;
    return num / den;
  };
  Json inputs = Json::object();
  inputs["cap"] = sc.cap;
  Json perMain, perBaseline;
  std::optional<double> main = aggregate(false, perMain);
  std::optional<double> vsBaseline;
  if (pytorch)
    vsBaseline = aggregate(true, perBaseline);
  std::optional<double> value;
  if (main) {
    double v = *main / lnCap;
    inputs[pytorch ? "speedup_vs_eager" : "speedup_vs_baseline"] = std::exp(*main);
    if (vsBaseline) {
      inputs["speedup_vs_baseline"] = std::exp(*vsBaseline);
      inputs["eager_share"] = sc.eagerShare;
      v = sc.eagerShare * v + (1 - sc.eagerShare) * (*vsBaseline / lnCap);
    }
    value = v;
  }
  inputs["configurations"] = perMain;
  if (pytorch)
    inputs["configurations_vs_baseline"] = perBaseline;
  RewardTerm t = valuedTerm("speedup", "speed", value, sc.weight, "no configuration was timed", std::move(inputs));
  if (!value)
    t.contribution = 0; // a correct candidate without timings: speed unknown, not neutral-positive
  return t;
}

RewardTerm predictedSpeedupTerm(const RewardConfig &config, const std::vector<ConfigurationReward> &configs,
                                bool haveBaseline) {
  double lnCap = std::log(config.speedup.cap);
  Json per;
  std::optional<double> mean = meanOverConfigurations(
      configs,
      [&](const ConfigurationReward &c) -> std::optional<double> {
        if (!c.predictedSpeedup)
          return std::nullopt;
        double l = std::log(std::max(*c.predictedSpeedup, 1e-300));
        return std::fabs(l) <= config.speedup.tieMinLog ? 0.0 : clamp(l, -lnCap, lnCap) / lnCap;
      },
      per);
  Json inputs = Json::object({{"cap", config.speedup.cap}, {"configurations", per}});
  Json speedups = Json::object();
  for (const ConfigurationReward &c : configs)
    speedups[c.name] = optionalJson(c.predictedSpeedup);
  inputs["predicted_speedups"] = speedups;
  RewardTerm t = valuedTerm("predicted_speedup", "speed", mean, config.staticOnly.predictedSpeedup,
                            haveBaseline ? "the static model could not time the candidate or the baseline"
                                         : "the task's baseline was not analysed",
                            std::move(inputs));
  if (!mean)
    t.contribution = 0;
  return t;
}

void addStructuralTerms(const RewardConfig &config, const std::vector<ConfigurationReward> &configs,
                        const std::string &analysisMissing, std::vector<RewardTerm> &terms) {
  const StructuralConfig &s = config.structural;
  auto term = [&](const char *name, double weight, auto get, const char *what) {
    Json per;
    std::optional<double> v = meanOverConfigurations(configs, get, per);
    terms.push_back(valuedTerm(name, "structural", v, weight,
                               analysisMissing.empty() ? std::string(what) + " unknown at every configuration"
                                                       : analysisMissing,
                               Json::object({{"configurations", per}})));
  };
  auto model = [](const ConfigurationReward &c) { return c.model ? &*c.model : nullptr; };
  term("coalescing", s.coalescing,
       [&](const ConfigurationReward &c) { return model(c) ? model(c)->coalescingEfficiency : std::nullopt; },
       "coalescing efficiency");
  term("bank_conflicts", s.bankConflicts,
       [&](const ConfigurationReward &c) { return model(c) ? model(c)->bankEfficiency : std::nullopt; },
       "shared-memory wavefronts");
  term("occupancy", s.occupancy,
       [&](const ConfigurationReward &c) { return model(c) ? model(c)->utilization : std::nullopt; },
       "occupancy");
  term("roofline", s.roofline,
       [&](const ConfigurationReward &c) -> std::optional<double> {
         if (!model(c) || !model(c)->predictedRooflineFraction)
           return std::nullopt;
         return rooflineScore(*model(c)->predictedRooflineFraction, s.rooflineDecades);
       },
       "the modeled time");

  // Barrier hazards: -1 when any launch of any configuration has one.
  auto penalty = [&](const char *name, double weight, auto count) {
    int worst = 0;
    bool known = false;
    Json per = Json::object();
    for (const ConfigurationReward &c : configs)
      if (c.model) {
        known = true;
        worst = std::max(worst, count(*c.model));
        per[c.name] = count(*c.model);
      }
    RewardTerm t;
    t.name = name;
    t.group = "penalty";
    t.weight = weight;
    if (known) {
      t.value = worst > 0 ? -1.0 : 0.0;
      t.contribution = weight * *t.value;
    } else {
      t.missing = analysisMissing.empty() ? "no configuration was analysed" : analysisMissing;
    }
    t.inputs = Json::object({{"sites", per}});
    terms.push_back(std::move(t));
  };
  penalty("divergent_barriers", s.divergentBarrierPenalty, [](const ConfigurationModel &m) { return m.divergentBarriers; });
  penalty("missing_barriers", s.missingBarrierPenalty, [](const ConfigurationModel &m) { return m.missingBarriers; });
}

void addCounterTerms(const RewardConfig &config, const std::vector<ConfigurationReward> &configs,
                     std::vector<RewardTerm> &terms) {
  const CounterConfig &k = config.counters;
  auto term = [&](const char *name, double weight, auto get, const char *what) {
    Json per;
    std::optional<double> v = meanOverConfigurations(configs, get, per);
    terms.push_back(valuedTerm(name, "counters", v, weight, std::string(what) + " not known at any configuration",
                               Json::object({{"configurations", per}})));
  };
  term("measured_sectors", k.sectors,
       [](const ConfigurationReward &c) -> std::optional<double> {
         if (!c.measuredSectorsPerRequest || !c.idealSectorsPerRequest || *c.measuredSectorsPerRequest <= 0)
           return std::nullopt;
         return std::min(1.0, *c.idealSectorsPerRequest / *c.measuredSectorsPerRequest);
       },
       "measured and ideal sectors per request");
  term("achieved_occupancy", k.achievedOccupancy,
       [&](const ConfigurationReward &c) -> std::optional<double> {
         if (!c.achievedOccupancy)
           return std::nullopt;
         bool memory = c.model ? c.model->memoryBound : true;
         double need = memory ? config.structural.neededOccupancyMemory : config.structural.neededOccupancyCompute;
         return std::min(1.0, *c.achievedOccupancy / need);
       },
       "achieved occupancy");
  term("achieved_roofline", k.achievedRoofline,
       [&](const ConfigurationReward &c) -> std::optional<double> {
         if (!c.achievedRooflineFraction)
           return std::nullopt;
         return rooflineScore(*c.achievedRooflineFraction, config.structural.rooflineDecades);
       },
       "the achieved roofline fraction");
}

schema::RewardConfiguration configurationDocument(const ConfigurationReward &c) {
  schema::RewardConfiguration j;
  j.name = c.name;
  j.weight = c.weight;
  j.params = c.params;
  j.correct = c.correct;
  j.speedup = c.speedup;
  j.tie = c.tie;
  if (c.speedupVsBaseline) {
    j.speedupVsBaseline = c.speedupVsBaseline;
    j.tieVsBaseline = c.tieVsBaseline;
  }
  j.medianMs = c.candidateMedianMs;
  j.spread = c.candidateSpread;
  j.predictedSpeedup = c.predictedSpeedup;
  if (c.model) {
    const ConfigurationModel &m = *c.model;
    schema::RewardStaticModel &s = j.staticModel.emplace();
    s.modeled = m.modeled;
    if (!m.reason.empty())
      s.reason = m.reason;
    if (m.modeled) {
      s.modeledTimeUs = m.modeledUs;
      s.rooflineTimeUs = m.rooflineUs;
    }
    s.predictedRooflineFraction = m.predictedRooflineFraction;
    s.coalescingEfficiency = m.coalescingEfficiency;
    s.bankEfficiency = m.bankEfficiency;
    s.utilization = m.utilization;
    s.predictedSectorsPerRequest = m.predictedSectorsPerRequest;
    s.idealSectorsPerRequest = m.idealSectorsPerRequest;
    s.divergentBarriers = m.divergentBarriers;
    s.missingBarriers = m.missingBarriers;
    for (const LaunchModel &l : m.launches) {
      schema::RewardLaunch &lj = s.launches.emplace_back();
      lj.index = l.index;
      lj.kernel = l.kernel;
      lj.modeled = l.modeled;
      if (!l.reason.empty())
        lj.reason = l.reason;
      if (l.modeled) {
        lj.modeledTimeUs = l.modeledUs;
        lj.rooflineTimeUs = l.rooflineUs;
        lj.dramTimeUs = l.dramUs;
        lj.sharedTimeUs = l.sharedUs;
        lj.atomicTimeUs = l.atomicUs;
      }
      lj.utilization = l.utilization;
      if (!l.assumptions.empty())
        lj.assumptions = l.assumptions;
    }
  }
  if (c.countersMeasured) {
    schema::RewardMeasured &m = j.measured.emplace();
    m.sectorsPerRequest = c.measuredSectorsPerRequest;
    m.achievedOccupancy = c.achievedOccupancy;
    m.achievedRooflineFraction = c.achievedRooflineFraction;
  }
  return j;
}

} // namespace

const RewardTerm *RewardDocument::term(const std::string &name) const {
  for (const RewardTerm &t : terms)
    if (t.name == name)
      return &t;
  return nullptr;
}

std::string RewardDocument::outcomeText() const {
  if (!unknownOutcome.empty())
    return unknownOutcome;
  if (outcome)
    return schema::outcomeName(*outcome);
  return gate ? gateName(*gate) : "";
}

RewardDocument computeReward(const RewardConfig &config, const RewardInputs &in) {
  if (!in.result || !in.resultJson)
    throw RewardError("computeReward: no eval result");
  const features::EvalResult &result = *in.result;
  EvalDetails details = readEvalDetails(*in.resultJson, result.source);

  RewardDocument doc;
  doc.task = result.task;
  doc.candidate = result.candidate;
  doc.candidateSha256 = result.candidateSha256;
  doc.outcome = result.outcome;
  doc.unknownOutcome = result.unknownOutcome;
  doc.detail = result.detail;
  doc.configName = config.name;
  doc.configDigest = rewardConfigDigest(config);
  doc.analysisError = in.analysisError;
  bool pytorch = isPytorchTask(result, in.analysis);
  doc.taskKind = pytorch ? "pytorch-to-cuda" : "c-to-cuda";
  doc.mode = details.compileOnly ? "static-only" : "measured";
  if (in.analysis && in.analysis->analysis().task && doc.task.empty())
    doc.task = in.analysis->analysis().task->name;
  if (!in.analysisError.empty())
    doc.warnings.push_back("static terms missing: " + in.analysisError);
  if (details.gpuShared.value_or(false))
    doc.warnings.push_back("gpu_shared: another process used the GPU while this candidate was timed");

  doc.configurations = collectConfigurations(config, in, details);
  doc.details = details;
  doc.gate = gateOf(result, details, doc.gateReason);
  if (doc.gate == Gate::InternalError) {
    doc.exclude = true;
    doc.excludeReason = "internal_error is not the candidate's fault: leave it out of the batch (reward null)";
    return doc;
  }
  // Static-only: nothing ran, so an entry point that does no work is caught here or not at all.
  if (!doc.gate && doc.mode == "static-only" && in.analysis) {
    std::string evidence = noWorkEvidence(in.analysis->analysis());
    if (!evidence.empty()) {
      doc.gate = Gate::NoWork;
      doc.gateReason = evidence;
    }
  }
  if (doc.gate) {
    RewardTerm t;
    t.name = "gate";
    t.group = "outcome";
    t.value = gateReward(config, *doc.gate);
    t.weight = 1;
    t.contribution = *t.value;
    t.inputs = Json::object({{"gate", gateName(*doc.gate)}, {"reason", doc.gateReason}});
    doc.terms.push_back(std::move(t));
    doc.total = gateReward(config, *doc.gate);
    return doc;
  }

  std::string analysisMissing = in.analysis ? "" : (in.analysisError.empty() ? "no analysis" : in.analysisError);
  RewardTerm base;
  base.group = "outcome";
  base.weight = 1;
  if (doc.mode == "static-only") {
    base.name = "compiled";
    base.value = config.staticOnly.compiled;
    base.inputs = Json::object({{"outcome", result.outcomeText()}, {"compile_only", true}});
  } else {
    base.name = "correct";
    base.value = config.correct;
    base.inputs = Json::object({{"outcome", result.outcomeText()}});
  }
  base.contribution = *base.value;
  doc.terms.push_back(std::move(base));
  if (doc.mode == "static-only")
    doc.terms.push_back(predictedSpeedupTerm(config, doc.configurations, in.baselineAnalysis != nullptr));
  else
    doc.terms.push_back(speedupTerm(config, doc.configurations, pytorch));
  addStructuralTerms(config, doc.configurations, analysisMissing, doc.terms);
  bool counters = std::any_of(doc.configurations.begin(), doc.configurations.end(),
                              [](const ConfigurationReward &c) { return c.countersMeasured; });
  if (counters)
    addCounterTerms(config, doc.configurations, doc.terms);
  if (in.rankingScore) {
    RewardTerm t;
    t.name = "ranking";
    t.group = "learned";
    t.value = std::tanh(*in.rankingScore / config.learned.scale);
    t.weight = config.learned.weight;
    t.contribution = t.weight * *t.value;
    t.inputs = Json::object({{"score", *in.rankingScore}, {"scale", config.learned.scale}});
    doc.terms.push_back(std::move(t));
  }
  double total = 0;
  for (const RewardTerm &t : doc.terms)
    total += t.contribution;
  if (doc.mode == "static-only") {
    // Correctness unknown: the total moves into the provisional band, below every correct
    // candidate, by a term of its own so that the total stays the sum of the contributions.
    ProvisionalBand band = provisionalBand(config);
    double mapped = band.map(total);
    RewardTerm t;
    t.name = "provisional";
    t.group = "outcome";
    t.value = mapped - total;
    t.weight = 1;
    t.contribution = *t.value;
    t.inputs = Json::object({{"uncapped_total", total},
                             {"static_only_range", Json::array({band.rawLowest, band.rawHighest})},
                             {"band", Json::array({band.lowest, band.highest})},
                             {"highest_failure_gate", band.floor},
                             {"lowest_correct_total", band.ceiling}});
    doc.terms.push_back(std::move(t));
    doc.provisional = true;
    total = mapped;
  }
  doc.total = total;
  return doc;
}

schema::RewardDocument rewardSchemaDocument(const RewardDocument &doc) {
  schema::RewardDocument j;
  j.task = doc.task;
  j.taskKind = doc.taskKind;
  j.candidate = doc.candidate;
  j.candidateSha256 = doc.candidateSha256;
  j.mode = doc.mode;
  j.outcome = doc.outcomeText();
  j.detail = doc.detail;
  if (doc.gate) {
    j.gate = gateName(*doc.gate);
    j.gateReason = doc.gateReason;
  }
  j.total = doc.total;
  j.exclude = doc.exclude;
  j.provisional = doc.provisional;
  if (doc.exclude)
    j.excludeReason = doc.excludeReason;
  j.terms = doc.terms;
  for (const ConfigurationReward &c : doc.configurations)
    j.configurations.push_back(configurationDocument(c));
  j.warnings = doc.warnings;
  j.config.name = doc.configName;
  j.config.sha256 = doc.configDigest;
  if (!doc.feedback.empty())
    j.feedback = doc.feedback;
  return j;
}

Json rewardToJson(const RewardDocument &doc) { return rewardSchemaDocument(doc).toJson(); }

} // namespace cudaperf::reward
