// The rate-limited work queue that controllers run on, as client-go's
// workqueue (a TypedRateLimitingInterface[string]): event handlers add keys
// ("namespace/name"), worker threads get() a key, reconcile it, then done() it,
// and on failure add_rate_limited() it to retry with backoff.
//
// Guarantees:
//  * An item waits in the queue at most once: adding an item that is already
//    waiting is a no-op (many events for one object collapse into one
//    reconcile).
//  * An item is never handed to two workers at once. Adding it while a worker
//    holds it (between get() and done()) marks it dirty; done() then puts it
//    back in the queue, so the change is not lost.
//  * Items come out first in, first out.
//  * Every member function is thread-safe.
//
// Metrics (WorkQueueMetrics, as client-go reports them):
//  * set_depth: after every change in the number of items needing processing,
//    i.e. waiting plus re-added while being processed (client-go's depth);
//  * add: every add that was not a no-op (dedup'd adds are not counted);
//  * observe_queue_seconds: at get(), since the item's first add;
//  * observe_work_seconds: at done(), since get();
//  * set_unfinished_work_seconds (sum over items being processed of how long
//    they have been) and set_longest_running_processor_seconds: every
//    unfinished_work_update_period while the queue is not shut down;
//  * retry: every add_rate_limited() accepted.
//
// Also here: the rate limiters that decide how long add_rate_limited() waits,
// as client-go's default_rate_limiters.go.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpupool/kube/rate_limiter.h"
#include "gpupool/runtime/workqueue_metrics.h"

namespace gpupool::runtime {

// ---------------------------------------------------------------------------
// Rate limiters (lib/runtime/workqueue_rate_limiters.cpp). All are thread-safe.

// Decides how long an item waits before it is retried.
class RateLimiter {
 public:
  using Duration = std::chrono::steady_clock::duration;
  virtual ~RateLimiter() = default;
  // How long the item should wait now; counts as one more requeue of it.
  virtual Duration when(const std::string& item) = 0;
  // The item succeeded (or was given up on): its backoff starts over.
  virtual void forget(const std::string& item) = 0;
  // How many times when() was called for the item since it was last forgotten.
  virtual int num_requeues(const std::string& item) const = 0;
};

// Per-item exponential backoff: the n-th when() for an item (n from 0) is
// base * 2^n, capped at max_delay. client-go's controller default is 5 ms
// doubling to 1000 s.
class ItemExponentialFailureRateLimiter final : public RateLimiter {
 public:
  ItemExponentialFailureRateLimiter(Duration base_delay, Duration max_delay);
  Duration when(const std::string& item) override;
  void forget(const std::string& item) override;
  int num_requeues(const std::string& item) const override;

 private:
  Duration base_;
  Duration max_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, int> failures_;
};

// One token bucket over all items (qps refill, burst capacity, starting full):
// when() reserves a token and returns how long until it is there, so retries
// of all items together stay under qps once the burst is spent. Does not track
// items: forget() does nothing and num_requeues() is 0. qps <= 0 disables it.
class BucketRateLimiter final : public RateLimiter {
 public:
  explicit BucketRateLimiter(double qps = 10, int burst = 100,
                             std::function<kube::TokenBucket::Clock::time_point()> now = kube::TokenBucket::Clock::now);
  Duration when(const std::string& item) override;
  void forget(const std::string& item) override;
  int num_requeues(const std::string& item) const override;

 private:
  kube::TokenBucket bucket_;
};

// The slowest of several limiters: when() asks every limiter (so each counts
// the requeue) and returns the longest delay; num_requeues() is the largest
// count; forget() forgets in all of them.
class MaxOfRateLimiter final : public RateLimiter {
 public:
  explicit MaxOfRateLimiter(std::vector<std::unique_ptr<RateLimiter>> limiters);
  Duration when(const std::string& item) override;
  void forget(const std::string& item) override;
  int num_requeues(const std::string& item) const override;

 private:
  std::vector<std::unique_ptr<RateLimiter>> limiters_;
};

// client-go's DefaultControllerRateLimiter: the max of per-item exponential
// backoff (5 ms doubling to 1000 s) and an overall bucket (10 qps, burst 100).
std::unique_ptr<RateLimiter> default_controller_rate_limiter();

// ---------------------------------------------------------------------------
// The queue (lib/runtime/workqueue.cpp).

struct WorkQueueOptions {
  // Names the queue for its metrics.
  std::string name;
  // Where metrics go: for_queue(name) is called once, in the constructor (the
  // provider need not outlive that). Null: no metrics.
  WorkQueueMetricsProvider* metrics = nullptr;
  // Decides add_rate_limited() delays. Null: default_controller_rate_limiter().
  // Called with the queue's lock held: it must not call back into the queue.
  std::unique_ptr<RateLimiter> rate_limiter;
  // The clock delays and metrics are measured on. Empty: steady_clock::now,
  // and the queue's thread wakes by itself when each delayed item is due.
  // Set (a test clock): the queue cannot know when that clock moves, so
  // delayed items that have come due are moved into the queue when
  // check_delayed() is called (and at a heartbeat every 10 s of real time).
  std::function<std::chrono::steady_clock::time_point()> now;
  // How often (real time) unfinished work and the longest running processor
  // are reported, while there are metrics.
  std::chrono::steady_clock::duration unfinished_work_update_period = std::chrono::milliseconds(500);
};

class WorkQueue {
 public:
  using Clock = std::chrono::steady_clock;

  // Starts the queue's one internal thread (delayed adds, periodic metrics).
  explicit WorkQueue(WorkQueueOptions options = {});
  // shut_down(), then joins the internal thread. Workers must have stopped
  // using the queue.
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Marks the item as needing processing: queues it unless it is already
  // waiting (no-op) or being processed (then marks it dirty, queued again by
  // done()). Ignored once shutting down.
  void add(const std::string& item);
  // add() once the delay has passed (at once if delay <= 0). While an item
  // waits for its delay, another add_after() of it keeps the earlier of the
  // two deadlines. A delayed item is independent of the queue: it may also be
  // add()ed meanwhile, and is add()ed again when due. Ignored once shutting
  // down; delays not yet due at shutdown are dropped.
  void add_after(const std::string& item, Clock::duration delay);
  // add_after() with the delay the rate limiter gives for the item (which
  // counts a requeue), and reports a retry to the metrics. Ignored once
  // shutting down.
  void add_rate_limited(const std::string& item);
  // Resets the item's backoff in the rate limiter (call when it succeeded).
  // Does not remove it from the queue.
  void forget(const std::string& item);
  // How many times the item was add_rate_limited() since it was forgotten.
  int num_requeues(const std::string& item) const;

  // Blocks until an item can be handed out, and hands it out: the caller owns
  // it until it calls done(item) exactly once. Returns nullopt once the queue
  // is shut down: at once after shut_down() (items still waiting are not
  // handed out), or after shut_down_with_drain() once no item is left waiting.
  std::optional<std::string> get();
  // The caller has finished with an item it got from get(). If the item was
  // added again meanwhile, it goes back into the queue. Items not being
  // processed are ignored.
  void done(const std::string& item);

  // Stops the queue: later adds are ignored, get() returns nullopt from now
  // on and wakes every blocked get(). Does not wait for items being processed
  // (their done() is still accepted). Ends a shut_down_with_drain() wait.
  // Idempotent.
  void shut_down();
  // Like shut_down(), but get() keeps handing out the items already waiting;
  // returns once none is waiting and none is being processed, so workers
  // must keep calling get() and done() until get() returns nullopt. A
  // shut_down() from another thread ends the wait early.
  void shut_down_with_drain();
  bool shutting_down() const;

  // Items waiting to be handed out (not counting delayed ones, nor those being
  // processed). Informational only: do not gate get() on it.
  std::size_t len() const;

  // Moves every delayed item whose deadline has passed by the clock's now()
  // into the queue, at once. Needed only with a test clock (see
  // WorkQueueOptions::now): call it after advancing that clock.
  void check_delayed();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpupool::runtime
