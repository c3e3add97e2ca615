// The checks that need no search: a request's sums (check_request) and a
// concrete layout (check_layout).
#include <algorithm>
#include <tuple>

#include "mig_internal.h"
#include "model_names.h"
#include "text.h"

namespace gpupool::gpu {

namespace {

std::string known_profiles(const MigCapability& mig) {
  // Smallest first reads best in a list: 1g.10gb, 1g.10gb+me, 1g.20gb, ...
  std::vector<const MigProfile*> ordered;
  for (const MigProfile& p : mig.profiles) ordered.push_back(&p);
  std::sort(ordered.begin(), ordered.end(), [](const MigProfile* a, const MigProfile* b) {
    return std::tuple(a->compute_slices, a->memory_mib, a->memory_slices, a->name) <
           std::tuple(b->compute_slices, b->memory_mib, b->memory_slices, b->name);
  });
  std::vector<std::string> names;
  for (const MigProfile* p : ordered) names.push_back(p->name);
  return text::join(names, ", ");
}

PlanError no_mig(const GpuModel& model) { return {short_name(model) + " does not support MIG"}; }

// Compute and memory slices first (the fundamental limit, and the clearer
// message: "2 x 4g.40gb need 8 compute slices; A100-SXM4-80GB has 7"), then
// each profile's max count, of counts of known profiles.
std::optional<PlanError> check_sums(const GpuModel& model, const ProfileCounts& counts) {
  const MigCapability& mig = *model.mig;
  int compute = 0;
  int memory = 0;
  const auto ordered = detail::largest_first(counts, &model);
  for (const auto& [name, count] : ordered) {
    const MigProfile& p = detail::known_profile(mig, name);
    compute += count * p.compute_slices;
    memory += count * p.memory_slices;
  }
  const std::string what = detail::describe_counts(counts, &model);
  if (compute > mig.compute_slices) {
    return PlanError{what + " need " + std::to_string(compute) + " compute slices; " + short_name(model) + " has " +
                     std::to_string(mig.compute_slices)};
  }
  if (memory > mig.memory_slices) {
    return PlanError{what + " need " + std::to_string(memory) + " memory slices; " + short_name(model) + " has " +
                     std::to_string(mig.memory_slices)};
  }
  std::vector<std::string> with_media;
  int media = 0;
  for (const auto& [name, count] : ordered) {
    const MigProfile& p = detail::known_profile(mig, name);
    if (count > p.max_count) {
      return PlanError{std::to_string(count) + " x " + name + " exceed the maximum of " + std::to_string(p.max_count) +
                       " for " + short_name(model)};
    }
    if (p.media_extensions && count > 0) {
      media += count;
      with_media.push_back(count == 1 ? name : std::to_string(count) + " x " + name);
    }
  }
  if (media > 1) {
    return PlanError{text::join(with_media, " + ") + " would hold the media extensions " + std::to_string(media) +
                     " times; " + short_name(model) + " has one set, so at most one instance per GPU may be +me or +me.all"};
  }
  return std::nullopt;
}

std::string slices(int start, int size) {
  return size == 1 ? "memory slice " + std::to_string(start)
                   : "memory slices " + std::to_string(start) + "-" + std::to_string(start + size - 1);
}

std::string starts_of(const MigProfile& p) {
  std::vector<std::string> starts;
  for (const MigPlacement& pl : p.placements) starts.push_back(std::to_string(pl.start));
  return text::join(starts, ", ");
}

}  // namespace

namespace detail {

std::optional<PlanError> check_request(const GpuModel& model, const ProfileCounts& wanted) {
  if (!model.mig) return no_mig(model);
  std::vector<std::string> unknown;
  for (const auto& [name, count] : wanted) {
    if (count < 0) return PlanError{"count of " + name + " is negative (" + std::to_string(count) + ")"};
    if (count > 0 && model.mig->profile(name) == nullptr) unknown.push_back(name);
  }
  if (!unknown.empty()) {
    return PlanError{(unknown.size() == 1 ? "unknown profile " : "unknown profiles ") + text::join(unknown, ", ") +
                     " for " + short_name(model) + " (known: " + known_profiles(*model.mig) + ")"};
  }
  return check_sums(model, wanted);
}

}  // namespace detail

PlanResult<std::monostate> check_layout(const GpuModel& model, const Layout& layout) {
  if (!model.mig) return no_mig(model);
  const MigCapability& mig = *model.mig;
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const PlacedInstance& inst = layout[i];
    const std::string where = "instance " + std::to_string(i) + ": ";
    const MigProfile* p = mig.profile(inst.profile);
    if (p == nullptr) {
      return PlanError{where + "unknown profile " + inst.profile + " for " + short_name(model) +
                       " (known: " + known_profiles(mig) + ")"};
    }
    if (inst.size != p->memory_slices) {
      return PlanError{where + inst.profile + " occupies " + std::to_string(p->memory_slices) + " memory slices, not " +
                       std::to_string(inst.size)};
    }
    const bool allowed = std::any_of(p->placements.begin(), p->placements.end(), [&](const MigPlacement& pl) {
      return pl.start == inst.start && pl.size == inst.size;
    });
    if (!allowed) {
      return PlanError{where + inst.profile + " cannot start at memory slice " + std::to_string(inst.start) + " on " +
                       short_name(model) + " (allowed: " + starts_of(*p) + ")"};
    }
  }
  for (std::size_t j = 1; j < layout.size(); ++j) {
    for (std::size_t i = 0; i < j; ++i) {
      const PlacedInstance& a = layout[i];
      const PlacedInstance& b = layout[j];
      if (a.start < b.start + b.size && b.start < a.start + a.size) {
        return PlanError{"instances " + std::to_string(i) + " (" + a.profile + " at " + slices(a.start, a.size) +
                         ") and " + std::to_string(j) + " (" + b.profile + " at " + slices(b.start, b.size) +
                         ") overlap"};
      }
    }
  }
  if (auto error = check_sums(model, detail::counts_of(layout))) return *error;
  return std::monostate{};
}

}  // namespace gpupool::gpu
