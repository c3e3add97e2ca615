// TelemetryPoller and SerializedBackend against a scripted backend: what a
// snapshot holds, when one is published, failures kept in it, the polling
// thread's cadence, and backend calls never overlapping.
#include <gtest/gtest.h>

#include <atomic>
#include <deque>
#include <mutex>
#include <thread>

#include "gpupool/node/telemetry_poller.h"

namespace gpupool::node {
namespace {

using namespace std::chrono_literals;

// Scripted: metrics() returns `metrics` (or throws while `metrics_fail`);
// wait_xid_events hands out the queued events. Counts calls and whether two
// ever ran at once.
class ScriptedBackend : public backend::GpuBackend {
 public:
  std::string name() const override { return "scripted"; }
  backend::Inventory inventory() override {
    Busy b(*this);
    return {};
  }
  std::vector<backend::GpuMetrics> metrics() override {
    Busy b(*this);
    ++metrics_calls;
    std::lock_guard lock(mu);
    if (!metrics_fail.empty()) throw backend::BackendError("NVML_ERROR_GPU_IS_LOST", metrics_fail);
    return metrics_now;
  }
  std::vector<backend::GpuProcess> processes() override {
    Busy b(*this);
    return {};
  }
  std::vector<backend::XidEvent> wait_xid_events(std::chrono::milliseconds timeout) override {
    Busy b(*this);
    ++xid_calls;
    max_xid_timeout = std::max<long long>(max_xid_timeout.load(), timeout.count());
    std::lock_guard lock(mu);
    if (!xid_fail.empty()) throw backend::BackendError("NVML_ERROR_UNKNOWN", xid_fail);
    std::vector<backend::XidEvent> out(queued.begin(), queued.end());
    queued.clear();
    return out;
  }
  backend::MigModeChange set_mig_mode(int, bool) override {
    Busy b(*this);
    return backend::MigModeChange::applied;
  }
  backend::MigInstance create_mig_instance(int, const std::string&, int) override {
    Busy b(*this);
    return {};
  }
  void destroy_mig_instance(int, int) override { Busy b(*this); }
  void set_amd_partition(int, const std::string&, const std::string&) override { Busy b(*this); }

  void xid(int gpu, int code, std::int64_t ms) {
    std::lock_guard lock(mu);
    queued.push_back({gpu, code, ms});
  }
  void set_metrics(std::vector<backend::GpuMetrics> m) {
    std::lock_guard lock(mu);
    metrics_now = std::move(m);
  }
  void fail_metrics(std::string why) {
    std::lock_guard lock(mu);
    metrics_fail = std::move(why);
  }
  void fail_xids(std::string why) {
    std::lock_guard lock(mu);
    xid_fail = std::move(why);
  }

  std::atomic<int> metrics_calls{0}, xid_calls{0};
  std::atomic<long long> max_xid_timeout{0};
  std::atomic<bool> overlapped{false};
  std::atomic<int> inside{0};

 private:
  struct Busy {
    explicit Busy(ScriptedBackend& b) : b_(b) {
      if (b_.inside.fetch_add(1) != 0) b_.overlapped = true;
      if (b_.slow) std::this_thread::sleep_for(1ms);
    }
    ~Busy() { b_.inside.fetch_sub(1); }
    ScriptedBackend& b_;
  };

 public:
  bool slow = false;

 private:
  std::mutex mu;
  std::vector<backend::GpuMetrics> metrics_now;
  std::deque<backend::XidEvent> queued;
  std::string metrics_fail, xid_fail;
};

backend::GpuMetrics gpu(int index, double celsius) {
  backend::GpuMetrics m;
  m.index = index;
  m.temperature_celsius = celsius;
  m.ecc_uncorrected_total = 0;
  return m;
}

TelemetryTime at_ms(std::int64_t ms) { return TelemetryTime(std::chrono::milliseconds(ms)); }

TEST(TelemetryPoller, FirstRoundPublishesMetricsAndTellsSubscribers) {
  ScriptedBackend b;
  b.set_metrics({gpu(0, 41), gpu(1, 43)});
  TelemetryPoller p(b, {});
  EXPECT_EQ(p.latest()->sequence, 0u) << "nothing before the first round";
  std::vector<std::uint64_t> seen;
  p.subscribe([&](const TelemetrySnapshot& s) { seen.push_back(s.sequence); });

  EXPECT_TRUE(p.poll_once(true));
  const auto s = p.latest();
  EXPECT_EQ(s->sequence, 1u);
  ASSERT_TRUE(s->metrics_at.has_value());
  ASSERT_EQ(s->metrics.size(), 2u);
  ASSERT_NE(s->gpu(1), nullptr);
  EXPECT_EQ(s->gpu(1)->temperature_celsius, 43);
  EXPECT_EQ(s->gpu(7), nullptr);
  EXPECT_TRUE(s->xids.empty());
  EXPECT_EQ(seen, (std::vector<std::uint64_t>{1}));
  EXPECT_EQ(b.max_xid_timeout.load(), 0) << "never blocks on events while holding the backend";
}

TEST(TelemetryPoller, XidsAreTalliedPerGpuAndCodeSinceStart) {
  ScriptedBackend b;
  TelemetryPoller p(b, {});
  b.xid(0, 79, 1000);
  b.xid(0, 79, 2000);
  b.xid(0, 13, 3000);
  b.xid(3, 48, 4000);
  EXPECT_TRUE(p.poll_once(false));
  b.xid(0, 79, 5000);
  EXPECT_TRUE(p.poll_once(false));
  const auto s = p.latest();
  EXPECT_EQ(s->sequence, 2u);
  EXPECT_FALSE(s->metrics_at.has_value()) << "no metrics were read";
  ASSERT_EQ(s->xids.size(), 2u);
  const auto& g0 = s->xids.at(0);
  EXPECT_EQ(g0.codes.at(79), (XidCount{3, at_ms(1000), at_ms(5000)}));
  EXPECT_EQ(g0.codes.at(13), (XidCount{1, at_ms(3000), at_ms(3000)}));
  EXPECT_EQ(g0.last_code, 79);
  EXPECT_EQ(g0.last_at, at_ms(5000));
  EXPECT_EQ(s->xids.at(3).last_code, 48);

  // A drain that brings nothing publishes nothing.
  EXPECT_FALSE(p.poll_once(false));
  EXPECT_EQ(p.latest()->sequence, 2u);
}

TEST(TelemetryPoller, FailuresAreRecordedAndTheLastGoodMetricsKept) {
  ScriptedBackend b;
  b.set_metrics({gpu(0, 50)});
  TelemetryPoller p(b, {});
  ASSERT_TRUE(p.poll_once(true));
  const auto good_at = p.latest()->metrics_at;

  b.fail_metrics("nvmlDeviceGetTemperature(GPU 0): GPU is lost");
  b.fail_xids("nvmlEventSetWait: Unknown Error");
  ASSERT_TRUE(p.poll_once(true));
  auto s = p.latest();
  EXPECT_EQ(s->metrics_error, "nvmlDeviceGetTemperature(GPU 0): GPU is lost (NVML_ERROR_GPU_IS_LOST)");
  EXPECT_EQ(s->xid_error, "nvmlEventSetWait: Unknown Error (NVML_ERROR_UNKNOWN)");
  EXPECT_EQ(s->metrics_at, good_at) << "the time of the metrics kept";
  ASSERT_EQ(s->metrics.size(), 1u);
  EXPECT_EQ(s->metrics[0].temperature_celsius, 50);

  b.fail_metrics("");
  b.fail_xids("");
  b.set_metrics({gpu(0, 52)});
  ASSERT_TRUE(p.poll_once(true));
  s = p.latest();
  EXPECT_EQ(s->metrics_error, "");
  EXPECT_EQ(s->xid_error, "");
  EXPECT_EQ(s->metrics[0].temperature_celsius, 52);
}

TEST(TelemetryPoller, RunReadsMetricsEveryIntervalAndXidsMoreOftenUntilStopped) {
  ScriptedBackend b;
  b.set_metrics({gpu(0, 40)});
  TelemetryPoller p(b, {std::chrono::milliseconds(300), std::chrono::milliseconds(20)});
  std::jthread t([&](std::stop_token stop) { p.run(stop); });
  auto first = p.wait_newer(0, 5s);
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(first->metrics_at.has_value()) << "metrics at once";

  b.xid(1, 79, 0);  // no time from the backend: the poller's
  std::shared_ptr<const TelemetrySnapshot> with_xid;
  for (auto s = first; s && !with_xid;) {
    s = p.wait_newer(s->sequence, 5s);
    if (s && s->xids.count(1)) with_xid = s;
  }
  ASSERT_NE(with_xid, nullptr);
  EXPECT_GT(with_xid->xids.at(1).codes.at(79).last.time_since_epoch().count(), 0);
  EXPECT_GT(b.xid_calls.load(), b.metrics_calls.load()) << "XIDs are drained more often than metrics are read";

  const auto before = std::chrono::steady_clock::now();
  t.request_stop();
  t.join();
  EXPECT_LT(std::chrono::steady_clock::now() - before, 1s) << "stop cuts the wait short";
  EXPECT_EQ(p.wait_newer(p.latest()->sequence, 10ms), nullptr);
}

TEST(SerializedBackend, CallsFromTwoThreadsNeverOverlap) {
  ScriptedBackend b;
  b.slow = true;
  SerializedBackend s(b);
  EXPECT_EQ(s.name(), "scripted");
  TelemetryPoller p(s, {});
  std::jthread poller([&] {
    for (int i = 0; i < 100; ++i) p.poll_once(i % 5 == 0);
  });
  for (int i = 0; i < 100; ++i) {
    s.inventory();
    s.processes();
    s.create_mig_instance(0, "1g.10gb", 0);
  }
  poller.join();
  EXPECT_FALSE(b.overlapped.load());
}

}  // namespace
}  // namespace gpupool::node
