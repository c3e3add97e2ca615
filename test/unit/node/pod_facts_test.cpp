// pod_facts: what a core/v1 Pod's JSON says for a drain, malformed shapes
// included; is_gpu_resource.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpupool/node/drain_plan.h"

namespace gpupool::node {
namespace {

const std::string kSkip = "gpupool.io/skip-drain";

PodFacts facts(const std::string& json, const std::string& skip_label = kSkip) {
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  EXPECT_FALSE(doc.HasParseError()) << json;
  return pod_facts(doc, skip_label);
}

// A running pod "ns/p" whose spec and metadata extras are spliced in.
std::string pod(const std::string& spec, const std::string& metadata_extra = "",
                const std::string& phase = "Running") {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"ns","name":"p","uid":"u-1")" +
         (metadata_extra.empty() ? "" : "," + metadata_extra) + R"(},"spec":)" + spec +
         R"(,"status":{"phase":")" + phase + R"("}})";
}

std::string one_container(const std::string& resources) {
  return R"({"containers":[{"name":"c","resources":)" + resources + "}]}";
}

// The rule is quota::is_gpu_resource (its full table: test/unit/quota/gpu_resources_test.cpp).
TEST(PodFactsGpuResource, Names) {
  struct Case {
    const char* name;
    bool gpu;
  };
  const std::vector<Case> cases = {
      {"nvidia.com/gpu", true},
      {"nvidia.com/gpu.shared", true},
      {"nvidia.com/mig-1g.10gb", true},
      {"nvidia.com/mig-1g.10gb.shared", true},
      {"nvidia.com/mig-3g.40gb+me", true},
      {"amd.com/gpu", true},
      {"nvidia.com/gpu.shared.shared", false},
      {"nvidia.com/gpux", false},
      {"cpu", false},
      {"memory", false},
      {"example.com/gpu", false},
      {"", false},
  };
  for (const auto& c : cases) EXPECT_EQ(is_gpu_resource(c.name), c.gpu) << c.name;
}

TEST(PodFactsGpu, WhereTheResourceIsNamed) {
  struct Case {
    const char* what;
    std::string spec;
    std::vector<std::string> resources;
  };
  const std::vector<Case> cases = {
      {"requests and limits", one_container(R"({"requests":{"nvidia.com/gpu":"1"},"limits":{"nvidia.com/gpu":"1"}})"),
       {"nvidia.com/gpu"}},
      {"limits only", one_container(R"({"limits":{"nvidia.com/gpu":"2"}})"), {"nvidia.com/gpu"}},
      {"requests only", one_container(R"({"requests":{"amd.com/gpu":"1"}})"), {"amd.com/gpu"}},
      {"MIG", one_container(R"({"limits":{"nvidia.com/mig-1g.10gb":"1","cpu":"2"}})"), {"nvidia.com/mig-1g.10gb"}},
      {"shared", one_container(R"({"limits":{"nvidia.com/gpu.shared":"1"}})"), {"nvidia.com/gpu.shared"}},
      {"number quantity", one_container(R"({"limits":{"nvidia.com/gpu":1}})"), {"nvidia.com/gpu"}},
      {"init container only",
       R"({"initContainers":[{"name":"i","resources":{"limits":{"nvidia.com/gpu":"1"}}}],)"
       R"("containers":[{"name":"c","resources":{"limits":{"cpu":"1"}}}]})",
       {"nvidia.com/gpu"}},
      {"sidecar init container",
       R"({"initContainers":[{"name":"s","restartPolicy":"Always","resources":{"requests":{"amd.com/gpu":"1"}}}],)"
       R"("containers":[{"name":"c"}]})",
       {"amd.com/gpu"}},
      {"several, sorted once each",
       R"({"containers":[{"name":"a","resources":{"limits":{"nvidia.com/mig-2g.20gb":"1"}}},)"
       R"({"name":"b","resources":{"limits":{"nvidia.com/mig-1g.10gb":"1"},"requests":{"nvidia.com/mig-2g.20gb":"1"}}}]})",
       {"nvidia.com/mig-1g.10gb", "nvidia.com/mig-2g.20gb"}},
      {"no GPU", one_container(R"({"requests":{"cpu":"1","memory":"1Gi"}})"), {}},
      {"no resources", R"({"containers":[{"name":"c"}]})", {}},
      {"zero quantity", one_container(R"({"limits":{"nvidia.com/gpu":"0"}})"), {}},
      {"zero quantity, other spellings", one_container(R"({"limits":{"nvidia.com/gpu":"0.0","amd.com/gpu":0}})"), {}},
      {"quantity not a string or number", one_container(R"({"limits":{"nvidia.com/gpu":true}})"), {}},
      {"quantity without digits", one_container(R"({"limits":{"nvidia.com/gpu":"x"}})"), {}},
      {"unknown GPU-like resource", one_container(R"({"limits":{"example.com/gpu":"1"}})"), {}},
  };
  for (const auto& c : cases) {
    const PodFacts f = facts(pod(c.spec));
    EXPECT_EQ(f.gpu_resources, c.resources) << c.what;
    EXPECT_EQ(f.uses_gpu, !c.resources.empty()) << c.what;
  }
}

TEST(PodFactsMetadata, Identity) {
  const PodFacts f = facts(pod(R"({"containers":[]})"));
  EXPECT_EQ(f.ns, "ns");
  EXPECT_EQ(f.name, "p");
  EXPECT_EQ(f.uid, "u-1");
  EXPECT_FALSE(f.has_controller);
  EXPECT_FALSE(f.daemonset);
  EXPECT_FALSE(f.mirror);
  EXPECT_FALSE(f.finished);
  EXPECT_FALSE(f.terminating);
  EXPECT_FALSE(f.skip);
  EXPECT_FALSE(f.uses_empty_dir);
}

TEST(PodFactsMetadata, Controller) {
  struct Case {
    const char* what;
    std::string meta;
    bool controller, daemonset;
  };
  const std::vector<Case> cases = {
      {"ReplicaSet controller",
       R"("ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"r","uid":"x","controller":true}])", true,
       false},
      {"DaemonSet controller",
       R"("ownerReferences":[{"apiVersion":"apps/v1","kind":"DaemonSet","name":"d","uid":"x","controller":true}])", true,
       true},
      {"owner that is not the controller",
       R"("ownerReferences":[{"apiVersion":"apps/v1","kind":"DaemonSet","name":"d","uid":"x"}])", false, false},
      {"controller: false", R"("ownerReferences":[{"kind":"ReplicaSet","name":"r","controller":false}])", false, false},
      {"first controller counts",
       R"("ownerReferences":[{"kind":"ConfigMap","name":"c"},{"kind":"Job","name":"j","controller":true},)"
       R"({"kind":"DaemonSet","name":"d","controller":true}])",
       true, false},
      {"controller: \"true\" (a string)", R"("ownerReferences":[{"kind":"ReplicaSet","controller":"true"}])", false,
       false},
      {"ownerReferences not an array", R"("ownerReferences":{"kind":"ReplicaSet","controller":true})", false, false},
      {"ownerReferences entries not objects", R"("ownerReferences":[1,"x",null])", false, false},
      {"no ownerReferences", "", false, false},
  };
  for (const auto& c : cases) {
    const PodFacts f = facts(pod(R"({"containers":[]})", c.meta));
    EXPECT_EQ(f.has_controller, c.controller) << c.what;
    EXPECT_EQ(f.daemonset, c.daemonset) << c.what;
  }
}

TEST(PodFactsMetadata, Mirror) {
  EXPECT_TRUE(facts(pod("{}", R"("annotations":{"kubernetes.io/config.mirror":"abc"})")).mirror);
  EXPECT_TRUE(facts(pod("{}", R"("annotations":{"kubernetes.io/config.mirror":""})")).mirror);
  EXPECT_FALSE(facts(pod("{}", R"("annotations":{"kubernetes.io/config.source":"file"})")).mirror);
  EXPECT_FALSE(facts(pod("{}", R"("annotations":["kubernetes.io/config.mirror"])")).mirror);
}

TEST(PodFactsMetadata, Terminating) {
  EXPECT_TRUE(facts(pod("{}", R"("deletionTimestamp":"2025-01-02T03:04:05Z")")).terminating);
  EXPECT_FALSE(facts(pod("{}", R"("deletionTimestamp":null)")).terminating);
  EXPECT_FALSE(facts(pod("{}")).terminating);
}

TEST(PodFactsStatus, Finished) {
  struct Case {
    const char* phase;
    bool finished;
  };
  for (const auto& c : std::vector<Case>{
           {"Succeeded", true}, {"Failed", true}, {"Running", false}, {"Pending", false}, {"Unknown", false}}) {
    EXPECT_EQ(facts(pod("{}", "", c.phase)).finished, c.finished) << c.phase;
  }
  EXPECT_FALSE(facts(R"({"metadata":{"name":"p"},"status":{"phase":1}})").finished);
  EXPECT_FALSE(facts(R"({"metadata":{"name":"p"},"status":"Succeeded"})").finished);
}

TEST(PodFactsLabels, SkipLabel) {
  struct Case {
    const char* what;
    std::string labels;
    std::string skip_label;
    bool skip;
  };
  const std::vector<Case> cases = {
      {"true", R"("labels":{"gpupool.io/skip-drain":"true"})", kSkip, true},
      {"false", R"("labels":{"gpupool.io/skip-drain":"false"})", kSkip, false},
      {"other value", R"("labels":{"gpupool.io/skip-drain":"yes"})", kSkip, false},
      {"True (values are case-sensitive)", R"("labels":{"gpupool.io/skip-drain":"True"})", kSkip, false},
      {"empty value", R"("labels":{"gpupool.io/skip-drain":""})", kSkip, false},
      {"absent", R"("labels":{"app":"train"})", kSkip, false},
      {"custom key", R"("labels":{"team.example/no-drain":"true"})", "team.example/no-drain", true},
      {"default key with a custom one asked", R"("labels":{"gpupool.io/skip-drain":"true"})", "team.example/no-drain",
       false},
      {"empty key asked", R"("labels":{"":"true"})", "", false},
      {"labels not an object", R"("labels":["gpupool.io/skip-drain"])", kSkip, false},
      {"label value not a string", R"("labels":{"gpupool.io/skip-drain":true})", kSkip, false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(facts(pod("{}", c.labels), c.skip_label).skip, c.skip) << c.what;
  }
}

TEST(PodFactsVolumes, EmptyDir) {
  struct Case {
    const char* what;
    std::string spec;
    bool empty_dir;
  };
  const std::vector<Case> cases = {
      {"emptyDir", R"({"volumes":[{"name":"cfg","configMap":{"name":"c"}},{"name":"scratch","emptyDir":{}}]})", true},
      {"emptyDir in memory", R"({"volumes":[{"name":"shm","emptyDir":{"medium":"Memory"}}]})", true},
      {"no emptyDir", R"({"volumes":[{"name":"data","persistentVolumeClaim":{"claimName":"d"}}]})", false},
      {"emptyDir null", R"({"volumes":[{"name":"x","emptyDir":null}]})", false},
      {"no volumes", "{}", false},
      {"volumes not an array", R"({"volumes":{"name":"scratch","emptyDir":{}}})", false},
      {"volume entries not objects", R"({"volumes":["emptyDir",3]})", false},
  };
  for (const auto& c : cases) EXPECT_EQ(facts(pod(c.spec)).uses_empty_dir, c.empty_dir) << c.what;
}

TEST(PodFactsMalformed, NeverThrowsAndReadsWhatItCan) {
  const std::vector<std::string> shapes = {
      "null",
      "[]",
      "42",
      R"("pod")",
      "{}",
      R"({"metadata":[],"spec":[],"status":[]})",
      R"({"metadata":{"name":7,"namespace":["x"],"labels":"a=b","annotations":7},"spec":"x"})",
      R"({"spec":{"containers":{"name":"c","resources":{"limits":{"nvidia.com/gpu":"1"}}}}})",
      R"({"spec":{"containers":[null,1,"c",{"resources":[]},{"resources":{"limits":[]}},{"resources":{"limits":"1"}}]}})",
      R"({"spec":{"initContainers":"x","containers":[{"resources":{"requests":null}}]}})",
  };
  for (const auto& json : shapes) {
    PodFacts f;
    EXPECT_NO_THROW(f = facts(json)) << json;
    EXPECT_FALSE(f.uses_gpu) << json;
    EXPECT_FALSE(f.skip) << json;
    EXPECT_FALSE(f.has_controller) << json;
  }
}

TEST(PodFactsMalformed, KeepsTheReadableParts) {
  // containers is not an array, but the GPU in an init container still counts,
  // and the name and labels still read.
  const PodFacts f = facts(
      R"({"metadata":{"namespace":"ns","name":"p","uid":5,"labels":{"gpupool.io/skip-drain":"true"}},)"
      R"("spec":{"containers":"c","initContainers":[{"resources":{"limits":{"nvidia.com/gpu":"1"}}}]}})");
  EXPECT_EQ(f.ns, "ns");
  EXPECT_EQ(f.name, "p");
  EXPECT_EQ(f.uid, "");
  EXPECT_TRUE(f.uses_gpu);
  EXPECT_TRUE(f.skip);
}

}  // namespace
}  // namespace gpupool::node
