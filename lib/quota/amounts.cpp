#include "gpupool/quota/amounts.h"

#include <cstdlib>

namespace gpupool::quota {

std::int64_t grain(std::string_view resource) { return resource == kGpuUnit ? kMicro / 1000 : kMicro; }

std::string format_amount(std::int64_t micro) {
  const bool negative = micro < 0;
  const std::uint64_t m = negative ? 0 - static_cast<std::uint64_t>(micro) : static_cast<std::uint64_t>(micro);
  std::string out = (negative ? "-" : "") + std::to_string(m / kMicro);
  std::uint64_t fraction = m % kMicro;
  if (fraction == 0) return out;
  std::string digits = std::to_string(fraction);
  digits.insert(0, 6 - digits.size(), '0');
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  return out + "." + digits;
}

Amounts add(const Amounts& a, const Amounts& b) {
  Amounts out = a;
  for (const auto& [r, v] : b) out[r] += v;
  for (auto it = out.begin(); it != out.end();) it = it->second == 0 ? out.erase(it) : std::next(it);
  return out;
}

Amounts above(const Amounts& a, const Amounts& b) {
  Amounts out;
  for (const auto& [r, v] : a) {
    const auto it = b.find(r);
    if (const std::int64_t over = v - (it == b.end() ? 0 : it->second); over > 0) out[r] = over;
  }
  return out;
}

bool fits_within(const Amounts& a, const Amounts& b) {
  for (const auto& [r, v] : a) {
    auto it = b.find(r);
    if (v > (it == b.end() ? 0 : it->second)) return false;
  }
  return true;
}

}  // namespace gpupool::quota
