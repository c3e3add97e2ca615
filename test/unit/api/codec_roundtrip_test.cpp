#include <gtest/gtest.h>

#include <rapidjson/document.h>

#include "gpupool/api/kinds.h"
#include "sample_objects.h"

namespace gpupool::api {
namespace {

using namespace gpupool::api::testing;

rapidjson::Document parse(std::string_view text) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseFullPrecisionFlag>(text.data(), text.size());
  EXPECT_FALSE(doc.HasParseError()) << text;
  return doc;
}

// encode -> decode_object on the value, and to_json -> parse -> decode_object.
void expect_round_trip(const AnyObject& obj) {
  rapidjson::Document doc;
  const rapidjson::Value v = encode(obj, doc.GetAllocator());
  const auto decoded = decode_object(v);
  ASSERT_TRUE(decoded.ok()) << format_field_errors(decoded.errors);
  EXPECT_TRUE(decoded.errors.empty());
  EXPECT_TRUE(*decoded.value == obj) << to_json(obj) << "\n" << to_json(*decoded.value);

  const std::string text = to_json(obj);
  const auto doc2 = parse(text);
  const auto from_text = decode_object(doc2);
  ASSERT_TRUE(from_text.ok()) << format_field_errors(from_text.errors);
  EXPECT_TRUE(*from_text.value == obj);
  EXPECT_EQ(to_json(*from_text.value), text);
}

TEST(CodecRoundTrip, FullGPUPool) { expect_round_trip(full_gpupool()); }
TEST(CodecRoundTrip, FullGPUPolicy) { expect_round_trip(full_gpupolicy()); }
TEST(CodecRoundTrip, FullTenantQuota) { expect_round_trip(full_tenantquota()); }
TEST(CodecRoundTrip, FullGPUNode) { expect_round_trip(full_gpunode()); }
TEST(CodecRoundTrip, MinimalGPUPool) { expect_round_trip(minimal_gpupool()); }
TEST(CodecRoundTrip, MinimalGPUPolicy) { expect_round_trip(minimal_gpupolicy()); }
TEST(CodecRoundTrip, MinimalTenantQuota) { expect_round_trip(minimal_tenantquota()); }
TEST(CodecRoundTrip, MinimalGPUNode) { expect_round_trip(minimal_gpunode()); }

TEST(CodecRoundTrip, TypedDecodersMatchDecodeObject) {
  rapidjson::Document doc;
  const auto pool = full_gpupool();
  const auto policy = full_gpupolicy();
  const auto quota = full_tenantquota();
  const auto node = full_gpunode();
  EXPECT_EQ(decode_gpupool(encode(pool, doc.GetAllocator())).value, pool);
  EXPECT_EQ(decode_gpupolicy(encode(policy, doc.GetAllocator())).value, policy);
  EXPECT_EQ(decode_tenantquota(encode(quota, doc.GetAllocator())).value, quota);
  EXPECT_EQ(decode_gpunode(encode(node, doc.GetAllocator())).value, node);
}

TEST(CodecRoundTrip, EveryFullObjectDiffersFromItsDefault) {
  // Guards the "every field set" claim of the samples against silent defaults.
  EXPECT_NE(full_gpupool().spec, GPUPoolSpec{});
  EXPECT_NE(full_gpupool().spec.monitoring, Monitoring{});
  EXPECT_NE(full_gpupool().spec.driver->upgrade_strategy->drain, DrainOptions{});
  EXPECT_NE(full_gpupolicy().spec.health->ecc, ECCRule{});
  EXPECT_NE(full_gpupolicy().spec.health->recovery_period, HealthRules{}.recovery_period);
  EXPECT_NE(full_gpupolicy().spec.health->max_unhealthy_nodes, HealthRules{}.max_unhealthy_nodes);
  EXPECT_NE(full_gpunode().spec.health->recovery_period, HealthRules{}.recovery_period);
  EXPECT_NE(full_gpunode().spec.health->max_unhealthy_nodes, HealthRules{}.max_unhealthy_nodes);
  EXPECT_NE(full_gpupolicy().spec.quota->expiry, Expiry{});
  EXPECT_NE(full_gpupolicy().spec.quota->partial_grants, QuotaRules{}.partial_grants);
}

TEST(CodecDefaults, AbsentFieldsGetTheCRDDefaults) {
  const auto doc = parse(R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUPool","metadata":{"name":"p"},
    "spec":{"nodeSelector":{},"driver":{"version":"570.1","upgradeStrategy":{}},"monitoring":{"alerts":{}}}})");
  const auto pool = decode_gpupool(doc);
  ASSERT_TRUE(pool.ok()) << format_field_errors(pool.errors);
  const auto& s = pool.value->spec;
  EXPECT_EQ(s.vendor, Vendor::auto_);
  EXPECT_EQ(s.priority, 0);
  EXPECT_FALSE(s.paused);
  EXPECT_EQ(s.sharing.mode, SharingMode::exclusive);
  EXPECT_TRUE(s.monitoring.enabled);
  EXPECT_TRUE(s.monitoring.alerts.enabled);
  EXPECT_FALSE(s.monitoring.dashboard.enabled);
  EXPECT_EQ(s.monitoring.scrape_interval.value(), std::chrono::seconds(30));
  EXPECT_EQ(s.driver->installer.kind, InstallerKind::container);
  const auto& u = *s.driver->upgrade_strategy;
  EXPECT_EQ(u.max_unavailable, IntOrString(1));
  EXPECT_EQ(u.failure_budget, 1);
  EXPECT_EQ(u.drain.timeout.text(), "10m");
  EXPECT_EQ(u.drain.skip_pod_label, "gpupool.io/skip-drain");
  EXPECT_FALSE(pool.value->status.has_value());

  const auto policy_doc = parse(R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUPolicy","metadata":{"name":"x"},
    "spec":{"quota":{},"health":{"temperature":{"warningCelsius":80,"criticalCelsius":90},"ecc":{}}}})");
  const auto policy = decode_gpupolicy(policy_doc);
  ASSERT_TRUE(policy.ok()) << format_field_errors(policy.errors);
  const auto& q = *policy.value->spec.quota;
  EXPECT_EQ(q.approval, ApprovalMode::automatic);
  EXPECT_EQ(q.fair_share.default_weight, 1);
  EXPECT_EQ(q.reclaim_grace_period.value(), std::chrono::minutes(5));
  EXPECT_TRUE(q.reserve.empty());
  EXPECT_TRUE(q.partial_grants);
  EXPECT_EQ(q.charge_basis, ChargeBasis::compute);
  EXPECT_EQ(q.on_capacity_loss, GuaranteeLossAction::keep);
  EXPECT_EQ(q.expiry.action, GuaranteeLossAction::keep);
  EXPECT_EQ(q.expiry.grace_period.text(), "10m");
  EXPECT_EQ(q.expiry.grace_period.value(), std::chrono::minutes(10));
  EXPECT_TRUE(q.device_classes.empty());
  EXPECT_EQ(policy.value->spec.health->temperature->action, HealthAction::taint);
  EXPECT_EQ(policy.value->spec.health->ecc->correctable_errors_per_day, 1000);
  EXPECT_EQ(policy.value->spec.health->ecc->uncorrectable_errors, 1);
  EXPECT_EQ(policy.value->spec.health->ecc->action, HealthAction::cordon);
  EXPECT_EQ(policy.value->spec.health->recovery_period.text(), "10m");
  EXPECT_EQ(policy.value->spec.health->max_unhealthy_nodes, IntOrString("10%"));
}

TEST(CodecDefaults, GPUNodeHealthIsTheCopiedPolicyRules) {
  const auto doc = parse(R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUNode","metadata":{"name":"n1"},
    "spec":{"nodeName":"n1","health":{"xids":[{"codes":[79],"action":"Cordon"}],"maxUnhealthyNodes":3}}})");
  const auto node = decode_gpunode(doc);
  ASSERT_TRUE(node.ok()) << format_field_errors(node.errors);
  ASSERT_TRUE(node.value->spec.health.has_value());
  EXPECT_EQ(node.value->spec.health->xids, (std::vector<XIDRule>{XIDRule{{79}, HealthAction::cordon}}));
  EXPECT_EQ(node.value->spec.health->recovery_period.value(), std::chrono::minutes(10));
  EXPECT_EQ(node.value->spec.health->max_unhealthy_nodes, IntOrString(3));
  EXPECT_FALSE(decode_gpunode(parse(R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUNode","metadata":{"name":"n1"},
    "spec":{"nodeName":"n1"}})")).value->spec.health.has_value());
}

TEST(CodecDefaults, ExpiryFieldsDefaultOneByOne) {
  const auto doc = parse(R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUPolicy","metadata":{"name":"x"},
    "spec":{"quota":{"partialGrants":false,"expiry":{"action":"Evict"}}}})");
  const auto policy = decode_gpupolicy(doc);
  ASSERT_TRUE(policy.ok()) << format_field_errors(policy.errors);
  const auto& q = *policy.value->spec.quota;
  EXPECT_FALSE(q.partial_grants);
  EXPECT_EQ(q.expiry.action, GuaranteeLossAction::evict);
  EXPECT_EQ(q.expiry.grace_period.text(), "10m");
}

TEST(CodecDefaults, GPUPolicyWithoutSpecDecodes) {
  const auto doc = parse(R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUPolicy","metadata":{"name":"x"}})");
  const auto policy = decode_gpupolicy(doc);
  ASSERT_TRUE(policy.ok()) << format_field_errors(policy.errors);
  EXPECT_EQ(policy.value->spec, GPUPolicySpec{});
}

TEST(CodecEncoding, KeepsNumberAndStringForms) {
  TenantQuota tq = minimal_tenantquota();
  tq.spec.resources = {{"nvidia.com/gpu", qn("4")}, {"nvidia.com/mig-1g.10gb", qs("4")}};
  const std::string text = to_json(tq);
  EXPECT_NE(text.find(R"("nvidia.com/gpu":4)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("nvidia.com/mig-1g.10gb":"4")"), std::string::npos) << text;

  GPUPolicy p = minimal_gpupolicy();
  p.spec.upgrade = UpgradeStrategy{};
  p.spec.upgrade->max_unavailable = "10%";
  EXPECT_NE(to_json(p).find(R"("maxUnavailable":"10%")"), std::string::npos) << to_json(p);
  p.spec.upgrade->max_unavailable = 2;
  EXPECT_NE(to_json(p).find(R"("maxUnavailable":2)"), std::string::npos) << to_json(p);

  p.spec.health = HealthRules{};
  EXPECT_NE(to_json(p).find(R"("health":{"recoveryPeriod":"10m","maxUnhealthyNodes":"10%"})"), std::string::npos)
      << to_json(p);
  p.spec.health->max_unhealthy_nodes = 0;
  EXPECT_NE(to_json(p).find(R"("maxUnhealthyNodes":0)"), std::string::npos) << to_json(p);
}

TEST(CodecEncoding, QuotaRulesWriteDefaultsThatAreNotEmpty) {
  // As the apiserver stores a defaulted object: partialGrants true, the enums
  // and expiry are written; empty reserve and deviceClasses are left out.
  GPUPolicy p = minimal_gpupolicy();
  p.spec.quota = QuotaRules{};
  const std::string text = to_json(p);
  EXPECT_NE(text.find(R"("reclaimGracePeriod":"5m","partialGrants":true,"chargeBasis":"Compute",)"
                      R"("onCapacityLoss":"Keep","expiry":{"action":"Keep","gracePeriod":"10m"}})"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("reserve"), std::string::npos) << text;
  EXPECT_EQ(text.find("deviceClasses"), std::string::npos) << text;
  p.spec.quota->partial_grants = false;
  EXPECT_NE(to_json(p).find(R"("partialGrants":false)"), std::string::npos) << to_json(p);
}

TEST(CodecEncoding, ApprovalRecordText) {
  TenantQuota tq = minimal_tenantquota();
  tq.spec.resources = {{"gpupool.io/gpu", qs("2.5")}};
  tq.status = TenantQuotaStatus{};
  tq.status->waiting = {{"gpupool.io/gpu", qs("500m")}};
  tq.status->approved = ApprovalRecord{{{"gpupool.io/gpu", qs("2.5")}}, {}, 3, t("2024-05-01T12:00:00Z")};
  const std::string text = to_json(tq);
  EXPECT_NE(text.find(R"("status":{"waiting":{"gpupool.io/gpu":"500m"},)"
                      R"("approved":{"resources":{"gpupool.io/gpu":"2.5"},"generation":3,)"
                      R"("approvedAt":"2024-05-01T12:00:00Z"}})"),
            std::string::npos)
      << text;
  expect_round_trip(tq);
}

TEST(CodecEncoding, MinimalGPUPoolText) {
  EXPECT_EQ(to_json(minimal_gpupool()),
            R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUPool","metadata":{"name":"minimal"},)"
            R"("spec":{"nodeSelector":{},"vendor":"auto","sharing":{"mode":"exclusive"},)"
            R"("monitoring":{"enabled":true,"scrapeInterval":"30s","alerts":{"enabled":true},)"
            R"("dashboard":{"enabled":false}}}})");
}

TEST(CodecDecoding, NumbersInQuantityFields) {
  const auto doc = parse(R"({"apiVersion":"gpupool.io/v1alpha1","kind":"TenantQuota",
    "metadata":{"name":"q","namespace":"n"},"spec":{"poolRef":{"name":"p"},
    "resources":{"a":4,"b":"500m","c":1e3,"d":18446744073709551615,"e":1e30}}})");
  const auto tq = decode_tenantquota(doc);
  ASSERT_TRUE(tq.ok()) << format_field_errors(tq.errors);
  const auto& r = tq.value->spec.resources;
  EXPECT_EQ(r.at("a"), qn("4"));
  EXPECT_EQ(r.at("b"), qs("500m"));
  EXPECT_EQ(r.at("c"), qn("1000"));
  EXPECT_EQ(r.at("d"), qn("18446744073709551615"));
  EXPECT_TRUE(r.at("e").json_number);
  EXPECT_EQ(compare(r.at("e").quantity, q("1e30")), std::strong_ordering::equal) << r.at("e").quantity.text();
  expect_round_trip(*tq.value);
}

TEST(CodecDecoding, MetadataIgnoresUnmodelledFieldsAndNullIsAbsent) {
  const auto doc = parse(R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUNode",
    "metadata":{"name":"n1","managedFields":[{"manager":"kubectl"}],"ownerReferences":[],"labels":null},
    "spec":{"nodeName":"n1","driver":null,"pool":null,"sharing":{"mps":null}},"status":null})");
  const auto node = decode_gpunode(doc);
  ASSERT_TRUE(node.ok()) << format_field_errors(node.errors);
  EXPECT_EQ(node.value->metadata.name, "n1");
  EXPECT_FALSE(node.value->spec.driver.has_value());
  EXPECT_EQ(node.value->spec.pool, "");
  EXPECT_FALSE(node.value->spec.sharing.mps.has_value());
  EXPECT_FALSE(node.value->status.has_value());
}

TEST(Kinds, TableMatchesTheContract) {
  ASSERT_EQ(kKinds.size(), 4u);
  EXPECT_EQ(find_kind("TenantQuota")->plural, "tenantquotas");
  EXPECT_TRUE(find_kind("TenantQuota")->namespaced);
  EXPECT_FALSE(find_kind("GPUNode")->namespaced);
  EXPECT_EQ(find_kind("GPUPolicy")->short_name, "gpol");
  EXPECT_FALSE(find_kind("Pod").has_value());
  EXPECT_EQ(kind_info<GPUPool>().api_version, "gpupool.io/v1alpha1");
}

TEST(Kinds, EnumNamesBothWays) {
  EXPECT_EQ(to_string(SharingMode::time_slicing), "timeSlicing");
  EXPECT_EQ(to_string(Vendor::auto_), "auto");
  EXPECT_EQ(parse_enum<TaintEffect>("PreferNoSchedule"), TaintEffect::prefer_no_schedule);
  EXPECT_EQ(parse_enum<TaintEffect>("noschedule"), std::nullopt);
  EXPECT_EQ(to_string(ConditionStatus::true_), "True");
}

}  // namespace
}  // namespace gpupool::api
