// A quota's usage into its status: which informer updates wake the
// reconciler, and a pass against a scripted API server that writes only what
// differs from the informer's copy, so that the echo of its own write must
// wake it when that copy was stale.
#include "gpupool/quota_controller/usage_status_reconciler.h"

#include <gtest/gtest.h>

#include "gpupool/kube/client.h"
#include "gpupool/kube/json_access.h"
#include "gpupool/quota/amounts.h"
#include "support/scripted_client.h"
#include "support/scripted_server.h"

namespace gpupool::quota_controller {
namespace {

using namespace std::chrono_literals;
using quota::kMicro;
constexpr auto Done = runtime::Result::Kind::Done;

std::string quota_json(const std::string& status, const std::string& rv = "7") {
  return R"({"apiVersion":"gpupool.io/v1alpha1","kind":"TenantQuota","metadata":{"name":"q","namespace":"ml",)"
         R"("resourceVersion":")" + rv + R"(","generation":1},"spec":{"poolRef":{"name":"a100"},)"
         R"("resources":{"nvidia.com/gpu":"4"}},"status":)" + status + "}";
}

kube::Object quota_object(const std::string& status, const std::string& rv = "7") {
  return kube::decode_object(quota_json(status, rv));
}

TEST(UsageStatus, WakesOnTheGrantAndOnTheUsageFiguresOnly) {
  const std::string base = R"("phase":"Granted","granted":{"nvidia.com/gpu":"4"},"used":{"nvidia.com/gpu":"3"})";
  struct Case {
    const char* name;
    std::string after;
    bool wakes;
  };
  const std::vector<Case> cases = {
      {"nothing moved", base, false},
      {"the grant moved (borrowed follows it)", R"("phase":"Granted","granted":{"nvidia.com/gpu":"2"},"used":{"nvidia.com/gpu":"3"})",
       true},
      {"used moved: the echo of a write", R"("phase":"Granted","granted":{"nvidia.com/gpu":"4"},"used":{"nvidia.com/gpu":"4"})", true},
      {"used gone", R"("phase":"Granted","granted":{"nvidia.com/gpu":"4"})", true},
      {"waiting appeared", base + R"(,"waiting":{"nvidia.com/gpu":"1"})", true},
      {"borrowed appeared", base + R"(,"borrowed":{"nvidia.com/gpu":"1"})", true},
      {"only the phase and conditions", R"("phase":"Expired","granted":{"nvidia.com/gpu":"4"},"used":{"nvidia.com/gpu":"3"},)"
                                        R"("conditions":[{"type":"Granted","status":"False"}])",
       false},
  };
  const auto before = quota_object("{" + base + "}");
  for (const auto& c : cases) {
    EXPECT_EQ(quota_usage_status_changed(before, quota_object("{" + c.after + "}")), c.wakes) << c.name;
  }
}

// The informer's copy lags behind a write: used went 3 -> 4 (written) -> 3
// before the echo of the write arrived. The pass that reads the stale copy
// (3) writes nothing; the echo (4) wakes it, and that pass writes 3 again.
TEST(UsageStatus, AStaleCopyIsCorrectedWhenTheEchoOfTheWriteArrives) {
  test::ScriptedServer server;
  kube::Client client(test::scripted_config(server, 2s));
  runtime::Store<kube::Object> quotas;
  QuotaUsage usage{{{"nvidia.com/gpu", 3 * kMicro}}, {}};
  UsageStatusReconciler reconciler(client, quotas, [&](const std::string& key) -> std::optional<QuotaUsage> {
    if (key != "ml/q") return std::nullopt;
    return usage;
  });
  const runtime::Request request{"ml", "q"};
  const std::string granted = R"("phase":"Granted","granted":{"nvidia.com/gpu":"4"})";

  // The copy before the write: it matches the usage now, nothing is sent.
  auto stale = std::make_shared<const kube::Object>(quota_object("{" + granted + R"(,"used":{"nvidia.com/gpu":"3"}})", "7"));
  quotas.upsert("ml/q", stale);
  EXPECT_EQ(reconciler.reconcile(request, {}).kind(), Done);
  EXPECT_TRUE(server.requests().empty());

  // The echo of the earlier write (used 4) arrives: it wakes the reconciler...
  auto echo = std::make_shared<const kube::Object>(quota_object("{" + granted + R"(,"used":{"nvidia.com/gpu":"4"}})", "8"));
  ASSERT_TRUE(quota_usage_status_changed(*stale, *echo));
  quotas.upsert("ml/q", echo);
  // ...and the pass writes the usage now, from the echo's resourceVersion.
  server.enqueue(test::json_step(200, quota_json("{" + granted + R"(,"used":{"nvidia.com/gpu":"3"}})", "9")));
  EXPECT_EQ(reconciler.reconcile(request, {}).kind(), Done);
  const auto sent = server.requests();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].method, "PUT");
  EXPECT_EQ(sent[0].path, "/apis/gpupool.io/v1alpha1/namespaces/ml/tenantquotas/q/status");
  rapidjson::Document body;
  body.Parse(sent[0].body.c_str());
  ASSERT_FALSE(body.HasParseError()) << sent[0].body;
  EXPECT_EQ(kube::string_at(body, {"status", "used", "nvidia.com/gpu"}), "3");
  EXPECT_EQ(kube::string_at(body, {"metadata", "resourceVersion"}), "8");
  EXPECT_FALSE(kube::value_at(body, {"status", "borrowed"})) << "3 of a grant of 4 borrows nothing";

  // Usage above the grant: borrowed is the part above it.
  usage.used = {{"nvidia.com/gpu", 6 * kMicro}};
  usage.waiting = {{"nvidia.com/gpu", 2 * kMicro}};
  server.enqueue(test::json_step(200, quota_json("{}", "10")));
  EXPECT_EQ(reconciler.reconcile(request, {}).kind(), Done);
  ASSERT_EQ(server.requests().size(), 2u);
  body.Parse(server.requests()[1].body.c_str());
  ASSERT_FALSE(body.HasParseError());
  EXPECT_EQ(kube::string_at(body, {"status", "used", "nvidia.com/gpu"}), "6");
  EXPECT_EQ(kube::string_at(body, {"status", "waiting", "nvidia.com/gpu"}), "2");
  EXPECT_EQ(kube::string_at(body, {"status", "borrowed", "nvidia.com/gpu"}), "2");
  EXPECT_EQ(kube::string_at(body, {"status", "phase"}), "Granted") << "the rest of the status is kept";
}

// A quota the admission reconciler does not charge, or one being deleted, is left alone.
TEST(UsageStatus, LeavesUnchargedAndDeletedQuotasAlone) {
  test::ScriptedServer server;
  kube::Client client(test::scripted_config(server, 2s));
  runtime::Store<kube::Object> quotas;
  UsageStatusReconciler reconciler(client, quotas, [](const std::string&) { return std::nullopt; });
  quotas.upsert("ml/q", std::make_shared<const kube::Object>(quota_object(R"({"used":{"nvidia.com/gpu":"3"}})")));
  EXPECT_EQ(reconciler.reconcile({"ml", "q"}, {}).kind(), Done);
  EXPECT_EQ(reconciler.reconcile({"ml", "gone"}, {}).kind(), Done);
  EXPECT_TRUE(server.requests().empty());
}

}  // namespace
}  // namespace gpupool::quota_controller
