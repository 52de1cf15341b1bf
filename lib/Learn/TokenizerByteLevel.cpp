#include "TokenizerByteLevel.h"

#include "TokenizerUtf8.h"

namespace cudaperf::learn::bytelevel {

namespace {
bool printsAsItself(unsigned b) { return (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174; }

struct Tables {
  std::array<char32_t, 256> codePoint{};
  std::array<std::string, 256> text;
  std::array<int16_t, 256 + 68> byteOf; // code point -> byte, -1 where none
  Tables() {
    byteOf.fill(-1);
    unsigned shifted = 0;
    for (unsigned b = 0; b < 256; ++b) {
      codePoint[b] = printsAsItself(b) ? b : 256 + shifted++;
      utf8::append(text[b], codePoint[b]);
      byteOf[codePoint[b]] = static_cast<int16_t>(b);
    }
  }
};
const Tables &tables() {
  static const Tables t;
  return t;
}
} // namespace

char32_t codePointOfByte(uint8_t byte) { return tables().codePoint[byte]; }

std::optional<uint8_t> byteOfCodePoint(char32_t c) {
  if (c >= tables().byteOf.size() || tables().byteOf[c] < 0)
    return std::nullopt;
  return static_cast<uint8_t>(tables().byteOf[c]);
}

const std::array<std::string, 256> &symbols() { return tables().text; }

std::string encode(std::string_view raw) {
  std::string out;
  out.reserve(raw.size() * 2);
  for (unsigned char b : raw)
    out += tables().text[b];
  return out;
}

std::optional<std::string> decode(std::string_view token) {
  std::string raw;
  raw.reserve(token.size());
  for (size_t pos = 0; pos < token.size();) {
    const auto byte = byteOfCodePoint(utf8::decodeAt(token, pos));
    if (!byte)
      return std::nullopt;
    raw += static_cast<char>(*byte);
    pos += utf8::sequenceLength(static_cast<unsigned char>(token[pos]));
  }
  return raw;
}

} // namespace cudaperf::learn::bytelevel
