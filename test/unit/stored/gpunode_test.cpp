// A GPUNode as the controller stores it (stored/gpunode.h): its status a
// compact record that reads back as the status less the fields it leaves
// out, its spec shared, both taken out of the DOM only when it decodes.
#include "gpupool/stored/gpunode.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "gpupool/kube/client.h"
#include "support/gpunode_sample.h"

namespace gpupool::stored {
namespace {

constexpr const char* kGpuNode = test::kReportedGpuNode;

kube::Object stored(std::string_view json) {
  kube::DecodeTrim trim;
  trim.take_part = take_gpunode_parts;
  return kube::decode_object(json, trim);
}

TEST(StoredGpuNode, ReadsBackAsTheObjectLessWhatItLeavesOut) {
  const auto whole = api::decode_gpunode(kube::parse_json(kGpuNode));
  ASSERT_TRUE(whole.ok()) << api::format_field_errors(whole.errors);
  const kube::Object kept = stored(kGpuNode);
  const auto* parts = dynamic_cast<const GPUNodeParts*>(kept.part.get());
  ASSERT_NE(parts, nullptr);
  ASSERT_TRUE(parts->report.has_value());
  // Taken out of the DOM: the status, and the spec but for what predicates, indexes and writes read there.
  EXPECT_FALSE(kept.doc.HasMember("status"));
  EXPECT_EQ(kube::to_json(kept.doc["spec"]), R"({"nodeName":"n1","pool":"a100","disruptionAllowed":true})");

  const auto status = gpunode_status(kept);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(*status, test::as_stored(*whole.value->status));
  EXPECT_EQ(status->gpus.at(1).partition.compute_partition, api::AMDComputePartition::cpx);
  EXPECT_EQ(status->gpus.at(1).health_reasons, std::vector<std::string>{"XID 79"});
  EXPECT_EQ(status->operations.at(0).message, "nvidia-smi mig -cgi: insufficient resources");
  EXPECT_EQ(gpunode_spec(kept), whole.value->spec);

  const auto decoded = decode_gpunode(kept);
  ASSERT_TRUE(decoded.ok()) << api::format_field_errors(decoded.errors);
  EXPECT_EQ(decoded.value->metadata, whole.value->metadata);
  EXPECT_EQ(decoded.value->spec, whole.value->spec);
  EXPECT_EQ(decoded.value->status, status);
}

TEST(StoredGpuNode, MembersWithTheSameSpecShareIt) {
  // Another member of the pool: its own name and permission, the same spec otherwise.
  std::string other = kGpuNode;
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {R"("name":"n1")", R"("name":"n2")"},
           {R"("nodeName":"n1")", R"("nodeName":"n2")"},
           {R"("disruptionAllowed":true)", R"("disruptionAllowed":false)"}}) {
    const auto at = other.find(from);
    ASSERT_NE(at, std::string::npos);
    other.replace(at, from.size(), to);
  }
  const kube::Object a = stored(kGpuNode);
  const kube::Object b = stored(other);
  const auto& pa = dynamic_cast<const GPUNodeParts&>(*a.part);
  const auto& pb = dynamic_cast<const GPUNodeParts&>(*b.part);
  EXPECT_EQ(pa.spec.get(), pb.spec.get());
  // Each reads back its own name and permission.
  EXPECT_EQ(gpunode_spec(a)->node_name, "n1");
  EXPECT_EQ(gpunode_spec(b)->node_name, "n2");
  EXPECT_TRUE(gpunode_spec(a)->disruption_allowed);
  EXPECT_FALSE(gpunode_spec(b)->disruption_allowed);
  EXPECT_EQ(gpunode_spec(b)->pool, "a100");

  // Another spec is held apart.
  std::string newer = kGpuNode;
  newer.replace(newer.find(R"("version":"580.82.07")"), 21, R"("version":"580.95.05")");
  const kube::Object c = stored(newer);
  EXPECT_NE(dynamic_cast<const GPUNodeParts&>(*c.part).spec.get(), pa.spec.get());
  EXPECT_EQ(gpunode_spec(c)->driver->version, "580.95.05");
}

TEST(StoredGpuNode, AnObjectDecodedAnotherWayIsReadFromItsDom) {
  const kube::Object plain = kube::decode_object(kGpuNode);
  ASSERT_EQ(plain.part, nullptr);
  const auto whole = api::decode_gpunode(plain.doc);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(gpunode_status(plain), whole.value->status);
  EXPECT_EQ(gpunode_spec(plain), whole.value->spec);
  EXPECT_EQ(decode_gpunode(plain).value, whole.value);
}

TEST(StoredGpuNode, AStatusThatDoesNotDecodeStaysInTheDom) {
  // A GPU without its required index: the object is kept as it came, and
  // readers find no status that reads (as they did from the DOM).
  const std::string bad = R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUNode","metadata":{"name":"n1"},
    "spec":{"nodeName":"n1","pool":"p","sharing":{"timeSlicing":{"replicas":2}}},"status":{"gpuCount":1,"gpus":[{"model":"x"}]}})";
  const kube::Object kept = stored(bad);
  EXPECT_EQ(kept.part, nullptr);
  ASSERT_TRUE(kept.doc.HasMember("status"));
  EXPECT_EQ(kube::to_json(kept.doc["status"]), R"({"gpuCount":1,"gpus":[{"model":"x"}]})");
  EXPECT_EQ(kube::to_json(kept.doc["spec"]), R"({"nodeName":"n1","pool":"p","sharing":{"timeSlicing":{"replicas":2}}})");
  EXPECT_FALSE(gpunode_status(kept).has_value());
  EXPECT_FALSE(gpunode_spec(kept).has_value());
  EXPECT_FALSE(decode_gpunode(kept).ok());

  // No status at all: the spec is still shared, nothing is reported.
  const kube::Object bare = stored(R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUNode","metadata":{"name":"n2"},
    "spec":{"nodeName":"n2"}})");
  ASSERT_NE(dynamic_cast<const GPUNodeParts*>(bare.part.get()), nullptr);
  EXPECT_FALSE(gpunode_status(bare).has_value());
  ASSERT_TRUE(decode_gpunode(bare).ok());
  EXPECT_FALSE(decode_gpunode(bare).value->status.has_value());
  EXPECT_EQ(decode_gpunode(bare).value->spec.node_name, "n2");
}

// What GPUNodes report alike is held once: the GPU list whole when it is the
// same, else each GPU's model and profiles; conditions' and operations' words.
TEST(StoredGpuNode, WhatGpuNodesReportAlikeIsHeldOnce) {
  const kube::Object a = stored(kGpuNode);
  const kube::Object b = stored(kGpuNode);
  const auto& ra = *dynamic_cast<const GPUNodeParts&>(*a.part).report;
  const auto& rb = *dynamic_cast<const GPUNodeParts&>(*b.part).report;
  EXPECT_EQ(ra.gpus.get(), rb.gpus.get());
  EXPECT_EQ(ra.driver_version.get(), rb.driver_version.get());
  EXPECT_EQ(ra.conditions.at(1).message.get(), rb.conditions.at(1).message.get());
  EXPECT_EQ(ra.operations.at(0).message.get(), rb.operations.at(0).message.get());

  // One GPU's health differs: a list of its own, the same words in it.
  std::string sick = kGpuNode;
  sick.replace(sick.find(R"("health":"Healthy")"), 18, R"("health":"Unknown")");
  const kube::Object c = stored(sick);
  const auto& rc = *dynamic_cast<const GPUNodeParts&>(*c.part).report;
  ASSERT_NE(rc.gpus.get(), ra.gpus.get());
  EXPECT_EQ(rc.gpus->at(0).health, api::GPUHealth::unknown);
  EXPECT_EQ(ra.gpus->at(0).health, api::GPUHealth::healthy);
  EXPECT_EQ(rc.gpus->at(0).model.get(), ra.gpus->at(0).model.get());
  EXPECT_EQ(rc.gpus->at(0).instances.at(1).profile.get(), ra.gpus->at(0).instances.at(1).profile.get());

  EXPECT_EQ(*shared_string("1g.10gb"), "1g.10gb");
  EXPECT_EQ(shared_string("1g.10gb").get(), shared_string(std::string("1g.") + "10gb").get());
}

}  // namespace
}  // namespace gpupool::stored
