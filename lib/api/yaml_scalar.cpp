// go-yaml v2's resolve(): how an untagged plain scalar becomes null, bool,
// int, float or string (YAML 1.1 rules with go-yaml's own choices).
#include "yaml_scalar.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <unordered_map>

namespace gpupool::api::detail {
namespace {

const std::unordered_map<std::string_view, YamlScalar>& resolve_map() {
  static const auto* const map = [] {
    auto* m = new std::unordered_map<std::string_view, YamlScalar>();
    for (std::string_view s : {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})
      m->emplace(s, true);
    for (std::string_view s : {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})
      m->emplace(s, false);
    for (std::string_view s : {"", "~", "null", "Null", "NULL"}) m->emplace(s, YamlNull{});
    const double inf = std::numeric_limits<double>::infinity();
    for (std::string_view s : {".nan", ".NaN", ".NAN"}) m->emplace(s, std::numeric_limits<double>::quiet_NaN());
    for (std::string_view s : {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"}) m->emplace(s, inf);
    for (std::string_view s : {"-.inf", "-.Inf", "-.INF"}) m->emplace(s, -inf);
    return m;
  }();
  return *map;
}

// resolveTable: the first character decides what a scalar may be.
char hint_of(char c) {
  if (c == '+' || c == '-') return 'S';
  if (c >= '0' && c <= '9') return 'D';
  if (std::string_view("yYnNtTfFoO~").find(c) != std::string_view::npos) return 'M';
  if (c == '.') return '.';
  return 0;
}

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

// strconv.ParseUint(s, 0, 64) without a sign.
std::optional<std::uint64_t> parse_go_uint(std::string_view s) {
  if (s.empty()) return std::nullopt;
  int base = 10;
  if (s[0] == '0') {
    const char p = s.size() >= 3 ? static_cast<char>(s[1] | 0x20) : '\0';
    if (p == 'b') {
      base = 2;
      s.remove_prefix(2);
    } else if (p == 'o') {
      base = 8;
      s.remove_prefix(2);
    } else if (p == 'x') {
      base = 16;
      s.remove_prefix(2);
    } else {
      base = 8;
      s.remove_prefix(1);
    }
  }
  std::uint64_t n = 0;
  const auto max = std::numeric_limits<std::uint64_t>::max();
  for (char c : s) {
    const int d = digit_value(c);
    if (d >= base) return std::nullopt;
    const auto ud = static_cast<std::uint64_t>(d);
    if (n > (max - ud) / static_cast<std::uint64_t>(base)) return std::nullopt;
    n = n * static_cast<std::uint64_t>(base) + ud;
  }
  return n;
}

bool all_digits(std::string_view s, bool hex) {
  for (char c : s) {
    const int d = digit_value(c);
    if (d >= (hex ? 16 : 10)) return false;
  }
  return true;
}

bool equal_fold(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if ((a[i] | 0x20) != (b[i] | 0x20)) return false;
  return true;
}

// The mantissa ("1.5", ".5", "5.") and optional exponent of a Go float literal.
bool valid_float_syntax(std::string_view s, bool hex) {
  const std::size_t e = s.find_first_of(hex ? "pP" : "eE");
  if (hex && e == std::string_view::npos) return false;  // hex floats need an exponent
  std::string_view mantissa = s.substr(0, e);
  if (e != std::string_view::npos) {
    std::string_view exp = s.substr(e + 1);
    if (!exp.empty() && (exp[0] == '+' || exp[0] == '-')) exp.remove_prefix(1);
    if (exp.empty() || !all_digits(exp, false)) return false;
  }
  const std::size_t dot = mantissa.find('.');
  std::string_view whole = mantissa.substr(0, dot);
  std::string_view frac = dot == std::string_view::npos ? std::string_view() : mantissa.substr(dot + 1);
  if (whole.empty() && frac.empty()) return false;
  return all_digits(whole, hex) && all_digits(frac, hex);
}

}  // namespace

std::optional<std::variant<std::int64_t, std::uint64_t>> yaml_parse_go_int(const std::string& text) {
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  const auto magnitude = parse_go_uint(s);
  if (!magnitude) return std::nullopt;
  constexpr auto kMaxInt = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (negative) {
    if (*magnitude <= kMaxInt) return -static_cast<std::int64_t>(*magnitude);
    if (*magnitude == kMaxInt + 1) return std::numeric_limits<std::int64_t>::min();
    return std::nullopt;
  }
  if (*magnitude <= kMaxInt) return static_cast<std::int64_t>(*magnitude);
  // ParseInt overflowed; ParseUint accepts it only without a sign.
  if (text[0] == '+') return std::nullopt;
  return *magnitude;
}

std::optional<double> yaml_parse_go_float(const std::string& text) {
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  const double inf = std::numeric_limits<double>::infinity();
  if (equal_fold(s, "inf") || equal_fold(s, "infinity")) return negative ? -inf : inf;
  if (equal_fold(s, "nan") && s.size() == text.size()) return std::numeric_limits<double>::quiet_NaN();
  const bool hex = s.size() >= 2 && s[0] == '0' && (s[1] | 0x20) == 'x';
  if (!valid_float_syntax(hex ? s.substr(2) : s, hex)) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  if (errno == ERANGE && std::isinf(v)) return std::nullopt;  // Go: ErrRange, so not a float
  return v;
}

YamlScalar yaml_resolve_plain(const std::string& text) {
  const char hint = text.empty() ? 'N' : hint_of(text[0]);
  if (hint == 0) return text;
  if (const auto it = resolve_map().find(text); it != resolve_map().end()) return it->second;
  if (hint == '.') {
    if (const auto f = yaml_parse_go_float(text)) return *f;
  } else if (hint == 'D' || hint == 'S') {
    std::string plain;
    for (char c : text)
      if (c != '_') plain += c;
    if (const auto i = yaml_parse_go_int(plain)) {
      if (std::holds_alternative<std::int64_t>(*i)) return std::get<std::int64_t>(*i);
      return std::get<std::uint64_t>(*i);
    }
    if (const auto f = yaml_parse_go_float(plain)) return *f;
  }
  return text;
}

}  // namespace gpupool::api::detail
