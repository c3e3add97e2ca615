#include "gpupool/common/rfc3339.h"

#include <algorithm>
#include <cstdint>

namespace gpupool {

namespace {

// Reads exactly `n` digits at `pos`.
bool digits(std::string_view s, std::size_t& pos, int n, int& out) {
  if (pos + static_cast<std::size_t>(n) > s.size()) return false;
  int v = 0;
  for (int i = 0; i < n; ++i) {
    const char c = s[pos + static_cast<std::size_t>(i)];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  pos += static_cast<std::size_t>(n);
  out = v;
  return true;
}

bool expect(std::string_view s, std::size_t& pos, char a, char b = '\0') {
  if (pos >= s.size() || (s[pos] != a && (b == '\0' || s[pos] != b))) return false;
  ++pos;
  return true;
}

}  // namespace

std::optional<Rfc3339Time> parse_rfc3339(std::string_view s) {
  using namespace std::chrono;
  std::size_t pos = 0;
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  if (!digits(s, pos, 4, y) || !expect(s, pos, '-') || !digits(s, pos, 2, mo) || !expect(s, pos, '-') ||
      !digits(s, pos, 2, d) || !expect(s, pos, 'T') || !digits(s, pos, 2, h) || !expect(s, pos, ':') ||
      !digits(s, pos, 2, mi) || !expect(s, pos, ':') || !digits(s, pos, 2, sec)) {
    return std::nullopt;
  }
  const year_month_day ymd{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
  if (!ymd.ok() || h > 23 || mi > 59 || sec > 59) return std::nullopt;  // as Go: no leap second

  microseconds frac{0};
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int64_t scale = 100000;
    std::size_t n = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      frac += microseconds{(s[pos] - '0') * scale};
      scale /= 10;
      ++pos;
      ++n;
    }
    if (n == 0) return std::nullopt;
  }

  minutes offset{0};
  if (pos < s.size() && s[pos] == 'Z') {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    const bool negative = s[pos] == '-';
    ++pos;
    int oh = 0, om = 0;
    if (!digits(s, pos, 2, oh) || !expect(s, pos, ':') || !digits(s, pos, 2, om) || oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset = hours{oh} + minutes{om};
    if (negative) offset = -offset;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;

  return sys_days{ymd} + hours{h} + minutes{mi} + seconds{sec} + frac - offset;
}

std::chrono::system_clock::time_point to_system_clock(Rfc3339Time t) {
  using namespace std::chrono;
  const Rfc3339Time lo = sys_days{year{1900} / 1 / 1};
  const Rfc3339Time hi = sys_days{year{2200} / 1 / 1};
  return time_point_cast<system_clock::duration>(std::clamp(t, lo, hi));
}

}  // namespace gpupool
