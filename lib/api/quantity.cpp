#include "gpupool/api/quantity.h"

#include <algorithm>
#include <limits>

namespace gpupool::api {

namespace {

constexpr std::string_view kFormatError =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kSuffixError = "unable to parse quantity's suffix";
constexpr std::string_view kSuffixChars = "eEinumkKMGTP";
constexpr std::string_view kMaxInt64Digits = "9223372036854775807";

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string_view take_digits(std::string_view s, std::size_t& pos) {
  const std::size_t start = pos;
  while (pos < s.size() && is_digit(s[pos])) ++pos;
  return s.substr(start, pos - start);
}

// What a suffix means: value * base^exponent.
struct Suffix {
  int base = 10;
  std::int64_t exponent = 0;
};

// Go's strconv.ParseInt(s, 10, 64), limited to int32 (see the header).
std::optional<std::int64_t> parse_exponent(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  std::int64_t v = 0;
  for (char c : s) {
    if (!is_digit(c)) return std::nullopt;
    v = v * 10 + (c - '0');
    if (v > std::int64_t{std::numeric_limits<std::int32_t>::max()} + 1) return std::nullopt;
  }
  if (negative) v = -v;
  if (v > std::numeric_limits<std::int32_t>::max() || v < std::numeric_limits<std::int32_t>::min()) {
    return std::nullopt;
  }
  return v;
}

std::optional<Suffix> interpret_suffix(std::string_view s) {
  static constexpr std::pair<std::string_view, int> kDecimal[] = {
      {"n", -9}, {"u", -6}, {"m", -3}, {"", 0}, {"k", 3}, {"M", 6}, {"G", 9}, {"T", 12}, {"P", 15}, {"E", 18}};
  static constexpr std::pair<std::string_view, int> kBinary[] = {
      {"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  for (const auto& [name, exp] : kDecimal) {
    if (s == name) return Suffix{10, exp};
  }
  for (const auto& [name, exp] : kBinary) {
    if (s == name) return Suffix{2, exp};
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    if (auto exp = parse_exponent(s.substr(1))) return Suffix{10, *exp};
  }
  return std::nullopt;
}

// digits *= m, for a small m (digits: decimal, most significant first).
void multiply_small(std::string& digits, unsigned m) {
  unsigned carry = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    const unsigned v = static_cast<unsigned>(*it - '0') * m + carry;
    *it = static_cast<char>('0' + v % 10);
    carry = v / 10;
  }
  std::string head;
  while (carry > 0) {
    head.insert(head.begin(), static_cast<char>('0' + carry % 10));
    carry /= 10;
  }
  digits.insert(0, head);
}

// digits += 1 at the last position.
void increment(std::string& digits) {
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (*it != '9') {
      ++*it;
      return;
    }
    *it = '0';
  }
  digits.insert(digits.begin(), '1');
}

// Removes leading zeros, and moves trailing zeros into the exponent.
void normalize(std::string& digits, std::int64_t& exponent) {
  const auto first = digits.find_first_not_of('0');
  if (first == std::string::npos) {
    digits.clear();
    exponent = 0;
    return;
  }
  const auto last = digits.find_last_not_of('0');
  exponent += static_cast<std::int64_t>(digits.size() - 1 - last);
  digits = digits.substr(first, last - first + 1);
}

// Compares digits_a * 10^exp_a with digits_b * 10^exp_b (both normalized).
int compare_magnitude(const std::string& a, std::int64_t exp_a, const std::string& b, std::int64_t exp_b) {
  if (a.empty() || b.empty()) return static_cast<int>(!a.empty()) - static_cast<int>(!b.empty());
  const std::int64_t order_a = static_cast<std::int64_t>(a.size()) + exp_a;
  const std::int64_t order_b = static_cast<std::int64_t>(b.size()) + exp_b;
  if (order_a != order_b) return order_a < order_b ? -1 : 1;
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const char ca = i < a.size() ? a[i] : '0';
    const char cb = i < b.size() ? b[i] : '0';
    if (ca != cb) return ca < cb ? -1 : 1;
  }
  return 0;
}

// digits * 10^zeros as an unsigned 64-bit number, if it fits.
std::optional<std::uint64_t> to_u64(std::string_view digits, std::int64_t zeros) {
  if (static_cast<std::int64_t>(digits.size()) + zeros > 20) return std::nullopt;
  std::uint64_t v = 0;
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  auto push = [&](unsigned d) {
    if (v > (kMax - d) / 10) return false;
    v = v * 10 + d;
    return true;
  };
  for (char c : digits) {
    if (!push(static_cast<unsigned>(c - '0'))) return std::nullopt;
  }
  for (std::int64_t i = 0; i < zeros; ++i) {
    if (!push(0)) return std::nullopt;
  }
  return v;
}

std::optional<std::int64_t> apply_sign(std::uint64_t magnitude, bool negative) {
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (!negative) {
    if (magnitude > kMax) return std::nullopt;
    return static_cast<std::int64_t>(magnitude);
  }
  if (magnitude > kMax + 1) return std::nullopt;
  if (magnitude == kMax + 1) return std::numeric_limits<std::int64_t>::min();
  return -static_cast<std::int64_t>(magnitude);
}

}  // namespace

Parsed<Quantity> parse_quantity(std::string_view text) {
  Parsed<Quantity> out;
  std::size_t pos = 0;
  bool negative = false;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    negative = text[pos] == '-';
    ++pos;
  }
  const std::string_view num = take_digits(text, pos);
  std::string_view denom;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    denom = take_digits(text, pos);
  }
  if (num.empty() && denom.empty()) {
    out.error = kFormatError;
    return out;
  }
  // The suffix: letters from kSuffixChars, an optional sign, digits, and nothing else.
  const std::size_t suffix_start = pos;
  while (pos < text.size() && kSuffixChars.find(text[pos]) != std::string_view::npos) ++pos;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
  take_digits(text, pos);
  if (pos != text.size()) {
    out.error = kFormatError;
    return out;
  }
  const auto suffix = interpret_suffix(text.substr(suffix_start));
  if (!suffix) {
    out.error = kSuffixError;
    return out;
  }

  Quantity q;
  q.text_ = std::string(text);
  q.digits_ = std::string(num) + std::string(denom);
  q.exponent_ = -static_cast<std::int64_t>(denom.size());
  if (suffix->base == 10) {
    q.exponent_ += suffix->exponent;
  } else {
    for (std::int64_t i = 0; i < suffix->exponent / 10; ++i) multiply_small(q.digits_, 1024);
  }
  normalize(q.digits_, q.exponent_);

  // Round up to a whole nano, as Kubernetes does.
  if (!q.digits_.empty() && q.exponent_ < -9) {
    const std::int64_t drop = -9 - q.exponent_;
    if (drop >= static_cast<std::int64_t>(q.digits_.size())) {
      q.digits_ = "1";
    } else {
      q.digits_.resize(q.digits_.size() - static_cast<std::size_t>(drop));
      increment(q.digits_);  // the dropped digits were not all zero: normalized
    }
    q.exponent_ = -9;
    normalize(q.digits_, q.exponent_);
  }
  // Binary-suffixed values are capped at the largest int64, as Kubernetes does.
  if (suffix->base == 2 && compare_magnitude(q.digits_, q.exponent_, std::string(kMaxInt64Digits), 0) > 0) {
    q.digits_ = kMaxInt64Digits;
    q.exponent_ = 0;
  }
  q.negative_ = negative && !q.digits_.empty();
  out.value = std::move(q);
  return out;
}

Quantity Quantity::from_int(std::int64_t value) { return *parse_quantity(std::to_string(value)).value; }

std::optional<std::int64_t> Quantity::whole_value() const {
  if (!is_whole_number()) return std::nullopt;
  return scaled_ceil(0);
}

std::optional<std::int64_t> Quantity::milli_value() const { return scaled_ceil(3); }

std::optional<std::int64_t> Quantity::micro_value() const { return scaled_ceil(6); }

Quantity Quantity::from_micro(std::int64_t micro) {
  // The largest of "", m, u that keeps the value whole (as Kubernetes
  // canonicalises a decimal-SI quantity).
  std::string text;
  if (micro % 1'000'000 == 0) {
    text = std::to_string(micro / 1'000'000);
  } else if (micro % 1'000 == 0) {
    text = std::to_string(micro / 1'000) + "m";
  } else {
    text = std::to_string(micro) + "u";
  }
  return *parse_quantity(text).value;
}

std::optional<std::int64_t> Quantity::scaled_ceil(int decimal_shift) const {
  if (digits_.empty()) return 0;
  const std::int64_t exp = exponent_ + decimal_shift;
  if (exp >= 0) {
    const auto magnitude = to_u64(digits_, exp);
    if (!magnitude) return std::nullopt;
    return apply_sign(*magnitude, negative_);
  }
  // A fraction remains (digits_ has no trailing zeros): ceil moves a positive
  // value up to the next integer and truncates a negative one.
  const std::int64_t int_len = static_cast<std::int64_t>(digits_.size()) + exp;
  std::string int_part = int_len > 0 ? digits_.substr(0, static_cast<std::size_t>(int_len)) : std::string();
  if (!negative_) {
    if (int_part.empty()) int_part = "0";
    increment(int_part);
  }
  const auto magnitude = to_u64(int_part, 0);
  if (!magnitude) return std::nullopt;
  return apply_sign(*magnitude, negative_);
}

std::strong_ordering compare(const Quantity& a, const Quantity& b) {
  if (a.negative_ != b.negative_) return a.negative_ ? std::strong_ordering::less : std::strong_ordering::greater;
  int c = compare_magnitude(a.digits_, a.exponent_, b.digits_, b.exponent_);
  if (a.negative_) c = -c;
  return c <=> 0;
}

}  // namespace gpupool::api
