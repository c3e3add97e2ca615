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

TEST(MembersDifferExcept, IgnoresTheSkippedMembersOnly) {
  struct Case {
    const char* name;
    const char* a;  // the status, or "" for none
    const char* b;
    bool differs;
  };
  const Case cases[] = {
      {"only usage changed", R"({"granted":{"g":"1"},"used":{"g":"1"}})", R"({"granted":{"g":"1"},"used":{"g":"2"}})", false},
      {"usage added", R"({"granted":{"g":"1"}})", R"({"granted":{"g":"1"},"waiting":{"g":"1"},"borrowed":{}})", false},
      {"the grant changed too", R"({"granted":{"g":"1"},"used":{"g":"1"}})", R"({"granted":{"g":"2"},"used":{"g":"2"}})", true},
      {"a member added", R"({"used":{}})", R"({"used":{},"phase":"Granted"})", true},
      {"a member removed", R"({"phase":"Granted"})", R"({})", true},
      {"members in another order", R"({"phase":"Granted","used":{}})", R"({"used":{"g":"3"},"phase":"Granted"})", false},
      {"null is absent", R"({"phase":null})", R"({})", false},
      {"no status and usage only", "", R"({"used":{"g":"1"}})", false},
      {"no status and a grant", "", R"({"granted":{}})", true},
      {"not an object", "3", R"({})", false},
  };
  for (const auto& c : cases) {
    const auto a = doc(c.a), b = doc(c.b);
    const rapidjson::Value* pa = *c.a ? &a : nullptr;
    const rapidjson::Value* pb = *c.b ? &b : nullptr;
    EXPECT_EQ(members_differ_except(pa, pb, {"used", "waiting", "borrowed"}), c.differs) << c.name;
    EXPECT_EQ(members_differ_except(pb, pa, {"used", "waiting", "borrowed"}), c.differs) << c.name << " (reversed)";
  }
}

}  // namespace
}  // namespace gpupool::kube
