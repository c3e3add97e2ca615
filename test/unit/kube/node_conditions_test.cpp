// node_ready (include/gpupool/kube/node_conditions.h), as a table.
#include "gpupool/kube/node_conditions.h"

#include <gtest/gtest.h>

#include "gpupool/kube/client.h"

namespace gpupool::kube {
namespace {

TEST(NodeConditions, NodeReady) {
  const std::pair<const char*, bool> cases[] = {
      {R"({"status":{"conditions":[{"type":"MemoryPressure","status":"False"},{"type":"Ready","status":"True"}]}})", true},
      {R"({"status":{"conditions":[{"type":"Ready","status":"Unknown","reason":"NodeStatusUnknown"}]}})", false},
      {R"({"status":{"conditions":[{"type":"Ready","status":"False"}]}})", false},
      {R"({"status":{"conditions":[{"type":"DiskPressure","status":"True"}]}})", false},  // no Ready condition
      {R"({"status":{"conditions":{}}})", false},
      {R"({"metadata":{"name":"n"}})", false},
  };
  for (const auto& [json, want] : cases) {
    SCOPED_TRACE(json);
    EXPECT_EQ(node_ready(parse_json(json)), want);
  }
}

}  // namespace
}  // namespace gpupool::kube
