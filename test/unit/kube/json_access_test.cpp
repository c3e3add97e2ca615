#include "gpupool/kube/json_access.h"

#include <gtest/gtest.h>

namespace gpupool::kube {
namespace {

rapidjson::Document doc(const char* json) {
  rapidjson::Document d;
  d.Parse(json);
  return d;
}

TEST(DiffersAt, ComparesTheValuesAtAPathDeeply) {
  struct Case {
    const char* name;
    const char* a;
    const char* b;
    bool differs;
  };
  const Case cases[] = {
      {"same labels", R"({"metadata":{"labels":{"a":"1","b":"2"}}})", R"({"metadata":{"labels":{"a":"1","b":"2"}}})", false},
      {"members in another order", R"({"metadata":{"labels":{"a":"1","b":"2"}}})",
       R"({"metadata":{"labels":{"b":"2","a":"1"}}})", false},
      {"a value changed", R"({"metadata":{"labels":{"a":"1"}}})", R"({"metadata":{"labels":{"a":"2"}}})", true},
      {"a member added", R"({"metadata":{"labels":{"a":"1"}}})", R"({"metadata":{"labels":{"a":"1","b":"2"}}})", true},
      {"both absent", R"({"metadata":{}})", R"({})", false},
      {"absent and null", R"({"metadata":{"labels":null}})", R"({"metadata":{}})", false},
      {"absent and empty", R"({"metadata":{}})", R"({"metadata":{"labels":{}}})", true},
      {"elsewhere changed", R"({"metadata":{"labels":{"a":"1"},"resourceVersion":"1"}})",
       R"({"metadata":{"labels":{"a":"1"},"resourceVersion":"2"}})", false},
      {"array order matters", R"({"metadata":{"labels":[1,2]}})", R"({"metadata":{"labels":[2,1]}})", true},
      {"type changed", R"({"metadata":{"labels":"1"}})", R"({"metadata":{"labels":1}})", true},
      {"parent not an object", R"({"metadata":3})", R"({"metadata":{}})", false},
  };
  for (const auto& c : cases) {
    const auto a = doc(c.a), b = doc(c.b);
    EXPECT_EQ(differs_at(a, b, {"metadata", "labels"}), c.differs) << c.name;
    EXPECT_EQ(differs_at(b, a, {"metadata", "labels"}), c.differs) << c.name << " (reversed)";
  }
}

TEST(DiffersAt, AnEmptyPathComparesTheWholeObjects) {
  EXPECT_FALSE(differs_at(doc(R"({"x":1})"), doc(R"({"x":1})"), {}));
  EXPECT_TRUE(differs_at(doc(R"({"x":1})"), doc(R"({"x":2})"), {}));
}

}  // namespace
}  // namespace gpupool::kube
