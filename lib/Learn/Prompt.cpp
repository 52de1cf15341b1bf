// The policy's prompt format (docs/policy-model.md). Changing any text here changes what trained
// models were shown: keep it stable, or retrain.
#include "cudaperf/Learn/Prompt.h"

#include "cudaperf/Runtime/Build.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace cudaperf::learn {

namespace fs = std::filesystem;

namespace {

std::string readText(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw PromptError(path.string() + ": cannot open");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string formatValue(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(int64_t(v));
  std::ostringstream s;
  s.precision(9);
  s << v;
  return s.str();
}

std::string withFinalNewline(std::string s) {
  if (!s.empty() && s.back() != '\n') s += '\n';
  return s;
}

} // namespace

PolicyTask loadPolicyTask(const std::string &taskDir) {
  PolicyTask t;
  try {
    t.task = runtime::loadTask(taskDir);
  } catch (const runtime::TaskError &e) {
    throw PromptError(taskDir + ": " + e.what());
  }
  if (t.task.kind == runtime::TaskKind::PyTorchToCuda) {
    std::string module = t.task.pytorch ? t.task.pytorch->module : "model.py";
    t.reference = readText(fs::path(t.task.dir) / module);
    t.referenceLanguage = "python";
  } else {
    t.reference = readText(t.task.referencePath());
    t.referenceLanguage = "c";
  }
  return t;
}

std::string policySystemMessage() {
  return "You are an expert CUDA engineer. You write correct, fast CUDA C++ for NVIDIA GPUs. Answer with one "
         "complete .cu file in a single ```cuda code block.";
}

std::string taskMessage(const PolicyTask &pt, const PromptOptions &options) {
  const runtime::Task &task = pt.task;
  std::string s = "Task: " + task.name + "\n";
  if (!task.description.empty()) s += withFinalNewline(task.description);
  s += "\nWrite a CUDA implementation of this entry point:\n" + runtime::entrySignature(task) + ";\n";
  s += "It receives device pointers, launches its kernels on `stream` and returns. It must write every element of "
       "its outputs (they start filled with garbage), zero any output it accumulates into, and must not copy "
       "between host and device.\n";
  std::string fixed;
  for (const runtime::Argument &a : task.args)
    if (!a.isPointer() && a.value) fixed += (fixed.empty() ? "" : ", ") + a.name + " = " + formatValue(*a.value);
  if (!fixed.empty()) s += "Unless a configuration below says otherwise: " + fixed + ".\n";

  std::string reference = pt.reference;
  bool cut = reference.size() > options.maxReferenceChars;
  if (cut) reference = reference.substr(0, options.maxReferenceChars);
  s += "\nReference (" + std::string(pt.referenceLanguage == "python" ? "PyTorch" : "C") + "):\n```" +
       pt.referenceLanguage + "\n" + withFinalNewline(reference) + "```\n";
  if (cut) s += "(the reference is longer; the rest is omitted)\n";

  if (options.includeConfigurations && !task.configs.empty()) {
    s += "\nSizes it is checked and timed at:\n";
    for (const runtime::Config &c : task.configs) {
      std::string line;
      for (const auto &[name, value] : c.params) line += (line.empty() ? "" : ", ") + name + " = " + formatValue(value);
      s += "- " + (c.name.empty() ? std::string("config") : c.name) + ": " + line + "\n";
    }
  }
  return s;
}

std::string candidateAnswer(const std::string &source) { return "```cuda\n" + withFinalNewline(source) + "```"; }

std::string feedbackMessage(const std::string &feedback) {
  return "Feedback on your previous answer:\n" + withFinalNewline(feedback) +
         "\nWrite an improved implementation of the same entry point.";
}

std::vector<ChatMessage> policyMessages(const PolicyTask &task, const std::vector<PolicyTurn> &previous,
                                        const PromptOptions &options) {
  std::vector<ChatMessage> messages = {{"system", policySystemMessage()}, {"user", taskMessage(task, options)}};
  for (size_t i = 0; i < previous.size(); ++i) {
    const PolicyTurn &turn = previous[i];
    messages.push_back({"assistant", turn.candidateOmitted
                                         ? "(the code of this earlier answer is omitted to save space)"
                                         : candidateAnswer(turn.candidate)});
    messages.push_back({"user", feedbackMessage(turn.feedback)});
  }
  return messages;
}

std::string renderPolicyPrompt(const std::vector<ChatMessage> &messages) { return applyChatMl(messages, true); }

std::vector<PolicyTurn> fitPolicyPrompt(const PolicyTask &task, std::vector<PolicyTurn> turns, size_t budget,
                                        const std::function<size_t(const std::string &)> &countTokens,
                                        const PromptOptions &options) {
  auto fits = [&](const std::vector<PolicyTurn> &t) {
    return countTokens(renderPolicyPrompt(policyMessages(task, t, options))) <= budget;
  };
  // Oldest code first, but the latest turn's code is what the model refines: it goes last.
  for (size_t i = 0; i + 1 < turns.size() && !fits(turns); ++i) turns[i].candidateOmitted = true;
  while (!turns.empty() && !fits(turns)) turns.erase(turns.begin());
  if (!fits(turns))
    throw PromptError("task " + task.task.name + ": the prompt alone exceeds the budget of " + std::to_string(budget) +
                      " tokens");
  return turns;
}

} // namespace cudaperf::learn
