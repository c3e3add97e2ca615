// The mig-parted half of resolve_named_layout (named_layouts_parted.cpp).
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "gpupool/gpu/named_layouts.h"

namespace gpupool::gpu::detail {

// The layout config `name` (entries as read) gives `target`, a GPU of `model`.
std::variant<NamedLayout, PlanError> resolve_parted_config(const std::string& name,
                                                           const std::vector<MigPartedEntry>& entries,
                                                           const GpuModel& model, const LayoutTarget& target);

}  // namespace gpupool::gpu::detail
