// Go's shortest 'g' formatting of floats, strconv.FormatFloat(v, 'g', -1, bits),
// which fmt's %v uses too. With the shortest digits Go picks %e when the
// decimal exponent is < -4 or >= 6 (strconv/ftoa.go: "if shortest { eprec = 6 }"),
// so 1000000 prints as 1e+06 and 123456789 as 1.23456789e+08; the exponent
// has at least two digits.
#include <charconv>
#include <cmath>
#include <string>

#include "gpupool/api/yaml_json.h"

namespace gpupool::api {

std::string go_format_float(double v, int bits) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  const std::to_chars_result r =
      bits == 32 ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v), std::chars_format::scientific)
                 : std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, r.ptr);  // "-1.2345e+06"
  std::string sign;
  if (!sci.empty() && sci[0] == '-') {
    sign = "-";
    sci.erase(0, 1);
  }
  const std::size_t e = sci.find('e');
  if (e == std::string::npos) return sign + sci;
  std::string digits = sci.substr(0, e);
  if (digits.size() > 1) digits.erase(1, 1);  // drop the '.'
  const int exp = std::stoi(sci.substr(e + 1));
  if (digits == "0") return sign + "0";
  const auto nd = static_cast<int>(digits.size());
  if (exp < -4 || exp >= 6) {
    std::string m = digits.substr(0, 1);
    if (nd > 1) m += "." + digits.substr(1);
    std::string es = std::to_string(exp < 0 ? -exp : exp);
    if (es.size() < 2) es = "0" + es;
    return sign + m + "e" + (exp < 0 ? "-" : "+") + es;
  }
  if (exp < 0) return sign + "0." + std::string(static_cast<std::size_t>(-exp - 1), '0') + digits;
  const auto whole = static_cast<std::size_t>(exp + 1);
  if (digits.size() <= whole) return sign + digits + std::string(whole - digits.size(), '0');
  return sign + digits.substr(0, whole) + "." + digits.substr(whole);
}

}  // namespace gpupool::api
