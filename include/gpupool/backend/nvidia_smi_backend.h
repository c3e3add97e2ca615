// The GPU backend that runs the nvidia-smi command (for nodes where loading
// NVML into the agent is not wanted, and as a cross-check of the NVML one).
// It implements backend.h's contract by running nvidia-smi without a shell,
// with the environment PATH=/usr/sbin:/usr/bin:/sbin:/bin and LC_ALL=C, and
// parsing its output (nvidia_smi_parse.h):
//
//   inventory()     nvidia-smi -q -x; when a GPU has MIG enabled also
//                   nvidia-smi mig -lgi, nvidia-smi mig -lci and nvidia-smi -L
//                   (profiles, placements, compute instances, MIG UUIDs);
//                   nvidia-smi topo -m for the links (a topo -m that fails
//                   leaves links empty: containers and vGPU guests refuse it).
//   metrics()       nvidia-smi --query-gpu=<nvsmi::kQueryGpuFields> --format=csv,noheader,nounits
//                   (kQueryGpuFieldsBeforeR535 when the driver calls a field
//                   "not a valid field to query"); when a GPU has MIG enabled
//                   also nvidia-smi -q -x for each MIG instance's memory.
//                   No energy (nvidia-smi offers none) and no MIG instance
//                   activity (nvidia-smi reports none).
//   processes()     nvidia-smi -q -x (<processes>; the GPU instance when on MIG)
//   wait_xid_events nvidia-smi cannot wait for XID events: it waits out the
//                   timeout (blocked, not polling) and returns none. Use the
//                   NVML backend where XIDs matter.
//   set_mig_mode    nvidia-smi -i N -mig 1|0; "pending" together with "reset",
//                   "reboot" or "In use by another client" in its output is
//                   MigModeChange::reset_required (whatever its exit status).
//   create          nvidia-smi --query-gpu=... -i N (the model, for the profile id),
//                   nvidia-smi mig -i N -cgi <profileId>:<placement> -C, then
//                   inventory() to return the instance as the driver made it.
//   destroy         nvidia-smi mig -i N -gi G -dci (a "not found" answer means
//                   there was no compute instance), then nvidia-smi mig -i N -gi G -dgi
//   set_amd_partition  throws BackendError("not-supported").
//
// Errors (all BackendError): a command that exits non-zero: code "exit N",
// message naming the command and its stderr (else stdout); killed at the
// timeout: "timeout"; cannot be started: "not-found"; output that does not
// parse: "parse" (message with the parser's where/what); an unknown GPU index:
// "not-found"; a profile the GPU's model lacks or a placement it does not
// allow: "NVML_ERROR_INVALID_ARGUMENT" (checked before running anything).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "gpupool/backend/backend.h"
#include "gpupool/gpu/catalog.h"

namespace gpupool::backend {

struct NvidiaSmiOptions {
  // The executable; empty: "nvidia-smi" found in $PATH when the backend is
  // made (calls then throw BackendError "not-found" if there is none).
  std::string nvidia_smi_path;
  // The model catalog; nullptr: gpu::Catalog::builtin(). Must outlive the backend.
  const gpu::Catalog* catalog = nullptr;
  // Each nvidia-smi run is killed (with its process group) after this long.
  std::chrono::milliseconds timeout{30000};
};

// Never throws for a missing nvidia-smi; the calls do. name() is "nvidia-smi".
std::unique_ptr<GpuBackend> make_nvidia_smi_backend(const NvidiaSmiOptions& options);

}  // namespace gpupool::backend
