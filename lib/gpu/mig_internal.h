// Pieces shared by the MIG planner's entry points (plan, check_layout,
// plan_change, enumerate_maximal_layouts).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/gpu/mig_planner.h"

namespace gpupool::gpu::detail {

// Memory slices in use, one bit each (a catalog has at most 16).
using SliceMask = std::uint32_t;
SliceMask mask_of(int start, int size);

// Larger compute first, then larger memory, then name: the order of messages,
// format_profile_counts and the placement search.
bool larger_first(const MigProfile& a, const MigProfile& b);
std::vector<const MigProfile*> profiles_largest_first(const MigCapability& mig);

// The non-zero counts, largest profile first (the model's numbers for the
// profiles it knows; otherwise read from the name: "3g.40gb" = 3 compute, 40 GiB).
std::vector<std::pair<std::string, int>> largest_first(const ProfileCounts& counts, const GpuModel* model);

// "2 x 4g.40gb", "4g.40gb + 3g.40gb + 1g.10gb" (largest first, zero counts left out).
std::string describe_counts(const ProfileCounts& counts, const GpuModel* model);

// A profile the caller knows the model has (throws std::logic_error otherwise).
const MigProfile& known_profile(const MigCapability& mig, const std::string& name);

// Sorts by start, then profile name.
void sort_layout(Layout& layout);

// Counts per profile of a layout.
ProfileCounts counts_of(const Layout& layout);

// The checks of plan() that need no placement: MIG support, counts >= 0,
// known profiles, max counts, compute and memory slices.
std::optional<PlanError> check_request(const GpuModel& model, const ProfileCounts& wanted);

// Places `wanted` (already checked by check_request) into the slices free in
// `occupied`: profiles largest first, lowest start first, backtracking.
std::optional<Layout> place(const MigCapability& mig, const ProfileCounts& wanted, SliceMask occupied);

// Why `wanted` does not fit though its sums do (the text after "no placement fits ...: ").
std::string why_no_placement(const GpuModel& model, const ProfileCounts& wanted);

}  // namespace gpupool::gpu::detail
