// Kubernetes resource quantities ("4", "500m", "2Gi", "1e3"), parsed as
// kube-apiserver accepts them for a CRD quantity field: resource.ParseQuantity
// (sign, digits with an optional decimal point, then one of the suffixes
// Ki Mi Gi Ti Pi Ei, n u m "" k M G T P E, or an exponent e3 / E-2 / e+3),
// together with the CRD's OpenAPI pattern, which also wants at least one digit
// ("." and "+" are not quantities). Like Kubernetes, a value is rounded up
// (away from zero) to a whole nano, and a binary-suffixed value is capped at
// 2^63-1. One difference: an exponent must fit in 32 bits (Go silently
// truncates it).
//
// A Quantity keeps the text it was parsed from; == compares that text (so
// "1" != "1.0"), compare() compares values.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gpupool/api/parse_result.h"

namespace gpupool::api {

class Quantity {
 public:
  Quantity() = default;  // "0"
  // A whole number, e.g. Quantity::from_int(32) is "32".
  static Quantity from_int(std::int64_t value);
  // value / 10^6 in Kubernetes' canonical form: 4000000 -> "4",
  // 2500000 -> "2500m", 428571 -> "428571u", -1000 -> "-1m".
  static Quantity from_micro(std::int64_t micro);

  const std::string& text() const { return text_; }
  bool is_zero() const { return digits_.empty(); }
  bool is_negative() const { return negative_; }
  bool is_whole_number() const { return exponent_ >= 0; }
  // The value when it is a whole number within int64.
  std::optional<std::int64_t> whole_value() const;
  // ceil(value * 1000) when that fits in int64 ("500m" -> 500, "1.5" -> 1500).
  std::optional<std::int64_t> milli_value() const;
  // ceil(value * 10^6) when that fits in int64 ("1u" -> 1, "2.5" -> 2500000).
  std::optional<std::int64_t> micro_value() const;

  bool operator==(const Quantity&) const = default;

 private:
  friend Parsed<Quantity> parse_quantity(std::string_view text);
  friend std::strong_ordering compare(const Quantity& a, const Quantity& b);
  std::optional<std::int64_t> scaled_ceil(int decimal_shift) const;

  std::string text_ = "0";
  // The value: (negative_ ? -1 : 1) * digits_ * 10^exponent_, digits_ without
  // leading or trailing zeros (empty for zero, which is never negative).
  bool negative_ = false;
  std::string digits_;
  std::int64_t exponent_ = 0;
};

// The quantity `text` denotes, or why it is none ("quantities must match the
// regular expression ...", "unable to parse quantity's suffix").
Parsed<Quantity> parse_quantity(std::string_view text);

// Numeric order: compare(parse("1Ki"), parse("1024")) is equal.
std::strong_ordering compare(const Quantity& a, const Quantity& b);

// A quantity as a JSON field held it: 4 (a number) or "4" (a string).
// Encoding writes the same form back. For the number form the text is how the
// codec renders a JSON number: an integer ("4", "-2") or, for an integral
// number beyond int64, RapidJSON's shortest form ("1e21").
struct QuantityValue {
  Quantity quantity;
  bool json_number = false;

  bool operator==(const QuantityValue&) const = default;
};

}  // namespace gpupool::api
