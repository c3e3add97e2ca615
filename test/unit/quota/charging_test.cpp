// Charging: which namespaces quotas cover, which quota a pod is charged to,
// in what, and in which state.
#include <gtest/gtest.h>

#include "gpupool/quota/charging.h"

namespace gpupool::quota {
namespace {

kube::PodProjection pod(const std::string& ns, const std::map<std::string, std::string>& requests,
                        std::vector<std::string> gates = {kQuotaGate}) {
  kube::PodProjection p;
  p.ns = ns;
  p.name = "p";
  p.phase = kube::PodPhase::pending;
  p.rare_mut().scheduling_gates = std::move(gates);
  kube::PodProjection::Container c;
  c.name = "main";
  c.requests.assign(requests.begin(), requests.end());
  c.limits = c.requests;
  p.containers.push_back(c);
  return p;
}

// team-a (tenant a: namespaces ml-a1, ml-a2), team-b (tenant b).
NamespaceLabels namespaces() {
  return {{"ml-a1", {{kTenantLabel, "a"}}}, {"ml-a2", {{kTenantLabel, "a"}}}, {"ml-b", {{kTenantLabel, "b"}}},
          {"free", {}}};
}

ChargeMap standard_map() {
  return build_charge_map(
      {
          {"ml-a1/devices", "ml-a1", "a100", {"ml-a1", "ml-a2", "ml-b"}, {"nvidia.com/gpu"}},  // ml-b is not tenant a's
          {"ml-a1/units", "ml-a1", "h100", {}, {"gpupool.io/gpu"}},
          {"ml-b/q", "ml-b", "a100", {}, {"nvidia.com/gpu", "nvidia.com/mig-1g.10gb"}},
      },
      namespaces(), {{"h100", {{"nvidia.com/mig-3g.40gb", 428571}}}});
}

TEST(Charging, CoversOnlyTheTenantsOwnNamespaces) {
  const ChargeMap m = standard_map();
  EXPECT_EQ(covered_namespaces(m), (std::vector<std::string>{"ml-a1", "ml-a2", "ml-b"}));
  EXPECT_EQ(m.covering.at("ml-a1"), (std::vector<std::string>{"ml-a1/devices", "ml-a1/units"}));
  EXPECT_EQ(m.covering.at("ml-b"), (std::vector<std::string>{"ml-b/q"})) << "tenant a's quota may not hold back tenant b";
  EXPECT_FALSE(m.covered("free"));
  EXPECT_FALSE(build_charge_map({{"x/q", "x", "p", {}, {"nvidia.com/gpu"}}}, namespaces(), {}).covered("x"))
      << "a namespace that does not exist is not covered";
}

TEST(Charging, ChargesTheFirstQuotaThatCountsTheResources) {
  struct Case {
    const char* name;
    kube::PodProjection pod;
    std::optional<PodCharge> want;
    std::string why_not;
  };
  auto pinned = [](kube::PodProjection p, const std::string& pool) {
    p.rare_mut().node_selector[kPoolSelector] = pool;
    return p;
  };
  auto phase = [](kube::PodProjection p, const std::string& ph) {
    p.phase = kube::parse_pod_phase(ph);
    return p;
  };
  const Case cases[] = {
      {"whole GPU: the device quota", pod("ml-a2", {{"nvidia.com/gpu", "2"}}),
       PodCharge{"ml-a1/devices", {{"nvidia.com/gpu", 2 * kMicro}}, PodQuotaState::waiting}, ""},
      {"MIG slice: only the unit quota counts it, at its cost", pod("ml-a1", {{"nvidia.com/mig-3g.40gb", "2"}}),
       PodCharge{"ml-a1/units", {{"gpupool.io/gpu", 857142}}, PodQuotaState::waiting}, ""},
      {"pinned to h100: the unit quota, a GPU counted whole", pinned(pod("ml-a1", {{"nvidia.com/gpu", "1"}}), "h100"),
       PodCharge{"ml-a1/units", {{"gpupool.io/gpu", kMicro}}, PodQuotaState::waiting}, ""},
      {"no gate: admitted", pod("ml-b", {{"nvidia.com/mig-1g.10gb", "3"}}, {}),
       PodCharge{"ml-b/q", {{"nvidia.com/mig-1g.10gb", 3 * kMicro}}, PodQuotaState::admitted}, ""},
      {"a resource no quota counts", pod("ml-b", {{"amd.com/gpu", "1"}}), std::nullopt,
       "TenantQuota ml-b/q does not count amd.com/gpu (add it, or gpupool.io/gpu, to spec.resources)"},
      {"pinned to a pool no quota is in", pinned(pod("ml-b", {{"nvidia.com/gpu", "1"}}), "h100"), std::nullopt,
       "no TenantQuota covering namespace ml-b is in pool h100 (the pod's nodeSelector gpupool.io/pool)"},
      {"not covered", pod("free", {{"nvidia.com/gpu", "1"}}), std::nullopt, ""},
      {"no GPU", pod("ml-a1", {{"cpu", "4"}}), std::nullopt, ""},
      {"succeeded", phase(pod("ml-a1", {{"nvidia.com/gpu", "1"}}, {}), "Succeeded"), std::nullopt, ""},
      {"failed", phase(pod("ml-a1", {{"nvidia.com/gpu", "1"}}, {}), "Failed"), std::nullopt, ""},
  };
  const ChargeMap m = standard_map();
  for (const auto& c : cases) {
    const PodChargeResult r = charge_pod(c.pod, m);
    EXPECT_EQ(r.charge, c.want) << c.name;
    EXPECT_EQ(r.why_not, c.why_not) << c.name;
  }
}

TEST(Charging, AnAssumedAdmissionCountsAsUsedBeforeTheInformerSeesIt) {
  const ChargeMap m = standard_map();
  const auto p = pod("ml-a1", {{"nvidia.com/gpu", "1"}});
  EXPECT_EQ(charge_pod(p, m, false).charge->state, PodQuotaState::waiting);
  EXPECT_EQ(charge_pod(p, m, true).charge->state, PodQuotaState::admitted);
  EXPECT_TRUE(gated(p));
  EXPECT_FALSE(gated(pod("ml-a1", {}, {"other.io/gate"})));
}

}  // namespace
}  // namespace gpupool::quota
