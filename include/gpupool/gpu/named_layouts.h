// Named MIG layouts a GPUPool may ask for by name (spec.partitioning.nvidia.layout),
// resolved per GPU model:
//   all-disabled     MIG off
//   all-enabled      MIG on, no instances
//   all-<profile>    as many instances of <profile> as fit ("all-1g.10gb");
//                    attributes may be written with '.' for '+', as NVIDIA's
//                    mig-parted config names them ("all-1g.24gb.gfx" is
//                    all-1g.24gb+gfx, "all-1g.24gb.me.all" all-1g.24gb+me.all)
//   all-balanced     a mix of small, medium and large instances, as NVIDIA's
//                    mig-parted default config defines it: 2 x 1g + 1 x 2g +
//                    1 x 3g on 7-slice GPUs, 2 x 1g + 1 x 2g on 4-slice GPUs
//                    (plain profiles: no +me, +gfx or -me)
// plus the configs of a user's mig-parted file (gpu/mig_parted.h), which take
// precedence over the built-in names.
#pragma once

#include <cstdint>
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
  // Per GPU, by the model's own profile names ("3c.3g.40gb" in a mig-parted
  // file comes back as "3g.40gb"; counts of two spellings of one profile add
  // up; zero counts are left out); empty when MIG is off or on without instances.
  ProfileCounts counts;
};

// Which GPU of a node a layout is resolved for. mig-parted applies every
// entry whose `devices` include the GPU's index and whose device-filter
// admits its PCI ids, in file order, so the last such entry is the one that
// stays; this resolution does the same.
struct LayoutTarget {
  int gpu_index = 0;
  // The GPU's PCI device id as it reports it (0x2BB5). Unset: the filter
  // admits the model when it lists any of the model's ids.
  std::optional<std::uint16_t> pci_device_id;
  // The GPU's PCI subsystem id (subsystem device << 16 | subsystem vendor).
  // A filter with a subsystem admits only a GPU whose subsystem is known and equal.
  std::optional<std::uint32_t> pci_subsystem_id;
};

// Whether `name` is a layout name at all: a built-in form, or a config of
// `parted`, readable or not.
bool is_layout_name(std::string_view name, const MigPartedConfig* parted);

// The layout `name` gives `target` (a GPU of `model`), or why it gives none;
// every message starts with the layout name:
//   "all-5g.40gb: A100-SXM4-80GB has no profile 5g.40gb"
//   "custom: the mig-parted config cannot be read: mig-parted config f.yaml: mig-configs.custom[0]...: ..."
//   "all-balanced: no entry of this mig-parted config applies to GPU 0 (A100-SXM4-80GB, PCI 0x20B2)"
//   "all-1g.24gb.gfx: A100-SXM4-80GB has no profile 1g.24gb+gfx (mig-configs.all-1g.24gb.gfx[0])"
//   "mixed: 1c.3g.40gb is a compute-instance profile; gpupool creates one compute instance per GPU instance"
//   "all-enabled: Tesla T4 does not support MIG"
// A mig-parted config's counts are not planned here: plan() says whether they fit.
std::variant<NamedLayout, PlanError> resolve_named_layout(std::string_view name, const GpuModel& model,
                                                          const MigPartedConfig* parted,
                                                          const LayoutTarget& target = {});

}  // namespace gpupool::gpu
