#include "cudaperf/Learn/Prompt.h"

#include <gtest/gtest.h>

using namespace cudaperf::learn;

namespace {
std::string taskDir(const std::string &name) { return std::string(CUDAPERF_SOURCE_DIR) + "/data/tasks/" + name; }
} // namespace

TEST(Prompt, TaskMessageCarriesSignatureReferenceAndSizes) {
  PolicyTask t = loadPolicyTask(taskDir("saxpy"));
  EXPECT_EQ(t.referenceLanguage, "c");
  std::string m = taskMessage(t);
  EXPECT_NE(m.find("Task: saxpy\n"), std::string::npos);
  EXPECT_NE(m.find("y[i] = alpha * x[i] + y[i]"), std::string::npos); // the description
  EXPECT_NE(m.find("extern \"C\" void saxpy(int n, float alpha, const float *x, float *y, cudaStream_t stream);"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("Unless a configuration below says otherwise: alpha = 2.5."), std::string::npos) << m;
  EXPECT_NE(m.find("```c\nvoid saxpy(int n, float alpha, const float *x, float *y) {"), std::string::npos) << m;
  EXPECT_NE(m.find("- small: n = 777\n"), std::string::npos) << m;
  EXPECT_NE(m.find("- medium: alpha = -0.75, n = 100000\n"), std::string::npos) << m;
  PromptOptions shortRef;
  shortRef.maxReferenceChars = 10;
  shortRef.includeConfigurations = false;
  std::string cut = taskMessage(t, shortRef);
  EXPECT_NE(cut.find("the rest is omitted"), std::string::npos);
  EXPECT_EQ(cut.find("- small:"), std::string::npos);
}

TEST(Prompt, PyTorchTasksShowTheModule) {
  PolicyTask t = loadPolicyTask(taskDir("pytorch/gelu_tanh"));
  EXPECT_EQ(t.referenceLanguage, "python");
  std::string m = taskMessage(t);
  EXPECT_NE(m.find("Reference (PyTorch):\n```python\n"), std::string::npos);
  EXPECT_NE(m.find("class Model"), std::string::npos);
}

TEST(Prompt, TurnsBecomeAssistantAndFeedbackMessages) {
  PolicyTask t = loadPolicyTask(taskDir("saxpy"));
  auto messages = policyMessages(t, {{"int a;", "compile_error: x", false}, {"int b;", "correct, 1.2x", false}});
  ASSERT_EQ(messages.size(), 6u);
  EXPECT_EQ(messages[0].role, "system");
  EXPECT_EQ(messages[2].role, "assistant");
  EXPECT_EQ(messages[2].content, "```cuda\nint a;\n```");
  EXPECT_EQ(messages[3].role, "user");
  EXPECT_NE(messages[3].content.find("compile_error: x"), std::string::npos);
  std::string prompt = renderPolicyPrompt(messages);
  EXPECT_EQ(prompt.rfind("<|im_start|>system\n", 0), 0u);
  EXPECT_EQ(prompt.substr(prompt.size() - 22), "<|im_start|>assistant\n");
}

TEST(Prompt, BudgetDropsOldestCodeThenOldestTurns) {
  PolicyTask t = loadPolicyTask(taskDir("saxpy"));
  auto chars = [](const std::string &s) { return s.size(); };
  size_t alone = chars(renderPolicyPrompt(policyMessages(t)));
  std::string code(400, 'x');
  std::vector<PolicyTurn> turns = {{code, "first", false}, {code, "second", false}, {code, "third", false}};
  size_t full = chars(renderPolicyPrompt(policyMessages(t, turns)));
  EXPECT_EQ(fitPolicyPrompt(t, turns, full, chars).size(), 3u);
  auto fitted = fitPolicyPrompt(t, turns, full - 300, chars);
  ASSERT_EQ(fitted.size(), 3u);
  EXPECT_TRUE(fitted[0].candidateOmitted);
  EXPECT_FALSE(fitted[2].candidateOmitted); // the latest code is what gets refined
  auto tight = fitPolicyPrompt(t, turns, alone + 600, chars);
  ASSERT_FALSE(tight.empty());
  EXPECT_EQ(tight.back().feedback, "third");
  EXPECT_LT(tight.size(), 3u);
  EXPECT_THROW(fitPolicyPrompt(t, turns, alone - 1, chars), PromptError);
}
