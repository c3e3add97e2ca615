// The node agent's telemetry: one thread that reads the GPUs' metrics every
// `interval` and drains their XID events every `xid_interval`, keeping the
// latest snapshot for whoever reads it (the agent's GPU health judgment,
// lib/node/gpu_health_tracker.h; the GPU metrics exporter).
//
// The snapshot is a plain report of what the backend said: no health logic,
// no thresholds, nothing judged. Whatever decides something from it does so
// on its own side, so every reader sees the same facts.
//
// Backend calls are serialised (backend.h: one caller at a time): the agent
// and the poller share one SerializedBackend, which holds a mutex around
// every call. The poller never blocks on events while holding it: XIDs are
// drained with wait_xid_events(0) (the NVML event set keeps them queued in
// between; an event's time is when it was drained, so within xid_interval of
// when the driver raised it, as the NVML backend's own times are).
//
// Failures never stop the poller: a metrics() or wait_xid_events() that
// throws BackendError is recorded in the snapshot (metrics_error /
// xid_error), the metrics of the last successful read are kept with their
// time, and the next round tries again.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "gpupool/backend/backend.h"

namespace gpupool::node {

using TelemetryTime = std::chrono::system_clock::time_point;

// A GpuBackend whose every call holds one mutex: the agent's reconcile pass
// and the telemetry poller share it so their calls never overlap. Calls on
// the wrapped object made around it (SimulatedBackend's set_gpu_pods and
// install_driver, which lock on their own) are not serialised by it.
class SerializedBackend : public backend::GpuBackend {
 public:
  explicit SerializedBackend(backend::GpuBackend& inner) : inner_(inner) {}

  std::string name() const override { return inner_.name(); }
  // Also kept as last_inventory().
  backend::Inventory inventory() override;
  // What the last successful inventory() returned (to the agent or anyone);
  // nullopt before the first. For readers that must not call the GPUs
  // themselves (the GPU metrics collector).
  std::optional<backend::Inventory> last_inventory() const;
  std::vector<backend::GpuMetrics> metrics() override;
  std::vector<backend::GpuProcess> processes() override;
  // Holds the mutex for the whole wait: callers pass short timeouts.
  std::vector<backend::XidEvent> wait_xid_events(std::chrono::milliseconds timeout) override;
  backend::MigModeChange set_mig_mode(int gpu_index, bool enabled) override;
  backend::MigInstance create_mig_instance(int gpu_index, const std::string& profile, int placement_start) override;
  void destroy_mig_instance(int gpu_index, int gpu_instance_id) override;
  void set_amd_partition(int gpu_index, const std::string& compute, const std::string& memory) override;

 private:
  backend::GpuBackend& inner_;
  std::mutex mu_;
  mutable std::mutex last_mu_;
  std::optional<backend::Inventory> last_inventory_;
};

// XIDs of one code on one GPU since the poller started.
struct XidCount {
  std::int64_t count = 0;
  TelemetryTime first{};  // when the first one was drained
  TelemetryTime last{};   // when the latest one was drained
  bool operator==(const XidCount&) const = default;
};

// Every XID one GPU reported since the poller started.
struct GpuXids {
  std::map<int, XidCount> codes;       // XID code -> count and times
  std::optional<int> last_code;        // the most recent code
  std::optional<TelemetryTime> last_at;
  bool operator==(const GpuXids&) const = default;
};

struct TelemetrySnapshot {
  std::uint64_t sequence = 0;  // 1 for the first snapshot published, one more for each after
  // The latest successful metrics() and when it was read; nullopt before the first.
  std::optional<TelemetryTime> metrics_at;
  std::vector<backend::GpuMetrics> metrics;  // as the backend returned them (by GpuMetrics::index)
  std::string metrics_error;                 // the last metrics() failure; "" once a read succeeds
  std::map<int, GpuXids> xids;               // by GPU index, since the poller started
  std::string xid_error;                     // the last wait_xid_events() failure; "" once a drain succeeds
  bool operator==(const TelemetrySnapshot&) const = default;

  // The metrics of GPU `index`, or nullptr.
  const backend::GpuMetrics* gpu(int index) const;
};

struct TelemetryPollerOptions {
  std::chrono::milliseconds interval{std::chrono::seconds(10)};     // metrics() this often (--telemetry-interval)
  std::chrono::milliseconds xid_interval{std::chrono::seconds(1)};  // XIDs drained this often (capped at interval)
};

class TelemetryPoller {
 public:
  using Subscriber = std::function<void(const TelemetrySnapshot&)>;

  // `backend` (normally the SerializedBackend the agent uses too) must
  // outlive the poller.
  TelemetryPoller(backend::GpuBackend& backend, TelemetryPollerOptions options);

  // Called, in the polling thread, with every snapshot published (after
  // each metrics read, and after a drain that brought XIDs or changed an
  // error). Subscribe before run(); a subscriber must not call poll_once().
  void subscribe(Subscriber s);

  // Polls until `stop`: metrics at once, then every interval; XIDs every
  // xid_interval. Failures are recorded, never thrown.
  void run(std::stop_token stop);

  // One round now, in the caller's thread (tests; run() uses it): drains
  // XIDs and, when `read_metrics`, reads metrics; publishes when anything
  // changed or metrics were read. Returns whether it published.
  bool poll_once(bool read_metrics);

  // The latest snapshot (sequence 0, nothing in it, before the first).
  std::shared_ptr<const TelemetrySnapshot> latest() const;

  // Waits until a snapshot with a sequence above `sequence` exists, up to
  // `timeout`; the latest then, or nullptr on timeout.
  std::shared_ptr<const TelemetrySnapshot> wait_newer(std::uint64_t sequence, std::chrono::milliseconds timeout) const;

  const TelemetryPollerOptions& options() const { return options_; }

 private:
  void publish(TelemetrySnapshot next);

  backend::GpuBackend& backend_;
  TelemetryPollerOptions options_;
  std::vector<Subscriber> subscribers_;
  std::mutex poll_mu_;         // one round at a time
  TelemetrySnapshot working_;  // guarded by poll_mu_
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::shared_ptr<const TelemetrySnapshot> latest_;
};

}  // namespace gpupool::node
