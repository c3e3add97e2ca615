#include "gpupool/kube/base64.h"

#include <array>
#include <cstdint>

namespace gpupool::kube {

namespace {

constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<int8_t, 256> make_decode_table() {
  std::array<int8_t, 256> table{};
  for (auto& v : table) v = -1;
  for (std::size_t i = 0; i < kAlphabet.size(); ++i) table[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
  return table;
}

constexpr auto kDecode = make_decode_table();

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t v = (static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16) |
                 (static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8) |
                 static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 2]));
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  const std::size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (rest == 2) v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size() / 4 * 3);
  uint32_t acc = 0;
  int have = 0;     // sextets in the current group
  int padding = 0;  // '=' seen; only more '=' and whitespace may follow
  for (char c : text) {
    if (is_space(c)) continue;
    if (c == '=') {
      // Padding completes a group of two or three sextets.
      if (have + padding < 2 || have + padding >= 4) return std::nullopt;
      ++padding;
      if (have + padding == 4) {
        if (have == 2) {
          out += static_cast<char>((acc >> 4) & 0xff);
        } else {
          out += static_cast<char>((acc >> 10) & 0xff);
          out += static_cast<char>((acc >> 2) & 0xff);
        }
        have = 4;  // the group is closed; nothing but whitespace may follow
      }
      continue;
    }
    if (padding > 0 || have == 4) return std::nullopt;
    const int8_t d = kDecode[static_cast<unsigned char>(c)];
    if (d < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(d);
    if (++have == 4 && padding == 0) {
      out += static_cast<char>((acc >> 16) & 0xff);
      out += static_cast<char>((acc >> 8) & 0xff);
      out += static_cast<char>(acc & 0xff);
      acc = 0;
      have = 0;
    }
  }
  if (padding > 0 && have != 4) return std::nullopt;  // "xx=" without the second '='
  if (padding == 0 && have != 0) return std::nullopt;  // a truncated, unpadded group
  return out;
}

}  // namespace gpupool::kube
