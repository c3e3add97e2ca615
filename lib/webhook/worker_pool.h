// Private to lib/webhook: TlsServer's task queue for cpp-httplib, which runs
// each accepted connection on one of a fixed number of threads. httplib's own
// ThreadPool queues accepted connections without bound; this one holds at
// most max_pending waiting for a thread, and beyond that keeps httplib's
// accept loop waiting (new connections then wait in the kernel's listen
// backlog), so a flood of connections cannot take every file descriptor of
// the process. A stopping server opens the gate so the loop can end.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
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
  WorkerPool(std::size_t threads, std::size_t max_pending, std::shared_ptr<QueueGate> gate)
      : max_pending_(max_pending), gate_(std::move(gate)) {
    for (std::size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
  }
  ~WorkerPool() override { shutdown(); }

  void enqueue(std::function<void()> fn) override {
    std::unique_lock lock(gate_->mu);
    gate_->room.wait(lock, [&] { return jobs_.size() < max_pending_ || gate_->open; });
    jobs_.push_back(std::move(fn));
    work_.notify_one();
  }

  // Runs what is queued, then joins the threads. Idempotent.
  void shutdown() override {
    {
      std::lock_guard lock(gate_->mu);
      stopping_ = true;
    }
    work_.notify_all();
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

 private:
  void work() {
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock lock(gate_->mu);
        work_.wait(lock, [&] { return !jobs_.empty() || stopping_; });
        if (jobs_.empty()) return;
        fn = std::move(jobs_.front());
        jobs_.pop_front();
      }
      gate_->room.notify_one();
      fn();
    }
  }

  const std::size_t max_pending_;
  std::shared_ptr<QueueGate> gate_;
  std::condition_variable work_;
  std::deque<std::function<void()>> jobs_;  // guarded by gate_->mu
  bool stopping_ = false;                   // guarded by gate_->mu
  std::vector<std::thread> threads_;
};

}  // namespace gpupool::webhook::detail
