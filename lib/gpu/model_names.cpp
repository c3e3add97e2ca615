#include "model_names.h"

#include <array>

#include "text.h"

namespace gpupool::gpu {

std::string name_key(std::string_view name) {
  std::string spaced;
  for (char c : text::lower(name)) {
    const bool separator = c == ' ' || c == '-' || c == '_' || c == '\t';
    if (separator) {
      if (!spaced.empty() && spaced.back() != ' ') spaced += ' ';
    } else {
      spaced += c;
    }
  }
  if (!spaced.empty() && spaced.back() == ' ') spaced.pop_back();

  static constexpr std::array<std::string_view, 4> kBrands = {"nvidia ", "amd ", "tesla ", "instinct "};
  std::string_view key = spaced;
  for (bool dropped = true; dropped;) {
    dropped = false;
    for (std::string_view brand : kBrands) {
      if (key.size() > brand.size() && key.substr(0, brand.size()) == brand) {
        key.remove_prefix(brand.size());
        dropped = true;
      }
    }
  }
  return std::string(key);
}

std::string short_name(const GpuModel& model) {
  constexpr std::string_view kPrefix = "NVIDIA ";
  std::string_view name = model.display_name;
  if (name.size() > kPrefix.size() && name.substr(0, kPrefix.size()) == kPrefix) name.remove_prefix(kPrefix.size());
  return std::string(name);
}

}  // namespace gpupool::gpu
