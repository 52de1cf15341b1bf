// ChatML prompts (test/learn/fixtures/tokenizer/chat.json; transformers renders the same with
// kChatMlTemplate on the GPU host, recorded in hf-checks.json when that run has been made).
#include "TokenizerFixtures.h"

#include <gtest/gtest.h>

namespace cudaperf::learn::testing {
namespace {

std::vector<ChatMessage> messagesOf(const Json &list) {
  std::vector<ChatMessage> messages;
  for (const Json &m : list)
    messages.push_back({m["role"].get<std::string>(), m["content"].get<std::string>()});
  return messages;
}

TEST(ChatMl, RendersTheFixtureConversations) {
  const Json cases = readJson(fixtureDir() / "chat.json")["cases"];
  ASSERT_GE(cases.size(), 5u);
  for (const Json &c : cases)
    EXPECT_EQ(applyChatMl(messagesOf(c["messages"]), c["add_generation_prompt"].get<bool>()),
              c["expected"].get<std::string>());
}

TEST(ChatMl, OneTurn) {
  EXPECT_EQ(applyChatMl({{"user", "hi"}}, true), "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n");
  EXPECT_EQ(applyChatMl({}, false), "");
}

TEST(ChatMl, TemplateIsRecognised) {
  EXPECT_TRUE(isChatMlTemplate(kChatMlTemplate));
  EXPECT_FALSE(isChatMlTemplate("{{ bos_token }}{% for m in messages %}[INST] {{ m['content'] }} [/INST]{% endfor %}"));
}

TEST(ChatMl, PromptsEncodeWithOneIdPerSpecialToken) {
  const Tokenizer t = Tokenizer::fromFile((fixtureDir() / "ours-repo").string());
  const auto ids = t.encode(applyChatMl({{"system", "You write CUDA."}, {"user", "saxpy"}}, true));
  EXPECT_EQ(std::count(ids.begin(), ids.end(), *t.tokenToId("<|im_start|>")), 3);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), *t.tokenToId("<|im_end|>")), 2);
}

// What the GPU host's run found for transformers (AutoTokenizer on ours-repo/).
TEST(ChatMl, TransformersAgreesWhereChecked) {
  const auto checks = fixtureDir() / "hf-checks.json";
  if (!std::filesystem::exists(checks))
    GTEST_SKIP() << checks << " is made on the GPU host (scripts/gpu/tokenizer-fixtures.sh); not there yet";
  const Json result = readJson(checks);
  EXPECT_EQ(result["transformers"]["loaded"], true) << result.dump(1);
  EXPECT_EQ(result["transformers"]["ids_differ"], 0) << result.dump(1);
  EXPECT_EQ(result["transformers"]["chat_differ"], 0) << result.dump(1);
  EXPECT_GT(result["transformers"]["ids_same"].get<int>(), 100);
}

} // namespace
} // namespace cudaperf::learn::testing
