// GPT-2's byte-level alphabet: every byte is shown as one printable code point (bytes 33-126,
// 161-172 and 174-255 as themselves, the other 68 as U+0100 onwards, so a space is "Ġ"), which
// lets BPE work on bytes while its vocabulary stays text.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cudaperf::learn::bytelevel {

char32_t codePointOfByte(uint8_t byte);
std::optional<uint8_t> byteOfCodePoint(char32_t codePoint);
// The UTF-8 text of each byte's symbol, indexed by byte.
const std::array<std::string, 256> &symbols();
// `raw` written in the byte-level alphabet.
std::string encode(std::string_view raw);
// The bytes a token stands for, if every character of it is a byte symbol (valid UTF-8 expected).
std::optional<std::string> decode(std::string_view token);

// The regex GPT-2's ByteLevel pre-tokenizer applies when use_regex is set.
inline constexpr const char *kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

} // namespace cudaperf::learn::bytelevel
