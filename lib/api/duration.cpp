#include "gpupool/api/duration.h"

#include <algorithm>
#include <cstdint>

namespace gpupool::api {

namespace {

constexpr std::uint64_t kOverflow = std::uint64_t{1} << 63;

std::string quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::optional<std::uint64_t> unit_nanos(std::string_view unit) {
  static constexpr std::pair<std::string_view, std::uint64_t> kUnits[] = {
      {"ns", 1},
      {"us", 1000},
      {"\xC2\xB5s", 1000},  // U+00B5 micro sign
      {"\xCE\xBCs", 1000},  // U+03BC Greek small letter mu
      {"ms", 1000000},
      {"s", 1000000000},
      {"m", 60 * std::uint64_t{1000000000}},
      {"h", 3600 * std::uint64_t{1000000000}},
  };
  for (const auto& [name, nanos] : kUnits) {
    if (unit == name) return nanos;
  }
  return std::nullopt;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Go's leadingInt: the leading digits, failing above 2^63.
std::optional<std::uint64_t> leading_int(std::string_view& s) {
  std::uint64_t x = 0;
  std::size_t i = 0;
  for (; i < s.size() && is_digit(s[i]); ++i) {
    if (x > kOverflow / 10) return std::nullopt;
    x = x * 10 + static_cast<std::uint64_t>(s[i] - '0');
    if (x > kOverflow) return std::nullopt;
  }
  s.remove_prefix(i);
  return x;
}

// Go's leadingFraction: the leading digits and 10^(digits used); stops
// accumulating precision instead of overflowing.
void leading_fraction(std::string_view& s, std::uint64_t& x, double& scale) {
  std::size_t i = 0;
  bool overflow = false;
  for (; i < s.size() && is_digit(s[i]); ++i) {
    if (overflow) continue;
    if (x > (kOverflow - 1) / 10) {
      overflow = true;
      continue;
    }
    const std::uint64_t y = x * 10 + static_cast<std::uint64_t>(s[i] - '0');
    if (y > kOverflow) {
      overflow = true;
      continue;
    }
    x = y;
    scale *= 10;
  }
  s.remove_prefix(i);
}

// Go's fmtFrac: writes v's last `prec` digits as a fraction without trailing
// zeros (into `out`, reversed) and returns v / 10^prec.
std::uint64_t format_fraction(std::string& out, std::uint64_t v, int prec) {
  bool print = false;
  for (int i = 0; i < prec; ++i) {
    const auto digit = static_cast<char>(v % 10);
    print = print || digit != 0;
    if (print) out.push_back(static_cast<char>('0' + digit));
    v /= 10;
  }
  if (print) out.push_back('.');
  return v;
}

void format_int(std::string& out, std::uint64_t v) {
  do {
    out.push_back(static_cast<char>('0' + v % 10));
    v /= 10;
  } while (v > 0);
}

}  // namespace

Parsed<std::chrono::nanoseconds> parse_duration(std::string_view text) {
  Parsed<std::chrono::nanoseconds> out;
  const std::string invalid = "time: invalid duration " + quote(text);
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") {
    out.value = std::chrono::nanoseconds{0};
    return out;
  }
  if (s.empty()) {
    out.error = invalid;
    return out;
  }
  std::uint64_t total = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || is_digit(s[0]))) {
      out.error = invalid;
      return out;
    }
    const std::size_t before = s.size();
    const auto v = leading_int(s);
    if (!v) {
      out.error = invalid;
      return out;
    }
    const bool pre = before != s.size();
    std::uint64_t frac = 0;
    double scale = 1;
    bool post = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      const std::size_t len = s.size();
      leading_fraction(s, frac, scale);
      post = len != s.size();
    }
    if (!pre && !post) {
      out.error = invalid;
      return out;
    }
    std::size_t i = 0;
    while (i < s.size() && s[i] != '.' && !is_digit(s[i])) ++i;
    if (i == 0) {
      out.error = "time: missing unit in duration " + quote(text);
      return out;
    }
    const std::string_view unit_text = s.substr(0, i);
    s.remove_prefix(i);
    const auto unit = unit_nanos(unit_text);
    if (!unit) {
      out.error = "time: unknown unit " + quote(unit_text) + " in duration " + quote(text);
      return out;
    }
    if (*v > kOverflow / *unit) {
      out.error = invalid;
      return out;
    }
    std::uint64_t part = *v * *unit;
    if (frac > 0) {
      // As Go: float64 keeps fractions of hours nanosecond-accurate.
      part += static_cast<std::uint64_t>(static_cast<double>(frac) * (static_cast<double>(*unit) / scale));
      if (part > kOverflow) {
        out.error = invalid;
        return out;
      }
    }
    total += part;
    if (total > kOverflow) {
      out.error = invalid;
      return out;
    }
  }
  if (negative) {
    out.value = std::chrono::nanoseconds{static_cast<std::int64_t>(0 - total)};
    return out;
  }
  if (total > kOverflow - 1) {
    out.error = invalid;
    return out;
  }
  out.value = std::chrono::nanoseconds{static_cast<std::int64_t>(total)};
  return out;
}

std::string format_duration(std::chrono::nanoseconds d) {
  const bool negative = d.count() < 0;
  std::uint64_t u = static_cast<std::uint64_t>(d.count());
  if (negative) u = 0 - u;
  std::string out;  // built backwards
  constexpr std::uint64_t kSecond = 1000000000;
  if (u < kSecond) {
    if (u == 0) return "0s";
    int prec = 0;
    out.push_back('s');
    if (u < 1000) {
      out.push_back('n');
    } else if (u < 1000000) {
      prec = 3;
      out += "\xB5\xC2";  // "µ", reversed
    } else {
      prec = 6;
      out.push_back('m');
    }
    u = format_fraction(out, u, prec);
    format_int(out, u);
  } else {
    out.push_back('s');
    u = format_fraction(out, u, 9);
    format_int(out, u % 60);
    u /= 60;
    if (u > 0) {
      out.push_back('m');
      format_int(out, u % 60);
      u /= 60;
      if (u > 0) {
        out.push_back('h');
        format_int(out, u);
      }
    }
  }
  if (negative) out.push_back('-');
  std::reverse(out.begin(), out.end());
  return out;
}

Parsed<Duration> Duration::parse(std::string_view text) {
  Parsed<Duration> out;
  auto parsed = parse_duration(text);
  if (!parsed) {
    out.error = std::move(parsed.error);
    return out;
  }
  Duration d;
  d.text_ = std::string(text);
  d.value_ = *parsed.value;
  out.value = std::move(d);
  return out;
}

Duration Duration::literal(std::string_view text) {
  auto parsed = parse(text);
  if (!parsed) throw std::invalid_argument(parsed.error);
  return std::move(*parsed.value);
}

}  // namespace gpupool::api
