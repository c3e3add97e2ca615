// The scale benchmark's reading of two kube-apiserver /metrics scrapes
// (tools/bench/scale/apiserver_load.h) and the exposition reader under it
// (exposition_samples.h).
#include "scale/apiserver_load.h"

#include <gtest/gtest.h>

#include <vector>

#include "scale/exposition_samples.h"

namespace gpupool::bench {
namespace {

TEST(ApiserverLoad, CpuAndRequestsBetweenTheScrapesByVerbAndResource) {
  const char* before =
      "# TYPE process_cpu_seconds_total counter\n"
      "process_cpu_seconds_total 10.5\n"
      "apiserver_request_total{code=\"200\",resource=\"gpunodes\",subresource=\"status\",verb=\"PATCH\"} 100\n"
      "apiserver_request_total{code=\"200\",resource=\"leases\",subresource=\"\",verb=\"PUT\"} 40\n";
  const char* after =
      "process_cpu_seconds_total 70.5\n"
      "apiserver_request_total{code=\"200\",resource=\"gpunodes\",subresource=\"status\",verb=\"PATCH\"} 400\n"
      "apiserver_request_total{code=\"409\",resource=\"gpunodes\",subresource=\"status\",verb=\"PATCH\"} 5\n"
      "apiserver_request_total{code=\"200\",resource=\"leases\",subresource=\"\",verb=\"PUT\"} 240\n"
      "apiserver_request_total{code=\"200\",resource=\"\",subresource=\"/readyz\",verb=\"GET\"} 3\n"
      "apiserver_request_total{code=\"201\",resource=\"events\",subresource=\"\",verb=\"POST\"} 200\n";
  const auto load = apiserver_load(before, after, 3);
  EXPECT_DOUBLE_EQ(load.cpu_s, 60);
  EXPECT_DOUBLE_EQ(load.requests, 305 + 200 + 3 + 200);
  const std::vector<RequestCount> want{{"PATCH gpunodes/status", 305}, {"POST events", 200}, {"PUT leases", 200}};
  EXPECT_EQ(load.top, want);  // ties by name; the 4th (GET /readyz) left out
  EXPECT_EQ(describe_requests(load), "305 PATCH gpunodes/status, 200 POST events, 200 PUT leases");
}

TEST(ApiserverLoad, ACounterThatFellCountsFromZero) {
  const auto load = apiserver_load("process_cpu_seconds_total 50\napiserver_request_total{verb=\"GET\",resource=\"pods\"} 90\n",
                                   "process_cpu_seconds_total 2\napiserver_request_total{verb=\"GET\",resource=\"pods\"} 7\n", 8);
  EXPECT_DOUBLE_EQ(load.cpu_s, 2);
  EXPECT_DOUBLE_EQ(load.requests, 7);
}

TEST(ApiserverLoad, NothingReadableIsNothing) {
  const auto load = apiserver_load("", "garbage\n{}\napiserver_request_total{verb=\"GET\" 3\n", 8);
  EXPECT_DOUBLE_EQ(load.cpu_s, 0);
  EXPECT_DOUBLE_EQ(load.requests, 0);
  EXPECT_TRUE(load.top.empty());
  EXPECT_EQ(describe_requests(load), "");
}

TEST(ExpositionSamples, LabelValueMatchesWholeNamesOnly) {
  EXPECT_EQ(label_value("hostname=\"a\",name=\"b\"", "name"), "b");
  EXPECT_EQ(label_value("", "name"), "");
  EXPECT_EQ(label_value("name=\"unterminated", "name"), "");
}

TEST(ExpositionSamples, SamplesWithAndWithoutLabels) {
  std::vector<std::string> seen;
  for_each_sample("# HELP a b\n\na 1\nb{x=\"1\"} 2.5\nc{x=\"1\"} lots\nd\ne{ 3\n", [&](std::string_view m, std::string_view l, double v) {
    seen.push_back(std::string(m) + "|" + std::string(l) + "|" + std::to_string(v));
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"a||1.000000", "b|x=\"1\"|2.500000"}));
}

}  // namespace
}  // namespace gpupool::bench
