// HealthReconciler::node_change_matters (include/gpupool/pool_controller/
// health_reconciler.h): which Node updates wake a GPU health pass.
#include <gtest/gtest.h>

#include "gpupool/pool_controller/health_reconciler.h"
#include "gpupool/stored/gpunode.h"

namespace gpupool::pool_controller {
namespace {

kube::Object node(const std::string& spec, const std::string& annotations = "{}") {
  return kube::decode_object(R"({"metadata":{"name":"n","annotations":)" + annotations + R"(},"spec":)" + spec + "}");
}

// As the controller's store keeps it: split (stored/gpunode.h).
kube::Object gpunode(const std::string& health) {
  kube::DecodeTrim split;
  split.take_part = stored::take_gpunode_parts;
  auto g = kube::decode_object(R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUNode","metadata":{"name":"n"},
    "spec":{"nodeName":"n"},"status":{"gpus":[{"index":0,"health":"Healthy"},{"index":1,"health":")" +
                                   health + R"("}]}})",
                               split);
  EXPECT_NE(g.part, nullptr);
  return g;
}

TEST(HealthWake, ANodeChangeWakesGpuHealthOnlyWhereItCanChangeADecision) {
  const auto healthy = gpunode("Healthy");
  const auto unhealthy = gpunode("Unhealthy");
  const auto no_status = kube::decode_object(R"({"metadata":{"name":"n"}})");
  const std::string cordoned = R"({"unschedulable":true})";
  const std::string tainted = R"({"taints":[{"key":"gpupool.io/gpu-unhealthy","effect":"NoSchedule"}]})";
  const std::string recorded = R"({"gpupool.io/health-remediation":"cordon since 2026-11-28T00:00:00Z"})";
  const struct {
    const char* what;
    kube::Object before, after;
    const kube::Object* gpunode;
    bool wakes;
  } cases[] = {
      {"a rollout's cordon of a healthy node", node("{}"), node(cordoned), &healthy, false},
      {"its uncordon", node(cordoned), node("{}"), &healthy, false},
      {"the agent's pre-drain annotation", node("{}"), node("{}", R"({"gpupool.io/pre-drain-unschedulable":"false"})"), &healthy, false},
      {"nothing health reads changed", node(cordoned), node(cordoned), &unhealthy, false},
      {"a cordon of a node with an Unhealthy GPU", node("{}"), node(cordoned), &unhealthy, true},
      {"a node whose GPUNode is missing", node("{}"), node(cordoned), nullptr, true},
      {"a GPUNode with no status yet", node("{}"), node(cordoned), &no_status, false},
      {"our taint removed by someone", node(tainted), node("{}"), &healthy, true},
      {"our taint added", node("{}"), node(tainted), &healthy, true},
      {"an uncordon of a node we cordoned", node(cordoned, recorded), node("{}", recorded), &healthy, true},
      {"our record removed", node("{}", recorded), node("{}"), &healthy, true},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(HealthReconciler::node_change_matters(c.before, c.after, c.gpunode), c.wakes) << c.what;
  }
}

}  // namespace
}  // namespace gpupool::pool_controller
