#include "gpupool/metrics/names.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>

#include "gpupool/metrics/registry.h"

namespace gpupool::metrics {
namespace {

TEST(MetricNames, MetricNameGrammar) {
  for (const char* ok : {"a", "_", ":", "workqueue_depth", "job:rate5m", "A1_b2:c3", "__internal"}) {
    EXPECT_TRUE(is_valid_metric_name(ok)) << ok;
  }
  for (const char* bad : {"", "1abc", "a-b", "a b", "a.b", "é", "a{b}", "a\"b"}) {
    EXPECT_FALSE(is_valid_metric_name(bad)) << bad;
  }
}

TEST(MetricNames, LabelNameGrammar) {
  for (const char* ok : {"a", "_", "controller", "le", "A_1", "_x"}) {
    EXPECT_TRUE(is_valid_label_name(ok)) << ok;
  }
  for (const char* bad : {"", "1a", "a:b", "a-b", "__name__", "__reserved", "a b"}) {
    EXPECT_FALSE(is_valid_label_name(bad)) << bad;
  }
}

// The message names the metric, so a failing registration is easy to trace.
void expect_rejected(const std::function<void()>& register_it, const std::string& mentions) {
  try {
    register_it();
    ADD_FAILURE() << "expected std::invalid_argument mentioning " << mentions;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(mentions), std::string::npos) << e.what();
  }
}

TEST(MetricNames, RegistryRejectsInvalidNames) {
  Registry registry;
  expect_rejected([&] { registry.counter("bad-name_total", "h"); }, "bad-name_total");
  expect_rejected([&] { registry.gauge("", "h"); }, "not a valid metric name");
  expect_rejected([&] { registry.gauge("g", "h", {"bad-label"}); }, "bad-label");
  expect_rejected([&] { registry.gauge("g", "h", {"__reserved"}); }, "__reserved");
  expect_rejected([&] { registry.counter("c_total", "h", {"a", "a"}); }, "given twice");
  expect_rejected([&] { registry.histogram("h_seconds", "h", {"le"}); }, "\"le\"");
  expect_rejected([&] { registry.gauge_function_family("f", "h", {"0x"}); }, "0x");
  // None of them got registered.
  EXPECT_TRUE(registry.collect().empty());
}

TEST(MetricNames, LeIsAnOrdinaryLabelOutsideHistograms) {
  Registry registry;
  EXPECT_NO_THROW(registry.gauge("g", "h", {"le"}));
}

TEST(MetricNames, WrongNumberOfLabelValuesIsRejected) {
  Registry registry;
  auto& family = registry.counter("requests_total", "h", {"code", "method"});
  expect_rejected([&] { family.with({"200"}); }, "requests_total");
  expect_rejected([&] { family.with({"200", "GET", "x"}); }, "requests_total");
  EXPECT_NO_THROW(family.with({"200", "GET"}));
}

TEST(MetricNames, HistogramBucketsMustIncrease) {
  Registry registry;
  expect_rejected([&] { registry.histogram("a_seconds", "h", {}, {1, 1}); }, "strictly increasing");
  expect_rejected([&] { registry.histogram("b_seconds", "h", {}, {2, 1}); }, "strictly increasing");
  expect_rejected([&] { registry.histogram("c_seconds", "h", {}, {1, std::nan("")}); }, "c_seconds");
  expect_rejected([&] { registry.histogram("d_seconds", "h", {}, {-INFINITY, 1}); }, "finite");
}

}  // namespace
}  // namespace gpupool::metrics
