// A one-shot, read-only report of a node's GPUs as the agent sees them: what
// `gpupool-agent --print-gpus` prints. For a person checking a backend on a
// real node (a new driver, a new GPU model, a vendor tool's new output)
// without a cluster or a GPUNode: the GPUNode status the agent would write,
// the Node labels and extended resources it would set, the processes on the
// GPUs, and the metrics it would export.
//
// Only the backend's read-only calls are made (inventory, metrics, processes,
// wait_xid_events): nothing on the GPUs changes. A failing call is reported
// in its section with the backend's error code, and the other sections are
// still read, so one call a driver does not support hides nothing else.
#pragma once

#include <chrono>
#include <string>

#include "gpupool/backend/backend.h"
#include "gpupool/gpu/catalog.h"

namespace gpupool::node {

struct GpuReportOptions {
  std::string node_name;                   // the hostname label of the metrics
  const gpu::Catalog* catalog = nullptr;   // for catalog ids, labels and resources; nullptr: none
  // Metrics are read twice this far apart, and the second reading reported:
  // NVML's per-MIG-instance rates (GPM) need two readings.
  std::chrono::milliseconds metrics_gap{1000};
  std::chrono::milliseconds xid_wait{0};   // how long to wait for XID events
};

struct GpuReport {
  std::string text;
  int failed_calls = 0;  // backend calls that threw BackendError
  bool inventory_read = false;
};

GpuReport gpu_report(backend::GpuBackend& backend, const GpuReportOptions& options);

}  // namespace gpupool::node
