// date / date-time as kube-openapi's strfmt checks them, and DNS-1123 names as
// k8s.io/apimachinery/pkg/util/validation checks them.
#include <string>

#include "gpupool/schema/value_format.h"

namespace gpupool::schema {
namespace {

bool digits(std::string_view s, std::size_t from, std::size_t n) {
  if (from + n > s.size()) return false;
  for (std::size_t i = from; i < from + n; ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

int number(std::string_view s, std::size_t from, std::size_t n) {
  int v = 0;
  for (std::size_t i = from; i < from + n; ++i) v = v * 10 + (s[i] - '0');
  return v;
}

bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool is_label(std::string_view s) {
  if (s.empty() || !alnum(s.front()) || !alnum(s.back())) return false;
  for (const char c : s)
    if (!alnum(c) && c != '-') return false;
  return true;
}

}  // namespace

bool is_date(std::string_view s) {
  // time.Parse("2006-01-02", s)
  if (s.size() != 10 || !digits(s, 0, 4) || s[4] != '-' || !digits(s, 5, 2) || s[7] != '-' || !digits(s, 8, 2))
    return false;
  const int y = number(s, 0, 4);
  const int m = number(s, 5, 2);
  const int d = number(s, 8, 2);
  if (m < 1 || m > 12 || d < 1) return false;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return d <= kDays[m - 1] + (m == 2 && leap ? 1 : 0);
}

bool is_date_time(std::string_view s) {
  // strfmt.IsDateTime: lower-case, split at 't', a date, then
  // ^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$
  // with hours <= 23, minutes and seconds <= 59.
  if (s.size() < 4) return false;
  std::string lower(s);
  for (char& c : lower)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  const auto t = lower.find('t');
  if (t == std::string::npos || !is_date(std::string_view(lower).substr(0, t))) return false;
  std::string_view rest = std::string_view(lower).substr(t + 1);
  if (const auto t2 = rest.find('t'); t2 != std::string_view::npos) rest = rest.substr(0, t2);
  if (!digits(rest, 0, 2) || rest.size() < 8 || rest[2] != ':' || !digits(rest, 3, 2) || rest[5] != ':' ||
      !digits(rest, 6, 2))
    return false;
  if (number(rest, 0, 2) > 23 || number(rest, 3, 2) > 59 || number(rest, 6, 2) > 59) return false;
  std::size_t i = 8;
  if (i < rest.size() && rest[i] != 'z' && rest[i] != '+' && rest[i] != '-') {
    // (.[0-9]+): any one character, then digits
    ++i;
    const std::size_t start = i;
    while (i < rest.size() && rest[i] >= '0' && rest[i] <= '9') ++i;
    if (i == start) return false;
  }
  if (i >= rest.size()) return false;
  if (rest[i] == 'z') return i + 1 == rest.size();
  if (rest[i] != '+' && rest[i] != '-') return false;
  return rest.size() == i + 6 && digits(rest, i + 1, 2) && rest[i + 3] == ':' && digits(rest, i + 4, 2);
}

std::string dns1123_label_error(std::string_view s) {
  std::string out;
  if (s.size() > 63) out = "must be no more than 63 characters";
  if (!is_label(s)) {
    if (!out.empty()) out += "; ";
    out +=
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
        "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  }
  return out;
}

std::string dns1123_subdomain_error(std::string_view s) {
  std::string out;
  if (s.size() > 253) out = "must be no more than 253 characters";
  bool ok = !s.empty();
  std::size_t from = 0;
  while (ok) {
    const auto dot = s.find('.', from);
    ok = is_label(s.substr(from, dot == std::string_view::npos ? std::string_view::npos : dot - from));
    if (dot == std::string_view::npos) break;
    from = dot + 1;
  }
  if (!ok) {
    if (!out.empty()) out += "; ";
    out +=
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  }
  return out;
}

}  // namespace gpupool::schema
