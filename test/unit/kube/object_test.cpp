// decode_object: the metadata it extracts, its errors, and the size of what
// a store keeps per object.
#include "gpupool/kube/object.h"

#include <gtest/gtest.h>

#include "gpupool/kube/errors.h"
#include "gpupool/kube/client.h"
#include "gpupool/kube/json_access.h"

namespace gpupool::kube {
namespace {

const char* kNode = R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","uid":"u1","resourceVersion":"42",
  "generation":3,"labels":{"gpupool.io/pool":"a","kubernetes.io/hostname":"n1"},
  "annotations":{"x":"a string longer than RapidJSON keeps inline in a value"}},
  "spec":{"unschedulable":true,"taints":[{"key":"k","effect":"NoSchedule"}]},
  "status":{"capacity":{"nvidia.com/gpu":"8"},"conditions":[{"type":"Ready","status":"True"}]}})";

TEST(DecodeObject, ExtractsMetadataAndKeepsTheWholeObject) {
  const Object o = decode_object(kNode);
  EXPECT_EQ(o.name, "n1");
  EXPECT_EQ(o.ns, "");
  EXPECT_EQ(o.uid, "u1");
  EXPECT_EQ(o.resource_version, "42");
  EXPECT_EQ(o.generation, 3);
  EXPECT_FALSE(o.deleting);
  EXPECT_EQ(string_at(o.doc, {"metadata", "labels", "gpupool.io/pool"}), "a");
  EXPECT_EQ(string_at(o.doc, {"metadata", "annotations", "x"}), "a string longer than RapidJSON keeps inline in a value");
  EXPECT_EQ(string_at(o.doc, {"status", "capacity", "nvidia.com/gpu"}), "8");
  EXPECT_EQ(to_json(o.doc), to_json(parse_json(kNode)));
}

TEST(DecodeObject, KeepsTheDocumentInABlockOfItsOwnSize) {
  Object o = decode_object(kNode);
  // RapidJSON's own Document would hold a 64 KiB chunk for this.
  ASSERT_TRUE(o.allocator);
  EXPECT_EQ(&o.doc.GetAllocator(), o.allocator.get());
  EXPECT_LT(o.allocator->Capacity(), 2048u);
  EXPECT_GE(o.allocator->Capacity(), o.allocator->Size());
}

// copy_size must be exact: an undercount costs the store a second block.
TEST(CopySize, IsWhatTheAllocatorGivesACopy) {
  for (const char* json : {kNode, "{}", "[]", R"({"a":[]})", R"({"thirteen-char":"1234567890123"})",
                           R"({"fourteen-chars":"12345678901234"})", R"({"":""})", R"([[[]],[{}],"x",1,2.5,true,null])",
                           R"({"k":{"l":{"m":["a string longer than inline","another one, also long enough"]}}})"}) {
    const rapidjson::Document parsed = parse_json(json);
    rapidjson::MemoryPoolAllocator<> pool(1 << 16);
    rapidjson::Document copy(&pool);
    copy.CopyFrom(parsed, pool);
    EXPECT_EQ(copy_size(parsed), pool.Size()) << json;
  }
}

TEST(DecodeObject, FillsItsBlockExactly) {
  const Object o = decode_object(kNode);
  EXPECT_EQ(o.allocator->Size(), o.allocator->Capacity());
}

const char* kManaged = R"({"metadata":{"name":"n1","labels":{"a":"1"},"managedFields":[
  {"manager":"kubelet","operation":"Update","fieldsV1":{"f:status":{"f:conditions":{}}}},
  {"manager":"gpupool-pool-a","operation":"Apply","fieldsV1":{"f:metadata":{"f:labels":{"f:a":{}}}}},
  {"manager":"kube-controller-manager","operation":"Update","fieldsV1":{"f:spec":{}}},
  {"operation":"Update"}, "not an entry"]},"spec":{"x":1}})";

std::string managers(const Object& o) {
  const rapidjson::Value* fields = value_at(o.doc, {"metadata", "managedFields"});
  if (fields == nullptr) return "<absent>";
  std::string out;
  for (const auto& f : fields->GetArray()) out += string_of(member(f, "manager")) + ";";
  return out;
}

TEST(DecodeObject, TrimsManagedFieldsAsAsked) {
  struct Case {
    const char* what;
    DecodeTrim trim;
    std::string managers;
  };
  const Case cases[] = {
      {"no trim", {}, "kubelet;gpupool-pool-a;kube-controller-manager;;;"},
      {"dropped whole", {true, "", {}, {}, {}, {}}, "<absent>"},
      {"our managers kept", {true, "gpupool-pool-", {}, {}, {}, {}}, "gpupool-pool-a;"},
      {"none of ours: absent, not empty", {true, "gpupool-agent", {}, {}, {}, {}}, "<absent>"},
      {"a prefix without the flag does nothing", {false, "gpupool-pool-", {}, {}, {}, {}}, "kubelet;gpupool-pool-a;kube-controller-manager;;;"},
  };
  for (const auto& c : cases) {
    const Object o = decode_object(kManaged, c.trim);
    EXPECT_EQ(managers(o), c.managers) << c.what;
    // The rest is untouched, and the block is still exactly the copy's size.
    EXPECT_EQ(o.name, "n1") << c.what;
    EXPECT_EQ(string_at(o.doc, {"metadata", "labels", "a"}), "1") << c.what;
    EXPECT_EQ(to_json(*member(o.doc, "spec")), R"({"x":1})") << c.what;
    EXPECT_EQ(o.allocator->Size(), o.allocator->Capacity()) << c.what;
  }
}

TEST(DecodeObject, TrimLeavesOddShapesAlone) {
  const DecodeTrim ours{true, "gpupool-", {}, {}, {}, {}};
  EXPECT_EQ(to_json(decode_object(R"({"metadata":{"name":"a"}})", ours).doc), R"({"metadata":{"name":"a"}})");
  EXPECT_EQ(to_json(decode_object(R"({"metadata":{"name":"a","managedFields":"x"}})", ours).doc), R"({"metadata":{"name":"a"}})");
  EXPECT_EQ(to_json(decode_object(R"({"metadata":{"name":"a","managedFields":null}})", DecodeTrim{true, "", {}, {}, {}, {}}).doc),
            R"({"metadata":{"name":"a"}})");
  EXPECT_THROW(decode_object(R"({"metadata":{"managedFields":[]}})", ours), DecodeError);
}

TEST(DecodeObject, TrimsTheStatusMembersAsked) {
  const char* node = R"({"metadata":{"name":"n1"},"status":{"images":[{"names":["registry.example.com/a:1"]}],
      "nodeInfo":{"kubeletVersion":"v1.37.2"},"conditions":[{"type":"Ready","status":"True"}],
      "allocatable":{"nvidia.com/gpu":"8"}}})";
  DecodeTrim trim;
  trim.status_members = {"images", "nodeInfo", "daemonEndpoints"};
  const Object o = decode_object(node, trim);
  EXPECT_EQ(to_json(*member(o.doc, "status")),
            R"({"conditions":[{"type":"Ready","status":"True"}],"allocatable":{"nvidia.com/gpu":"8"}})");
  EXPECT_EQ(o.allocator->Size(), o.allocator->Capacity()) << "the block is the trimmed copy's size";
  EXPECT_LT(o.allocator->Size(), decode_object(node).allocator->Size());
  // No status, or not an object: nothing to trim.
  EXPECT_EQ(to_json(decode_object(R"({"metadata":{"name":"a"}})", trim).doc), R"({"metadata":{"name":"a"}})");
  EXPECT_EQ(to_json(decode_object(R"({"metadata":{"name":"a"},"status":"x"})", trim).doc),
            R"({"metadata":{"name":"a"},"status":"x"})");
}

TEST(DecodeObject, KeepsTheConditionMembersAsked) {
  const char* node = R"({"metadata":{"name":"n1"},"status":{"conditions":[
      {"type":"Ready","status":"True","lastHeartbeatTime":"2026-11-27T09:22:08Z","reason":"KubeletReady","message":"kubelet is posting ready status"},
      {"type":"MemoryPressure","status":"False","reason":"KubeletHasSufficientMemory"},
      "odd",{}],"capacity":{"cpu":"64"}}})";
  DecodeTrim trim;
  trim.condition_members = {"type", "status"};
  const Object o = decode_object(node, trim);
  EXPECT_EQ(to_json(*member(o.doc, "status")),
            R"({"conditions":[{"type":"Ready","status":"True"},{"type":"MemoryPressure","status":"False"},"odd",{}],)"
            R"("capacity":{"cpu":"64"}})");
  EXPECT_EQ(o.allocator->Size(), o.allocator->Capacity()) << "the block is the trimmed copy's size";
  // Not asked (the default): all kept; conditions absent or not an array: nothing to trim.
  EXPECT_EQ(to_json(*member(decode_object(node).doc, "status")), to_json(*member(decode_object(node, DecodeTrim{}).doc, "status")));
  EXPECT_EQ(to_json(decode_object(R"({"metadata":{"name":"a"},"status":{"conditions":"x"}})", trim).doc),
            R"({"metadata":{"name":"a"},"status":{"conditions":"x"}})");
  EXPECT_EQ(to_json(decode_object(R"({"metadata":{"name":"a"},"status":{}})", trim).doc), R"({"metadata":{"name":"a"},"status":{}})");
}

TEST(DecodeObject, DropsThePathsAsked) {
  const char* gpunode = R"({"metadata":{"name":"n1"},"status":{"gpus":[
      {"index":0,"uuid":"GPU-1","partition":{"instances":[{"profile":"1g.10gb","uuid":"MIG-1","placement":0},{"profile":"2g.20gb"}]}},
      {"index":1,"partition":{"instances":"odd"}},"odd",
      {"index":2,"uuid":"GPU-3"}],"cudaVersion":"13.0"}})";
  DecodeTrim trim;
  trim.drop_paths = {{"status", "gpus", "*", "uuid"},
                     {"status", "gpus", "*", "partition", "instances", "*", "uuid"},
                     {"status", "gpus", "*", "partition", "instances", "*", "placement"},
                     {"status", "cudaVersion"},
                     {"spec", "absent"},
                     {"status", "gpus", "*"}};  // "*" last: takes nothing out
  const Object o = decode_object(gpunode, trim);
  EXPECT_EQ(to_json(*member(o.doc, "status")),
            R"({"gpus":[{"index":0,"partition":{"instances":[{"profile":"1g.10gb"},{"profile":"2g.20gb"}]}},)"
            R"({"index":1,"partition":{"instances":"odd"}},"odd",{"index":2}]})");
  EXPECT_EQ(o.allocator->Size(), o.allocator->Capacity()) << "the block is the trimmed copy's size";
  EXPECT_LT(o.allocator->Size(), decode_object(gpunode).allocator->Size());
  // Nothing there to drop: the object as it came.
  EXPECT_EQ(to_json(decode_object(R"({"metadata":{"name":"a"},"status":{"gpus":{"uuid":"x"}}})", trim).doc),
            R"({"metadata":{"name":"a"},"status":{"gpus":{"uuid":"x"}}})");
}

TEST(DecodeObject, SurvivesMovesWithItsAllocator) {
  Object a = decode_object(kNode);
  Object b = std::move(a);
  Object c = decode_object(R"({"metadata":{"name":"other"}})");
  c = std::move(b);
  EXPECT_EQ(c.name, "n1");
  EXPECT_EQ(string_at(c.doc, {"metadata", "labels", "gpupool.io/pool"}), "a");
  c = decode_object(R"({"metadata":{"name":"third","namespace":"ns"}})");
  EXPECT_EQ(string_at(c.doc, {"metadata", "namespace"}), "ns");
}

TEST(DecodeObject, RefusesWhatIsNoObject) {
  EXPECT_THROW(decode_object("[1,2]"), DecodeError);
  EXPECT_THROW(decode_object(R"({"kind":"Node"})"), DecodeError);
  EXPECT_THROW(decode_object(R"({"metadata":{"namespace":"x"}})"), DecodeError);
  EXPECT_THROW(decode_object("{"), DecodeError);
}

}  // namespace
}  // namespace gpupool::kube
