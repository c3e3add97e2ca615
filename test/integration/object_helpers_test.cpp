// Reconcile helpers against a real kube-apiserver: status writes that lose a
// race are retried, finalizers hold deletion, owned objects are collected with
// their owner.
#include "gpupool/runtime/object_helpers.h"

#include <gtest/gtest.h>

#include "support/cluster_fixture.h"
#include "support/kube_test_helpers.h"

namespace gpupool::runtime {
namespace {

using namespace std::chrono_literals;

class ObjectHelpersTest : public test::ClusterTest {
 protected:
  void SetUp() override {
    ClusterTest::SetUp();
    client_ = std::make_unique<kube::Client>(test::rest_config(cluster(), cluster().admin_token()));
    test::install_widget_crd(*client_);
  }
  kube::ResourceRef widgets() const { return {{"test.gpupool.io", "v1", "widgets"}, ns(), "", ""}; }
  void create_widget(const std::string& name) {
    client_->create(widgets(), R"({"apiVersion":"test.gpupool.io/v1","kind":"Widget","metadata":{"name":")" + name +
                                   R"("},"spec":{"size":1}})");
  }
  bool gone(const kube::ResourceRef& ref) {
    try {
      client_->get(ref);
      return false;
    } catch (const kube::ApiError& e) {
      return e.is_not_found();
    }
  }
  std::unique_ptr<kube::Client> client_;
};

TEST_F(ObjectHelpersTest, UpdateStatusRetriesAfterLosingARace) {
  create_widget("w");
  int calls = 0;
  auto result = update_status(*client_, widgets().with_name("w"), [&](rapidjson::Document& doc) {
    if (++calls == 1) {
      // Someone else writes between our read and our write.
      client_->patch(widgets().with_name("w"), kube::PatchType::MergePatch, R"({"spec":{"size":2}})");
    }
    rapidjson::Value status(rapidjson::kObjectType);
    status.AddMember("phase", "Ready", doc.GetAllocator());
    if (doc.HasMember("status")) doc.RemoveMember("status");
    doc.AddMember("status", status, doc.GetAllocator());
    return true;
  });
  EXPECT_EQ(calls, 2) << "the conflicting write forces one fresh read";
  EXPECT_EQ(kube::string_at(result, {"status", "phase"}), "Ready");
  auto now = client_->get(widgets().with_name("w"));
  EXPECT_EQ(now["spec"]["size"].GetInt(), 2) << "the other writer's change is kept";
  EXPECT_EQ(kube::string_at(now, {"status", "phase"}), "Ready");

  int untouched = 0;
  update_status(*client_, widgets().with_name("w"), [&](rapidjson::Document&) {
    ++untouched;
    return false;
  });
  EXPECT_EQ(untouched, 1);
  EXPECT_EQ(client_->get(widgets().with_name("w"))["metadata"]["resourceVersion"],
            now["metadata"]["resourceVersion"]) << "nothing written when mutate declines";
}

TEST_F(ObjectHelpersTest, UpdateStatusFromACachedCopyWritesAtOnceAndReadsAfreshWhenItWasStale) {
  create_widget("c");
  const auto current = client_->get(widgets().with_name("c"));
  auto set_phase = [&](std::vector<std::string>* seen_sizes) {
    return [&, seen_sizes](rapidjson::Document& doc) {
      seen_sizes->push_back(std::to_string(doc["spec"]["size"].GetInt()));
      rapidjson::Value status(rapidjson::kObjectType);
      status.AddMember("phase", "Ready", doc.GetAllocator());
      doc.RemoveMember("status");
      doc.AddMember("status", status, doc.GetAllocator());
      return true;
    };
  };
  // Current cache: one write from it, no read in between.
  std::vector<std::string> sizes;
  auto written = update_status(*client_, widgets().with_name("c"), current, set_phase(&sizes));
  EXPECT_EQ(sizes, (std::vector<std::string>{"1"}));
  EXPECT_EQ(kube::string_at(written, {"status", "phase"}), "Ready");

  // A stale cache (the object changed since): the conflict reads it afresh; the other writer's change stays.
  client_->patch(widgets().with_name("c"), kube::PatchType::MergePatch, R"({"spec":{"size":3}})");
  sizes.clear();
  written = update_status(*client_, widgets().with_name("c"), current, set_phase(&sizes));
  EXPECT_EQ(sizes, (std::vector<std::string>{"1", "3"})) << "the cached copy first, then the fresh read";
  auto now = client_->get(widgets().with_name("c"));
  EXPECT_EQ(now["spec"]["size"].GetInt(), 3);
  EXPECT_EQ(kube::string_at(now, {"status", "phase"}), "Ready");
}

TEST_F(ObjectHelpersTest, FinalizerHoldsDeletionUntilRemoved) {
  create_widget("held");
  const std::string fin = "gpupool.io/cleanup";
  EXPECT_TRUE(add_finalizer(*client_, widgets().with_name("held"), fin));
  EXPECT_FALSE(add_finalizer(*client_, widgets().with_name("held"), fin)) << "adding twice is a no-op";
  EXPECT_TRUE(has_finalizer(client_->get(widgets().with_name("held")), fin));

  client_->remove(widgets().with_name("held"));
  auto deleting = client_->get(widgets().with_name("held"));
  EXPECT_TRUE(deleting["metadata"].HasMember("deletionTimestamp")) << "the finalizer keeps the object";

  EXPECT_TRUE(remove_finalizer(*client_, widgets().with_name("held"), fin));
  test::wait_for(30s, [&] { return gone(widgets().with_name("held")); }, "object deleted once its finalizer is removed");
  EXPECT_FALSE(remove_finalizer(*client_, widgets().with_name("held"), fin)) << "removing from a gone object is a no-op";
}

// The owner is a core kind: kube-controller-manager's garbage collector starts
// watching a freshly installed CRD's kind only at its next discovery resync
// (about 30 s), which would only slow this test down.
TEST_F(ObjectHelpersTest, OwnedObjectsAreAppliedAndCollectedWithTheirOwner) {
  kube::ResourceRef cms{kube::core::configmaps(), ns(), "", ""};
  client_->create(cms, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"owner"}})");
  kube::Object owner = kube::decode_object(kube::to_json(client_->get(cms.with_name("owner"))));
  auto desired = kube::parse_json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"owned"},"data":{"k":"v"}})");
  auto applied = apply_owned(*client_, cms.with_name("owned"), std::move(desired), owner, "v1", "ConfigMap",
                             "gpupool-controller");
  ASSERT_TRUE(applied["metadata"]["ownerReferences"].IsArray());
  EXPECT_EQ(kube::string_at(applied["metadata"]["ownerReferences"][0], {"uid"}), owner.uid);
  EXPECT_TRUE(applied["metadata"]["ownerReferences"][0]["controller"].GetBool());

  // Applying again with a change is idempotent and takes over the field.
  auto again = apply_owned(*client_, cms.with_name("owned"),
                           kube::parse_json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"owned"},"data":{"k":"v2"}})"),
                           owner, "v1", "ConfigMap", "gpupool-controller");
  EXPECT_EQ(kube::string_at(again, {"data", "k"}), "v2");

  client_->remove(cms.with_name("owner"));
  test::wait_for(60s, [&] { return gone(cms.with_name("owned")); }, "garbage collection of the owned ConfigMap");
}

}  // namespace
}  // namespace gpupool::runtime
