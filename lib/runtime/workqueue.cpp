// The work queue: client-go's queue.go, delaying_queue.go and
// rate_limiting_queue.go in one class, under one mutex. See the header for
// the contract.
#include "gpupool/runtime/workqueue.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <set>
#include <thread>
#include <unordered_set>
#include <utility>

namespace gpupool::runtime {

namespace {

using namespace std::chrono_literals;
using Clock = WorkQueue::Clock;

// With a test clock the internal thread still wakes this often (real time).
constexpr Clock::duration kHeartbeat = 10s;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

class NoopMetrics final : public WorkQueueMetrics {
 public:
  void set_depth(long) override {}
  void add() override {}
  void observe_queue_seconds(double) override {}
  void observe_work_seconds(double) override {}
  void set_unfinished_work_seconds(double) override {}
  void set_longest_running_processor_seconds(double) override {}
  void retry() override {}
};

}  // namespace

std::unique_ptr<WorkQueueMetrics> NoWorkQueueMetrics::for_queue(const std::string&) {
  return std::make_unique<NoopMetrics>();
}

class WorkQueue::Impl {
 public:
  explicit Impl(WorkQueueOptions options);
  ~Impl();
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  void add(const std::string& item);
  void add_after(const std::string& item, Clock::duration delay);
  void add_rate_limited(const std::string& item);
  void forget(const std::string& item) { limiter_->forget(item); }
  int num_requeues(const std::string& item) const { return limiter_->num_requeues(item); }
  std::optional<std::string> get();
  void done(const std::string& item);
  void shut_down();
  void shut_down_with_drain();
  bool shutting_down() const;
  std::size_t len() const;
  void check_delayed();

 private:
  Clock::time_point now() const { return real_clock_ ? Clock::now() : now_(); }
  // The *_locked helpers expect mu_ held.
  void add_locked(const std::string& item);
  void add_after_locked(const std::string& item, Clock::duration delay);
  void promote_due_locked();
  void report_unfinished_work_locked();
  void report_depth_locked() { metrics_->set_depth(static_cast<long>(dirty_.size())); }
  void run();  // the internal thread
  void stop_thread();

  const bool real_clock_;
  const std::function<Clock::time_point()> now_;
  const bool report_metrics_;
  const Clock::duration update_period_;
  const std::unique_ptr<WorkQueueMetrics> metrics_;
  const std::unique_ptr<RateLimiter> limiter_;

  mutable std::mutex mu_;
  std::condition_variable items_cv_;    // get(): an item was queued, or shutdown
  std::condition_variable drained_cv_;  // shut_down_with_drain(): work finished, or shut_down()
  std::condition_variable thread_cv_;   // internal thread: a new earliest deadline, or stop
  // Items waiting to be handed out, in order. Each is also in dirty_ and not
  // in processing_.
  std::deque<std::string> queue_;
  // Items needing processing: those in queue_ plus those added again while
  // being processed.
  std::unordered_set<std::string> dirty_;
  // Items handed out by get() and not yet done(), with when they were.
  std::unordered_map<std::string, Clock::time_point> processing_;
  // When each dirty item was first added (for the queue latency metric).
  std::unordered_map<std::string, Clock::time_point> added_at_;
  // Delayed adds: ordered by deadline, and each item's deadline.
  std::set<std::pair<Clock::time_point, std::string>> delayed_;
  std::unordered_map<std::string, Clock::time_point> delayed_at_;
  bool shutting_down_ = false;
  bool draining_ = false;
  bool stop_thread_ = false;

  std::mutex join_mu_;
  std::thread thread_;
};

WorkQueue::Impl::Impl(WorkQueueOptions options)
    : real_clock_(!options.now),
      now_(std::move(options.now)),
      report_metrics_(options.metrics != nullptr),
      update_period_(std::max<Clock::duration>(options.unfinished_work_update_period, 1ms)),
      metrics_(options.metrics ? options.metrics->for_queue(options.name) : std::make_unique<NoopMetrics>()),
      limiter_(options.rate_limiter ? std::move(options.rate_limiter) : default_controller_rate_limiter()) {
  thread_ = std::thread([this] { run(); });
}

WorkQueue::Impl::~Impl() { shut_down(); }

void WorkQueue::Impl::add(const std::string& item) {
  std::lock_guard lock(mu_);
  add_locked(item);
}

void WorkQueue::Impl::add_locked(const std::string& item) {
  if (shutting_down_ || dirty_.contains(item)) return;
  metrics_->add();
  dirty_.insert(item);
  added_at_.try_emplace(item, now());
  report_depth_locked();
  if (processing_.contains(item)) return;  // done() queues it
  queue_.push_back(item);
  items_cv_.notify_one();
}

void WorkQueue::Impl::add_after(const std::string& item, Clock::duration delay) {
  std::lock_guard lock(mu_);
  add_after_locked(item, delay);
}

void WorkQueue::Impl::add_after_locked(const std::string& item, Clock::duration delay) {
  if (shutting_down_) return;
  if (delay <= Clock::duration::zero()) {
    add_locked(item);
    return;
  }
  Clock::time_point t = now();
  Clock::duration headroom = Clock::time_point::max() - std::max(t, Clock::time_point{});
  Clock::time_point deadline = delay < headroom ? t + delay : Clock::time_point::max();
  auto [it, inserted] = delayed_at_.try_emplace(item, deadline);
  if (!inserted) {
    if (it->second <= deadline) return;  // the earlier deadline stands
    delayed_.erase({it->second, item});
    it->second = deadline;
  }
  delayed_.emplace(deadline, item);
  if (real_clock_ && delayed_.begin()->second == item) thread_cv_.notify_one();
}

void WorkQueue::Impl::add_rate_limited(const std::string& item) {
  std::lock_guard lock(mu_);
  if (shutting_down_) return;
  metrics_->retry();
  add_after_locked(item, limiter_->when(item));
}

std::optional<std::string> WorkQueue::Impl::get() {
  std::unique_lock lock(mu_);
  items_cv_.wait(lock, [this] { return !queue_.empty() || shutting_down_; });
  if (shutting_down_ && (!draining_ || queue_.empty())) return std::nullopt;
  std::string item = std::move(queue_.front());
  queue_.pop_front();
  Clock::time_point t = now();
  processing_[item] = t;
  dirty_.erase(item);
  report_depth_locked();
  if (auto it = added_at_.find(item); it != added_at_.end()) {
    metrics_->observe_queue_seconds(seconds(t - it->second));
    added_at_.erase(it);
  }
  return item;
}

void WorkQueue::Impl::done(const std::string& item) {
  std::lock_guard lock(mu_);
  auto it = processing_.find(item);
  if (it == processing_.end()) return;
  metrics_->observe_work_seconds(seconds(now() - it->second));
  processing_.erase(it);
  if (dirty_.contains(item)) {
    queue_.push_back(item);
    items_cv_.notify_one();
  }
  if (draining_ && queue_.empty() && processing_.empty()) drained_cv_.notify_all();
}

void WorkQueue::Impl::shut_down() {
  {
    std::lock_guard lock(mu_);
    shutting_down_ = true;
    draining_ = false;
    delayed_.clear();
    delayed_at_.clear();
  }
  items_cv_.notify_all();
  drained_cv_.notify_all();
  stop_thread();
}

void WorkQueue::Impl::shut_down_with_drain() {
  {
    std::unique_lock lock(mu_);
    if (!shutting_down_) {
      shutting_down_ = true;
      draining_ = true;
      delayed_.clear();
      delayed_at_.clear();
      items_cv_.notify_all();  // idle getters: nothing is left to hand out
    }
    drained_cv_.wait(lock, [this] { return !draining_ || (queue_.empty() && processing_.empty()); });
  }
  stop_thread();
}

bool WorkQueue::Impl::shutting_down() const {
  std::lock_guard lock(mu_);
  return shutting_down_;
}

std::size_t WorkQueue::Impl::len() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

void WorkQueue::Impl::check_delayed() {
  std::lock_guard lock(mu_);
  promote_due_locked();
}

void WorkQueue::Impl::promote_due_locked() {
  Clock::time_point t = now();
  while (!delayed_.empty() && delayed_.begin()->first <= t) {
    auto node = delayed_.extract(delayed_.begin());
    delayed_at_.erase(node.value().second);
    add_locked(node.value().second);
  }
}

void WorkQueue::Impl::report_unfinished_work_locked() {
  if (shutting_down_) return;
  Clock::time_point t = now();
  double total = 0;
  double longest = 0;
  for (const auto& [item, started] : processing_) {
    double age = seconds(t - started);
    total += age;
    longest = std::max(longest, age);
  }
  metrics_->set_unfinished_work_seconds(total);
  metrics_->set_longest_running_processor_seconds(longest);
}

void WorkQueue::Impl::run() {
  std::unique_lock lock(mu_);
  Clock::time_point next_report = Clock::now() + update_period_;
  while (!stop_thread_) {
    promote_due_locked();
    Clock::time_point real_now = Clock::now();
    if (report_metrics_ && real_now >= next_report) {
      report_unfinished_work_locked();
      next_report = real_now + update_period_;
    }
    Clock::time_point wake = real_now + kHeartbeat;
    if (report_metrics_) wake = std::min(wake, next_report);
    if (real_clock_ && !delayed_.empty()) wake = std::min(wake, delayed_.begin()->first);
    thread_cv_.wait_until(lock, wake);
  }
}

void WorkQueue::Impl::stop_thread() {
  {
    std::lock_guard lock(mu_);
    stop_thread_ = true;
  }
  thread_cv_.notify_all();
  std::lock_guard join_lock(join_mu_);
  if (thread_.joinable()) thread_.join();
}

WorkQueue::WorkQueue(WorkQueueOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
WorkQueue::~WorkQueue() = default;

void WorkQueue::add(const std::string& item) { impl_->add(item); }
void WorkQueue::add_after(const std::string& item, Clock::duration delay) { impl_->add_after(item, delay); }
void WorkQueue::add_rate_limited(const std::string& item) { impl_->add_rate_limited(item); }
void WorkQueue::forget(const std::string& item) { impl_->forget(item); }
int WorkQueue::num_requeues(const std::string& item) const { return impl_->num_requeues(item); }
std::optional<std::string> WorkQueue::get() { return impl_->get(); }
void WorkQueue::done(const std::string& item) { impl_->done(item); }
void WorkQueue::shut_down() { impl_->shut_down(); }
void WorkQueue::shut_down_with_drain() { impl_->shut_down_with_drain(); }
bool WorkQueue::shutting_down() const { return impl_->shutting_down(); }
std::size_t WorkQueue::len() const { return impl_->len(); }
void WorkQueue::check_delayed() { impl_->check_delayed(); }

}  // namespace gpupool::runtime
