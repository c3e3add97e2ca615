// Ordering, description and bookkeeping shared by the MIG planner.
#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "mig_internal.h"
#include "text.h"

namespace gpupool::gpu::detail {

namespace {

// (compute, memory MiB) of a profile: the model's numbers when it knows the
// profile, else read from the name ("3g.40gb" -> 3, 40 GiB), else (0, 0).
std::pair<int, long long> size_of(const std::string& name, const GpuModel* model) {
  if (model != nullptr && model->mig) {
    if (const MigProfile* p = model->mig->profile(name)) return {p->compute_slices, p->memory_mib};
  }
  const auto g = name.find("g.");
  const auto gb = name.find("gb", g == std::string::npos ? 0 : g);
  if (g == std::string::npos || gb == std::string::npos) return {0, 0};
  const auto compute = text::parse_non_negative(std::string_view(name).substr(0, g));
  const auto memory = text::parse_non_negative(std::string_view(name).substr(g + 2, gb - g - 2));
  if (!compute || !memory) return {0, 0};
  return {*compute, static_cast<long long>(*memory) * 1024};
}

}  // namespace

SliceMask mask_of(int start, int size) {
  return ((SliceMask{1} << size) - 1) << start;
}

bool larger_first(const MigProfile& a, const MigProfile& b) {
  return std::tuple(-a.compute_slices, -a.memory_mib, -a.memory_slices, a.name) <
         std::tuple(-b.compute_slices, -b.memory_mib, -b.memory_slices, b.name);
}

std::vector<const MigProfile*> profiles_largest_first(const MigCapability& mig) {
  std::vector<const MigProfile*> out;
  for (const MigProfile& p : mig.profiles) out.push_back(&p);
  std::sort(out.begin(), out.end(), [](const MigProfile* a, const MigProfile* b) { return larger_first(*a, *b); });
  return out;
}

std::vector<std::pair<std::string, int>> largest_first(const ProfileCounts& counts, const GpuModel* model) {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& [name, count] : counts) {
    if (count != 0) out.emplace_back(name, count);
  }
  std::sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
    const auto [ca, ma] = size_of(a.first, model);
    const auto [cb, mb] = size_of(b.first, model);
    return std::tuple(-ca, -ma, a.first) < std::tuple(-cb, -mb, b.first);
  });
  return out;
}

std::string describe_counts(const ProfileCounts& counts, const GpuModel* model) {
  std::vector<std::string> terms;
  for (const auto& [name, count] : largest_first(counts, model)) {
    terms.push_back(count == 1 ? name : std::to_string(count) + " x " + name);
  }
  return terms.empty() ? "nothing" : text::join(terms, " + ");
}

const MigProfile& known_profile(const MigCapability& mig, const std::string& name) {
  const MigProfile* p = mig.profile(name);
  if (p == nullptr) throw std::logic_error("MIG planner: profile " + name + " was checked but is unknown");
  return *p;
}

void sort_layout(Layout& layout) {
  std::sort(layout.begin(), layout.end(), [](const PlacedInstance& a, const PlacedInstance& b) {
    return std::tie(a.start, a.profile, a.size) < std::tie(b.start, b.profile, b.size);
  });
}

ProfileCounts counts_of(const Layout& layout) {
  ProfileCounts counts;
  for (const PlacedInstance& i : layout) ++counts[i.profile];
  return counts;
}

}  // namespace gpupool::gpu::detail
