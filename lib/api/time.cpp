#include <cstdio>

#include "gpupool/api/meta.h"

namespace gpupool::api {

namespace {

constexpr std::string_view kTimeError = "must be an RFC 3339 date-time, e.g. \"2024-05-01T12:00:00Z\"";

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

bool expect(std::string_view s, std::size_t& pos, std::string_view one_of) {
  if (pos >= s.size() || one_of.find(s[pos]) == std::string_view::npos) return false;
  ++pos;
  return true;
}

std::optional<Time::TimePoint> parse_rfc3339(std::string_view s) {
  using namespace std::chrono;
  std::size_t pos = 0;
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  if (!digits(s, pos, 4, y) || !expect(s, pos, "-") || !digits(s, pos, 2, mo) || !expect(s, pos, "-") ||
      !digits(s, pos, 2, d) || !expect(s, pos, "T") || !digits(s, pos, 2, h) || !expect(s, pos, ":") ||
      !digits(s, pos, 2, mi) || !expect(s, pos, ":") || !digits(s, pos, 2, sec)) {
    return std::nullopt;
  }
  const year_month_day ymd{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
  if (!ymd.ok() || h > 23 || mi > 59 || sec > 59) return std::nullopt;

  microseconds frac{0};
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    std::int64_t scale = 100000;
    const std::size_t start = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      frac += microseconds{(s[pos] - '0') * scale};
      scale /= 10;
      ++pos;
    }
    if (pos == start) return std::nullopt;
  }

  minutes offset{0};
  if (!expect(s, pos, "Z")) {
    if (pos >= s.size() || (s[pos] != '+' && s[pos] != '-')) return std::nullopt;
    const bool negative = s[pos] == '-';
    ++pos;
    int oh = 0, om = 0;
    if (!digits(s, pos, 2, oh) || !expect(s, pos, ":") || !digits(s, pos, 2, om) || oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset = hours{oh} + minutes{om};
    if (negative) offset = -offset;
  }
  if (pos != s.size()) return std::nullopt;
  return sys_days{ymd} + hours{h} + minutes{mi} + seconds{sec} + frac - offset;
}

}  // namespace

Time::Time(TimePoint t) {
  using namespace std::chrono;
  const auto secs = floor<seconds>(t);
  const auto days = floor<std::chrono::days>(secs);
  const year_month_day ymd{days};
  const hh_mm_ss hms{secs - days};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02dZ", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                static_cast<int>(hms.seconds().count()));
  text_ = buf;
  time_ = secs;
}

Parsed<Time> Time::parse(std::string_view text) {
  Parsed<Time> out;
  const auto t = parse_rfc3339(text);
  if (!t) {
    out.error = kTimeError;
    return out;
  }
  Time result;
  result.text_ = std::string(text);
  result.time_ = *t;
  out.value = std::move(result);
  return out;
}

}  // namespace gpupool::api
