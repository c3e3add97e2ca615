#include "gpupool/node/disruption_permission.h"

#include <gtest/gtest.h>

#include <string>

namespace gpupool::node {
namespace {

TEST(DisruptionPermission, Table) {
  struct Row {
    const char* what;
    std::string fresh;
    std::int64_t planned;
    PermissionCheck want;
  };
  const Row rows[] = {
      {"still granted at the planned generation", R"({"metadata":{"generation":4},"spec":{"disruptionAllowed":true}})", 4,
       PermissionCheck::holds},
      {"withdrawn since (a new spec, permission false)",
       R"({"metadata":{"generation":5},"spec":{"disruptionAllowed":false}})", 4, PermissionCheck::withdrawn},
      {"withdrawn, no field at all", R"({"metadata":{"generation":5},"spec":{}})", 4, PermissionCheck::withdrawn},
      {"allowed, but the spec moved on", R"({"metadata":{"generation":6},"spec":{"disruptionAllowed":true}})", 4,
       PermissionCheck::newer_spec},
      {"false at the planned generation", R"({"metadata":{"generation":4},"spec":{"disruptionAllowed":false}})", 4,
       PermissionCheck::withdrawn},
      {"not a boolean", R"({"metadata":{"generation":4},"spec":{"disruptionAllowed":"true"}})", 4,
       PermissionCheck::withdrawn},
      {"no generation", R"({"metadata":{},"spec":{"disruptionAllowed":true}})", 4, PermissionCheck::withdrawn},
      {"no spec", R"({"metadata":{"generation":4}})", 4, PermissionCheck::withdrawn},
      {"not an object", R"([1,2])", 4, PermissionCheck::withdrawn},
  };
  for (const auto& r : rows) {
    rapidjson::Document d;
    d.Parse(r.fresh.c_str());
    ASSERT_FALSE(d.HasParseError()) << r.what;
    EXPECT_EQ(check_permission(d, r.planned), r.want) << r.what;
  }
}

}  // namespace
}  // namespace gpupool::node
