// SAX projections: the wanted pod fields and nothing that merely looks like
// them, list metadata and raw items, and DecodeError on malformed input.
#include "gpupool/kube/json_projection.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <system_error>
#include <unistd.h>
#include <vector>

#include "gpupool/kube/errors.h"

namespace gpupool::kube {
namespace {

// A Deployment pod as the apiserver serves it, with decoys: annotation and
// label keys named like wanted fields, managedFields mentioning every field,
// env/ports/volumes/containerStatuses entries with "name", a nested
// "metadata"/"spec" inside spec, objects nested in schedulingGates and
// resourceClaims entries, a container's resources.claims, and status before
// spec.
const std::string kPod = R"({
  "kind": "Pod",
  "apiVersion": "v1",
  "metadata": {
    "name": "trainer-7d9f8b6c5-x2k4q",
    "generateName": "trainer-7d9f8b6c5-",
    "namespace": "ml-team",
    "uid": "0b3c1d2e-5f60-4a7b-8c9d-0e1f2a3b4c5d",
    "resourceVersion": "884213",
    "creationTimestamp": "2024-05-01T09:59:12Z",
    "labels": {"app": "trainer", "name": "decoy-label", "pod-template-hash": "7d9f8b6c5"},
    "annotations": {
      "name": "decoy-annotation",
      "kubectl.kubernetes.io/last-applied-configuration": "{\"metadata\":{\"name\":\"decoy\",\"namespace\":\"decoy\"},\"spec\":{\"nodeName\":\"decoy\"}}"
    },
    "ownerReferences": [
      {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "trainer-7d9f8b6c5",
       "uid": "9a8b7c6d-0000-4000-8000-000000000001", "controller": true, "blockOwnerDeletion": true},
      {"uid": "9a8b7c6d-0000-4000-8000-000000000002", "name": "quota-holder", "kind": "GpuPool",
       "apiVersion": "gpupool.example.com/v1alpha1", "controller": false}
    ],
    "managedFields": [
      {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1",
       "time": "2024-05-01T09:59:12Z", "fieldsType": "FieldsV1",
       "fieldsV1": {"f:metadata": {"f:generateName": {}, "f:labels": {".": {}, "f:app": {}}},
                    "f:spec": {"f:containers": {"k:{\"name\":\"main\"}": {".": {}, "f:name": {}, "f:resources": {"f:limits": {}}}}}}},
      {"manager": "kubelet", "operation": "Update", "subresource": "status", "fieldsV1": {"f:status": {"f:phase": {}}},
       "metadata": {"name": "decoy-mf"}, "name": "decoy-mf", "phase": "decoy"}
    ]
  },
  "status": {
    "phase": "Running",
    "conditions": [{"type": "Ready", "status": "True", "lastProbeTime": null}],
    "hostIP": "10.0.1.4",
    "podIP": "10.244.3.17",
    "containerStatuses": [{"name": "decoy-status", "ready": true, "restartCount": 0, "image": "x",
                           "state": {"running": {"startedAt": "2024-05-01T10:00:01Z"}}}],
    "qosClass": "Burstable"
  },
  "spec": {
    "volumes": [{"name": "kube-api-access-abcde", "projected": {"sources": [{"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}]}}],
    "template": {"metadata": {"name": "decoy-template", "namespace": "decoy", "uid": "decoy", "resourceVersion": "1",
                              "labels": {"decoy": "template"}, "creationTimestamp": "1999-01-01T00:00:00Z"},
                 "spec": {"nodeName": "decoy-node", "priority": 1, "containers": [{"name": "decoy-container", "restartPolicy": "Never"}],
                          "schedulingGates": [{"name": "decoy-gate"}], "nodeSelector": {"decoy": "x"},
                          "overhead": {"cpu": "9"}, "resourceClaims": [{"name": "decoy-claim"}]}},
    "schedulingGates": [
      {"name": "gpupool.io/quota", "x-future": {"name": "decoy-nested-gate", "list": [{"name": "deeper"}]}},
      {"name": "example.com/wait-for-data"}
    ],
    "nodeSelector": {"gpupool.io/pool": "a100-pool", "kubernetes.io/os": "linux"},
    "overhead": {"cpu": "250m", "nvidia.com/gpu": 0},
    "resourceClaims": [
      {"name": "gpu", "resourceClaimTemplateName": "a100-template", "source": {"name": "decoy-source"}},
      {"resourceClaimName": "shared-nic", "name": "nic"}
    ],
    "initContainers": [
      {"name": "fetch-dataset", "image": "busybox", "command": ["sh", "-c", "echo {\"name\":\"x\"}"],
       "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}, "restartPolicy": null},
      {"restartPolicy": "Always", "name": "log-shipper", "securityContext": {"restartPolicy": "decoy"},
       "resources": {"limits": {"memory": "128Mi"}}}
    ],
    "containers": [
      {"resources": {"limits": {"nvidia.com/gpu": "2", "memory": "32Gi"},
                     "requests": {"cpu": 4, "memory": "16Gi", "nvidia.com/gpu": "2", "ephemeral-storage": 1.5e9},
                     "claims": [{"name": "decoy-claim"}]},
       "name": "main",
       "image": "nvcr.io/nvidia/pytorch:24.01-py3",
       "env": [{"name": "NCCL_DEBUG", "value": "INFO"}, {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
       "ports": [{"name": "metrics", "containerPort": 9400, "protocol": "TCP"}],
       "volumeMounts": [{"name": "kube-api-access-abcde", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true}]},
      {"name": "sidecar", "image": "envoy", "resources": {}}
    ],
    "nodeName": "gpu-node-12",
    "priority": 1000000,
    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
    "serviceAccountName": "default"
  }
})";

PodProjection expected_pod() {
  PodProjection p;
  p.ns = "ml-team";
  p.name = "trainer-7d9f8b6c5-x2k4q";
  p.uid = "0b3c1d2e-5f60-4a7b-8c9d-0e1f2a3b4c5d";
  p.resource_version = "884213";
  p.node_name = "gpu-node-12";
  p.phase = PodPhase::running;
  p.priority = 1000000;
  p.containers = {
      {"main",
       {{"cpu", "4"}, {"memory", "16Gi"}, {"nvidia.com/gpu", "2"}, {"ephemeral-storage", "1.5e9"}},
       {{"nvidia.com/gpu", "2"}, {"memory", "32Gi"}},
       false},
      {"sidecar", {}, {}, false},
  };
  p.rare_mut().init_containers = {{"fetch-dataset", {{"cpu", "100m"}, {"memory", "64Mi"}}, {}, false},
                                   {"log-shipper", {}, {{"memory", "128Mi"}}, true}};
  p.deleting = false;
  p.created_ms = 1714557552000;  // 2024-05-01T09:59:12Z
  p.rare_mut().scheduling_gates = {"gpupool.io/quota", "example.com/wait-for-data"};
  p.rare_mut().node_selector = {{"gpupool.io/pool", "a100-pool"}, {"kubernetes.io/os", "linux"}};
  p.rare_mut().overhead = {{"cpu", "250m"}, {"nvidia.com/gpu", "0"}};
  p.rare_mut().resource_claims = {"gpu", "nic"};
  p.rare_mut().claim_sources = {{"", "a100-template"}, {"shared-nic", ""}};
  return p;
}

std::string quantity(const PodProjection::Quantities& q, std::string_view resource) {
  const std::string* text = find_quantity(q, resource);
  return text ? *text : "<absent>";
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "<no DecodeError>";
}

TEST(ProjectPod, ReadsTheWantedFieldsAndIgnoresLookalikes) {
  PodProjection p = project_pod(kPod);
  EXPECT_EQ(p, expected_pod());
  // Spelled out for the fields a decoy would most likely corrupt.
  EXPECT_EQ(p.name, "trainer-7d9f8b6c5-x2k4q");
  EXPECT_EQ(p.node_name, "gpu-node-12");
  ASSERT_EQ(p.containers.size(), 2u);
  EXPECT_EQ(p.containers[0].name, "main");
  EXPECT_EQ(quantity(p.containers[0].requests, "ephemeral-storage"), "1.5e9");  // a number keeps its text
  EXPECT_EQ(p.rare().scheduling_gates, (std::vector<std::string>{"gpupool.io/quota", "example.com/wait-for-data"}));
  EXPECT_EQ(p.rare().resource_claims, (std::vector<std::string>{"gpu", "nic"}));
  ASSERT_EQ(p.rare().init_containers.size(), 2u);
  EXPECT_TRUE(p.rare().init_containers[1].restart_always);
  EXPECT_EQ(quantity(p.rare().overhead, "nvidia.com/gpu"), "0");
}

TEST(ProjectPod, EachNewerFieldAlone) {
  PodProjection p = project_pod(R"({"metadata":{"creationTimestamp":"2024-05-01T09:59:12.5+02:00"}})");
  EXPECT_EQ(p.created_ms, 1714550352500);  // 07:59:12.5 UTC
  p = project_pod(R"({"metadata":{"creationTimestamp":"yesterday"}})");
  EXPECT_EQ(p.created_ms, 0);  // unreadable reads as unset
  p = project_pod(R"({"spec":{"schedulingGates":[{"name":"z"},{"name":"a"},{"name":"z"}]}})");
  EXPECT_EQ(p.rare().scheduling_gates, (std::vector<std::string>{"z", "a", "z"}));  // in order, as served
  p = project_pod(R"({"spec":{"nodeSelector":{"gpupool.io/pool":"p"}}})");
  EXPECT_EQ(p.rare().node_selector, (std::map<std::string, std::string>{{"gpupool.io/pool", "p"}}));
  p = project_pod(R"({"spec":{"overhead":{"cpu":"250m","memory":120}}})");
  EXPECT_EQ(p.rare().overhead, (PodProjection::Quantities{{"cpu", "250m"}, {"memory", "120"}}));
  p = project_pod(R"({"spec":{"containers":[{"name":"a","restartPolicy":"Always"}],
                             "initContainers":[{"name":"s","restartPolicy":"Always"},{"name":"i"}]}})");
  EXPECT_TRUE(p.containers[0].restart_always);
  EXPECT_TRUE(p.rare().init_containers[0].restart_always);
  EXPECT_FALSE(p.rare().init_containers[1].restart_always);
  p = project_pod(R"({"spec":{"initContainers":[{"restartPolicy":"OnFailure"},{"restartPolicy":"always"}]}})");
  EXPECT_FALSE(p.rare().init_containers[0].restart_always);
  EXPECT_FALSE(p.rare().init_containers[1].restart_always) << "values are case-sensitive, as the API server's";
  p = project_pod(R"({"spec":{"resourceClaims":[{"name":"b","resourceClaimName":"x"},{"name":"a","resourceClaimTemplateName":"t"}]}})");
  EXPECT_EQ(p.rare().resource_claims, (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(p.rare().claim_sources, (std::vector<PodProjection::ClaimSource>{{"x", ""}, {"", "t"}}));
}

TEST(ProjectPod, UnknownFieldsInsideNewerFieldsAreSkipped) {
  PodProjection p = project_pod(R"({"spec":{
      "schedulingGates":[{"x":{"name":"no","schedulingGates":[{"name":"no"}]},"name":"yes","y":[{"name":"no"}],"z":7}],
      "resourceClaims":[{"source":{"name":"no","resourceClaims":[{"name":"no"}]},"name":"yes","w":[[{"name":"no"}]]}],
      "containers":[{"name":"c","resources":{"claims":[{"name":"no"}]},"lifecycle":{"restartPolicy":"no"}}]}})");
  EXPECT_EQ(p.rare().scheduling_gates, std::vector<std::string>{"yes"});
  EXPECT_EQ(p.rare().resource_claims, std::vector<std::string>{"yes"});
  ASSERT_EQ(p.containers.size(), 1u);
  EXPECT_FALSE(p.containers[0].restart_always);
}

TEST(ProjectPod, NullNewerFieldsAreAbsent) {
  EXPECT_EQ(project_pod(R"({"metadata":{"creationTimestamp":null,"labels":null},
                           "spec":{"schedulingGates":null,"nodeSelector":null,"overhead":null,"resourceClaims":null,
                                   "containers":[{"restartPolicy":null}]}})"),
            [] {
              PodProjection p;
              p.containers.emplace_back();
              return p;
            }());
  // Null entries and values are absent too; an entry without a name keeps its place.
  PodProjection p = project_pod(R"({"metadata":{"labels":{"a":null,"b":"1"}},
      "spec":{"schedulingGates":[null,{"name":null},{"name":"g"}],"nodeSelector":{"k":null},
              "overhead":{"cpu":null},"resourceClaims":[null,{"name":"c"}]}})");
  EXPECT_EQ(p.rare().scheduling_gates, (std::vector<std::string>{"", "g"}));
  EXPECT_TRUE(p.rare().node_selector.empty());
  EXPECT_TRUE(p.rare().overhead.empty());
  EXPECT_EQ(p.rare().resource_claims, std::vector<std::string>{"c"});
}

// Quantities keep the order served; a name served twice keeps its last
// value, as a map would (the API server never sends one twice).
TEST(ProjectPod, QuantitiesInOrderServedLastValueWins) {
  const PodProjection p = project_pod(R"({"spec":{"containers":[{"resources":{
      "requests":{"nvidia.com/gpu":"1","cpu":"2","nvidia.com/gpu":"3"},"limits":{"b":"1","a":"2"}}}]}})");
  ASSERT_EQ(p.containers.size(), 1u);
  EXPECT_EQ(p.containers[0].requests, (PodProjection::Quantities{{"nvidia.com/gpu", "3"}, {"cpu", "2"}}));
  EXPECT_EQ(p.containers[0].limits, (PodProjection::Quantities{{"b", "1"}, {"a", "2"}}));
  EXPECT_EQ(quantity(p.containers[0].limits, "a"), "2");
  EXPECT_EQ(quantity(p.containers[0].limits, "c"), "<absent>");
}

TEST(ProjectPod, PhaseAsServed) {
  const std::pair<const char*, PodPhase> cases[] = {
      {R"({})", PodPhase::unset},
      {R"({"status":{"phase":null}})", PodPhase::unset},
      {R"({"status":{"phase":"Pending"}})", PodPhase::pending},
      {R"({"status":{"phase":"Running"}})", PodPhase::running},
      {R"({"status":{"phase":"Succeeded"}})", PodPhase::succeeded},
      {R"({"status":{"phase":"Failed"}})", PodPhase::failed},
      {R"({"status":{"phase":"Unknown"}})", PodPhase::unknown},
      {R"({"status":{"phase":"running"}})", PodPhase::other},  // case matters, as in Kubernetes
  };
  for (const auto& [json, phase] : cases) EXPECT_EQ(project_pod(json).phase, phase) << json;
  EXPECT_TRUE(terminal(PodPhase::succeeded));
  EXPECT_TRUE(terminal(PodPhase::failed));
  EXPECT_FALSE(terminal(PodPhase::unknown));
  EXPECT_FALSE(terminal(PodPhase::other));
}

// The rare fields cost one pointer when unset: an empty nodeSelector or
// overhead leaves none allocated, and a copy shares them until one writes.
TEST(ProjectPod, RareFieldsAreAllocatedOnlyWhenSetAndCopiedOnWrite) {
  const PodProjection empty = project_pod(R"({"spec":{"nodeSelector":{},"overhead":{},"initContainers":[]}})");
  EXPECT_EQ(empty, PodProjection{});
  EXPECT_EQ(&empty.rare(), &PodProjection{}.rare());  // the shared empty one

  const PodProjection original = project_pod(R"({"spec":{"nodeSelector":{"k":"v"}}})");
  PodProjection copy = original;
  EXPECT_EQ(&copy.rare(), &original.rare());
  copy.rare_mut().node_selector["k"] = "changed";
  EXPECT_EQ(original.rare().node_selector.at("k"), "v");
  EXPECT_NE(copy, original);
  copy.rare_mut().node_selector.clear();
  copy.drop_empty_rare();
  EXPECT_EQ(&copy.rare(), &PodProjection{}.rare());
}

// Labels and owners are read by no reconciler: the store does not keep them
// (memory per pod), whatever they hold.
TEST(ProjectPod, LabelsAndOwnersAreNotKept) {
  for (const char* json : {R"({"metadata":{"labels":{"a":"1"},"ownerReferences":[{"kind":"Job","name":"j","controller":true}]}})",
                           R"({"metadata":{"labels":["a"],"ownerReferences":[{"controller":"yes"}]}})",
                           R"({"metadata":{"labels":{"a":{"name":"x"}},"ownerReferences":{"name":"x"}}})"}) {
    EXPECT_EQ(project_pod(json), PodProjection{}) << json;
  }
}

TEST(ProjectPod, DeletionTimestampMarksDeleting) {
  EXPECT_TRUE(project_pod(R"({"metadata":{"deletionTimestamp":"2024-05-01T10:00:00Z","name":"a"}})").deleting);
  EXPECT_FALSE(project_pod(R"({"metadata":{"deletionTimestamp":null,"name":"a"}})").deleting);
  EXPECT_FALSE(project_pod(R"({"metadata":{"name":"a","annotations":{"deletionTimestamp":"x"}}})").deleting);
}

TEST(ProjectPod, AbsentAndNullFieldsStayEmpty) {
  PodProjection p = project_pod(R"({"metadata":{"name":null,"ownerReferences":null},"spec":{"priority":null,"containers":null}})");
  EXPECT_EQ(p, PodProjection{});
  EXPECT_EQ(p.priority, 0);
  EXPECT_EQ(project_pod("{}"), PodProjection{});
}

TEST(ProjectPod, NegativePriority) {
  EXPECT_EQ(project_pod(R"({"spec":{"priority":-2147483648}})").priority, -2147483648);
}

TEST(ProjectPod, MalformedInputIsADecodeError) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "malformed JSON"},
      {R"({"metadata":{"name":"a")", "malformed JSON"},
      {R"({"metadata":{"name":"a"}} trailing)", "malformed JSON"},
      {R"({"metadata":{"name":"a",}})", "malformed JSON"},
      {R"([{"metadata":{}}])", "the pod must be an object"},
      {R"("pod")", "the pod must be an object"},
      {"null", "the pod must be an object"},
      {R"({"metadata":{"name":12}})", "metadata.name must be a string, found a number"},
      {R"({"metadata":"x"})", "metadata must be an object, found a string"},
      {R"({"spec":{"containers":{"name":"x"}}})", "spec.containers must be an array, found an object"},
      {R"({"spec":{"containers":["x"]}})", "an element of spec.containers must be an object"},
      {R"({"spec":{"priority":"5"}})", "spec.priority must be an integer, found a string"},
      {R"({"spec":{"priority":2147483648}})", "spec.priority is not a 32-bit integer"},
      {R"({"spec":{"priority":1.5}})", "spec.priority is not a 32-bit integer"},
      {R"({"spec":{"containers":[{"resources":{"requests":{"cpu":true}}}]}})", "a resource quantity must be a string or a number"},
      {R"({"metadata":{"creationTimestamp":1714557552}})", "metadata.creationTimestamp must be a string, found a number"},
      {R"({"spec":{"schedulingGates":{"name":"g"}}})", "spec.schedulingGates must be an array, found an object"},
      {R"({"spec":{"schedulingGates":["g"]}})", "an element of spec.schedulingGates must be an object, found a string"},
      {R"({"spec":{"schedulingGates":[{"name":["g"]}]}})", "spec.schedulingGates[].name must be a string, found an array"},
      {R"({"spec":{"nodeSelector":"pool=a"}})", "spec.nodeSelector must be an object, found a string"},
      {R"({"spec":{"nodeSelector":{"gpu":true}}})", "a value of spec.nodeSelector must be a string, found a boolean"},
      {R"({"spec":{"overhead":[]}})", "spec.overhead must be an object, found an array"},
      {R"({"spec":{"overhead":{"cpu":{}}}})", "a resource quantity must be a string or a number, found an object"},
      {R"({"spec":{"resourceClaims":"gpu"}})", "spec.resourceClaims must be an array, found a string"},
      {R"({"spec":{"resourceClaims":[[]]}})", "an element of spec.resourceClaims must be an object, found an array"},
      {R"({"spec":{"resourceClaims":[{"name":false}]}})", "spec.resourceClaims[].name must be a string, found a boolean"},
      {R"({"spec":{"resourceClaims":[{"resourceClaimTemplateName":1}]}})",
       "spec.resourceClaims[].resourceClaimTemplateName must be a string, found a number"},
      {R"({"spec":{"initContainers":[{"restartPolicy":1}]}})", "container restartPolicy must be a string, found a number"},
      {R"({"x":)" + std::string(600, '[') + std::string(600, ']') + "}", "nesting deeper than 512"},
  };
  for (const auto& [json, part] : cases) {
    std::string message = error_of([&] { project_pod(json); });
    EXPECT_NE(message.find(part), std::string::npos) << json.substr(0, 80) << " -> " << message;
    EXPECT_NE(message.find("at byte"), std::string::npos) << message;
  }
}

// A PodList of `n` small pods built around kPod-like items, metadata after items.
struct ListFixture {
  std::string json;
  std::vector<std::string> items;
};

ListFixture make_list(int n, bool metadata_first) {
  ListFixture f;
  for (int i = 0; i < n; ++i) {
    std::string id = std::to_string(i);
    f.items.push_back(R"({"metadata":{"name":"pod-)" + id + R"(","namespace":"ns","uid":"uid-)" + id +
                      R"(","resourceVersion":")" + std::to_string(1000 + i) +
                      R"(","labels":{"i":")" + id + R"("},"annotations":{"filler":")" +
                      std::string(static_cast<std::size_t>(500 + i % 700), 'f') +
                      R"("}},"spec":{"schedulingGates":[{"name":"gate-)" + id + R"("}],"nodeName":"node-)" + std::to_string(i % 7) +
                      R"(","containers":[{"name":"c","resources":{"requests":{"nvidia.com/gpu":)" +
                      std::to_string(i % 3) + R"(}}}]},"status":{"phase":"Running"}})");
  }
  std::string items = "[";
  for (std::size_t i = 0; i < f.items.size(); ++i) items += (i ? ",\n    " : "\n    ") + f.items[i];
  items += "\n  ]";
  const std::string meta =
      R"("metadata":{"resourceVersion":"90210","continue":"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6OTAyMTB9","remainingItemCount":4321})";
  f.json = "{\n  \"kind\": \"PodList\", \"apiVersion\": \"v1\",\n  ";
  f.json += metadata_first ? meta + ",\n  \"items\": " + items : "\"items\": " + items + ",\n  " + meta;
  f.json += "\n}\n";
  return f;
}

const ListMeta kListMeta{"90210", "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6OTAyMTB9", 4321};

TEST(ScanList, GivesEachItemsExactTextAndTheListMetadata) {
  for (bool metadata_first : {true, false}) {
    ListFixture f = make_list(5, metadata_first);
    std::vector<std::string> items;
    ListMeta meta = scan_list(f.json, [&](std::string_view item) { items.emplace_back(item); });
    EXPECT_EQ(meta, kListMeta);
    EXPECT_EQ(items, f.items);
  }
}

TEST(ScanList, ListWithoutContinueOrItems) {
  std::size_t items = 0;
  ListMeta meta = scan_list(R"({"kind":"NodeList","metadata":{"resourceVersion":"5"},"items":[]})",
                            [&](std::string_view) { ++items; });
  EXPECT_EQ(meta, (ListMeta{"5", "", std::nullopt}));
  meta = scan_list(R"({"metadata":{"resourceVersion":"6","continue":""},"items":null})", [&](std::string_view) { ++items; });
  EXPECT_EQ(meta, (ListMeta{"6", "", std::nullopt}));
  EXPECT_EQ(items, 0u);
}

TEST(ScanList, ItemsWithNestedListsAreNotConfusedWithTheList) {
  // An item holding "items" and "metadata" of its own.
  const std::string item = R"({"metadata":{"name":"a","resourceVersion":"1"},"items":[{"x":1}],"data":{"items":[]}})";
  std::vector<std::string> items;
  ListMeta meta = scan_list(R"({"items":[)" + item + R"(],"metadata":{"resourceVersion":"2"}})",
                            [&](std::string_view i) { items.emplace_back(i); });
  EXPECT_EQ(meta.resource_version, "2");
  EXPECT_EQ(items, std::vector<std::string>{item});
}

TEST(ScanList, MalformedListIsADecodeError) {
  auto ignore = [](std::string_view) {};
  EXPECT_NE(error_of([&] { scan_list(R"({"items":[{"a":1},)", ignore); }).find("malformed JSON"), std::string::npos);
  EXPECT_NE(error_of([&] { scan_list(R"([])", ignore); }).find("the list must be an object"), std::string::npos);
  EXPECT_NE(error_of([&] { scan_list(R"({"items":{}})", ignore); }).find("list items must be an array"),
            std::string::npos);
  EXPECT_NE(error_of([&] { scan_list(R"({"items":[1]})", ignore); }).find("an element of items must be an object"),
            std::string::npos);
  EXPECT_NE(error_of([&] { scan_list(R"({"metadata":{"remainingItemCount":"x"}})", ignore); })
                .find("remainingItemCount must be an integer"),
            std::string::npos);
}

TEST(ProjectPodList, EqualsProjectingEachScannedItem) {
  ListFixture f = make_list(40, false);
  std::vector<PodProjection> via_scan;
  ListMeta scan_meta = scan_list(f.json, [&](std::string_view item) { via_scan.push_back(project_pod(item)); });
  std::vector<PodProjection> direct;
  ListMeta meta = project_pod_list(f.json, [&](PodProjection&& p) { direct.push_back(std::move(p)); });
  EXPECT_EQ(meta, kListMeta);
  EXPECT_EQ(scan_meta, kListMeta);
  ASSERT_EQ(direct.size(), 40u);
  EXPECT_EQ(direct, via_scan);
  EXPECT_EQ(direct[17].name, "pod-17");
  EXPECT_EQ(direct[17].node_name, "node-3");
  ASSERT_EQ(direct[17].containers.size(), 1u);
  EXPECT_EQ(quantity(direct[17].containers[0].requests, "nvidia.com/gpu"), "2");
  EXPECT_EQ(direct[17].rare().scheduling_gates, std::vector<std::string>{"gate-17"});
}

TEST(ProjectPodList, ItemsDoNotLeakIntoEachOther) {
  const std::string list = R"({"items":[)" + kPod + R"(,{"metadata":{"name":"bare"}}]})";
  std::vector<PodProjection> pods;
  project_pod_list(list, [&](PodProjection&& p) { pods.push_back(std::move(p)); });
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(pods[0], expected_pod());
  PodProjection bare;
  bare.name = "bare";
  EXPECT_EQ(pods[1], bare);
  // The newer fields, list by list: each pod keeps its own.
  pods.clear();
  project_pod_list(R"({"items":[
      {"metadata":{"creationTimestamp":"1970-01-01T00:00:01Z","labels":{"a":"1"}},
       "spec":{"schedulingGates":[{"name":"g1"}],"nodeSelector":{"n":"1"},"overhead":{"cpu":"1"},
               "resourceClaims":[{"name":"c1"}],"initContainers":[{"name":"s","restartPolicy":"Always"}]}},
      {"metadata":{"labels":{"b":"2"}},"spec":{"resourceClaims":[{"name":"c2"}],"initContainers":[{"name":"i"}]}}]})",
                   [&](PodProjection&& p) { pods.push_back(std::move(p)); });
  ASSERT_EQ(pods.size(), 2u);
  PodProjection first;
  first.created_ms = 1000;
  first.rare_mut().scheduling_gates = {"g1"};
  first.rare_mut().node_selector = {{"n", "1"}};
  first.rare_mut().overhead = {{"cpu", "1"}};
  first.rare_mut().resource_claims = {"c1"};
  first.rare_mut().claim_sources = {{}};
  first.rare_mut().init_containers = {{"s", {}, {}, true}};
  EXPECT_EQ(pods[0], first);
  PodProjection second;
  second.rare_mut().resource_claims = {"c2"};
  second.rare_mut().claim_sources = {{}};
  second.rare_mut().init_containers = {{"i", {}, {}, false}};
  EXPECT_EQ(pods[1], second);
}

TEST(ProjectPodList, MalformedItemIsADecodeError) {
  std::size_t pods = 0;
  std::string message = error_of([&] {
    project_pod_list(R"({"items":[{"metadata":{"name":"a"}},{"metadata":{"name":7}}]})", [&](PodProjection&&) { ++pods; });
  });
  EXPECT_NE(message.find("metadata.name must be a string"), std::string::npos) << message;
  EXPECT_EQ(pods, 1u);  // the good pod before it was delivered
}

class TempFile {
 public:
  explicit TempFile(const std::string& content)
      : path_(std::filesystem::temp_directory_path() /
              ("gpupool-projection-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++) + ".json")) {
    std::ofstream(path_, std::ios::binary) << content;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  std::string path() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

TEST(ProjectPodListFile, EqualsTheInMemoryVariant) {
  // Larger than the read buffer, so items straddle refills.
  ListFixture f = make_list(1200, true);
  ASSERT_GT(f.json.size(), 1u << 20);
  TempFile file(f.json);
  std::vector<PodProjection> from_memory;
  std::vector<PodProjection> from_file;
  ListMeta memory_meta = project_pod_list(f.json, [&](PodProjection&& p) { from_memory.push_back(std::move(p)); });
  ListMeta file_meta = project_pod_list_file(file.path(), [&](PodProjection&& p) { from_file.push_back(std::move(p)); });
  EXPECT_EQ(file_meta, kListMeta);
  EXPECT_EQ(file_meta, memory_meta);
  ASSERT_EQ(from_file.size(), 1200u);
  EXPECT_EQ(from_file, from_memory);
}

TEST(ProjectPodListFile, MalformedFileIsADecodeErrorNamingTheFile) {
  TempFile file(R"({"items":[{"metadata":{"name":"a"}},)");
  std::string message = error_of([&] { project_pod_list_file(file.path(), [](PodProjection&&) {}); });
  EXPECT_NE(message.find(file.path()), std::string::npos) << message;
  EXPECT_NE(message.find("malformed JSON"), std::string::npos) << message;
}

TEST(ProjectPodListFile, MissingFileIsASystemError) {
  EXPECT_THROW(project_pod_list_file("/nonexistent/gpupool/pods.json", [](PodProjection&&) {}), std::system_error);
}

}  // namespace
}  // namespace gpupool::kube
