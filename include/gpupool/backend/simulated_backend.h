// Simulated GPUs for tests and the local cluster: the GPU models of the
// catalog, their MIG and AMD partition rules applied exactly as the driver
// applies them (a wrong placement is refused with the error NVML gives), a
// driver install carried out by the backend itself, and injected faults.
//
// Two files describe a simulated node:
// - the *world* (`SimulatedOptions::config_path`, YAML, written by a person or
//   a test and re-read whenever it changes): which GPUs are plugged in, the
//   driver that came with the machine, how installs behave, injected XIDs,
//   temperatures and ECC errors. Example:
//       driverVersion: "550.54.15"      # what is installed before any install
//       cudaVersion: "12.4"
//       gpus:                           # or --simulated-gpus a100-sxm4-80gb=8
//         - {model: a100-sxm4-80gb, count: 8}
//       install:
//         seconds: 2                    # how long a driver install takes
//         fail: "nvidia-installer: kernel module build failed"   # makes installs fail
//       migOperationSeconds: 0.5        # each MIG instance create/destroy takes this long
//       resetRefused: [0]               # GPUs whose MIG mode change stays pending
//       xids: [{gpu: 0, xid: 79}]       # delivered once each by wait_xid_events
//       temperatureCelsius: {0: 95}
//       eccUncorrected: {0: 2}
//       telemetry:                      # what metrics() reports, by GPU index
//         0:
//           utilizationPercent: 42
//           clockEventReasons: [sw_power_cap]
//           instances: {1: {utilizationPercent: 17}}   # by GPU instance id
//   (lib/backend/simulated/simulated_telemetry.h lists the telemetry fields
//   and the defaults of what the world leaves out.)
// - the *hardware state* (`state_path`, JSON, written only by the backend,
//   atomically after every change): MIG modes, GPU instances, AMD partitions
//   and the installed driver. It outlives the agent, as a GPU's state outlives
//   a killed process, so a restarted agent reads where a change stood.
//
// GPUs are numbered in the order the world lists them. UUIDs are derived
// from the node name and index, so they are stable across restarts.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gpupool/backend/backend.h"

namespace gpupool::backend {

struct SimulatedGpuGroup {
  std::string model;  // catalog id, "a100-sxm4-80gb"
  int count = 0;
  bool operator==(const SimulatedGpuGroup&) const = default;
};

// "a100-sxm4-80gb=8,t4=2" (the --simulated-gpus flag). Throws BackendError
// ("invalid-argument") naming the bad item or the unknown model.
std::vector<SimulatedGpuGroup> parse_simulated_gpus(const std::string& text, const gpu::Catalog& catalog);

struct SimulatedOptions {
  std::string node_name;                 // for stable UUIDs
  std::vector<SimulatedGpuGroup> gpus;   // used when the world file lists none
  std::string config_path;               // the world; "" = only `gpus`
  std::string state_path;                // the hardware state; "" = kept in memory
  std::string driver_version = "550.54.15";  // default installed driver
  const gpu::Catalog* catalog = nullptr; // defaults to the built-in one
};

// A pod using GPUs on this node; the simulation runs one process per pod on
// the GPU the pod's uid hashes to, so draining has processes to wait for.
struct SimulatedPod {
  std::string uid;
  std::string name;  // namespace/name, for messages
};

class SimulatedBackend : public GpuBackend {
 public:
  explicit SimulatedBackend(SimulatedOptions options);
  ~SimulatedBackend() override;

  std::string name() const override { return "simulated"; }
  Inventory inventory() override;
  std::vector<GpuMetrics> metrics() override;
  std::vector<GpuProcess> processes() override;
  std::vector<XidEvent> wait_xid_events(std::chrono::milliseconds timeout) override;
  MigModeChange set_mig_mode(int gpu_index, bool enabled) override;
  MigInstance create_mig_instance(int gpu_index, const std::string& profile, int placement_start) override;
  void destroy_mig_instance(int gpu_index, int gpu_instance_id) override;
  void set_amd_partition(int gpu_index, const std::string& compute, const std::string& memory) override;

  // The GPU pods now on the node (the agent tells; real backends see processes).
  void set_gpu_pods(std::vector<SimulatedPod> pods);

  // Installs driver `version` as the world says installs behave: waits the
  // configured time (returns early, throwing BackendError "cancelled", when
  // `cancelled` becomes true), then either records the new version or throws
  // BackendError("install-failed", <the configured message>).
  void install_driver(const std::string& version, const std::function<bool()>& cancelled);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpupool::backend
