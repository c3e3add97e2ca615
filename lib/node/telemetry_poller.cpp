#include "gpupool/node/telemetry_poller.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "gpupool/common/stoppable_sleep.h"

namespace gpupool::node {

backend::Inventory SerializedBackend::inventory() {
  backend::Inventory inv;
  {
    std::lock_guard lock(mu_);
    inv = inner_.inventory();
  }
  std::lock_guard lock(last_mu_);
  last_inventory_ = inv;
  return inv;
}

std::optional<backend::Inventory> SerializedBackend::last_inventory() const {
  std::lock_guard lock(last_mu_);
  return last_inventory_;
}

std::vector<backend::GpuMetrics> SerializedBackend::metrics() {
  std::lock_guard lock(mu_);
  return inner_.metrics();
}

std::vector<backend::GpuProcess> SerializedBackend::processes() {
  std::lock_guard lock(mu_);
  return inner_.processes();
}

std::vector<backend::XidEvent> SerializedBackend::wait_xid_events(std::chrono::milliseconds timeout) {
  std::lock_guard lock(mu_);
  return inner_.wait_xid_events(timeout);
}

backend::MigModeChange SerializedBackend::set_mig_mode(int gpu_index, bool enabled) {
  std::lock_guard lock(mu_);
  return inner_.set_mig_mode(gpu_index, enabled);
}

backend::MigInstance SerializedBackend::create_mig_instance(int gpu_index, const std::string& profile,
                                                            int placement_start) {
  std::lock_guard lock(mu_);
  return inner_.create_mig_instance(gpu_index, profile, placement_start);
}

void SerializedBackend::destroy_mig_instance(int gpu_index, int gpu_instance_id) {
  std::lock_guard lock(mu_);
  inner_.destroy_mig_instance(gpu_index, gpu_instance_id);
}

void SerializedBackend::set_amd_partition(int gpu_index, const std::string& compute, const std::string& memory) {
  std::lock_guard lock(mu_);
  inner_.set_amd_partition(gpu_index, compute, memory);
}

const backend::GpuMetrics* TelemetrySnapshot::gpu(int index) const {
  for (const auto& m : metrics) {
    if (m.index == index) return &m;
  }
  return nullptr;
}

TelemetryPoller::TelemetryPoller(backend::GpuBackend& backend, TelemetryPollerOptions options)
    : backend_(backend), options_(options), latest_(std::make_shared<const TelemetrySnapshot>()) {
  options_.interval = std::max(options_.interval, std::chrono::milliseconds(1));
  options_.xid_interval = std::clamp(options_.xid_interval, std::chrono::milliseconds(1), options_.interval);
}

void TelemetryPoller::subscribe(Subscriber s) { subscribers_.push_back(std::move(s)); }

bool TelemetryPoller::poll_once(bool read_metrics) {
  std::lock_guard poll_lock(poll_mu_);
  TelemetrySnapshot next = working_;
  try {
    const auto events = backend_.wait_xid_events(std::chrono::milliseconds(0));
    const auto at = std::chrono::system_clock::now();
    for (const auto& e : events) {
      // The time the backend gives (when it returned the event), else now.
      const TelemetryTime t = e.time_unix_ms > 0 ? TelemetryTime(std::chrono::milliseconds(e.time_unix_ms)) : at;
      auto& gpu = next.xids[e.gpu_index];
      auto& c = gpu.codes[e.xid];
      if (c.count == 0) c.first = t;
      ++c.count;
      c.last = std::max(c.last, t);
      gpu.last_code = e.xid;
      gpu.last_at = t;
      spdlog::warn("GPU {}: XID {}", e.gpu_index, e.xid);
    }
    next.xid_error.clear();
  } catch (const backend::BackendError& e) {
    if (next.xid_error.empty()) spdlog::warn("reading XID events failed: {} ({})", e.what(), e.code());
    next.xid_error = std::string(e.what()) + " (" + e.code() + ")";
  }
  if (read_metrics) {
    try {
      next.metrics = backend_.metrics();
      next.metrics_at = std::chrono::system_clock::now();
      next.metrics_error.clear();
    } catch (const backend::BackendError& e) {
      if (next.metrics_error.empty()) spdlog::warn("reading GPU metrics failed: {} ({})", e.what(), e.code());
      next.metrics_error = std::string(e.what()) + " (" + e.code() + ")";
    }
  }
  next.sequence = working_.sequence;
  if (!read_metrics && next == working_) return false;
  next.sequence = working_.sequence + 1;
  working_ = next;
  publish(std::move(next));
  return true;
}

void TelemetryPoller::publish(TelemetrySnapshot next) {
  auto shared = std::make_shared<const TelemetrySnapshot>(std::move(next));
  {
    std::lock_guard lock(mu_);
    latest_ = shared;
  }
  cv_.notify_all();
  for (const auto& s : subscribers_) {
    try {
      s(*shared);
    } catch (const std::exception& e) {
      spdlog::error("telemetry subscriber failed: {}", e.what());
    }
  }
}

void TelemetryPoller::run(std::stop_token stop) {
  auto next_metrics = std::chrono::steady_clock::now();
  while (!stop.stop_requested()) {
    const auto now = std::chrono::steady_clock::now();
    const bool metrics_due = now >= next_metrics;
    if (metrics_due) next_metrics = now + options_.interval;
    poll_once(metrics_due);
    const auto until_metrics =
        std::chrono::duration_cast<std::chrono::milliseconds>(next_metrics - std::chrono::steady_clock::now());
    common::sleep_for(std::clamp(until_metrics, std::chrono::milliseconds(0), options_.xid_interval), stop);
  }
}

std::shared_ptr<const TelemetrySnapshot> TelemetryPoller::latest() const {
  std::lock_guard lock(mu_);
  return latest_;
}

std::shared_ptr<const TelemetrySnapshot> TelemetryPoller::wait_newer(std::uint64_t sequence,
                                                                     std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  if (!cv_.wait_for(lock, timeout, [&] { return latest_->sequence > sequence; })) return nullptr;
  return latest_;
}

}  // namespace gpupool::node
