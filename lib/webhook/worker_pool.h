// Private to lib/webhook: TlsServer's task queue for cpp-httplib, which runs
// each accepted connection on a thread of its own, from the handshake until
// the connection closes (kept-alive connections included).
//
// Threads start as connections need them, up to max_threads, and end after
// kIdleThreadLifetime with nothing to do, so an idle server holds none of
// them. httplib's own ThreadPool starts a fixed number and queues accepted
// connections without bound; this one holds at most max_pending waiting for
// a thread, and beyond that keeps httplib's accept loop waiting (new
// connections then wait in the kernel's listen backlog), so a flood of
// connections cannot take every file descriptor of the process. A stopping
// server opens the gate so the loop can end.
//
// Connections waiting with every thread taken are counted in the gate
// (`unserved`), and the gate's `on_unserved` is called when one starts
// waiting: the server then ends an idle kept-alive connection to free a
// thread (connection_guard.h).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <httplib.h>

namespace gpupool::webhook::detail {

// Shared by the pool (owned by httplib's accept loop) and the server.
struct QueueGate {
  std::mutex mu;
  std::condition_variable room;
  bool open = false;  // guarded by mu: no bound any more
  // Connections waiting with no thread free to take them (readable without mu).
  std::atomic<std::size_t> unserved{0};
  // Called (without mu) when a connection starts waiting with no thread free.
  // Set before the server starts.
  std::function<void()> on_unserved;
  // Called (without mu) for each connection accepted. Set before the server starts.
  std::function<void()> on_accepted;

  void open_for_stop() {
    {
      std::lock_guard lock(mu);
      open = true;
    }
    room.notify_all();
  }
};

class WorkerPool final : public httplib::TaskQueue {
 public:
  // A thread with nothing to do for this long ends.
  static constexpr std::chrono::seconds kIdleThreadLifetime{30};

  WorkerPool(std::size_t max_threads, std::size_t max_pending, std::shared_ptr<QueueGate> gate)
      : max_threads_(max_threads), max_pending_(max_pending), gate_(std::move(gate)) {}
  ~WorkerPool() override { shutdown(); }

  void enqueue(std::function<void()> fn) override {
    bool unserved = false;
    {
      std::unique_lock lock(gate_->mu);
      gate_->room.wait(lock, [&] { return jobs_.size() < max_pending_ || gate_->open; });
      jobs_.push_back(std::move(fn));
      if (jobs_.size() > free_ && running_ < max_threads_) start_thread();
      unserved = update_unserved();
      join_finished();
    }
    work_.notify_one();
    if (gate_->on_accepted) gate_->on_accepted();
    if (unserved && gate_->on_unserved) gate_->on_unserved();
  }

  // Runs what is queued, then joins the threads. Idempotent.
  void shutdown() override {
    {
      std::lock_guard lock(gate_->mu);
      stopping_ = true;
    }
    work_.notify_all();
    std::list<std::thread> threads;
    {
      std::unique_lock lock(gate_->mu);
      // Threads that end meanwhile move themselves to finished_.
      stopped_.wait(lock, [&] { return running_ == 0; });
      threads.splice(threads.end(), finished_);
    }
    for (auto& t : threads) t.join();
  }

 private:
  // With gate_->mu held.
  void start_thread() {
    ++running_;
    ++free_;  // counted free from the start: it takes the next job
    threads_.emplace_back();
    auto self = std::prev(threads_.end());
    *self = std::thread([this, self] { work(self); });
  }

  // With gate_->mu held: whether a job waits with no thread to take it.
  bool update_unserved() {
    const std::size_t n = jobs_.size() > free_ ? jobs_.size() - free_ : 0;
    gate_->unserved.store(n);
    return n > 0;
  }

  // With gate_->mu held: threads that have ended are joined (at once: they
  // have returned from work() or are about to).
  void join_finished() {
    for (auto& t : finished_) t.join();
    finished_.clear();
  }

  void work(std::list<std::thread>::iterator self) {
    std::unique_lock lock(gate_->mu);
    for (;;) {
      work_.wait_for(lock, kIdleThreadLifetime, [&] { return !jobs_.empty() || stopping_; });
      if (jobs_.empty()) break;  // stopping, or nothing to do for kIdleThreadLifetime
      std::function<void()> fn = std::move(jobs_.front());
      jobs_.pop_front();
      --free_;
      update_unserved();
      lock.unlock();
      gate_->room.notify_one();
      fn();
      fn = nullptr;  // what the job holds goes before the lock is taken
      lock.lock();
      ++free_;
      update_unserved();
    }
    --free_;
    --running_;
    finished_.splice(finished_.end(), threads_, self);
    if (running_ == 0) stopped_.notify_all();
  }

  const std::size_t max_threads_;
  const std::size_t max_pending_;
  std::shared_ptr<QueueGate> gate_;
  std::condition_variable work_;
  std::condition_variable stopped_;
  std::deque<std::function<void()>> jobs_;  // guarded by gate_->mu
  std::size_t running_ = 0;                 // guarded by gate_->mu: threads started and not ended
  std::size_t free_ = 0;                    // guarded by gate_->mu: of those, not running a job
  bool stopping_ = false;                   // guarded by gate_->mu
  std::list<std::thread> threads_;          // guarded by gate_->mu: running
  std::list<std::thread> finished_;         // guarded by gate_->mu: ended, to be joined
};

}  // namespace gpupool::webhook::detail
