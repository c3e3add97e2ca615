// The controller's worker loop with test reconcilers: what each result does,
// one key never reconciled twice at once, event mapping, graceful shutdown.
#include "gpupool/runtime/controller.h"

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <thread>

#include "gpupool/metrics/registry.h"
#include "gpupool/testenv/wait.h"
#include "support/scripted_server.h"

namespace gpupool::runtime {
namespace {

using namespace std::chrono_literals;

// Fast retries so error paths run in milliseconds.
std::unique_ptr<RateLimiter> fast_limiter() {
  return std::make_unique<ItemExponentialFailureRateLimiter>(1ms, 10ms);
}

struct Harness {
  metrics::Registry registry;
  metrics::ControllerMetrics controller_metrics{registry};
  ControllerOptions options(const std::string& name, int concurrency = 1) {
    ControllerOptions o;
    o.name = name;
    o.concurrency = concurrency;
    o.rate_limiter = fast_limiter();
    o.metrics = &controller_metrics;
    o.shutdown_grace = 2s;
    return o;
  }
};

class ScriptedReconciler final : public Reconciler {
 public:
  std::function<Result(const Request&, int attempt)> behaviour;
  Result reconcile(const Request& r, std::stop_token) override {
    int attempt;
    {
      std::lock_guard lock(mu);
      attempt = ++attempts[r.key()];
    }
    return behaviour(r, attempt);
  }
  int attempts_of(const std::string& key) {
    std::lock_guard lock(mu);
    return attempts[key];
  }
  std::mutex mu;
  std::map<std::string, int> attempts;
};

struct Running {
  Controller& controller;
  std::stop_source stop;
  std::thread thread;
  explicit Running(Controller& c) : controller(c), thread([this] { controller.run(stop.get_token()); }) {}
  ~Running() {
    stop.request_stop();
    thread.join();
  }
};

TEST(Controller, ErrorsAreRetriedWithBackoffUntilSuccess) {
  Harness h;
  ScriptedReconciler r;
  r.behaviour = [](const Request&, int attempt) {
    if (attempt < 4) throw std::runtime_error("not yet");
    return Result::done();
  };
  Controller c(h.options("retry"), r);
  Running run(c);
  c.enqueue({"ns", "a"});
  ASSERT_TRUE(testenv::wait_until([&] { return r.attempts_of("ns/a") == 4; }, 10s));
  ASSERT_TRUE(testenv::wait_until([&] { return c.queue().num_requeues("ns/a") == 0; }, 10s))
      << "success forgets the backoff";
  auto children = h.controller_metrics.for_controller("retry");
  EXPECT_EQ(children.reconcile_error.value(), 3);
  EXPECT_EQ(children.reconcile_errors.value(), 3);
  EXPECT_EQ(children.reconcile_success.value(), 1);
}

TEST(Controller, RequeueAfterComesBack) {
  Harness h;
  ScriptedReconciler r;
  r.behaviour = [](const Request&, int attempt) {
    return attempt < 3 ? Result::requeue_after(20ms) : Result::done();
  };
  Controller c(h.options("after"), r);
  Running run(c);
  c.enqueue({"", "cluster-scoped"});
  ASSERT_TRUE(testenv::wait_until([&] { return r.attempts_of("cluster-scoped") == 3; }, 10s));
  EXPECT_EQ(h.controller_metrics.for_controller("after").reconcile_requeue_after.value(), 2);
}

TEST(Controller, OneKeyIsNeverReconciledTwiceAtOnce) {
  Harness h;
  std::mutex mu;
  std::map<std::string, int> in_flight;
  std::atomic<int> overlaps{0}, total{0};
  ScriptedReconciler r;
  r.behaviour = [&](const Request& req, int) {
    {
      std::lock_guard lock(mu);
      if (++in_flight[req.key()] > 1) overlaps++;
    }
    std::this_thread::sleep_for(1ms);  // simulated work, so reconciles overlap in time
    {
      std::lock_guard lock(mu);
      --in_flight[req.key()];
    }
    total++;
    return Result::done();
  };
  Controller c(h.options("parallel", 4), r);
  Running run(c);
  for (int round = 0; round < 200; ++round) {
    for (const char* k : {"a", "b", "c"}) c.enqueue({"ns", k});
    std::this_thread::sleep_for(100us);
  }
  ASSERT_TRUE(testenv::wait_until([&] { return c.queue().len() == 0 && total.load() >= 3; }, 10s));
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_LT(total.load(), 600) << "adds of a waiting key collapse into one reconcile";
}

TEST(Controller, ShutdownLetsInFlightReconcilesFinish) {
  Harness h;
  std::atomic<bool> started{false}, finished{false};
  ScriptedReconciler r;
  r.behaviour = [&](const Request&, int) {
    started = true;
    std::this_thread::sleep_for(300ms);  // a reconcile under way when SIGTERM arrives
    finished = true;
    return Result::done();
  };
  Controller c(h.options("drain"), r);
  std::stop_source stop;
  std::thread t([&] { c.run(stop.get_token()); });
  c.enqueue({"ns", "slow"});
  ASSERT_TRUE(testenv::wait_until([&] { return started.load(); }, 10s));
  stop.request_stop();
  c.enqueue({"ns", "late"});  // no new key is taken after stop
  t.join();
  EXPECT_TRUE(finished.load()) << "run() returned before the in-flight reconcile finished";
  EXPECT_EQ(r.attempts_of("ns/late"), 0);
}

class CancellableReconciler final : public Reconciler {
 public:
  std::atomic<bool> started{false}, saw_stop{false};
  Result reconcile(const Request&, std::stop_token stop) override {
    started = true;
    while (!stop.stop_requested()) std::this_thread::sleep_for(5ms);
    saw_stop = true;
    return Result::done();
  }
};

TEST(Controller, ReconcilesPastTheGracePeriodAreCancelled) {
  Harness h;
  CancellableReconciler r;
  auto o = h.options("stuck");
  o.shutdown_grace = 100ms;
  Controller c(std::move(o), r);
  std::stop_source stop;
  std::thread t([&] { c.run(stop.get_token()); });
  c.enqueue({"ns", "stuck"});
  ASSERT_TRUE(testenv::wait_until([&] { return r.started.load(); }, 10s));
  stop.request_stop();
  t.join();
  EXPECT_TRUE(r.saw_stop.load());
}

TEST(Controller, WatchesMapEventsOfOtherKindsAndApplyPredicates) {
  test::ScriptedServer server;
  auto node = [](const std::string& name, const std::string& rv, int generation, const std::string& pool) {
    return R"({"kind":"Node","metadata":{"name":")" + name + R"(","resourceVersion":")" + rv +
           R"(","generation":)" + std::to_string(generation) + R"(,"labels":{"pool":")" + pool + R"("}}})";
  };
  test::Step list = test::json_step(200, R"({"kind":"NodeList","metadata":{"resourceVersion":"1"},"items":[)" +
                                             node("n1", "1", 1, "a") + "]}");
  list.query_contains = "limit=";
  server.enqueue(list);
  test::Step watch;
  watch.query_contains = "watch=1";
  // A status-only update (same generation) is skipped; a relabel moves n1 from pool a to pool b.
  watch.chunks = {test::watch_event_json("MODIFIED", node("n1", "2", 1, "a")),
                  test::watch_event_json("MODIFIED", node("n1", "3", 2, "b"))};
  watch.hold_open = true;
  server.enqueue(watch);

  kube::RestConfig rc;
  rc.server = server.url();
  rc.qps = 0;
  kube::Client client(rc);
  InformerOptions paginated;
  paginated.initial_list = InitialList::paginated;
  Informer<kube::Object> nodes(client, {kube::core::nodes(), "", "", ""}, paginated);
  Harness h;
  ScriptedReconciler r;
  r.behaviour = [](const Request&, int) { return Result::done(); };
  Controller c(h.options("pools"), r);
  std::atomic<int> passed{0}, skipped{0};
  c.watches<kube::Object>(
      nodes, [](const kube::Object& n) { return std::vector<Request>{{"", "pool-" + kube::string_at(n.doc, {"metadata", "labels", "pool"})}}; },
      [&](const kube::Object& a, const kube::Object& b) {
        bool pass = generation_changed(a, b);
        (pass ? passed : skipped)++;
        return pass;
      });
  Running run(c);
  std::jthread informer([&](std::stop_token stop) { nodes.run(stop); });
  ASSERT_TRUE(testenv::wait_until([&] { return r.attempts_of("pool-b") == 1; }, 10s));
  ASSERT_TRUE(testenv::wait_until([&] { return c.queue().len() == 0; }, 10s));
  EXPECT_GE(r.attempts_of("pool-a"), 1) << "the relabel also reconciles the pool n1 left";
  EXPECT_EQ(skipped.load(), 1) << "the status-only update (same generation) is skipped";
  EXPECT_EQ(passed.load(), 1);
  informer.request_stop();
  server.release();
}

}  // namespace
}  // namespace gpupool::runtime
