#include "nvidia_smi_text.h"

#include <charconv>
#include <cmath>

namespace gpupool::backend::nvsmi::text {

namespace {
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }
}  // namespace

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> lines(std::string_view s) {
  std::vector<std::string_view> out;
  while (!s.empty()) {
    const auto nl = s.find('\n');
    std::string_view line = s.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    if (nl == std::string_view::npos) break;
    s.remove_prefix(nl + 1);
  }
  return out;
}

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_blank(s[i])) ++i;
    const std::size_t start = i;
    while (i < s.size() && !is_blank(s[i])) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

std::vector<std::string_view> split_trim(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    const auto pos = s.find(sep);
    out.push_back(trim(s.substr(0, pos)));
    if (pos == std::string_view::npos) break;
    s.remove_prefix(pos + 1);
  }
  return out;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

std::optional<std::int64_t> to_int(std::string_view s, std::int64_t min, std::int64_t max) {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < min || v > max) return std::nullopt;
  return v;
}

std::optional<int> to_int32(std::string_view s, int min, int max) {
  const auto v = to_int(s, min, max);
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

std::optional<double> to_double(std::string_view s) {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::fixed);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v) || v < -1e15 || v > 1e15) {
    return std::nullopt;
  }
  return v;
}

std::optional<std::uint64_t> to_hex(std::string_view s) {
  s = trim(s);
  if (starts_with(s, "0x") || starts_with(s, "0X")) s.remove_prefix(2);
  if (s.empty() || s.size() > 16) return std::nullopt;
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

bool is_absent(std::string_view s) {
  s = trim(s);
  if (s.empty() || s == "N/A" || s == "Not Supported" || s == "Unknown Error") return true;
  return s.size() >= 2 && s.front() == '[' && s.back() == ']';
}

std::string_view strip_unit(std::string_view s) {
  s = trim(s);
  const auto space = s.rfind(' ');
  if (space == std::string_view::npos) return s;
  const std::string_view unit = s.substr(space + 1);
  static constexpr std::string_view kUnits[] = {"MiB", "GiB", "KiB", "W", "%", "C", "MHz", "KB/s", "mV", "us"};
  for (const auto u : kUnits) {
    if (unit == u) return trim(s.substr(0, space));
  }
  return s;
}

std::string strip_ansi(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      std::size_t j = i + 2;
      while (j < s.size() && !(s[j] >= '@' && s[j] <= '~')) ++j;
      i = j;  // skips the final byte too
      continue;
    }
    out.push_back(s[i]);
  }
  return out;
}

std::string quote(std::string_view s) {
  std::string out = "'";
  const std::size_t n = s.size() < 80 ? s.size() : 80;
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    out.push_back(c < 0x20 || c == 0x7f ? '?' : s[i]);
  }
  if (s.size() > 80) out += "...";
  out += "'";
  return out;
}

std::string line_where(std::size_t line_number) { return "line " + std::to_string(line_number); }

}  // namespace gpupool::backend::nvsmi::text
