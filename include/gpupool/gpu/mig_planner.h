// MIG planning: turning "which profiles, how many" into GPU-instance
// placements that the hardware accepts, changing an existing layout with as
// little destruction as possible, and listing every maximal layout of a model.
//
// Model: a GPU has `memory_slices` positions; an instance occupies
// [start, start + size) of them for one of its profile's placements, and no two
// instances overlap. Compute slices and per-profile max_count are checked too.
// This is the rule NVIDIA's placement tables (nvidia-smi mig -lgipp) express.
#pragma once

#include <map>
#include <string>
#include <variant>
#include <vector>

#include "gpupool/gpu/catalog.h"

namespace gpupool::gpu {

// profile name -> count, e.g. {"3g.40gb": 1, "2g.20gb": 1, "1g.10gb": 2}
using ProfileCounts = std::map<std::string, int>;

struct PlacedInstance {
  std::string profile;
  int start = 0;   // memory-slice index
  int size = 0;
  bool operator==(const PlacedInstance&) const = default;
};
using Layout = std::vector<PlacedInstance>;  // sorted by start

struct PlanError {
  // One sentence a user can act on, naming the model and the numbers:
  // "2 x 4g.40gb need 8 compute slices; A100-SXM4-80GB has 7",
  // "unknown profile 5g.40gb for A100-SXM4-80GB (known: 1g.10gb, ...)",
  // "3 x 3g.40gb exceed the maximum of 2 for A100-SXM4-80GB",
  // "no placement fits 4g.40gb + 3g.40gb + 1g.10gb on A100-SXM4-80GB: ...".
  std::string message;
};

template <typename T>
using PlanResult = std::variant<T, PlanError>;

// Parses "3g.40gb=1,2g.20gb=1,1g.10gb=2" (also "3g.40gb" = 1, and
// "1g.10gb=2,1g.10gb=1" adds up). Errors name the bad item.
PlanResult<ProfileCounts> parse_profile_counts(const std::string& text);

// A valid placement of exactly `wanted` on `model`, deterministic (the same
// answer for the same input), or why none exists. An empty request is the
// empty layout. A model without MIG is an error.
PlanResult<Layout> plan(const GpuModel& model, const ProfileCounts& wanted);

// Whether `layout` is valid on `model` (known profiles, allowed placements,
// no overlap, counts and slices within bounds); the error says what is wrong.
PlanResult<std::monostate> check_layout(const GpuModel& model, const Layout& layout);

struct LayoutChange {
  Layout keep;      // current instances left untouched
  Layout destroy;   // current instances to destroy
  Layout create;    // new instances (with placements) to create
  Layout result;    // keep + create, sorted: the layout after the change
};

// The smallest change from `current` (assumed valid) to a layout with exactly
// `wanted`: keeps as many current instances as any valid final layout allows
// (ties broken deterministically), destroys the rest, creates the missing.
PlanResult<LayoutChange> plan_change(const GpuModel& model, const Layout& current,
                                     const ProfileCounts& wanted);

// Every maximal valid layout of `model`: no further instance of any profile
// fits. Layouts are returned as profile counts (distinct multisets, sorted),
// each with one placement that realises it.
struct EnumeratedLayout {
  ProfileCounts counts;
  Layout placement;
};
std::vector<EnumeratedLayout> enumerate_maximal_layouts(const GpuModel& model);

// "3g.40gb=1,2g.20gb=1,1g.10gb=2": largest profile first, stable.
std::string format_profile_counts(const ProfileCounts& counts, const GpuModel* model = nullptr);

}  // namespace gpupool::gpu
