// The test's PromQL reader (promql_names.h): what it takes for metric names,
// matcher labels, grouping labels and functions.
#include "promql_names.h"

#include <gtest/gtest.h>

namespace gpupool::monitoring::testing {
namespace {

std::vector<std::string> metrics_of(const PromqlNames& n) {
  std::vector<std::string> out;
  for (const auto& s : n.selectors) out.push_back(s.metric);
  return out;
}

TEST(PromqlNames, SelectorsFunctionsAndGroupingLabels) {
  const auto n = read_promql(R"(sum by (namespace) (max by (namespace, node) (
      rate(gpupool_gpu_energy_joules_total{pool="$pool", node=~"$node"}[$__rate_interval])))
    / on (namespace) group_left (tenant) max without (instance) (x:recorded{a!~"b", c!="d"} offset 5m)
    > bool 0.5 unless ({__name__="up", job="j"}) # a comment naming not_a_metric
    or vector(1) and topk(3, m2[1h:5m]) @ end())");
  EXPECT_TRUE(n.errors.empty()) << n.errors.front();
  EXPECT_EQ(metrics_of(n), (std::vector<std::string>{"gpupool_gpu_energy_joules_total", "x:recorded", "up", "m2"}));
  EXPECT_EQ(n.selectors[0].labels, (std::vector<std::string>{"pool", "node"}));
  EXPECT_EQ(n.selectors[1].labels, (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(n.selectors[2].labels, (std::vector<std::string>{"job"}));
  EXPECT_EQ(n.grouping_labels, (std::set<std::string>{"namespace", "node", "tenant", "instance"}));
  EXPECT_EQ(n.functions, (std::set<std::string>{"sum", "max", "rate", "vector", "topk", "end"}));
}

TEST(PromqlNames, NumbersDurationsAndStringsAreNoNames) {
  const auto n = read_promql(R"q(label_replace(m, "dst", "$1", "src", "(.*)") * 1e6 + 0x1F - .5 > Inf)q");
  EXPECT_EQ(metrics_of(n), std::vector<std::string>{"m"});
  EXPECT_TRUE(n.errors.empty());
}

TEST(PromqlNames, ReportsWhatItCannotRead) {
  EXPECT_EQ(read_promql("nosuchfunction(m)").errors, std::vector<std::string>{"unknown function nosuchfunction()"});
  EXPECT_EQ(read_promql(R"(m{a="b")").errors, std::vector<std::string>{"unterminated {"});
  EXPECT_EQ(read_promql("sum(m").errors, std::vector<std::string>{"unbalanced parentheses"});
  EXPECT_EQ(read_promql(R"(m{a=b})").errors, std::vector<std::string>{"cannot read the matcher at token 'a'"});
}

TEST(PromqlNames, UnknownNamesAgainstACatalog) {
  const Catalog c = {{"m", {"a", "b"}}, {"n", {"c"}}};
  EXPECT_TRUE(unknown_names(R"(sum by (a, c) (m{b="1"} * on (c) group_left n))", c, "{{a}} {{ c }}").empty());
  EXPECT_EQ(unknown_names(R"(sum by (z) (m{y="1"}))", c, "{{x}}"),
            (std::vector<std::string>{"label y is not a label of m",
                                      "label z (by/on/...) is no label of the expression's metrics",
                                      "legend label x is no label of the expression's metrics"}));
  EXPECT_EQ(unknown_names("o + {a=\"b\"}", c),
            (std::vector<std::string>{"unknown metric o", "a selector without a metric name"}));
}

}  // namespace
}  // namespace gpupool::monitoring::testing
