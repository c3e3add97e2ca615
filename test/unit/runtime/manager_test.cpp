// Manager: what holds once run() has returned.
#include "gpupool/runtime/manager.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "gpupool/testenv/wait.h"
#include "support/scripted_server.h"

namespace gpupool::runtime {
namespace {

using namespace std::chrono_literals;
using test::ScriptedServer;

std::string pod_list(const std::string& rv) {
  return R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":")" + rv +
         R"("},"items":[{"metadata":{"name":"a","namespace":"ns","resourceVersion":"1"}}]})";
}

struct Idle : Reconciler {
  Result reconcile(const Request&, std::stop_token) override { return Result::done(); }
};

// main() destroys the controllers (whose reconcilers the informers' handlers
// call) right after run() returns: an informer still running then delivered
// events into freed memory (found by ASan in the scale bench).
TEST(Manager, RunStopsTheInformersBeforeItReturns) {
  ScriptedServer server;
  test::Step list = test::json_step(200, pod_list("5"));
  list.query_contains = "limit=";
  server.enqueue(list);
  test::Step watch;
  watch.query_contains = "watch=1";
  watch.hold_open = true;
  server.enqueue(watch);
  kube::RestConfig config;
  config.server = server.url();
  config.timeout = 5s;
  ManagerOptions options;
  options.metrics_bind_address = "0";
  options.health_probe_bind_address = "0";
  Manager manager(config, options);
  InformerOptions paginated;
  paginated.initial_list = InitialList::paginated;
  auto informer = manager.informers().get<kube::Object>({kube::core::pods(), "", "", ""}, paginated);
  std::atomic<int> events{0};
  EventHandler<kube::Object> counting;
  counting.on_add = [&](const auto&) { ++events; };
  informer->add_handler(counting);

  Idle idle;
  ControllerOptions co;
  co.name = "idle";
  Controller controller(std::move(co), idle);  // runs, as main's do, until the stop
  manager.add(controller);

  std::stop_source stop;
  std::atomic<int> code{-1};
  std::jthread runner([&] { code = manager.run(stop.get_token()); });
  ASSERT_TRUE(testenv::wait_until([&] { return informer->has_synced(); }, 10s));
  EXPECT_EQ(manager.informers().running(), 1u);
  stop.request_stop();
  runner.join();
  EXPECT_EQ(code.load(), 0);
  EXPECT_EQ(manager.informers().running(), 0u) << "an informer outlived run()";
  EXPECT_EQ(events.load(), 1);
  server.release();
}

}  // namespace
}  // namespace gpupool::runtime
