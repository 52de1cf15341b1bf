#include "cudaperf/Reward/Feedback.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

namespace cudaperf::reward {

namespace {

std::string format(const char *fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string number(double v) {
  if (std::isnan(v))
    return "NaN";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  return format("%.6g", v);
}

std::string times(double v) { return format(v >= 100 ? "%.0fx" : v >= 10 ? "%.1fx" : "%.2fx", v); }
std::string percent(double v) { return format(v < 0.1 ? "%.1f%%" : "%.0f%%", v * 100); }

std::vector<std::string> splitLines(const std::string &text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

bool isErrorHeader(const std::string &line) {
  return line.find(": error") != std::string::npos || line.find("error:") != std::string::npos ||
         line.find("undefined reference") != std::string::npos || line.find(": fatal") != std::string::npos;
}

bool isWarningHeader(const std::string &line) {
  return line.find(": warning") != std::string::npos || line.find("warning:") != std::string::npos;
}

std::string params(const ConfigurationReward &c) {
  std::string out;
  for (const auto &[k, v] : c.params)
    out += (out.empty() ? "" : ", ") + k + "=" + number(v);
  return out.empty() ? c.name : c.name + " (" + out + ")";
}

// Shortens a line to `max` characters at a word boundary.
std::string shorten(const std::string &s, size_t max) {
  if (s.size() <= max)
    return s;
  size_t cut = s.rfind(' ', max - 3);
  if (cut == std::string::npos || cut < max / 2)
    cut = max - 3;
  return s.substr(0, cut) + "...";
}

const ConfigurationChecks *checksFor(const RewardDocument &doc, const std::string &name) {
  for (const ConfigurationChecks &c : doc.details.configs)
    if (c.name == name)
      return &c;
  return nullptr;
}

std::string wrongAnswerLine(const RewardDocument &doc) {
  for (const ConfigurationReward &c : doc.configurations) {
    const ConfigurationChecks *checks = checksFor(doc, c.name);
    if (!checks)
      continue;
    for (const CorrectnessCheck &k : checks->checks) {
      if (k.pass)
        continue;
      std::string line = "Wrong output at configuration " + params(c);
      line += k.step == "correctness" ? ", input set " + std::to_string(k.set) : ", on the call after timing";
      line += ": ";
      if (!k.inputModified.empty())
        return line + k.inputModified + "; inputs are read-only.";
      if (!k.argument.empty() && k.index)
        line += k.argument + "[" + std::to_string(*k.index) + "] = " + (k.got ? number(*k.got) : "?") +
                " where " + (k.expected ? number(*k.expected) : "?") + " was expected";
      if (k.badElements)
        line += "; " + std::to_string(*k.badElements) + " elements wrong";
      if (k.nanElements && *k.nanElements > 0)
        line += " (" + std::to_string(*k.nanElements) + " NaN or never written)";
      return line + ".";
    }
  }
  return doc.detail.empty() ? "" : "Wrong output: " + withoutDirectories(doc.detail);
}

const char *kHackAdvice = " This is scored as a hack, below every honest failure.";

std::string outcomeLine(const RewardDocument &doc) {
  std::string reward = doc.total ? " (reward " + format("%.2f", *doc.total) + ")" : " (no reward)";
  if (!doc.gate) {
    if (doc.mode == "static-only")
      return "Outcome: compiled; static-only, not run, so correctness is unknown" +
             (doc.provisional && doc.total ? " (provisional reward " + format("%.3f", *doc.total) +
                                                 ", below every correct candidate's)"
                                           : reward) +
             ".";
    size_t n = doc.configurations.size();
    return "Outcome: ok, correct on " + std::to_string(n) + " configuration" + (n == 1 ? "" : "s") + reward + ".";
  }
  return std::string("Outcome: ") + gateName(*doc.gate) + reward + ".";
}

// For a gated document.
std::string gateLines(const RewardConfig &config, const RewardDocument &doc) {
  switch (*doc.gate) {
  case Gate::CompileError:
    return "nvcc failed:\n" + trimCompileLog(doc.details.compileLog.empty() ? doc.detail : doc.details.compileLog,
                                              config.feedback.maxCompileErrors);
  case Gate::WrongAnswer:
    return wrongAnswerLine(doc);
  case Gate::ModifiedInput:
    return wrongAnswerLine(doc) + kHackAdvice;
  case Gate::StaleResults:
    return "Results reused across calls: " + doc.gateReason +
           ". Every call must compute its outputs from that call's inputs." + kHackAdvice;
  case Gate::TimingViolation:
    return "Work outside the timed stream: " + withoutDirectories(doc.gateReason) +
           ". Launch every kernel and copy on the stream argument and return after the work is queued on it." +
           kHackAdvice;
  case Gate::NoWork:
    return "No work: " + doc.gateReason +
           ". Launch kernels on `stream` that write every element of the outputs (they start filled with garbage).";
  case Gate::NoCodeBlock:
    return "No code: " + doc.gateReason + ". Answer with one complete .cu file in a single ```cuda code block.";
  case Gate::InternalError:
    return "The evaluator could not judge this candidate (not its fault): " + withoutDirectories(doc.gateReason);
  case Gate::LaunchError:
  case Gate::RuntimeFault:
  case Gate::Timeout:
    break;
  }
  return withoutDirectories(doc.gateReason);
}

std::string speedLine(const RewardDocument &doc) {
  std::string out;
  bool pytorch = doc.taskKind == "pytorch-to-cuda";
  if (doc.mode == "static-only") {
    std::string per;
    for (const ConfigurationReward &c : doc.configurations)
      if (c.predictedSpeedup)
        per += (per.empty() ? "" : ", ") + c.name + " " + times(*c.predictedSpeedup);
    return per.empty() ? "" : "Predicted speedup over the baseline (static model): " + per + ".";
  }
  auto list = [&](bool vsBaseline) {
    std::string per;
    for (const ConfigurationReward &c : doc.configurations) {
      std::optional<double> s = vsBaseline ? c.speedupVsBaseline : c.speedup;
      if (s)
        per += (per.empty() ? "" : ", ") + c.name + " " + times(*s) +
               ((vsBaseline ? c.tieVsBaseline : c.tie) ? " (tie)" : "");
    }
    return per;
  };
  std::string main = list(false);
  if (main.empty())
    return "";
  out = std::string("Speedup over ") + (pytorch ? "PyTorch eager" : "the baseline") + ": " + main + ".";
  if (pytorch) {
    std::string base = list(true);
    if (!base.empty())
      out += " Over baseline.cu: " + base + ".";
  }
  return out;
}

// The largest configuration (the task lists them small to large) decides the roofline line.
std::string rooflineLine(const RewardDocument &doc) {
  for (auto it = doc.configurations.rbegin(); it != doc.configurations.rend(); ++it) {
    const ConfigurationReward &c = *it;
    std::optional<double> predicted = c.model ? c.model->predictedRooflineFraction : std::nullopt;
    if (!predicted && !c.achievedRooflineFraction)
      continue;
    std::string line = "Roofline at " + c.name + ": ";
    if (c.achievedRooflineFraction)
      line += percent(*c.achievedRooflineFraction) + " of the bound measured" + (predicted ? ", " : "");
    if (predicted)
      line += percent(*predicted) + " predicted";
    if (c.model && c.model->modeled)
      line += std::string(" (") + (c.model->memoryBound ? "memory" : "compute") + "-bound)";
    return line + ".";
  }
  return "";
}

int severityRank(const std::string &s) { return s == "error" ? 0 : s == "warning" ? 1 : 2; }

// The factor a message states ("touches 32 sectors ... where 4 would do (8.0x)"), 1.5 when none:
// the larger the waste, the earlier the finding.
double statedFactor(const std::string &message) {
  size_t x = message.find("x)");
  size_t open = x == std::string::npos ? x : message.rfind('(', x);
  if (open == std::string::npos)
    return 1.5;
  try {
    double factor = std::stod(message.substr(open + 1, x - open - 1));
    return std::isfinite(factor) ? factor : 1.5; // "(nanx)" would break the sort's order
  } catch (const std::exception &) {
    return 1.5;
  }
}

// Checks whose findings can explain a wrong answer or a failed launch (a shared-memory race across
// loop iterations is one: the next tile overwrites what other warps still read).
bool explainsFailure(const std::string &check) {
  return check == "cuda-missing-barrier" || check == "cuda-divergent-barrier" ||
         check == "cuda-invalid-launch-config" || check == "cuda-shared-war-hazard";
}

// The order in which the model is told of the findings, as the analyzer lists them
// (docs/json-schema.md): what can make the result wrong first, then by severity, then the findings
// with an estimated saving (estimated_saving_us), costliest first, then the others by the waste
// their message states (documents written before the field, checks that give no estimate).
bool findingComesFirst(const features::Diagnostic *a, const features::Diagnostic *b) {
  bool aWrong = explainsFailure(a->check), bWrong = explainsFailure(b->check);
  if (aWrong != bWrong)
    return aWrong;
  if (severityRank(a->severity) != severityRank(b->severity))
    return severityRank(a->severity) < severityRank(b->severity);
  if (a->estimatedSavingUs.has_value() != b->estimatedSavingUs.has_value())
    return a->estimatedSavingUs.has_value();
  if (a->estimatedSavingUs && *a->estimatedSavingUs != *b->estimatedSavingUs)
    return *a->estimatedSavingUs > *b->estimatedSavingUs;
  return statedFactor(a->message) > statedFactor(b->message);
}

std::vector<std::string> findingLines(const RewardConfig &config, const RewardDocument &doc,
                                      const features::FeatureSet *analysis) {
  std::vector<std::string> lines;
  if (!analysis || config.feedback.maxFindings <= 0)
    return lines;
  // Performance findings of the largest configuration that has any (a small configuration's
  // tail or occupancy is the problem's size, not the code); correctness findings of every one.
  std::vector<const features::Diagnostic *> all;
  const auto &configs = analysis->analysis().configurations;
  for (auto it = configs.rbegin(); it != configs.rend(); ++it) {
    for (const features::Diagnostic &d : it->diagnostics)
      if (!doc.gate || explainsFailure(d.check))
        all.push_back(&d);
    if (!doc.gate && !all.empty())
      break;
  }
  std::stable_sort(all.begin(), all.end(), findingComesFirst);
  std::set<std::pair<std::string, int>> seen;
  for (const features::Diagnostic *d : all) {
    if (!seen.insert({d->check, d->line}).second)
      continue;
    if (int(lines.size()) >= config.feedback.maxFindings)
      break;
    lines.push_back("- line " + std::to_string(d->line) + " [" + d->check + "] " +
                    shorten(withoutDirectories(d->message), 300));
  }
  return lines;
}

std::vector<std::string> counterLines(const RewardDocument &doc) {
  std::vector<std::string> lines;
  for (auto it = doc.configurations.rbegin(); it != doc.configurations.rend() && lines.size() < 2; ++it) {
    const ConfigurationReward &c = *it;
    if (c.measuredSectorsPerRequest && c.predictedSectorsPerRequest &&
        *c.measuredSectorsPerRequest > 1.25 * *c.predictedSectorsPerRequest)
      lines.push_back("- " + c.name + ": " + format("%.1f", *c.measuredSectorsPerRequest) +
                      " global sectors per request measured where " + format("%.1f", *c.predictedSectorsPerRequest) +
                      " were predicted: accesses scatter more than the code suggests (data-dependent indices?).");
    // Only where the grid fills the GPU: a small grid's low occupancy is no surprise.
    bool fills = c.model && c.model->fewestWaves && *c.model->fewestWaves >= 1;
    if (fills && c.achievedOccupancy && c.predictedOccupancy && *c.achievedOccupancy < 0.5 * *c.predictedOccupancy &&
        lines.size() < 2)
      lines.push_back("- " + c.name + ": achieved occupancy " + percent(*c.achievedOccupancy) + " of a theoretical " +
                      percent(*c.predictedOccupancy) +
                      ": warps finish unevenly or wait (long per-thread loops, imbalance between blocks).");
  }
  return lines;
}

} // namespace

std::string withoutDirectories(const std::string &text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    bool tokenStart = i == 0 || std::string(" \t\n(\"'`=").find(text[i - 1]) != std::string::npos;
    if (text[i] == '/' && tokenStart) {
      size_t end = i;
      while (end < text.size() && std::string(" \t\n:()\"'`,;").find(text[end]) == std::string::npos)
        ++end;
      std::string path = text.substr(i, end - i);
      size_t slash = path.rfind('/');
      out += slash + 1 < path.size() ? path.substr(slash + 1) : path;
      i = end;
      continue;
    }
    // nvcc's temporary names carry a process id: "tmpxft_00001d10_00000000-11_shim.o" -> "shim.o".
    if (text.compare(i, 7, "tmpxft_") == 0) {
      size_t dash = text.find('-', i);
      size_t underscore = dash == std::string::npos ? dash : text.find('_', dash);
      if (underscore != std::string::npos && underscore - i < 40) {
        i = underscore + 1;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

std::string trimCompileLog(const std::string &log, int maxErrors) {
  std::vector<std::string> lines = splitLines(withoutDirectories(log));
  std::vector<std::string> blocks, hints;
  int errors = 0, totalErrors = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string &line = lines[i];
    if (line.rfind("[cudaperf-eval]", 0) == 0) {
      std::string hint = line;
      while (i + 1 < lines.size() && !lines[i + 1].empty() && lines[i + 1][0] == ' ')
        hint += "\n" + lines[++i];
      hints.push_back(hint);
      continue;
    }
    if (!isErrorHeader(line) || isWarningHeader(line))
      continue;
    if (line.find("errors detected") != std::string::npos || line.find("error detected") != std::string::npos ||
        line.find("ld returned") != std::string::npos)
      continue;
    ++totalErrors;
    if (errors >= maxErrors)
      continue;
    std::string block = line;
    // nvcc follows an error with the source line and a caret, then a blank line.
    while (i + 1 < lines.size() && !lines[i + 1].empty() && !isErrorHeader(lines[i + 1]) &&
           lines[i + 1].rfind("[cudaperf-eval]", 0) != 0 && block.size() < 600)
      block += "\n" + lines[++i];
    blocks.push_back(block);
    ++errors;
  }
  std::string out;
  if (blocks.empty()) {
    int kept = 0;
    for (const std::string &line : lines)
      if (!line.empty() && kept < 8) {
        out += (out.empty() ? "" : "\n") + line;
        ++kept;
      }
  }
  for (const std::string &b : blocks)
    out += (out.empty() ? "" : "\n") + b;
  if (totalErrors > errors)
    out += "\n(" + std::to_string(totalErrors - errors) + " more error" + (totalErrors - errors == 1 ? "" : "s") +
           " not shown)";
  for (const std::string &h : hints)
    out += "\n" + h;
  return out;
}

std::string feedbackText(const RewardConfig &config, const RewardDocument &doc, const features::FeatureSet *analysis) {
  // Sections in priority order; a section that does not fit is cut (the outcome always fits).
  std::vector<std::string> sections = {outcomeLine(doc)};
  if (doc.gate) {
    sections.push_back(gateLines(config, doc));
  } else {
    sections.push_back(speedLine(doc));
    sections.push_back(rooflineLine(doc));
  }
  if (!doc.analysisError.empty() && !doc.gate)
    sections.push_back("Static analysis unavailable: " + shorten(withoutDirectories(doc.analysisError), 200));
  if (doc.gate != Gate::CompileError && doc.gate != Gate::InternalError) {
    std::vector<std::string> findings = findingLines(config, doc, analysis);
    if (!findings.empty()) {
      std::string s = !doc.gate ? "Findings of the static analysis:"
                                       : "Findings of the static analysis that can explain it:";
      for (const std::string &f : findings)
        s += "\n" + f;
      sections.push_back(s);
    }
  }
  if (!doc.gate) {
    std::vector<std::string> counters = counterLines(doc);
    if (!counters.empty()) {
      std::string s = "Counters against the prediction:";
      for (const std::string &c : counters)
        s += "\n" + c;
      sections.push_back(s);
    }
  }
  size_t max = size_t(config.feedback.maxChars);
  std::string out;
  for (const std::string &s : sections) {
    if (s.empty())
      continue;
    std::string next = out.empty() ? s : out + "\n" + s;
    if (next.size() <= max) {
      out = next;
      continue;
    }
    // Keep the whole lines of this section that fit, then stop.
    for (const std::string &line : splitLines(s)) {
      std::string candidate = out.empty() ? line : out + "\n" + line;
      if (candidate.size() + 4 > max)
        break;
      out = candidate;
    }
    out += out.size() + 4 <= max ? "\n..." : "";
    break;
  }
  if (out.size() > max) {
    size_t cut = max - 3;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80)
      --cut; // never inside a UTF-8 sequence
    out = out.substr(0, cut) + "...";
  }
  return out;
}

} // namespace cudaperf::reward
