// The MIG profile name grammar, rule for rule as go-nvlib's parseMigProfile
// (the parser mig-parted validates its files with).
#include "gpupool/gpu/mig_profile_name.h"

#include <algorithm>
#include <optional>

#include "text.h"

namespace gpupool::gpu {
namespace {

using Result = std::variant<MigProfileName, std::string>;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// "<n><unit>" ("3g", "40gb"); nullopt with `why` set otherwise.
std::optional<int> field(std::string_view s, std::string_view unit, std::string& why) {
  const std::string shape = "'<n>" + std::string(unit) + "'";
  if (!s.empty() && (is_space(s.front()) || is_space(s.back()))) {
    why = "leading or trailing spaces in " + shape;
    return std::nullopt;
  }
  if (s.size() < unit.size() || s.substr(s.size() - unit.size()) != unit) {
    why = "expected " + shape + ", got \"" + std::string(s) + "\"";
    return std::nullopt;
  }
  const auto n = text::parse_non_negative(s.substr(0, s.size() - unit.size()));
  if (!n) why = "malformed number in " + shape + " (\"" + std::string(s) + "\")";
  return n;
}

// "me", "me.all,gfx": each attribute once, letters/digits/inner dots, no leading digit.
std::variant<std::vector<std::string>, std::string> attributes(std::string_view s) {
  std::vector<std::string> out;
  while (true) {
    const auto comma = s.find(',');
    const std::string a(s.substr(0, comma));
    const std::string quoted = "attribute \"" + a + "\"";
    if (std::find(out.begin(), out.end(), a) != out.end()) return quoted + " appears twice";
    if (a.empty()) return std::string("empty attribute");
    if (is_space(a.front()) || is_space(a.back())) return quoted + " has leading or trailing spaces";
    if (a.front() >= '0' && a.front() <= '9') return quoted + " begins with a digit";
    if (a.front() == '.' || a.back() == '.') return quoted + " begins or ends with a dot";
    for (char c : a) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.';
      if (!ok) return quoted + " has a character other than letters, digits and '.'";
    }
    out.push_back(a);
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::string MigProfileName::canonical() const {
  std::string out = is_gpu_instance() ? "" : std::to_string(compute_slices) + "c.";
  out += std::to_string(gpu_slices) + "g." + std::to_string(memory_gb) + "gb";
  const auto suffix = [&out](char sign, const std::vector<std::string>& attrs) {
    if (attrs.empty()) return;
    out += sign;
    out += text::join(attrs, ",");
  };
  suffix('+', attributes);
  suffix('-', excluded_attributes);
  return out;
}

Result parse_mig_profile_name(std::string_view name) {
  if (name.empty()) return std::string("is empty");
  const auto plus = name.find('+');
  const auto minus = name.find('-');
  if (plus != std::string_view::npos && minus != std::string_view::npos) {
    return std::string("has both '+' and '-' attributes");
  }
  const auto sign = plus != std::string_view::npos ? plus : minus;
  const std::string_view fields = name.substr(0, sign);

  // Split on the first two dots, as strings.SplitN(fields, ".", 3).
  std::vector<std::string_view> parts;
  std::string_view rest = fields;
  while (parts.size() < 2) {
    const auto dot = rest.find('.');
    if (dot == std::string_view::npos) break;
    parts.push_back(rest.substr(0, dot));
    rest.remove_prefix(dot + 1);
  }
  parts.push_back(rest);
  if (parts.size() < 2) return std::string("expected <g>g.<gb>gb or <c>c.<g>g.<gb>gb before the attributes");

  MigProfileName out;
  std::string why;
  const bool with_c = parts.size() == 3;
  const auto c = with_c ? field(parts[0], "c", why) : std::optional<int>(0);
  if (!c) return why;
  const auto g = field(parts[with_c ? 1 : 0], "g", why);
  if (!g) return why;
  const auto gb = field(parts[with_c ? 2 : 1], "gb", why);
  if (!gb) return why;
  out.compute_slices = with_c ? *c : *g;
  out.gpu_slices = *g;
  out.memory_gb = *gb;
  if (sign == std::string_view::npos) return out;

  auto attrs = attributes(name.substr(sign + 1));
  if (const auto* err = std::get_if<std::string>(&attrs)) return *err;
  (plus != std::string_view::npos ? out.attributes : out.excluded_attributes) =
      std::move(std::get<std::vector<std::string>>(attrs));
  return out;
}

}  // namespace gpupool::gpu
