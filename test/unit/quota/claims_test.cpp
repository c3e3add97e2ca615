// What DRA claims ask for, by DeviceClass, and how the quota charges them.
#include <gtest/gtest.h>

#include "gpupool/quota/charging.h"
#include "gpupool/quota/claims.h"

namespace gpupool::quota {
namespace {

constexpr std::int64_t M = kMicro;

std::shared_ptr<const kube::Object> object(const std::string& json) {
  return std::make_shared<const kube::Object>(kube::decode_object(json));
}

// ml/a100 (template: 2 gpu.nvidia.com exactly, and a preferred 1 of mig.nvidia.com), ml/shared-nic (claim: a NIC),
// ml/everything (template: all GPUs).
ClaimLookup lookup() {
  return [](const std::string& resource, const std::string& ns, const std::string& name) -> std::shared_ptr<const kube::Object> {
    if (ns != "ml") return nullptr;
    if (resource == "resourceclaimtemplates" && name == "a100") {
      return object(R"({"metadata":{"name":"a100","namespace":"ml"},"spec":{"spec":{"devices":{"requests":[
          {"name":"g","exactly":{"deviceClassName":"gpu.nvidia.com","count":2}},
          {"name":"m","firstAvailable":[{"name":"big","deviceClassName":"mig.nvidia.com"},{"name":"small","deviceClassName":"x"}]}]}}}})");
    }
    if (resource == "resourceclaims" && name == "shared-nic") {
      return object(R"({"metadata":{"name":"shared-nic","namespace":"ml"},"spec":{"devices":{"requests":[
          {"name":"n","exactly":{"deviceClassName":"nic.example.com"}}]}}})");
    }
    if (resource == "resourceclaimtemplates" && name == "everything") {
      return object(R"({"metadata":{"name":"everything","namespace":"ml"},"spec":{"spec":{"devices":{"requests":[
          {"name":"g","exactly":{"deviceClassName":"gpu.nvidia.com","allocationMode":"All"}}]}}}})");
    }
    return nullptr;
  };
}

kube::PodProjection pod_with(std::vector<kube::PodProjection::ClaimSource> sources) {
  kube::PodProjection p;
  p.ns = "ml";
  p.name = "p";
  p.phase = kube::PodPhase::pending;
  p.rare_mut().scheduling_gates = {kQuotaGate};
  p.containers.emplace_back();
  for (std::size_t i = 0; i < sources.size(); ++i) p.rare_mut().resource_claims.push_back("c" + std::to_string(i));
  p.rare_mut().claim_sources = std::move(sources);
  return p;
}

TEST(PodClaims, ByDeviceClass) {
  const auto c = pod_claims(pod_with({{"", "a100"}, {"shared-nic", ""}}), lookup());
  EXPECT_EQ(c.problem, "");
  EXPECT_EQ(c.by_class, (Amounts{{"gpu.nvidia.com", 2 * M}, {"mig.nvidia.com", M}, {"nic.example.com", M}}));
  EXPECT_EQ(pod_claims(pod_with({{"", "missing"}}), lookup()).problem, "ResourceClaimTemplate ml/missing does not exist (yet)");
  EXPECT_EQ(pod_claims(pod_with({{"", "everything"}}), lookup()).problem,
            "ResourceClaimTemplate ml/everything asks for all devices of DeviceClass gpu.nvidia.com: a quota cannot count "
            "that before allocation");
}

TEST(PodClaims, ChargedThroughThePoolsDeviceClassMapping) {
  const NamespaceLabels namespaces{{"ml", {}}};
  const ChargeMap map = build_charge_map({{"ml/q", "ml", "a100", {}, {"nvidia.com/gpu"}}}, namespaces, {},
                                         {{"a100", {{"gpu.nvidia.com", "nvidia.com/gpu"}}}});
  const auto gpu = pod_with({{"", "a100"}, {"shared-nic", ""}});
  const auto r = charge_pod(gpu, map, false, pod_claims(gpu, lookup()));
  ASSERT_TRUE(r.charge) << r.why_not;
  EXPECT_EQ(r.charge->charge, (Amounts{{"nvidia.com/gpu", 2 * M}})) << "classes the policy does not map are not GPUs";
  EXPECT_EQ(r.devices, (Amounts{{"nvidia.com/gpu", 2 * M}}));

  const auto nic = pod_with({{"shared-nic", ""}});
  const auto none = charge_pod(nic, map, false, pod_claims(nic, lookup()));
  EXPECT_FALSE(none.charge);
  EXPECT_EQ(none.why_not, "") << "a pod whose claims are not GPUs is not the quota's";

  const auto missing = pod_with({{"", "missing"}});
  EXPECT_EQ(charge_pod(missing, map, false, pod_claims(missing, lookup())).why_not,
            "ResourceClaimTemplate ml/missing does not exist (yet)");
}

}  // namespace
}  // namespace gpupool::quota
