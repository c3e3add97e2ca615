#include "gpupool/common/short_hash.h"

#include <cstdint>
#include <cstdio>

namespace gpupool::common {

std::string short_hash(std::string_view text, std::size_t digits) {
  std::uint64_t h = 14695981039346656037ULL;  // the FNV-1a 64-bit offset basis
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return std::string(buf, digits > 16 ? 16 : (digits == 0 ? 1 : digits));
}

}  // namespace gpupool::common
