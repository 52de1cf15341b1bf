// cudaperf-train prompt (docs/training.md, "The prompt for outside trainers"): the policy prompt of a
// task exactly as SFT, RL and cudaperf-bench build it (lib/Learn/Prompt.h), for a trainer that is not
// ours (TRL, verl, OpenRLHF): as plain messages (JSON, the form their chat templates take) or as the
// ChatML text our policy is given, with earlier turns (candidate + feedback) for a refinement prompt.
// No LibTorch, no model: it only reads the task directory and the files named.
#include "cudaperf/Learn/Prompt.h"
#include "cudaperf/Learn/ToolMain.h"
#include "cudaperf/Support/ArgParser.h"
#include "cudaperf/Support/Json.h"

#include <iostream>

namespace cudaperf::learn {

int runPromptCommand(const std::vector<std::string> &argv) {
  std::string task, format = "messages";
  std::vector<std::string> candidates, feedbacks;
  support::ArgParser p("cudaperf-train prompt", {"TASK_DIR [--format messages|chatml|json] [--turn CANDIDATE.cu --feedback FEEDBACK.txt]..."},
                       "Prints the policy prompt for a task as SFT, RL and cudaperf-bench build it: 'messages' (a "
                       "JSON array of {role, content}, for a trainer's own chat template), 'chatml' (the text our "
                       "policy is given, the assistant turn opened) or 'json' (both, and the answer format). "
                       "Each --turn adds an earlier refinement turn (its candidate, then the feedback it got).");
  p.option("--format", "F", "messages (default), chatml or json", format);
  p.option("--turn", "CANDIDATE.cu", "an earlier turn's candidate (give its --feedback after it)",
           [&](const std::string &v) { candidates.push_back(v); });
  p.option("--feedback", "FEEDBACK.txt", "the feedback of the last --turn", [&](const std::string &v) { feedbacks.push_back(v); });
  support::ParsedArgs args = p.parse(argv);
  if (args.helpRequested)
    return std::cout << p.help(), kExitOk;
  if (args.positional.size() != 1)
    throw support::UsageError("expected one task directory, got " + std::to_string(args.positional.size()));
  task = args.positional[0];
  if (format != "messages" && format != "chatml" && format != "json")
    throw support::UsageError("--format: expected messages, chatml or json, not '" + format + "'");
  if (candidates.size() != feedbacks.size())
    throw support::UsageError("every --turn needs its --feedback (" + std::to_string(candidates.size()) +
                                " turns, " + std::to_string(feedbacks.size()) + " feedback files)");
  PolicyTask policyTask = loadPolicyTask(task);
  std::vector<PolicyTurn> turns;
  for (size_t i = 0; i < candidates.size(); ++i) {
    PolicyTurn t;
    t.candidate = support::readRegularFile(candidates[i], size_t(1) << 20);
    t.feedback = support::readRegularFile(feedbacks[i], size_t(1) << 20);
    turns.push_back(std::move(t));
  }
  std::vector<ChatMessage> messages = policyMessages(policyTask, turns);
  support::Json list = support::Json::array();
  for (const ChatMessage &m : messages)
    list.push_back(support::Json::object({{"role", m.role}, {"content", m.content}}));
  if (format == "chatml") {
    std::cout << renderPolicyPrompt(messages);
  } else if (format == "messages") {
    std::cout << list.dump(1) << "\n";
  } else {
    support::Json out = support::Json::object();
    out["task"] = policyTask.task.name;
    out["messages"] = list;
    out["chatml"] = renderPolicyPrompt(messages);
    out["answer_format"] = "one fenced ```cuda block holding the whole .cu file (lib/Reward's extractCodeBlock takes "
                           "the first block tagged cuda, cu, c++, cpp, c or untagged)";
    std::cout << out.dump(1) << "\n";
  }
  return kExitOk;
}

} // namespace cudaperf::learn
