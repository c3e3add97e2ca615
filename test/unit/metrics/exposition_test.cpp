#include "gpupool/metrics/exposition.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gpupool/metrics/buckets.h"
#include "gpupool/metrics/registry.h"

namespace gpupool::metrics {
namespace {

TEST(MetricExposition, CountersAndGaugesWithHelpAndType) {
  Registry registry;
  auto& requests = registry.counter("http_requests_total", "Requests served.", {"code", "method"});
  requests.with({"200", "GET"}).inc(3);
  requests.with({"500", "POST"}).inc();
  registry.gauge("temperature_celsius", "Current temperature.").with({}).set(-2.5);
  EXPECT_EQ(render_text(registry),
            "# HELP http_requests_total Requests served.\n"
            "# TYPE http_requests_total counter\n"
            "http_requests_total{code=\"200\",method=\"GET\"} 3\n"
            "http_requests_total{code=\"500\",method=\"POST\"} 1\n"
            "# HELP temperature_celsius Current temperature.\n"
            "# TYPE temperature_celsius gauge\n"
            "temperature_celsius -2.5\n");
}

TEST(MetricExposition, FamiliesAreSortedByNameWhateverTheRegistrationOrder) {
  Registry registry;
  registry.gauge("zeta", "z");
  registry.gauge("alpha", "a");
  registry.gauge("mid:rule", "m");
  EXPECT_EQ(render_text(registry),
            "# HELP alpha a\n# TYPE alpha gauge\nalpha 0\n"
            "# HELP mid:rule m\n# TYPE mid:rule gauge\nmid:rule 0\n"
            "# HELP zeta z\n# TYPE zeta gauge\nzeta 0\n");
}

TEST(MetricExposition, ChildOrderIsStableAcrossScrapes) {
  Registry registry;
  auto& family = registry.counter("c_total", "h", {"name"});
  for (const char* name : {"b", "c", "a"}) family.with({name}).inc();
  const std::string first = render_text(registry);
  family.with({"b"}).inc();
  const std::string second = render_text(registry);
  EXPECT_LT(first.find("name=\"a\""), first.find("name=\"b\""));
  EXPECT_LT(first.find("name=\"b\""), first.find("name=\"c\""));
  EXPECT_LT(second.find("name=\"a\""), second.find("name=\"b\""));
  EXPECT_LT(second.find("name=\"b\""), second.find("name=\"c\""));
}

TEST(MetricExposition, LabelValuesAreEscaped) {
  EXPECT_EQ(escape_label_value(R"(a\b"c)" "\n" "d"), R"(a\\b\"c\nd)");
  Registry registry;
  registry.gauge("g", "h", {"path"}).with({"C:\\dir \"quoted\"\nnext line"}).set(1);
  EXPECT_EQ(render_text(registry),
            "# HELP g h\n# TYPE g gauge\n"
            "g{path=\"C:\\\\dir \\\"quoted\\\"\\nnext line\"} 1\n");
}

TEST(MetricExposition, HelpIsEscapedButQuotesAreNot) {
  EXPECT_EQ(escape_help("say \"hi\"\\\nbye"), "say \"hi\"\\\\\\nbye");
  Registry registry;
  registry.gauge("g", "line one\nline \\two\\ \"three\"");
  EXPECT_EQ(render_text(registry), "# HELP g line one\\nline \\\\two\\\\ \"three\"\n# TYPE g gauge\ng 0\n");
}

TEST(MetricExposition, NoHelpLineWithoutHelpAndNoFamilyWithoutChildren) {
  Registry registry;
  registry.gauge("quiet", "");
  registry.counter("unused_total", "never touched", {"label"});
  EXPECT_EQ(render_text(registry), "# TYPE quiet gauge\nquiet 0\n");
}

TEST(MetricExposition, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  Registry registry;
  auto& histogram = registry.histogram("latency_seconds", "Latency.", {"op"}, {0.25, 0.5, 1});
  auto& get = histogram.with({"get"});
  for (double v : {0.125, 0.25, 0.375, 0.75, 2.0}) get.observe(v);
  EXPECT_EQ(render_text(registry),
            "# HELP latency_seconds Latency.\n"
            "# TYPE latency_seconds histogram\n"
            "latency_seconds_bucket{op=\"get\",le=\"0.25\"} 2\n"
            "latency_seconds_bucket{op=\"get\",le=\"0.5\"} 3\n"
            "latency_seconds_bucket{op=\"get\",le=\"1\"} 4\n"
            "latency_seconds_bucket{op=\"get\",le=\"+Inf\"} 5\n"
            "latency_seconds_sum{op=\"get\"} 3.5\n"
            "latency_seconds_count{op=\"get\"} 5\n");
}

TEST(MetricExposition, UnlabelledHistogramAndOnlyTheInfBucket) {
  Registry registry;
  registry.histogram("a_seconds", "h", {}, {1}).with({}).observe(1);  // le is inclusive
  registry.histogram("b_seconds", "h", {}, {}).with({}).observe(42);
  EXPECT_EQ(render_text(registry),
            "# HELP a_seconds h\n# TYPE a_seconds histogram\n"
            "a_seconds_bucket{le=\"1\"} 1\n"
            "a_seconds_bucket{le=\"+Inf\"} 1\n"
            "a_seconds_sum 1\n"
            "a_seconds_count 1\n"
            "# HELP b_seconds h\n# TYPE b_seconds histogram\n"
            "b_seconds_bucket{le=\"+Inf\"} 1\n"
            "b_seconds_sum 42\n"
            "b_seconds_count 1\n");
}

TEST(MetricExposition, NaNObservationsCountOnlyInTheInfBucket) {
  Registry registry;
  auto& histogram = registry.histogram("h_seconds", "h", {}, {1}).with({});
  histogram.observe(std::nan(""));
  const auto child = registry.collect().at(0).children.at(0);
  EXPECT_EQ(child.cumulative_counts, std::vector<std::uint64_t>{0});
  EXPECT_EQ(child.count, 1u);
  EXPECT_TRUE(std::isnan(child.sum));
}

TEST(MetricExposition, ValuesAreShortestRoundTripWithSpecialSpellings) {
  EXPECT_EQ(format_value(0), "0");
  EXPECT_EQ(format_value(42), "42");
  EXPECT_EQ(format_value(-0.25), "-0.25");
  EXPECT_EQ(format_value(0.1), "0.1");
  EXPECT_EQ(format_value(1e-8), "1e-08");
  EXPECT_EQ(format_value(1.5e300), "1.5e+300");
  EXPECT_EQ(format_value(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(format_value(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(format_value(std::nan("")), "NaN");
  const double third = 1.0 / 3;
  EXPECT_EQ(std::stod(format_value(third)), third);
}

TEST(MetricExposition, ExponentialBucketsMatchClientGolangLabels) {
  // client-go's workqueue buckets, as Go exporters print them.
  const auto buckets = exponential_buckets(10e-9, 10, 10);
  std::vector<std::string> labels;
  for (double b : buckets) labels.push_back(format_value(b));
  EXPECT_EQ(labels, (std::vector<std::string>{"1e-08", "1e-07", "1e-06", "9.999999999999999e-06",
                                              "9.999999999999999e-05", "0.001", "0.01", "0.1", "1", "10"}));
  EXPECT_EQ(linear_buckets(1, 2, 3), (std::vector<double>{1, 3, 5}));
  EXPECT_EQ(default_buckets().size(), 11u);
  EXPECT_THROW(exponential_buckets(0, 10, 3), std::invalid_argument);
  EXPECT_THROW(exponential_buckets(1, 1, 3), std::invalid_argument);
  EXPECT_THROW(linear_buckets(1, 0, 3), std::invalid_argument);
}

TEST(MetricExposition, RendersHandBuiltSnapshots) {
  FamilySnapshot family;
  family.name = "x_total";
  family.help = "h";
  family.kind = MetricKind::Counter;
  family.label_names = {"a"};
  ChildSnapshot child;
  child.label_values = {"v"};
  child.value = 2;
  family.children.push_back(child);
  EXPECT_EQ(render_text({family}), "# HELP x_total h\n# TYPE x_total counter\nx_total{a=\"v\"} 2\n");
  EXPECT_EQ(kTextContentType, "text/plain; version=0.0.4; charset=utf-8");
}

}  // namespace
}  // namespace gpupool::metrics
