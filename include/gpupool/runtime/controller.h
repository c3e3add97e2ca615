// Controller: informer events become keys in a rate-limited work queue; N
// workers hand each key to a Reconciler, which reads the truth and acts, and
// says what should happen next. As controller-runtime's controller.
//
// - A key is never reconciled by two workers at once (the queue guarantees it).
// - Result::done() forgets the key's backoff; Result::requeue() retries with
//   backoff; Result::requeue_after(d) comes back after d; an exception is an
//   error: logged, counted, retried with backoff.
// - watches(informer, mapper, predicate) maps events of any kind to the keys
//   of the objects this controller reconciles (a Node change to the pools that
//   select it); the predicate can skip updates the reconciler does not read.
// - run(stop) returns after stop: no new key is taken, in-flight reconciles
//   get `shutdown_grace` to finish, then their stop token fires and run()
//   waits for them.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/metrics/controller_metrics.h"
#include "gpupool/runtime/informer.h"
#include "gpupool/runtime/workqueue.h"

namespace gpupool::runtime {

// The object to reconcile.
struct Request {
  std::string ns;  // empty for cluster-scoped kinds
  std::string name;

  std::string key() const { return kube::object_key(ns, name); }
  static Request from_key(std::string_view key);
  bool operator==(const Request&) const = default;
};

class Result {
 public:
  enum class Kind { Done, Requeue, RequeueAfter };
  using Duration = std::chrono::steady_clock::duration;

  static Result done() { return Result(Kind::Done, {}); }
  static Result requeue() { return Result(Kind::Requeue, {}); }
  static Result requeue_after(Duration d) { return Result(Kind::RequeueAfter, d); }

  Kind kind() const { return kind_; }
  Duration after() const { return after_; }

 private:
  Result(Kind k, Duration d) : kind_(k), after_(d) {}
  Kind kind_;
  Duration after_;
};

class Reconciler {
 public:
  virtual ~Reconciler() = default;
  // Idempotent: reads the current state (stores, API), acts, returns. `stop`
  // fires when the process shuts down and the grace period is over.
  virtual Result reconcile(const Request& request, std::stop_token stop) = 0;
};

struct ControllerOptions {
  std::string name;  // names the queue, the metrics and the log lines
  int concurrency = 1;
  std::unique_ptr<RateLimiter> rate_limiter;  // null: client-go's default controller limiter
  // Where workqueue_* and controller_runtime_* metrics go; null: the
  // process-wide default registry.
  WorkQueueMetricsProvider* queue_metrics = nullptr;
  metrics::ControllerMetrics* metrics = nullptr;
  std::chrono::milliseconds shutdown_grace{std::chrono::seconds(30)};
};

// Predicates on updates (adds and deletes always pass).
template <class T>
using UpdatePredicate = std::function<bool(const T& old_obj, const T& new_obj)>;

// Passes updates that change metadata.generation (a spec change) or start a
// deletion; skips those where only resourceVersion or status moved.
inline bool generation_changed(const kube::Object& old_obj, const kube::Object& new_obj) {
  return old_obj.generation != new_obj.generation || old_obj.deleting != new_obj.deleting;
}

class Controller {
 public:
  Controller(ControllerOptions options, Reconciler& reconciler);
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  const std::string& name() const { return options_.name; }
  WorkQueue& queue() { return *queue_; }

  // Events on `informer` enqueue the keys `map` returns for the object
  // (default: the object's own key). Register before run().
  template <class T>
  void watches(Informer<T>& informer, std::function<std::vector<Request>(const T&)> map = {},
               UpdatePredicate<T> predicate = {}) {
    auto enqueue_all = [this, map](const T& obj) {
      if (map) {
        for (const auto& r : map(obj)) enqueue(r);
      } else {
        enqueue(Request::from_key(Codec<T>::key(obj)));
      }
    };
    EventHandler<T> h;
    h.on_add = [enqueue_all](const auto& obj) { enqueue_all(*obj); };
    h.on_update = [enqueue_all, predicate](const auto& old_obj, const auto& new_obj) {
      if (predicate && !predicate(*old_obj, *new_obj)) return;
      enqueue_all(*old_obj);  // a relabelled object may leave the set it mapped to
      enqueue_all(*new_obj);
    };
    h.on_delete = [enqueue_all](const auto& obj) { enqueue_all(*obj); };
    informer.add_handler(std::move(h));
  }

  void enqueue(const Request& request) { queue_->add(request.key()); }

  // Runs `concurrency` workers until `stop` fires, then shuts down as the
  // file comment says.
  void run(std::stop_token stop);

 private:
  void worker(std::stop_token reconcile_stop);
  void process(const std::string& key, std::stop_token reconcile_stop);

  ControllerOptions options_;
  Reconciler& reconciler_;
  std::unique_ptr<WorkQueue> queue_;
  metrics::ControllerChildren metrics_;
  std::atomic<int> active_{0};
};

}  // namespace gpupool::runtime
