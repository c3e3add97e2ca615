// plan_change(): from the current layout to `wanted`, destroying as few
// instances as possible.
#include <algorithm>

#include "mig_internal.h"

namespace gpupool::gpu {

namespace {

// Calls `visit(indexes)` for every k-subset of 0..n-1 in lexicographic order
// until it returns true; returns whether one did.
template <typename Visit>
bool for_each_subset(int n, int k, Visit&& visit) {
  std::vector<int> idx(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) idx[static_cast<std::size_t>(i)] = i;
  while (true) {
    if (visit(idx)) return true;
    int i = k - 1;
    while (i >= 0 && idx[static_cast<std::size_t>(i)] == n - k + i) --i;
    if (i < 0) return false;
    ++idx[static_cast<std::size_t>(i)];
    for (int j = i + 1; j < k; ++j) idx[static_cast<std::size_t>(j)] = idx[static_cast<std::size_t>(j - 1)] + 1;
  }
}

// Keeping `keep` (part of the current layout), the rest of `wanted` placed
// around it, or nullopt.
std::optional<LayoutChange> try_keep(const MigCapability& mig, const Layout& current, const std::vector<int>& keep,
                                     const ProfileCounts& wanted) {
  LayoutChange change;
  ProfileCounts missing = wanted;
  detail::SliceMask used = 0;
  std::vector<bool> kept(current.size(), false);
  for (int i : keep) {
    const PlacedInstance& inst = current[static_cast<std::size_t>(i)];
    if (--missing[inst.profile] < 0) return std::nullopt;  // more of this profile than wanted
    used |= detail::mask_of(inst.start, inst.size);
    kept[static_cast<std::size_t>(i)] = true;
  }
  auto created = detail::place(mig, missing, used);
  if (!created) return std::nullopt;
  for (std::size_t i = 0; i < current.size(); ++i) (kept[i] ? change.keep : change.destroy).push_back(current[i]);
  change.create = std::move(*created);
  change.result = change.keep;
  change.result.insert(change.result.end(), change.create.begin(), change.create.end());
  detail::sort_layout(change.result);
  return change;
}

}  // namespace

PlanResult<LayoutChange> plan_change(const GpuModel& model, const Layout& current, const ProfileCounts& wanted) {
  const auto target = plan(model, wanted);
  if (const auto* error = std::get_if<PlanError>(&target)) return *error;
  if (const auto checked = check_layout(model, current); std::holds_alternative<PlanError>(checked)) {
    return PlanError{"the current layout is invalid: " + std::get<PlanError>(checked).message};
  }
  Layout sorted = current;
  detail::sort_layout(sorted);

  // No final layout keeps more of a profile than is wanted.
  int most = 0;
  for (const auto& [name, count] : detail::counts_of(sorted)) {
    const auto it = wanted.find(name);
    most += std::min(count, it == wanted.end() ? 0 : it->second);
  }
  const int n = static_cast<int>(sorted.size());
  for (int k = most; k >= 0; --k) {
    std::optional<LayoutChange> found;
    for_each_subset(n, k, [&](const std::vector<int>& keep) {
      found = try_keep(*model.mig, sorted, keep, wanted);
      return found.has_value();
    });
    if (found) return *found;
  }
  // Unreachable: keeping nothing is plan(wanted), which succeeded.
  return PlanError{"no change found from the current layout"};
}

}  // namespace gpupool::gpu
