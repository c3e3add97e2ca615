// The admission burst's pure parts (tools/bench/scale/admission_burst.h):
// its default size, quantities, the spread of pods over tenants within
// their rooms and their pools', the pod's manifest.
#include "scale/admission_burst.h"

#include <gtest/gtest.h>

#include "gpupool/kube/client.h"
#include "gpupool/kube/json_access.h"

namespace gpupool::bench {
namespace {

TEST(AdmissionBurst, DefaultSizeFollowsTheNodes) {
  EXPECT_EQ(default_burst(5000), 2000u);
  EXPECT_EQ(default_burst(500), 200u);
  EXPECT_EQ(default_burst(12), 20u);
  EXPECT_EQ(default_burst(0), 20u);
}

TEST(AdmissionBurst, WholeQuantities) {
  const auto doc = kube::parse_json(R"({"a":5,"b":"12","c":"1500m","d":"","e":true,"f":"7Ki"})");
  EXPECT_EQ(whole_quantity(kube::member(doc, "a")), 5);
  EXPECT_EQ(whole_quantity(kube::member(doc, "b")), 12);
  EXPECT_FALSE(whole_quantity(kube::member(doc, "c")));
  EXPECT_FALSE(whole_quantity(kube::member(doc, "d")));
  EXPECT_FALSE(whole_quantity(kube::member(doc, "e")));
  EXPECT_FALSE(whole_quantity(kube::member(doc, "f")));
  EXPECT_FALSE(whole_quantity(kube::member(doc, "missing")));
}

TEST(AdmissionBurst, PodsGoRoundRobinWithinEachRoom) {
  struct Case {
    const char* what;
    std::vector<TenantRoom> tenants;
    std::map<std::string, long> pools;
    std::size_t wanted;
    std::vector<std::size_t> want;
  };
  const std::vector<Case> cases = {
      {"round-robin until wanted", {{"t0", "p", 3}, {"t1", "p", 3}}, {{"p", 100}}, 5, {0, 1, 0, 1, 0}},
      {"a tenant without room is skipped", {{"t0", "p", 0}, {"t1", "p", 2}, {"t2", "p", -4}}, {{"p", 100}}, 5, {1, 1}},
      {"the pool's room caps its tenants together", {{"t0", "p", 5}, {"t1", "p", 5}, {"t2", "q", 1}},
       {{"p", 3}, {"q", 10}}, 10, {0, 1, 2, 0}},
      {"a pool without capacity known has none", {{"t0", "p", 5}}, {}, 3, {}},
      {"nothing wanted", {{"t0", "p", 5}}, {{"p", 5}}, 0, {}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(plan_burst(c.tenants, c.pools, c.wanted), c.want) << c.what;
  }
}

TEST(AdmissionBurst, PodAsksOneDeviceAndIsNotBound) {
  const auto pod = kube::parse_json(burst_pod_manifest("tenant-0001", "burst-000001", "nvidia.com/mig-1g.10gb"));
  EXPECT_EQ(kube::string_of(kube::value_at(pod, {"metadata", "namespace"})), "tenant-0001");
  EXPECT_EQ(kube::string_of(kube::value_at(pod, {"metadata", "labels", "app"})), "bench-burst");
  EXPECT_EQ(kube::value_at(pod, {"spec", "nodeName"}), nullptr);  // the gate's policy refuses bound GPU pods
  const auto& c = (*kube::value_at(pod, {"spec", "containers"}))[0];
  EXPECT_EQ(kube::string_of(kube::value_at(c, {"resources", "limits", "nvidia.com/mig-1g.10gb"})), "1");
}

}  // namespace
}  // namespace gpupool::bench
