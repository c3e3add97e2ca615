#include "gpupool/runtime/controller.h"

#include <spdlog/spdlog.h>

#include "gpupool/runtime/prometheus_workqueue_metrics.h"

#include <condition_variable>
#include <mutex>
#include <thread>

namespace gpupool::runtime {

Request Request::from_key(std::string_view key) {
  auto slash = key.find('/');
  if (slash == std::string_view::npos) return {"", std::string(key)};
  return {std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

namespace {

metrics::ControllerMetrics& metrics_or_default(metrics::ControllerMetrics* m) {
  return m ? *m : metrics::controller_metrics();
}

WorkQueueMetricsProvider& default_queue_metrics() {
  static PrometheusWorkQueueMetrics provider(metrics::default_registry());
  return provider;
}

}  // namespace

Controller::Controller(ControllerOptions options, Reconciler& reconciler)
    : options_(std::move(options)),
      reconciler_(reconciler),
      metrics_(metrics_or_default(options_.metrics).for_controller(options_.name)) {
  WorkQueueOptions q;
  q.name = options_.name;
  q.metrics = options_.queue_metrics ? options_.queue_metrics : &default_queue_metrics();
  q.rate_limiter = std::move(options_.rate_limiter);
  queue_ = std::make_unique<WorkQueue>(std::move(q));
  if (options_.concurrency < 1) options_.concurrency = 1;
  metrics_.max_concurrent_reconciles.set(options_.concurrency);
}

Controller::~Controller() { queue_->shut_down(); }

void Controller::run(std::stop_token stop) {
  std::stop_source reconcile_stop;
  std::vector<std::jthread> workers;
  for (int i = 0; i < options_.concurrency; ++i) {
    workers.emplace_back([this, token = reconcile_stop.get_token()] { worker(token); });
  }
  spdlog::info("controller {}: started {} worker(s)", options_.name, options_.concurrency);

  std::mutex mu;
  std::condition_variable_any cv;
  {
    std::unique_lock lock(mu);
    cv.wait(lock, stop, [] { return false; });
  }
  // Stop handing out keys; reconciles under way may finish within the grace period.
  queue_->shut_down();
  auto deadline = std::chrono::steady_clock::now() + options_.shutdown_grace;
  while (active_.load() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // polling interval
  }
  if (active_.load() > 0) {
    spdlog::warn("controller {}: {} reconcile(s) still running after the {} ms grace period; cancelling", options_.name,
                 active_.load(), options_.shutdown_grace.count());
    reconcile_stop.request_stop();
  }
  workers.clear();  // joins
  spdlog::info("controller {}: stopped", options_.name);
}

void Controller::worker(std::stop_token reconcile_stop) {
  while (auto key = queue_->get()) {
    process(*key, reconcile_stop);
    queue_->done(*key);
  }
}

void Controller::process(const std::string& key, std::stop_token reconcile_stop) {
  metrics_.active_workers.set(++active_);
  auto start = std::chrono::steady_clock::now();
  metrics::Counter* outcome = nullptr;
  try {
    Result r = reconciler_.reconcile(Request::from_key(key), reconcile_stop);
    switch (r.kind()) {
      case Result::Kind::Done:
        queue_->forget(key);
        outcome = &metrics_.reconcile_success;
        break;
      case Result::Kind::Requeue:
        queue_->add_rate_limited(key);
        outcome = &metrics_.reconcile_requeue;
        break;
      case Result::Kind::RequeueAfter:
        queue_->forget(key);
        queue_->add_after(key, r.after());
        outcome = &metrics_.reconcile_requeue_after;
        break;
    }
  } catch (const std::exception& e) {
    spdlog::error("controller {}: reconcile {} failed (retry {}): {}", options_.name, key, queue_->num_requeues(key) + 1,
                  e.what());
    queue_->add_rate_limited(key);
    outcome = &metrics_.reconcile_error;
    metrics_.reconcile_errors.inc();
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  metrics_.active_workers.set(--active_);
  if (outcome) outcome->inc();
  metrics_.reconcile_time_seconds.observe(seconds);
}

}  // namespace gpupool::runtime
