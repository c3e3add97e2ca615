#include <cstdio>

#include "gpupool/api/meta.h"
#include "gpupool/common/rfc3339.h"

namespace gpupool::api {

namespace {

constexpr std::string_view kTimeError = "must be an RFC 3339 date-time, e.g. \"2024-05-01T12:00:00Z\"";

// metav1.Time precision as the API types keep it.
std::optional<Time::TimePoint> parse_time(std::string_view s) {
  auto t = parse_rfc3339(s);
  if (!t) return std::nullopt;
  return std::chrono::floor<std::chrono::microseconds>(*t);
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
  const auto t = parse_time(text);
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
