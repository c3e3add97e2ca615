// Private to lib/pool: node names in messages, at most `at_most` of them
// ("a, b, c, and 7 more"), so a 5,000-node rollout's status stays readable.
#pragma once

#include <string>
#include <vector>

namespace gpupool::pool {

inline std::string name_list(const std::vector<std::string>& names, std::size_t at_most = 10) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < at_most; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > at_most) out += ", and " + std::to_string(names.size() - at_most) + " more";
  return out;
}

}  // namespace gpupool::pool
