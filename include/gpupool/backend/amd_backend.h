// The GpuBackend of AMD GPUs, through AMD's command-line tools: amd-smi
// (preferred), or rocm-smi on nodes that only have it. Each call runs the
// tool (no shell, stdin /dev/null, the agent's PATH / LD_LIBRARY_PATH /
// PYTHONPATH / HOME passed on) and parses its JSON with amd_parse.h.
//
// Commands, with N the GPU index as amd-smi numbers it:
//   inventory()   amd-smi static --json; amd-smi list --json (UUIDs)
//                 rocm-smi --showid --showproductname --showbus --showmeminfo vram
//                          --showuniqueid --showdriverversion --showcomputepartition
//                          --showmemorypartition --json
//   metrics()     amd-smi metric --json
//                 rocm-smi --showtemp --showpower --showuse --showmeminfo vram --json
//   processes()   amd-smi process --json (rocm-smi: BackendError "not-supported")
//   set_amd_partition(N, compute, memory)
//                 reads the current modes (amd-smi static -g N --partition --json),
//                 leaves alone the ones already set, then
//                 amd-smi set -g N --compute-partition CPX
//                 amd-smi set -g N --memory-partition NPS4
//                 (rocm-smi -d N --setcomputepartition CPX / --setmemorypartition NPS4).
//                 When moving to a memory mode with fewer partitions (NPS4 -> NPS1)
//                 memory goes first, as the driver refuses SPX under NPS4.
//                 A memory change takes effect only after the amdgpu driver is
//                 reloaded: after setting it the backend reads the modes again and,
//                 unless the tool reloaded the driver itself (amd-smi of ROCm 6.3
//                 does), throws BackendError "driver-reload-required" naming the
//                 GPU, the mode and `modprobe -r amdgpu && modprobe amdgpu`; a
//                 compute change still pending behind it is named too and is
//                 applied by the same call made again after the reload.
//
// Errors (BackendError codes): "exit N" (the command failed: the message names
// the command and its stderr), "AMDSMI_STATUS_..." (amd-smi printed a library
// status such as [AMDSMI_STATUS_SETTING_UNAVAILABLE] for a set, whatever its
// exit status), "not-found" (the tool could not be started), "timeout",
// "signal N", "parse" (output the parsers could not read; the message names
// the JSON path), "invalid-argument" (an unknown mode or a negative index),
// "not-supported" (MIG: AMD GPUs have none; processes through rocm-smi).
//
// Known limit: amd-smi releases after ROCm 6.3 ask "Do you accept these terms?
// [Y/N]" before the first memory-partition set and read the answer from
// stdin. With stdin /dev/null that set fails (the error says so); answering
// needs run_process to accept stdin text.
//
// wait_xid_events: AMD GPUs have no XID events here (amd-smi's event
// reporting is a separate stream this backend does not read); it sleeps for
// the timeout, without polling, and returns an empty vector.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "gpupool/backend/backend.h"
#include "gpupool/gpu/catalog.h"

namespace gpupool::backend {

struct AmdOptions {
  std::string amd_smi_path;   // "/opt/rocm/bin/amd-smi"; empty: use rocm-smi
  std::string rocm_smi_path;  // "/opt/rocm/bin/rocm-smi"; used only without amd-smi
  const gpu::Catalog* catalog = nullptr;  // nullptr: gpu::Catalog::builtin()
  std::chrono::milliseconds timeout{30000};  // per command; a memory-partition set gets at least 200 s
};

// name() is "amd". Throws BackendError "invalid-argument" when both paths are empty.
std::unique_ptr<GpuBackend> make_amd_backend(const AmdOptions& options);

}  // namespace gpupool::backend
