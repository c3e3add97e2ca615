#include "gpupool/metrics/registry.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>

namespace gpupool::metrics {
namespace {

std::string message_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no std::invalid_argument)";
}

TEST(MetricRegistry, SameShapeReturnsTheExistingFamily) {
  Registry registry;
  auto& a = registry.counter("reconcile_total", "first help", {"controller", "result"});
  auto& b = registry.counter("reconcile_total", "other help", {"controller", "result"});
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(b.help(), "first help");
  a.with({"pools", "success"}).inc();
  EXPECT_EQ(b.with({"pools", "success"}).value(), 1);

  auto& h1 = registry.histogram("t_seconds", "h", {"c"}, {1, 2});
  auto& h2 = registry.histogram("t_seconds", "h", {"c"}, {1, 2, INFINITY});  // +Inf is implied either way
  EXPECT_EQ(&h1, &h2);
  EXPECT_EQ(&registry.gauge("g", "h"), &registry.gauge("g", "h"));
  EXPECT_EQ(&registry.gauge_function_family("f", "h", {"x"}), &registry.gauge_function_family("f", "h", {"x"}));
}

TEST(MetricRegistry, DifferentKindThrowsNamingTheMetric) {
  Registry registry;
  registry.counter("things_total", "h", {"kind"});
  const auto message = message_of([&] { registry.gauge("things_total", "h", {"kind"}); });
  EXPECT_NE(message.find("things_total"), std::string::npos) << message;
  EXPECT_NE(message.find("counter"), std::string::npos) << message;
  EXPECT_NE(message.find("gauge"), std::string::npos) << message;
  EXPECT_NE(message_of([&] { registry.histogram("things_total", "h", {"kind"}); }).find("things_total"),
            std::string::npos);
  registry.gauge("level", "h");
  EXPECT_NE(message_of([&] { registry.gauge_function("level", "h", [] { return 1.0; }); }).find("level"),
            std::string::npos);
}

TEST(MetricRegistry, DifferentLabelsThrowNamingTheMetric) {
  Registry registry;
  registry.counter("things_total", "h", {"a", "b"});
  for (const std::vector<std::string>& labels :
       {std::vector<std::string>{}, {"a"}, {"b", "a"}, {"a", "b", "c"}, {"a", "c"}}) {
    const auto message = message_of([&] { registry.counter("things_total", "h", labels); });
    EXPECT_NE(message.find("things_total"), std::string::npos) << message;
  }
}

TEST(MetricRegistry, DifferentBucketsThrow) {
  Registry registry;
  registry.histogram("t_seconds", "h", {}, {1, 2});
  const auto message = message_of([&] { registry.histogram("t_seconds", "h", {}, {1, 3}); });
  EXPECT_NE(message.find("t_seconds"), std::string::npos) << message;
  EXPECT_NE(message.find("buckets"), std::string::npos) << message;
}

TEST(MetricRegistry, SampleNamesMayNotClash) {
  Registry registry;
  registry.histogram("latency_seconds", "h");
  EXPECT_NE(message_of([&] { registry.gauge("latency_seconds_count", "h"); }).find("latency_seconds_count"),
            std::string::npos);
  EXPECT_NE(message_of([&] { registry.counter("latency_seconds_sum", "h"); }).find("latency_seconds"),
            std::string::npos);
  registry.gauge("size_bucket", "h");
  EXPECT_NE(message_of([&] { registry.histogram("size", "h"); }).find("size_bucket"), std::string::npos);
  EXPECT_NO_THROW(registry.gauge("latency", "h"));  // no sample of its name
}

TEST(MetricRegistry, UnlabelledFamiliesExistFromTheStart) {
  Registry registry;
  registry.counter("c_total", "h");
  registry.gauge("g", "h");
  registry.histogram("h_seconds", "h", {}, {1});
  registry.counter("labelled_total", "h", {"x"});
  const auto families = registry.collect();
  ASSERT_EQ(families.size(), 4u);
  EXPECT_EQ(families[0].name, "c_total");
  EXPECT_EQ(families[0].children.size(), 1u);
  EXPECT_EQ(families[1].name, "g");
  EXPECT_EQ(families[1].children.size(), 1u);
  EXPECT_EQ(families[2].name, "h_seconds");
  EXPECT_EQ(families[2].children.size(), 1u);
  EXPECT_EQ(families[3].name, "labelled_total");
  EXPECT_TRUE(families[3].children.empty());
}

TEST(MetricRegistry, ChildrenAreStableAndSorted) {
  Registry registry;
  auto& family = registry.gauge("g", "h", {"a", "b"});
  Gauge& first = family.with({"z", "1"});
  family.with({"a", "2"});
  family.with({"a", "10"});
  EXPECT_EQ(&first, &family.with({"z", "1"}));
  const auto snapshot = family.collect();
  ASSERT_EQ(snapshot.children.size(), 3u);
  EXPECT_EQ(snapshot.children[0].label_values, (std::vector<std::string>{"a", "10"}));
  EXPECT_EQ(snapshot.children[1].label_values, (std::vector<std::string>{"a", "2"}));
  EXPECT_EQ(snapshot.children[2].label_values, (std::vector<std::string>{"z", "1"}));
}

TEST(MetricRegistry, CounterRejectsDecrease) {
  Registry registry;
  auto& counter = registry.counter("c_total", "h").with({});
  EXPECT_THROW(counter.inc(-1), std::invalid_argument);
  EXPECT_THROW(counter.inc(std::nan("")), std::invalid_argument);
  counter.inc(0.5);
  counter.inc();
  EXPECT_EQ(counter.value(), 1.5);
}

TEST(MetricRegistry, GaugeFunctionsAreReadAtScrapeTime) {
  Registry registry;
  double level = 3;
  registry.gauge_function("level", "h", [&level] { return level; });
  EXPECT_EQ(registry.collect().at(0).children.at(0).value, 3);
  level = 4;
  EXPECT_EQ(registry.collect().at(0).children.at(0).value, 4);

  auto& family = registry.gauge_function_family("per_pool", "h", {"pool"});
  family.with({"unset"});  // no function yet: left out
  family.with({"throws"}).set([]() -> double { throw std::runtime_error("boom"); });
  family.with({"set"}).set([] { return 7.0; });
  const auto snapshot = family.collect();
  ASSERT_EQ(snapshot.children.size(), 1u);
  EXPECT_EQ(snapshot.children[0].label_values, std::vector<std::string>{"set"});
  EXPECT_EQ(snapshot.children[0].value, 7);
}

TEST(MetricRegistry, PrivateRegistriesAreIndependentOfTheDefault) {
  Registry mine;
  mine.counter("only_in_mine_total", "h");
  EXPECT_EQ(&default_registry(), &default_registry());
  for (const auto& family : default_registry().collect()) EXPECT_NE(family.name, "only_in_mine_total");
}

}  // namespace
}  // namespace gpupool::metrics

namespace gpupool::metrics {
namespace {

// Families built elsewhere join collect() in name order; a name already taken
// (registered, or an earlier collector's) and empty families are dropped.
TEST(MetricRegistry, CollectorsJoinInNameOrderWithoutDuplicateNames) {
  Registry r;
  r.gauge("b_registered", "registered").with({}).set(1);
  auto family = [](std::string name, double v) {
    FamilySnapshot f;
    f.name = std::move(name);
    f.help = "built elsewhere";
    f.kind = MetricKind::Gauge;
    ChildSnapshot c;
    c.value = v;
    f.children.push_back(c);
    return f;
  };
  int calls = 0;
  r.add_collector([&] {
    ++calls;
    FamilySnapshot empty = family("d_empty", 0);
    empty.children.clear();
    return std::vector<FamilySnapshot>{family("c_collected", 2), family("a_collected", 3), family("b_registered", 9), empty};
  });
  r.add_collector([&] { return std::vector<FamilySnapshot>{family("a_collected", 4)}; });
  const auto fs = r.collect();
  std::vector<std::string> names;
  for (const auto& f : fs) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a_collected", "b_registered", "c_collected"}));
  EXPECT_EQ(fs[0].children.at(0).value, 3) << "the first collector's a_collected";
  EXPECT_EQ(fs[1].children.at(0).value, 1) << "the registered family wins";
  r.collect();
  EXPECT_EQ(calls, 2) << "called on every collect()";
}

}  // namespace
}  // namespace gpupool::metrics
