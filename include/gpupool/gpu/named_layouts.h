// Named MIG layouts a GPUPool may ask for by name (spec.partitioning.nvidia.layout),
// resolved per GPU model:
//   all-disabled     MIG off
//   all-enabled      MIG on, no instances
//   all-<profile>    as many instances of <profile> as fit ("all-1g.10gb")
//   all-balanced     a mix of small, medium and large instances, as NVIDIA's
//                    mig-parted default config defines it: 2 x 1g + 1 x 2g +
//                    1 x 3g on 7-slice GPUs, 2 x 1g + 1 x 2g on 4-slice GPUs
// plus the configs of a user's mig-parted file (gpu/mig_parted.h), whose
// entries apply to a model when their device-filter allows its PCI id.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "gpupool/gpu/catalog.h"
#include "gpupool/gpu/mig_parted.h"
#include "gpupool/gpu/mig_planner.h"

namespace gpupool::gpu {

struct NamedLayout {
  bool mig_enabled = false;
  ProfileCounts counts;  // per GPU; empty when MIG is off or on without instances
};

// Whether `name` is a layout name at all (built-in form or a config of `parted`).
bool is_layout_name(std::string_view name, const MigPartedConfig* parted);

// The layout `name` gives a GPU of `model`, or why it gives none ("all-5g.40gb:
// A100-SXM4-80GB has no profile 5g.40gb"). A mig-parted config is read for
// GPU 0 of the node (the entry that covers all devices or device 0) and must
// have an entry whose device-filter admits the model.
std::variant<NamedLayout, PlanError> resolve_named_layout(std::string_view name, const GpuModel& model,
                                                          const MigPartedConfig* parted);

}  // namespace gpupool::gpu
