// The part of GPUNode status that is a plain report of the hardware: every
// GPU, the driver, the interconnect. The agent writes it on every pass; the
// operations and conditions it keeps itself.
#pragma once

#include "gpupool/api/gpunode.h"
#include "gpupool/backend/backend.h"

namespace gpupool::node {

// Replaces gpuCount, gpus, driverVersion, cudaVersion and interconnect of
// `status` with what `inventory` says; leaves everything else.
// MIG mode: NotSupported on GPUs without MIG, Pending while the pending mode
// differs from the current one, else Enabled/Disabled. Health is left Unknown
// (the health checks fill it).
void fill_observed(api::GPUNodeStatus& status, const backend::Inventory& inventory);

// Equal but for lastHeartbeatTime: whether a write would tell anything new.
bool same_report(const api::GPUNodeStatus& a, const api::GPUNodeStatus& b);

}  // namespace gpupool::node
