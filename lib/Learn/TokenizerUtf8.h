// UTF-8 helpers of the tokenizer: validation with the Unicode "maximal subpart" replacement
// (what Python's errors="replace" and Rust's from_utf8_lossy do), decoding and encoding of one
// code point, and the two character classes Hugging Face's added-token rules use (\w, \s).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cudaperf::learn::utf8 {

// Length of the valid sequence starting at text[pos], or 0 if none starts there.
size_t validSequenceLength(std::string_view text, size_t pos);
bool isValid(std::string_view text);
// `text` with every maximal ill-formed subsequence replaced by U+FFFD.
std::string toValid(std::string_view text);

// For valid UTF-8 only: the length of the sequence a lead byte starts.
inline size_t sequenceLength(unsigned char lead) {
  return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}
char32_t decodeAt(std::string_view validText, size_t pos); // the code point at pos
void append(std::string &out, char32_t codePoint);
// The code point that ends at `end` (exclusive) in valid text, and where it starts.
char32_t decodeBefore(std::string_view validText, size_t end, size_t &start);

// Unicode White_Space (Rust's char::is_whitespace, regex \s).
bool isWhiteSpace(char32_t c);
// Rust regex's Unicode \w: letters, marks, decimal digits, connector punctuation, ZWNJ/ZWJ
// (Alphabetic approximated by the letter categories and Nl).
bool isWordCharacter(char32_t c);

} // namespace cudaperf::learn::utf8
