#include "TokenizerUtf8.h"

#include <utf8proc.h>

namespace cudaperf::learn::utf8 {

namespace {
bool isContinuation(unsigned char b) { return (b & 0xC0) == 0x80; }
} // namespace

// Table 3-7 of the Unicode standard (well-formed byte sequences): the second byte's range
// depends on the lead; the rest are plain continuation bytes.
size_t validSequenceLength(std::string_view text, size_t pos) {
  auto at = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = at(pos);
  if (lead < 0x80)
    return 1;
  size_t length;
  unsigned char low = 0x80, high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF)
    length = 2;
  else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0)
      low = 0xA0;
    if (lead == 0xED)
      high = 0x9F; // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0)
      low = 0x90;
    if (lead == 0xF4)
      high = 0x8F; // nothing above U+10FFFF
  } else
    return 0;
  if (pos + 1 >= text.size() || at(pos + 1) < low || at(pos + 1) > high)
    return 0;
  for (size_t i = 2; i < length; ++i)
    if (pos + i >= text.size() || !isContinuation(at(pos + i)))
      return 0;
  return length;
}

bool isValid(std::string_view text) {
  for (size_t pos = 0; pos < text.size();) {
    if (static_cast<unsigned char>(text[pos]) < 0x80) {
      ++pos;
      continue;
    }
    const size_t n = validSequenceLength(text, pos);
    if (n == 0)
      return false;
    pos += n;
  }
  return true;
}

std::string toValid(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    if (const size_t n = validSequenceLength(text, pos)) {
      out.append(text.substr(pos, n));
      pos += n;
      continue;
    }
    // One U+FFFD for the longest prefix of a well-formed sequence (at least one byte): the
    // lead plus the continuation bytes that were still in range.
    size_t bad = 1;
    const unsigned char lead = static_cast<unsigned char>(text[pos]);
    if (lead >= 0xC2 && lead <= 0xF4) {
      const size_t length = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
      for (size_t i = 1; i < length && pos + i < text.size(); ++i) {
        const unsigned char b = static_cast<unsigned char>(text[pos + i]);
        unsigned char low = 0x80, high = 0xBF;
        if (i == 1) {
          low = lead == 0xE0 ? 0xA0 : lead == 0xF0 ? 0x90 : 0x80;
          high = lead == 0xED ? 0x9F : lead == 0xF4 ? 0x8F : 0xBF;
        }
        if (b < low || b > high)
          break;
        bad = i + 1;
      }
    }
    out.append("\xEF\xBF\xBD");
    pos += bad;
  }
  return out;
}

char32_t decodeAt(std::string_view t, size_t pos) {
  const auto b = [&](size_t i) { return static_cast<char32_t>(static_cast<unsigned char>(t[pos + i])); };
  const char32_t lead = b(0);
  if (lead < 0x80)
    return lead;
  if (lead < 0xE0)
    return ((lead & 0x1F) << 6) | (b(1) & 0x3F);
  if (lead < 0xF0)
    return ((lead & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
  return ((lead & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
}

char32_t decodeBefore(std::string_view t, size_t end, size_t &start) {
  start = end - 1;
  while (start > 0 && isContinuation(static_cast<unsigned char>(t[start])))
    --start;
  return decodeAt(t, start);
}

void append(std::string &out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

bool isWhiteSpace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

bool isWordCharacter(char32_t c) {
  if (c < 0x80)
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  if (c == 0x200C || c == 0x200D)
    return true;
  switch (utf8proc_category(static_cast<utf8proc_int32_t>(c))) {
  case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL: case UTF8PROC_CATEGORY_LT:
  case UTF8PROC_CATEGORY_LM: case UTF8PROC_CATEGORY_LO: case UTF8PROC_CATEGORY_NL:
  case UTF8PROC_CATEGORY_MN: case UTF8PROC_CATEGORY_MC: case UTF8PROC_CATEGORY_ME:
  case UTF8PROC_CATEGORY_ND: case UTF8PROC_CATEGORY_PC:
    return true;
  default:
    return false;
  }
}

} // namespace cudaperf::learn::utf8
