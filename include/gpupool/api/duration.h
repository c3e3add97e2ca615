// Go duration strings, as time.ParseDuration reads them and metav1.Duration
// carries them: a sign, then one or more decimal numbers each with a unit
// ("300ms", "-1.5h", "1h30m", "2h45m10.5s"); units ns, us, µs (U+00B5 or
// U+03BC), ms, s, m, h; "0" needs no unit. Fractions are converted as Go
// converts them (through float64), so values match Go's to the nanosecond.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>
#include <string_view>

#include "gpupool/api/parse_result.h"

namespace gpupool::api {

// The duration `text` denotes, or Go's error ("time: invalid duration \"x\"",
// "time: missing unit in duration \"1\"", "time: unknown unit \"d\" in duration \"1d\"").
Parsed<std::chrono::nanoseconds> parse_duration(std::string_view text);

// As Go's Duration.String(): "1h30m0s", "300ms", "1.5µs", "0s".
std::string format_duration(std::chrono::nanoseconds d);

// A duration field: the text it was written as and its value. == compares
// the text ("10m" != "600s"); compare value() for time.
class Duration {
 public:
  Duration() = default;  // "0s"
  explicit Duration(std::chrono::nanoseconds value) : text_(format_duration(value)), value_(value) {}
  static Parsed<Duration> parse(std::string_view text);
  // For constants known to be valid (defaults): throws std::invalid_argument otherwise.
  static Duration literal(std::string_view text);

  const std::string& text() const { return text_; }
  std::chrono::nanoseconds value() const { return value_; }

  bool operator==(const Duration&) const = default;

 private:
  std::string text_ = "0s";
  std::chrono::nanoseconds value_{0};
};

}  // namespace gpupool::api
