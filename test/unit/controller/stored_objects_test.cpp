// The controller process's stored GPUNodes (controller/stored_objects.h)
// leave out only what no reconciler reads, and still decode (their status
// read back from its record, stored/gpunode.h).
#include "controller/stored_objects.h"

#include <gtest/gtest.h>

#include "gpupool/api/codec.h"
#include "object_facts.h"

namespace gpupool::controller {
namespace {

// As a real agent reports an A100 node split into MIG instances (with the
// interconnect and PCI addresses the simulated agents leave out), a failed
// operation, and a degraded GPU.
constexpr const char* kGpuNode = R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUNode",
  "metadata":{"name":"n1","resourceVersion":"7","generation":3,
    "managedFields":[{"manager":"gpupool-agent","operation":"Update"}]},
  "spec":{"nodeName":"n1","pool":"a100","disruptionAllowed":true},
  "status":{"observedGeneration":3,"gpuCount":2,"driverVersion":"580.82.07","cudaVersion":"13.0",
    "conditions":[
      {"type":"Ready","status":"False","observedGeneration":3,"lastTransitionTime":"2026-11-28T20:00:00Z",
       "reason":"Updating","message":"a change is in progress"},
      {"type":"DriverReady","status":"True","observedGeneration":3,"lastTransitionTime":"2026-11-28T20:00:00Z",
       "reason":"Loaded","message":"driver 580.82.07 loaded"},
      {"type":"PartitionReady","status":"True","observedGeneration":3,"lastTransitionTime":"2026-11-28T20:00:00Z",
       "reason":"Applied","message":""},
      {"type":"Healthy","status":"False","observedGeneration":3,"lastTransitionTime":"2026-11-28T19:00:00Z",
       "reason":"GpuUnhealthy","message":"GPU 1: XID 79"}],
    "gpus":[
      {"index":0,"uuid":"GPU-5a3c","model":"NVIDIA A100-SXM4-80GB","catalogID":"a100-sxm4-80gb","vendor":"nvidia",
       "memoryMiB":81920,"pciBusID":"00000000:07:00.0","health":"Healthy",
       "partition":{"capable":true,"migMode":"Enabled","instances":[
         {"profile":"3g.40gb","placement":0,"gpuInstanceID":1,"uuid":"MIG-1a","memoryMiB":40192},
         {"profile":"1g.10gb","placement":4,"gpuInstanceID":9,"uuid":"MIG-1b","memoryMiB":9728}]}},
      {"index":1,"uuid":"GPU-77b1","model":"NVIDIA A100-SXM4-80GB","catalogID":"a100-sxm4-80gb","vendor":"nvidia",
       "memoryMiB":81920,"pciBusID":"00000000:0F:00.0","health":"Degraded","healthReasons":["XID 79"],
       "partition":{"capable":true,"migMode":"Disabled"}}],
    "operations":[{"type":"Partition","phase":"Failed","observedGeneration":3,"reason":"ApplyFailed",
      "message":"nvidia-smi mig -cgi: insufficient resources","lastTransitionTime":"2026-11-28T20:00:00Z"}],
    "interconnect":[{"from":0,"to":1,"type":"NVLink","links":12}],
    "lastHeartbeatTime":"2026-11-28T20:01:00Z"}})";

TEST(StoredGpuNodes, LeaveOutOnlyWhatNoReconcilerReads) {
  const kube::Object whole = kube::decode_object(kGpuNode);
  const kube::Object kept = stored_gpunodes().decode(kGpuNode);
  auto full = api::decode_gpunode(whole.doc);
  auto lean = stored::decode_gpunode(kept);
  ASSERT_TRUE(full.ok());
  ASSERT_TRUE(lean.ok()) << api::format_field_errors(lean.errors);

  // The whole object, less exactly the fields the trim names.
  api::GPUNode expected = *full.value;
  expected.status->cuda_version.clear();
  expected.status->interconnect.clear();
  for (auto& gpu : expected.status->gpus) {
    gpu.uuid.clear();
    gpu.pci_bus_id.clear();
    for (auto& instance : gpu.partition.instances) {
      instance.uuid.clear();
      instance.placement = 0;
      instance.gpu_instance_id = 0;
    }
  }
  EXPECT_EQ(*lean.value, expected);
  // What the reconcilers keep: conditions, operations, health reasons, instances' profiles and memory.
  EXPECT_EQ(lean.value->status->conditions, full.value->status->conditions);
  EXPECT_EQ(lean.value->status->operations, full.value->status->operations);
  ASSERT_EQ(lean.value->status->gpus.size(), 2u);
  EXPECT_EQ(lean.value->status->gpus[0].partition.instances.at(1).profile, "1g.10gb");
  EXPECT_EQ(lean.value->status->gpus[0].partition.instances.at(1).memory_mib, 9728);
  EXPECT_EQ(lean.value->status->gpus[1].health_reasons, std::vector<std::string>{"XID 79"});

  const auto a = pool_controller::gpunode_state(*full.value);
  const auto b = pool_controller::gpunode_state(*lean.value);
  EXPECT_EQ(b.observed, a.observed);
  EXPECT_EQ(b.up_to_date, a.up_to_date);
  EXPECT_TRUE(b.failed);
  EXPECT_EQ(b.failure, a.failure);

  // The status is kept as a record, not in the DOM.
  EXPECT_FALSE(kept.doc.HasMember("status"));
  EXPECT_NE(dynamic_cast<const stored::GPUNodeParts*>(kept.part.get()), nullptr);
  EXPECT_LT(kept.allocator->Size(), whole.allocator->Size());
}

}  // namespace
}  // namespace gpupool::controller
