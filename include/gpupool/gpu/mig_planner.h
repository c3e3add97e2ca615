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
  // One sentence a user can act on, naming the model (display name without
  // "NVIDIA ") and the numbers. A request reads "2 x 4g.40gb" or
  // "4g.40gb + 3g.40gb + 1g.10gb" (largest profile first). plan() checks, in order:
  // "Tesla T4 does not support MIG",
  // "count of 1g.10gb is negative (-1)",
  // "unknown profile 5g.40gb for A100-SXM4-80GB (known: 1g.10gb, 1g.10gb+me, ...)"
  //   ("unknown profiles a, b for ..." for several),
  // "2 x 4g.40gb need 8 compute slices; A100-SXM4-80GB has 7",
  // "4g.40gb + 2 x 1g.20gb + 1g.10gb need 9 memory slices; A100-SXM4-80GB has 8",
  // "5 x 1g.20gb exceed the maximum of 4 for A100-SXM4-80GB",
  // "no placement fits 2g.10gb + 2 x 1g.5gb on X: at most 2 of the 3 instances
  //   fit together, e.g. 2g.10gb + 1g.5gb (memory slices where each may start: ...)".
  std::string message;
};

template <typename T>
using PlanResult = std::variant<T, PlanError>;

// Parses "3g.40gb=1,2g.20gb=1,1g.10gb=2" (also "3g.40gb" = 1, and
// "1g.10gb=2,1g.10gb=1" adds up; spaces around items, names and counts are
// fine; "=0" is allowed and leaves the profile out; "" is the empty request).
// Errors name the bad item: an empty item, a missing name, a count that is
// not a non-negative integer, a total above 1000.
PlanResult<ProfileCounts> parse_profile_counts(const std::string& text);

// A valid placement of exactly `wanted` on `model`, deterministic (the same
// answer for the same input), or why none exists. An empty request is the
// empty layout. A model without MIG is an error.
PlanResult<Layout> plan(const GpuModel& model, const ProfileCounts& wanted);

// Whether `layout` is valid on `model` (known profiles, allowed placements,
// no overlap, counts and slices within bounds); the error says what is wrong,
// naming instances by their index in `layout`:
// "instance 0: 2g.10gb cannot start at memory slice 6 on A100-SXM4-40GB (allowed: 0, 2, 4)",
// "instances 1 (3g.20gb at memory slices 0-3) and 2 (2g.10gb at memory slices 2-3) overlap".
PlanResult<std::monostate> check_layout(const GpuModel& model, const Layout& layout);

struct LayoutChange {
  Layout keep;      // current instances left untouched
  Layout destroy;   // current instances to destroy
  Layout create;    // new instances (with placements) to create
  Layout result;    // keep + create, sorted: the layout after the change
};

// The smallest change from `current` to a layout with exactly `wanted`: keeps
// as many current instances as any valid final layout allows, destroys the
// rest, creates the missing. Ties: of the subsets of `current` (sorted by
// start) of the largest size, the lexicographically first that works; the
// missing instances are placed as plan() would around the kept ones. The
// order of `current` does not matter. Errors: plan()'s for `wanted`, or
// "the current layout is invalid: <check_layout's message>".
PlanResult<LayoutChange> plan_change(const GpuModel& model, const Layout& current,
                                     const ProfileCounts& wanted);

// Every maximal valid layout of `model`: no further instance of any profile
// fits, in any arrangement (counts that fit only when placed badly are left
// out). Layouts are returned as profile counts (distinct multisets, largest
// profiles first: 7g.40gb before 1g.5gb x 7), each with one placement that
// realises it (sorted by start). Empty for a model without MIG.
struct EnumeratedLayout {
  ProfileCounts counts;
  Layout placement;
};
std::vector<EnumeratedLayout> enumerate_maximal_layouts(const GpuModel& model);

// "3g.40gb=1,2g.20gb=1,1g.10gb=2": larger compute first, then larger memory,
// then name; the model's numbers for profiles it has, else those in the name
// ("3g.40gb": 3 compute, 40 GB); names of neither kind last. Zero counts are
// left out; parse_profile_counts reads the result back.
std::string format_profile_counts(const ProfileCounts& counts, const GpuModel* model = nullptr);

}  // namespace gpupool::gpu
