#include "cudaperf/Learn/Tokenizer.h"

namespace cudaperf::learn {

// Jinja's '\n' in a string literal is a newline, so this renders "<|im_start|>role\ncontent<|im_end|>\n".
const char *const kChatMlTemplate =
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

std::string applyChatMl(const std::vector<ChatMessage> &messages, bool addGenerationPrompt) {
  std::string prompt;
  for (const ChatMessage &message : messages)
    prompt += "<|im_start|>" + message.role + "\n" + message.content + "<|im_end|>\n";
  if (addGenerationPrompt)
    prompt += "<|im_start|>assistant\n";
  return prompt;
}

bool isChatMlTemplate(std::string_view chatTemplate) {
  return chatTemplate.find("<|im_start|>") != std::string_view::npos &&
         chatTemplate.find("<|im_end|>") != std::string_view::npos;
}

} // namespace cudaperf::learn
