// The candidate's code in a model completion (docs/reward.md, "Completions"): the policy's prompt
// (lib/Learn/Prompt.cpp, policySystemMessage) asks for "one complete .cu file in a single ```cuda
// code block"; models put prose around it, and sometimes more than one block. The rule, the same
// as lib/Learn's extractCandidateSource so that the trainer and the reward read a completion alike:
//
// - a fence is ``` at the start of a line (or of the text); ``` inside a line of prose is not one;
// - the code is the body of the FIRST block whose language tag (the rest of the fence line,
//   case-folded, trailing blanks dropped) is `cuda`, `cu`, `c++`, `cpp`, `c` or empty; blocks in
//   any other language (python, text, sh, ...) are skipped;
// - the block ends at the next fence at the start of a line; a block left open (a completion cut
//   at its token limit) runs to the end of the text;
// - no such block (none at all, only other languages, or a fence line with nothing after it) is
//   the gate `no_code_block`.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cudaperf::reward {

struct ExtractedCode {
  std::string code;
  std::string language; // the block's tag as written ("cuda", "" for an unlabeled block)
  bool terminated = true; // false: the block ran to the end of the completion
  int blockIndex = 0;     // among all fenced blocks of the completion, from 0
};

std::optional<ExtractedCode> extractCodeBlock(std::string_view completion);

// Why there is no code, for the gate's reason and the feedback.
std::string noCodeBlockReason(std::string_view completion);

} // namespace cudaperf::reward
