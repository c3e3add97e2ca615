// selector_matches: apimachinery's semantics, a table.
#include <gtest/gtest.h>

#include "gpupool/api/label_selector.h"

namespace gpupool::api {
namespace {

LabelSelectorRequirement req(const std::string& key, SelectorOperator op, std::vector<std::string> values = {}) {
  LabelSelectorRequirement r;
  r.key = key;
  r.op = op;
  r.values = std::move(values);
  return r;
}

TEST(SelectorMatches, Table) {
  const std::map<std::string, std::string> node{{"gpupool.io/gpu-model", "a100-sxm4-80gb"}, {"zone", "a"}, {"empty", ""}};
  struct Case {
    std::string name;
    LabelSelector selector;
    bool matches;
  };
  const std::vector<Case> cases = {
      {"empty selects everything", {}, true},
      {"matchLabels equal", {{{"zone", "a"}}, {}}, true},
      {"matchLabels other value", {{{"zone", "b"}}, {}}, false},
      {"matchLabels absent key", {{{"rack", "1"}}, {}}, false},
      {"matchLabels empty value present", {{{"empty", ""}}, {}}, true},
      {"In listed", {{}, {req("zone", SelectorOperator::in, {"b", "a"})}}, true},
      {"In not listed", {{}, {req("zone", SelectorOperator::in, {"b"})}}, false},
      {"In absent key", {{}, {req("rack", SelectorOperator::in, {"1"})}}, false},
      {"NotIn absent key", {{}, {req("rack", SelectorOperator::not_in, {"1"})}}, true},
      {"NotIn listed", {{}, {req("zone", SelectorOperator::not_in, {"a"})}}, false},
      {"NotIn not listed", {{}, {req("zone", SelectorOperator::not_in, {"b"})}}, true},
      {"Exists", {{}, {req("empty", SelectorOperator::exists)}}, true},
      {"Exists absent", {{}, {req("rack", SelectorOperator::exists)}}, false},
      {"DoesNotExist absent", {{}, {req("rack", SelectorOperator::does_not_exist)}}, true},
      {"DoesNotExist present", {{}, {req("zone", SelectorOperator::does_not_exist)}}, false},
      {"both parts must hold", {{{"zone", "a"}}, {req("gpupool.io/gpu-model", SelectorOperator::in, {"h100-sxm5-80gb"})}}, false},
  };
  for (const auto& c : cases) EXPECT_EQ(selector_matches(c.selector, node), c.matches) << c.name;
}

}  // namespace
}  // namespace gpupool::api
