// Malformed objects: each must fail to decode with the error at the exact
// field path and an apiserver-style reason.
#include <gtest/gtest.h>

#include <rapidjson/document.h>

#include "gpupool/api/kinds.h"

namespace gpupool::api {
namespace {

// Object heads; the helpers below add a spec around the fields under test.
constexpr const char* kPool = R"("apiVersion":"gpupool.io/v1alpha1","kind":"GPUPool","metadata":{"name":"p"})";
constexpr const char* kPolicy = R"("apiVersion":"gpupool.io/v1alpha1","kind":"GPUPolicy","metadata":{"name":"p"})";
constexpr const char* kQuota =
    R"("apiVersion":"gpupool.io/v1alpha1","kind":"TenantQuota","metadata":{"name":"q","namespace":"n"})";
constexpr const char* kNode = R"("apiVersion":"gpupool.io/v1alpha1","kind":"GPUNode","metadata":{"name":"n"})";

std::string obj(const char* head, const std::string& rest) { return "{" + std::string(head) + "," + rest + "}"; }
std::string pool(const std::string& spec_rest, const std::string& extra = "") {
  return obj(kPool, R"("spec":{"nodeSelector":{})" + (spec_rest.empty() ? "" : "," + spec_rest) + "}" +
                        (extra.empty() ? "" : "," + extra));
}
std::string quota(const std::string& resources, const std::string& spec_rest = "", const std::string& extra = "") {
  return obj(kQuota, R"("spec":{"poolRef":{"name":"p"},"resources":{)" + resources + "}" +
                         (spec_rest.empty() ? "" : "," + spec_rest) + "}" + (extra.empty() ? "" : "," + extra));
}
std::string node(const std::string& spec_rest, const std::string& extra = "") {
  return obj(kNode, R"("spec":{"nodeName":"n")" + (spec_rest.empty() ? "" : "," + spec_rest) + "}" +
                        (extra.empty() ? "" : "," + extra));
}
std::string policy(const std::string& spec) { return obj(kPolicy, R"("spec":)" + spec); }
constexpr const char* kCondition = R"("type":"Ready","status":"True","lastTransitionTime":"2024-05-01T12:00:00Z","reason":"Ok","message":"")";

struct Case {
  std::string name, json, path, reason;
};

std::vector<Case> cases() {
  return {
      {"EnumInNestedList", pool(R"("nodeTaints":[{"key":"a","effect":"NoSchedule"},{"key":"b","effect":"NoScheduel"}])"),
       "spec.nodeTaints[1].effect",
       R"(Unsupported value: "NoScheduel": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute")"},
      {"WrongTypeInteger", pool(R"("priority":"high")"), "spec.priority",
       R"(Invalid value: "string": must be of type integer)"},
      {"UnknownSpecField", pool(R"("fooBar":1)"), "spec.fooBar", R"(unknown field "fooBar")"},
      {"UnknownNestedField", pool(R"("sharing":{"mode":"mps","mps":{"replicas":2,"replica":3}})"),
       "spec.sharing.mps.replica", R"(unknown field "replica")"},
      {"UnknownStatusField", pool("", R"("status":{"nodes":{"total":1,"totl":2}})"), "status.nodes.totl",
       R"(unknown field "totl")"},
      {"UnknownTopLevelField", pool("", R"("extra":{})"), "extra", R"(unknown field "extra")"},
      {"RequiredNodeSelector", obj(kPool, R"("spec":{"priority":1})"), "spec.nodeSelector", "Required value"},
      {"RequiredSpec", obj(kPool, R"("status":{})"), "spec", "Required value"},
      {"NullRequiredIsMissing", obj(kPool, R"("spec":{"nodeSelector":null})"), "spec.nodeSelector",
       "Required value"},
      {"NullListElement", pool(R"("nodeTaints":[null])"), "spec.nodeTaints[0]",
       R"(Invalid value: "null": must be of type object)"},
      {"QuantityMapKey", quota(R"("nvidia.com/gpu":"4 GPUs")"), "spec.resources[nvidia.com/gpu]",
       R"(Invalid value: "4 GPUs": quantities must match the regular expression)"},
      {"QuantityWrongType", quota(R"("nvidia.com/gpu":true)"), "spec.resources[nvidia.com/gpu]",
       R"(Invalid value: "boolean": must be of type integer or string)"},
      {"QuantityFractionalNumber", quota(R"("amd.com/gpu":1.5)"), "spec.resources[amd.com/gpu]",
       R"(Invalid value: "number": must be of type integer or string)"},
      {"QuantityBadSuffix", quota(R"("amd.com/gpu":"4K")"), "spec.resources[amd.com/gpu]",
       "unable to parse quantity's suffix"},
      {"QuantityInStatus", quota(R"("a":1)", "", R"("status":{"granted":{"nvidia.com/gpu":"1.2.3"}})"),
       "status.granted[nvidia.com/gpu]", R"(Invalid value: "1.2.3": quantities must match)"},
      {"RequiredResources", obj(kQuota, R"("spec":{"poolRef":{"name":"p"}})"), "spec.resources", "Required value"},
      {"RequiredPoolRefName", obj(kQuota, R"("spec":{"poolRef":{},"resources":{"a":1}})"), "spec.poolRef.name",
       "Required value"},
      {"BadTime", quota(R"("a":1)", R"("expiresAt":"tomorrow")"), "spec.expiresAt",
       R"(Invalid value: "tomorrow": must be an RFC 3339 date-time)"},
      {"BadPhase", quota(R"("a":1)", "", R"("status":{"phase":"Done"})"), "status.phase",
       R"(Unsupported value: "Done": supported values: "Pending", "Granted")"},
      {"BadDuration", policy(R"({"quota":{"reclaimGracePeriod":"5 minutes"}})"), "spec.quota.reclaimGracePeriod",
       R"(Invalid value: "5 minutes": time: unknown unit " minutes" in duration "5 minutes")"},
      {"DurationAsNumber", pool(R"("monitoring":{"scrapeInterval":30})"), "spec.monitoring.scrapeInterval",
       R"(Invalid value: "integer": must be of type string)"},
      {"DurationMissingUnit", policy(R"({"upgrade":{"drain":{"timeout":"10"}}})"), "spec.upgrade.drain.timeout",
       "time: missing unit in duration"},
      {"IntOrStringWrongType", pool(R"("driver":{"version":"1.2","upgradeStrategy":{"maxUnavailable":true}})"),
       "spec.driver.upgradeStrategy.maxUnavailable", R"(Invalid value: "boolean": must be of type integer or string)"},
      {"EnumInStringList",
       policy(R"({"upgrade":{"maintenanceWindows":[{"days":["Mon","Funday"],"start":"22:00","duration":"1h"}]}})"),
       "spec.upgrade.maintenanceWindows[0].days[1]", R"(Unsupported value: "Funday")"},
      {"RequiredInListItem", policy(R"({"upgrade":{"maintenanceWindows":[{"days":["Mon"],"start":"22:00"}]}})"),
       "spec.upgrade.maintenanceWindows[0].duration", "Required value"},
      {"MaxUnhealthyNodesWrongType", policy(R"({"health":{"maxUnhealthyNodes":true}})"),
       "spec.health.maxUnhealthyNodes", R"(Invalid value: "boolean": must be of type integer or string)"},
      {"RecoveryPeriodNoUnit", policy(R"({"health":{"recoveryPeriod":"10"}})"), "spec.health.recoveryPeriod",
       "time: missing unit in duration"},
      {"NodeHealthUnknownField", node(R"("health":{"xids":[],"maxUnavailable":1})"), "spec.health.maxUnavailable",
       "unknown field"},
      {"IntegerListElement", policy(R"({"health":{"xids":[{"codes":[48,"79"],"action":"Taint"}]}})"),
       "spec.health.xids[0].codes[1]", R"(Invalid value: "string": must be of type integer)"},
      {"IntegerMapValue", policy(R"({"quota":{"fairShare":{"weights":{"team-a":"x"}}}})"),
       "spec.quota.fairShare.weights[team-a]", "must be of type integer"},
      {"MIGProfilesMapValue",
       pool(R"("partitioning":{"nvidia":{"devices":[{"gpus":[0],"profiles":{"3g.40gb":"two"}}]}})"),
       "spec.partitioning.nvidia.devices[0].profiles[3g.40gb]", "must be of type integer"},
      {"Int32OutOfRange", pool(R"("priority":3000000000)"), "spec.priority",
       "Invalid value: 3000000000: must be a 32-bit integer"},
      {"FractionalInteger", node(R"("partitioning":{"mig":[{"index":0,"enabled":true,"instances":[{"profile":"1g.10gb"},{"profile":"1g.10gb","placement":1.5}]}]})"),
       "spec.partitioning.mig[0].instances[1].placement", R"(Invalid value: "number": must be of type integer)"},
      {"RequiredBoolInList", node(R"("partitioning":{"mig":[{"index":0}]})"), "spec.partitioning.mig[0].enabled",
       "Required value"},
      {"StatusDeepInteger",
       node("", R"("status":{"gpus":[{"index":0},{"index":1},{"index":2,"partition":{"instances":[{"gpuInstanceID":"x"}]}}]})"),
       "status.gpus[2].partition.instances[0].gpuInstanceID", "must be of type integer"},
      {"StatusOperationType", node("", R"("status":{"operations":[{"type":"Reboot","phase":"Pending"}]})"),
       "status.operations[0].type", R"(Unsupported value: "Reboot": supported values: "Driver", "Partition")"},
      {"ConditionStatusEnum", pool("", std::string(R"("status":{"conditions":[{)") + R"("type":"Ready","status":"Maybe","lastTransitionTime":"2024-05-01T12:00:00Z","reason":"R","message":""}]})"),
       "status.conditions[0].status", R"(Unsupported value: "Maybe": supported values: "True", "False", "Unknown")"},
      {"ConditionMissingTime", pool("", R"("status":{"conditions":[{"type":"Ready","status":"True","reason":"R","message":""}]})"),
       "status.conditions[0].lastTransitionTime", "Required value"},
      {"ConditionBadTime", pool("", std::string(R"("status":{"conditions":[{)") + kCondition + R"(},{"type":"X","status":"True","lastTransitionTime":"2024-13-01T00:00:00Z","reason":"R","message":""}]})"),
       "status.conditions[1].lastTransitionTime", "must be an RFC 3339 date-time"},
      {"MetadataLabelType", obj(R"("apiVersion":"gpupool.io/v1alpha1","kind":"GPUPool","metadata":{"name":"p","labels":{"app":5}})",
                                R"("spec":{"nodeSelector":{}})"),
       "metadata.labels[app]", R"(Invalid value: "integer": must be of type string)"},
      {"MetadataGenerationType", obj(R"("apiVersion":"gpupool.io/v1alpha1","kind":"GPUPool","metadata":{"generation":"1"})",
                                     R"("spec":{"nodeSelector":{}})"),
       "metadata.generation", "must be of type integer"},
      {"MetadataNotObject", R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUPool","metadata":"p","spec":{"nodeSelector":{}}})",
       "metadata", R"(Invalid value: "string": must be of type object)"},
      {"MetadataTimestamp", R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUPool","metadata":{"creationTimestamp":"now"},"spec":{"nodeSelector":{}}})",
       "metadata.creationTimestamp", "must be an RFC 3339 date-time"},
      {"WrongApiVersion", R"({"apiVersion":"gpupool.io/v1","kind":"GPUPool","spec":{"nodeSelector":{}}})", "apiVersion",
       R"(Unsupported value: "gpupool.io/v1": supported values: "gpupool.io/v1alpha1")"},
      {"CoreApiVersion", R"({"apiVersion":"v1","kind":"Pod"})", "apiVersion", R"(Unsupported value: "v1")"},
      {"UnknownKind", R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUFoo"})", "kind",
       R"(Unsupported value: "GPUFoo": supported values: "GPUPool", "GPUPolicy", "TenantQuota", "GPUNode")"},
      {"MissingApiVersion", R"({"kind":"GPUPool","spec":{"nodeSelector":{}}})", "apiVersion", "Required value"},
      {"NullKind", R"({"apiVersion":"gpupool.io/v1alpha1","kind":null})", "kind", "Required value"},
      {"ApiVersionNotString", R"({"apiVersion":1,"kind":"GPUPool"})", "apiVersion",
       R"(Invalid value: "integer": must be of type string)"},
      {"NotAnObject", R"([1,2])", "", R"(Invalid value: "array": must be of type object)"},
      {"SpecNotObject", obj(kPool, R"("spec":[])"), "spec", R"(Invalid value: "array": must be of type object)"},
      {"DuplicateField", pool(R"("priority":1,"priority":2)"), "spec.priority", R"(duplicate field "priority")"},
      {"BoolWrongType", pool(R"("paused":"yes")"), "spec.paused", R"(Invalid value: "string": must be of type boolean)"},
      {"ListWrongType", pool(R"("nodeTaints":{"key":"a"})"), "spec.nodeTaints",
       R"(Invalid value: "object": must be of type array)"},
      {"MapWrongType", pool(R"("nodeLabels":["a"])"), "spec.nodeLabels",
       R"(Invalid value: "array": must be of type object)"},
      {"SelectorOperator",
       obj(kPool, R"("spec":{"nodeSelector":{"matchExpressions":[{"key":"k","operator":"Has"}]}})"),
       "spec.nodeSelector.matchExpressions[0].operator", R"(Unsupported value: "Has")"},
      {"AmdPartition", node(R"("partitioning":{"amd":{"computePartition":"spx"}})"),
       "spec.partitioning.amd.computePartition", R"(Unsupported value: "spx": supported values: "SPX")"},
      {"ChargeBasisEnum", policy(R"({"quota":{"chargeBasis":"Slices"}})"), "spec.quota.chargeBasis",
       R"(Unsupported value: "Slices": supported values: "Compute", "Memory")"},
      {"OnCapacityLossEnum", policy(R"({"quota":{"onCapacityLoss":"Drain"}})"), "spec.quota.onCapacityLoss",
       R"(Unsupported value: "Drain": supported values: "Keep", "Evict")"},
      {"ExpiryGracePeriod", policy(R"({"quota":{"expiry":{"action":"Evict","gracePeriod":"10 minutes"}}})"),
       "spec.quota.expiry.gracePeriod", R"(Invalid value: "10 minutes": time: unknown unit)"},
      {"PartialGrantsWrongType", policy(R"({"quota":{"partialGrants":"no"}})"), "spec.quota.partialGrants",
       R"(Invalid value: "string": must be of type boolean)"},
      {"DeviceClassesMapValue", policy(R"({"quota":{"deviceClasses":{"gpu.nvidia.com":1}}})"),
       "spec.quota.deviceClasses[gpu.nvidia.com]", R"(Invalid value: "integer": must be of type string)"},
      // A fraction of a GPU is a string: the CRD's int-or-string refuses a JSON float.
      {"GpuUnitFractionalNumber", quota(R"("gpupool.io/gpu":2.5)"), "spec.resources[gpupool.io/gpu]",
       R"(Invalid value: "number": must be of type integer or string)"},
      {"WaitingQuantity", quota(R"("a":1)", "", R"("status":{"waiting":{"gpupool.io/gpu":"half"}})"),
       "status.waiting[gpupool.io/gpu]", R"(Invalid value: "half": quantities must match)"},
      {"ApprovalRecordRequiresGeneration",
       quota(R"("a":1)", "", R"("status":{"approved":{"resources":{"a":1},"approvedAt":"2024-05-01T12:00:00Z"}})"),
       "status.approved.generation", "Required value"},
      {"ApprovalRecordBadTime",
       quota(R"("a":1)", "", R"("status":{"approved":{"resources":{"a":1},"generation":2,"approvedAt":"today"}})"),
       "status.approved.approvedAt", "must be an RFC 3339 date-time"},
  };
}

rapidjson::Document parse(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  EXPECT_FALSE(doc.HasParseError()) << text;
  return doc;
}

TEST(CodecErrors, Table) {
  const auto all = cases();
  EXPECT_GE(all.size(), 25u);
  for (const auto& c : all) {
    SCOPED_TRACE(c.name + ": " + c.json);
    const auto doc = parse(c.json);
    const auto decoded = decode_object(doc);
    EXPECT_FALSE(decoded.value.has_value());
    bool found = false;
    for (const auto& e : decoded.errors) {
      if (e.path == c.path && e.reason.find(c.reason) != std::string::npos) found = true;
    }
    EXPECT_TRUE(found) << "want " << c.path << ": " << c.reason << "\ngot:\n" << format_field_errors(decoded.errors);
  }
}

TEST(CodecErrors, CollectsEveryError) {
  const auto doc = parse(pool(R"("priority":"x","vendor":"intel","fooBar":1,"nodeTaints":[{"effect":"NoSchedule"}])",
                              R"("status":{"capacity":{"nvidia.com/gpu":"lots"}})"));
  const auto decoded = decode_gpupool(doc);
  EXPECT_FALSE(decoded.ok());
  const FieldErrors want = {
      {"spec.priority", R"(Invalid value: "string": must be of type integer)"},
      {"spec.vendor", R"(Unsupported value: "intel": supported values: "auto", "nvidia", "amd")"},
      {"spec.nodeTaints[0].key", "Required value"},
      {"spec.fooBar", R"(unknown field "fooBar")"},
      {"status.capacity[nvidia.com/gpu]",
       R"(Invalid value: "lots": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$')"},
  };
  EXPECT_EQ(decoded.errors, want) << format_field_errors(decoded.errors);
}

TEST(CodecErrors, TypedDecoderChecksItsKind) {
  const auto doc = parse(node(""));
  const auto decoded = decode_gpupool(doc);
  EXPECT_FALSE(decoded.ok());
  ASSERT_FALSE(decoded.errors.empty());
  EXPECT_EQ(decoded.errors[0].path, "kind");
  EXPECT_EQ(decoded.errors[0].reason, R"(Unsupported value: "GPUNode": supported values: "GPUPool")");
}

TEST(CodecErrors, WrongApiVersionStopsBeforeTheBody) {
  const auto doc = parse(R"({"apiVersion":"gpupool.io/v2","kind":"GPUPool","spec":{"bogus":1}})");
  const auto decoded = decode_object(doc);
  ASSERT_EQ(decoded.errors.size(), 1u) << format_field_errors(decoded.errors);
  EXPECT_EQ(decoded.errors[0].path, "apiVersion");
}

TEST(CodecErrors, MessagesQuoteControlCharacters) {
  const auto doc = parse(pool(R"("vendor":"a\"b\n")"));
  const auto decoded = decode_gpupool(doc);
  ASSERT_EQ(decoded.errors.size(), 1u);
  EXPECT_EQ(decoded.errors[0].reason.substr(0, 29), R"(Unsupported value: "a\"b\n": )");
}

}  // namespace
}  // namespace gpupool::api
