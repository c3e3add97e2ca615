// GitOps: config/samples applied server-side (as Argo CD and Flux do) to the
// real control plane with the controller and agents of the samples' GPU
// models running; once the system has acted on every object, a server-side
// diff of the same files is empty, a second apply changes no spec, and no
// field manager but the user's owns anything under a user object's spec
// (the controller writes status, finalizers and objects of its own only).
// Every kind has a Ready condition with observedGeneration (kstatus).
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

#include "gpupool/kube/client.h"
#include "gpupool/kube/errors.h"
#include "support/cluster_fixture.h"
#include "support/fleet_fixture.h"
#include "support/kube_test_helpers.h"

namespace gpupool::test {
namespace {

const kube::ResourceRef kPolicies{{"gpupool.io", "v1alpha1", "gpupolicies"}, "", "", ""};
const kube::ResourceRef kQuotas{{"gpupool.io", "v1alpha1", "tenantquotas"}, "", "", ""};

// The Ready condition speaks for the object's current generation.
bool ready_observed(const rapidjson::Value& obj) {
  const auto* c = at(obj, {"status", "conditions"});
  if (!c || !c->IsArray()) return false;
  for (const auto& x : c->GetArray()) {
    if (str(x, {"type"}) == "Ready") {
      return x.HasMember("observedGeneration") && x["observedGeneration"] == (*at(obj, {"metadata", "generation"}));
    }
  }
  return false;
}

class GitOpsTest : public FleetTest {
 protected:
  void TearDown() override {
    cluster().kubectl_result({"delete", "-k", samples(), "--ignore-not-found", "--wait=false"});
    FleetTest::TearDown();
  }
  static std::string samples() { return std::string(GPUPOOL_SOURCE_DIR) + "/config/samples"; }

  std::map<std::string, std::string> generations() { return object_generations(cluster(), {"-k", samples()}); }
};

TEST_F(GitOpsTest, SamplesAppliedTwiceServerSideChangeNothingOnceTheSystemHasActed) {
  // Nodes of the samples' pools, their GPUs at the pools' drivers.
  fleet(60, 1, {}, "driverVersion: \"570.133.20\"\ngpus: [{model: a100-sxm4-80gb, count: 4}]\n");
  fleet(61, 1, {}, "driverVersion: \"550.144.03\"\ngpus: [{model: t4-16gb, count: 2}]\n");
  start_controller();
  std::string out;
  ASSERT_EQ(cluster().kubectl({"apply", "--server-side", "-k", samples()}, &out), 0) << out;
  for (const char* p : {"a100-80gb-mig", "mi300x-cpx", "t4-shared"}) pools_.insert(p);

  // The system has acted on every object: each one's Ready speaks for its generation.
  std::string last;
  wait_for(90s, [&] {
    last.clear();
    bool all = true;
    for (const auto* ref : {&kPools, &kPolicies}) {
      const auto list = client_->list(*ref);
      for (const auto& o : list["items"].GetArray()) {
        if (!ready_observed(o)) last += " " + str(o, {"metadata", "name"});
        all = all && ready_observed(o);
      }
    }
    const auto quotas = client_->list(kQuotas);
    for (const auto& q : quotas["items"].GetArray()) {
      if (!ready_observed(q)) last += " " + str(q, {"metadata", "name"});
      all = all && ready_observed(q);
    }
    return all;
  }, "every sample's Ready condition observing its generation; not yet:" + last);
  // (The samples' pools change MIG layouts and sharing, which wait for their
  // maintenance windows: Ready False, OutsideMaintenanceWindow, is as steady.)
  auto quota = client_->get(kQuotas.with_namespace("ml-inference").with_name("inference-t4"));
  EXPECT_EQ(condition(quota, "Ready"), condition(quota, "Granted"));
  EXPECT_EQ(condition(quota, "Ready", "reason"), condition(quota, "Granted", "reason"));

  // What Argo CD and Flux compute: no difference, and a second apply changes no spec.
  const auto before = generations();
  EXPECT_EQ(before.size(), 8u);
  auto diff = cluster().kubectl_result({"diff", "--server-side", "-k", samples()});
  EXPECT_EQ(diff.status, 0) << diff.out << diff.err;
  ASSERT_EQ(cluster().kubectl({"apply", "--server-side", "-k", samples()}, &out), 0) << out;
  EXPECT_EQ(generations(), before);

  // Nobody but the user's apply owns a field of a user object's spec.
  for (const auto* ref : {&kPools, &kPolicies, &kQuotas}) {
    const auto list = client_->list(*ref);
    for (const auto& o : list["items"].GetArray()) {
      for (const auto& m : at(o, {"metadata", "managedFields"})->GetArray()) {
        if (str(m, {"manager"}) == "kubectl" || str(m, {"subresource"}) == "status") continue;
        const std::string fields = m.HasMember("fieldsV1") ? kube::to_json(m["fieldsV1"]) : "";
        EXPECT_EQ(fields.find("\"f:spec\""), std::string::npos)
            << str(m, {"manager"}) << " owns spec fields of " << str(o, {"metadata", "name"}) << ": " << fields;
      }
    }
  }
}

}  // namespace
}  // namespace gpupool::test
