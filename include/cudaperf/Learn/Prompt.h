// The policy's prompt format (docs/policy-model.md, "Prompt format"): what the model is shown for a
// task, how earlier refinement turns (candidate + feedback) are carried, and how the candidate source
// is taken back out of a completion. SFT, the RL trainer and the benchmark harness all use this, so
// a model is always asked the same way it was trained. No LibTorch.
#pragma once

#include "cudaperf/Learn/Error.h"

#include "cudaperf/Learn/Tokenizer.h"
#include "cudaperf/Runtime/Task.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudaperf::learn {

struct PromptOptions {
  size_t maxReferenceChars = 12000; // a longer reference is cut, with a note saying so
  bool includeConfigurations = true;
};

// One earlier turn of a refinement episode: the candidate the model wrote and the feedback it got.
struct PolicyTurn {
  std::string candidate;
  std::string feedback;
  bool candidateOmitted = false; // set by fitPolicyPrompt when the budget dropped its code
};

// The task as the policy sees it: the task's text parts, read once from its directory.
struct PolicyTask {
  runtime::Task task;
  std::string reference;         // reference.c or model.py, as written
  std::string referenceLanguage; // "c" or "python"
};
PolicyTask loadPolicyTask(const std::string &taskDir); // throws PromptError (with the task loader's problems)

std::string policySystemMessage();
// The first user message: description, the entry point to define (from task.json's args), the rules
// of an implementation, the reference and the configuration sizes.
std::string taskMessage(const PolicyTask &task, const PromptOptions &options = {});
// How the model answers: one fenced block, "```cuda\n" + source + "```". Also the SFT target.
std::string candidateAnswer(const std::string &source);
// The user message after a turn: its feedback and the request to improve.
std::string feedbackMessage(const std::string &feedback);

// system, user (task), then per earlier turn: assistant (its candidate), user (its feedback).
std::vector<ChatMessage> policyMessages(const PolicyTask &task, const std::vector<PolicyTurn> &previous = {},
                                        const PromptOptions &options = {});
// The text given to the model: ChatML of the messages with the assistant turn opened.
std::string renderPolicyPrompt(const std::vector<ChatMessage> &messages);

// Fits a refinement prompt into `budget` tokens (counted by `countTokens` on the rendered text):
// drops the code of the oldest turns first (the feedback stays, a note replaces the code), then
// whole oldest turns. Returns the turns kept; throws PromptError if even the task alone does not fit.
std::vector<PolicyTurn> fitPolicyPrompt(const PolicyTask &task, std::vector<PolicyTurn> turns, size_t budget,
                                        const std::function<size_t(const std::string &)> &countTokens,
                                        const PromptOptions &options = {});

} // namespace cudaperf::learn
