// decode_object: the metadata it extracts, its errors, and the size of what
// a store keeps per object.
#include "gpupool/kube/object.h"

#include <gtest/gtest.h>

#include "gpupool/kube/errors.h"
#include "gpupool/kube/client.h"

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
