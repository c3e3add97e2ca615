// gpunode_state (lib/pool_controller/object_facts.h): what the pool
// reconciler reads of a GPUNode's status, as a table.
#include "object_facts.h"

#include <gtest/gtest.h>

#include "gpupool/api/codec.h"
#include "gpupool/kube/client.h"

namespace gpupool::pool_controller {
namespace {

// Generation 3; `settled`: the gpupool.io/settled-generation annotation.
api::GPUNode gpunode(const std::string& status, const std::string& settled = "", bool allowed = false) {
  const std::string annotations =
      settled.empty() ? "" : R"(,"annotations":{"gpupool.io/settled-generation":")" + settled + R"("})";
  const std::string json = R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUNode","metadata":{"name":"n","generation":3)" +
                           annotations + R"(},"spec":{"nodeName":"n","disruptionAllowed":)" + (allowed ? "true" : "false") +
                           R"(},"status":)" + status + "}";
  auto d = api::decode_gpunode(kube::parse_json(json));
  EXPECT_TRUE(d.ok()) << json;
  return *d.value;
}

std::string ready(const char* type, int generation) {
  return std::string(R"({"type":")") + type + R"(","status":"True","observedGeneration":)" + std::to_string(generation) +
         R"(,"lastTransitionTime":"2026-11-28T10:00:00Z","reason":"X","message":""})";
}
std::string op(const char* type, const char* phase, int generation) {
  return std::string(R"({"type":")") + type + R"(","phase":")" + phase + R"(","observedGeneration":)" +
         std::to_string(generation) + "}";
}

TEST(GpuNodeState, Table) {
  const std::string done = R"({"observedGeneration":3,"conditions":[)" + ready("DriverReady", 3) + "," +
                           ready("PartitionReady", 3) + "]";
  struct Row {
    std::string name, status;
    bool observed, up_to_date, failed, drain_held;
  };
  const std::vector<Row> rows = {
      {"up to date, the drain over", done + R"(,"operations":[)" + op("Drain", "Succeeded", 3) + "]}", true, true, false,
       false},
      {"up to date, its agent still holding the cordon", done + R"(,"operations":[)" + op("Drain", "InProgress", 3) + "]}",
       true, true, false, true},
      {"a drain of an older generation still held", done + R"(,"operations":[)" + op("Drain", "InProgress", 2) + "]}", true,
       true, false, true},
      {"another operation in progress holds nothing", done + R"(,"operations":[)" + op("Driver", "InProgress", 3) + "]}",
       true, true, false, false},
      {"a failed operation of this generation", done + R"(,"operations":[)" + op("Driver", "Failed", 3) + "]}", true, false,
       true, false},
      {"an older report", R"({"observedGeneration":2,"conditions":[)" + ready("DriverReady", 2) + "]}", false, false, false,
       false},
  };
  for (const auto& r : rows) {
    const auto s = gpunode_state(gpunode(r.status));
    EXPECT_EQ(s.observed, r.observed) << r.name;
    EXPECT_EQ(s.up_to_date, r.up_to_date) << r.name;
    EXPECT_EQ(s.failed, r.failed) << r.name;
    EXPECT_EQ(s.drain_held, r.drain_held) << r.name;
  }
}

// After the controller withdraws a done node's permission (generation 2 to
// 3, annotated 2), the agent's report of 2 still holds until it reports 3:
// the pool does not go back to waiting on it.
TEST(GpuNodeState, SettledGenerationTable) {
  const std::string done2 = R"({"observedGeneration":2,"conditions":[)" + ready("DriverReady", 2) + "," +
                            ready("PartitionReady", 2) + "]";
  struct Row {
    std::string name, status, settled;
    bool allowed, observed, up_to_date, failed;
  };
  const std::vector<Row> rows = {
      {"withdrawn from a done node: its report holds", done2 + "}", "2", false, true, true, false},
      {"no annotation: an older report", done2 + "}", "", false, false, false, false},
      {"annotated an older generation (a spec written since)", done2 + "}", "1", false, false, false, false},
      {"granted again since", done2 + "}", "2", true, false, false, false},
      {"the report is of another generation", R"({"observedGeneration":1,"conditions":[)" + ready("DriverReady", 1) + "," +
                                                  ready("PartitionReady", 1) + "]}",
       "2", false, false, false, false},
      {"the settled report's conditions not True", R"({"observedGeneration":2,"conditions":[)" + ready("DriverReady", 2) + "]}",
       "2", false, true, false, false},
      {"not a number", done2 + "}", "2x", false, false, false, false},
      {"a failed operation of the settled generation", done2 + R"(,"operations":[)" + op("Driver", "Failed", 2) + "]}", "2",
       false, true, false, true},
      {"the agent caught up: its own report counts", R"({"observedGeneration":3,"conditions":[)" + ready("DriverReady", 3) +
                                                         "," + ready("PartitionReady", 3) + "]}",
       "2", false, true, true, false},
  };
  for (const auto& r : rows) {
    const auto s = gpunode_state(gpunode(r.status, r.settled, r.allowed));
    EXPECT_EQ(s.observed, r.observed) << r.name;
    EXPECT_EQ(s.up_to_date, r.up_to_date) << r.name;
    EXPECT_EQ(s.failed, r.failed) << r.name;
  }
}

// A new spec written over a granted one (generation 2 held the permission,
// annotated 2): the agent may act on 2 until it reports a later generation.
TEST(GpuNodeState, WithdrawnGenerationTable) {
  auto with = [](const std::string& status, const std::string& withdrawn) {
    const std::string json =
        R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUNode","metadata":{"name":"n","generation":3,"annotations":{"gpupool.io/withdrawn-generation":")" +
        withdrawn + R"("}},"spec":{"nodeName":"n"})" + (status.empty() ? "" : R"(,"status":)" + status) + "}";
    auto d = api::decode_gpunode(kube::parse_json(json));
    EXPECT_TRUE(d.ok()) << json;
    return *d.value;
  };
  struct Row {
    std::string name, status, withdrawn;
    bool unseen;
  };
  const std::vector<Row> rows = {
      {"the agent last reported the generation that held it", R"({"observedGeneration":2})", "2", true},
      {"an older report", R"({"observedGeneration":1})", "2", true},
      {"no report at all", "", "2", true},
      {"the agent reported the new spec", R"({"observedGeneration":3})", "2", false},
      {"not a number: ignored", R"({"observedGeneration":2})", "two", false},
  };
  for (const auto& r : rows) EXPECT_EQ(gpunode_state(with(r.status, r.withdrawn)).withdrawal_unseen, r.unseen) << r.name;
  EXPECT_FALSE(gpunode_state(gpunode(R"({"observedGeneration":2})")).withdrawal_unseen) << "no annotation";
}

}  // namespace
}  // namespace gpupool::pool_controller
