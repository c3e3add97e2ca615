// "3g.40gb=1,2g.20gb=1,1g.10gb=2" <-> ProfileCounts.
#include "gpupool/gpu/mig_planner.h"
#include "mig_internal.h"
#include "text.h"

namespace gpupool::gpu {

namespace {

bool valid_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '+' || c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

PlanResult<ProfileCounts> parse_profile_counts(const std::string& text) {
  ProfileCounts counts;
  if (text::trim(text).empty()) return counts;
  std::string_view rest = text;
  for (int index = 1;; ++index) {
    const auto comma = rest.find(',');
    const std::string_view raw = rest.substr(0, comma);
    const std::string_view item = text::trim(raw);
    const std::string where = "item " + std::to_string(index) + " (\"" + std::string(item) + "\")";
    if (item.empty()) return PlanError{"item " + std::to_string(index) + " of \"" + text + "\" is empty"};
    const auto eq = item.find('=');
    const std::string_view name = text::trim(item.substr(0, eq));
    if (name.empty()) return PlanError{where + ": missing profile name before '='"};
    if (!valid_name(name)) return PlanError{where + ": \"" + std::string(name) + "\" is not a profile name"};
    int count = 1;
    if (eq != std::string_view::npos) {
      const auto parsed = text::parse_non_negative(text::trim(item.substr(eq + 1)));
      if (!parsed) return PlanError{where + ": count must be a non-negative integer"};
      count = *parsed;
    }
    int& total = counts[std::string(name)];
    if (total > 1000 - count) return PlanError{where + ": count is too large"};
    total += count;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  for (auto it = counts.begin(); it != counts.end();) {
    it = it->second == 0 ? counts.erase(it) : std::next(it);
  }
  return counts;
}

std::string format_profile_counts(const ProfileCounts& counts, const GpuModel* model) {
  std::vector<std::string> items;
  for (const auto& [name, count] : detail::largest_first(counts, model)) items.push_back(name + "=" + std::to_string(count));
  return text::join(items, ",");
}

}  // namespace gpupool::gpu
