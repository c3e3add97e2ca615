#include "gpupool/metrics/health_checks.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gpupool::metrics {
namespace {

std::optional<std::string> fine() { return std::nullopt; }

TEST(MetricHealthChecks, NoChecksMeansPing) {
  HealthChecks checks("healthz");
  EXPECT_EQ(checks.run(false).status, 200);
  EXPECT_EQ(checks.run(false).body, "ok");
  EXPECT_EQ(checks.run(true).body, "[+]ping ok\nhealthz check passed\n");
  ASSERT_TRUE(checks.run_one("ping").has_value());
  EXPECT_EQ(checks.run_one("ping")->body, "ok");
}

TEST(MetricHealthChecks, VerboseListsEveryCheckInOrder) {
  HealthChecks checks("readyz");
  checks.add("ping", fine);
  checks.add("informers", fine);
  const auto report = checks.run(true);
  EXPECT_EQ(report.status, 200);
  EXPECT_EQ(report.body, "[+]ping ok\n[+]informers ok\nreadyz check passed\n");
}

TEST(MetricHealthChecks, FailureIsAlwaysVerboseAndWithholdsTheReason) {
  HealthChecks checks("readyz");
  checks.add("ping", fine);
  checks.add("informers", [] { return std::optional<std::string>("caches not synced"); });
  checks.add("leader", []() -> std::optional<std::string> { throw std::runtime_error("boom"); });
  for (bool verbose : {false, true}) {
    const auto report = checks.run(verbose);
    EXPECT_EQ(report.status, 500);
    EXPECT_EQ(report.body,
              "[+]ping ok\n[-]informers failed: reason withheld\n[-]leader failed: reason withheld\n"
              "readyz check failed\n");
  }
  // A single check's path shows the reason.
  EXPECT_EQ(checks.run_one("informers")->status, 500);
  EXPECT_EQ(checks.run_one("informers")->body, "internal server error: caches not synced");
  EXPECT_EQ(checks.run_one("leader")->body, "internal server error: threw: boom");
  EXPECT_EQ(checks.run_one("ping")->status, 200);
  EXPECT_FALSE(checks.run_one("nope").has_value());
}

TEST(MetricHealthChecks, ExcludedChecksAreSkipped) {
  HealthChecks checks("healthz");
  checks.add("ping", fine);
  checks.add("informers", [] { return std::optional<std::string>("not yet"); });
  EXPECT_EQ(checks.run(false, {"informers"}).status, 200);
  EXPECT_EQ(checks.run(false, {"informers"}).body, "ok");
  EXPECT_EQ(checks.run(true, {"informers", "missing"}).body,
            "[+]ping ok\n[+]informers excluded: ok\n"
            "warn: some health checks cannot be excluded: no matches for \"missing\"\n"
            "healthz check passed\n");
}

TEST(MetricHealthChecks, ChecksSeeCurrentState) {
  HealthChecks checks("readyz");
  bool synced = false;
  checks.add("informers", [&] { return synced ? std::nullopt : std::optional<std::string>("syncing"); });
  EXPECT_EQ(checks.run(false).status, 500);
  synced = true;
  EXPECT_EQ(checks.run(false).status, 200);
}

TEST(MetricHealthChecks, NamesMustBeUniqueAndPlain) {
  HealthChecks checks("healthz");
  checks.add("ping", fine);
  EXPECT_THROW(checks.add("ping", fine), std::invalid_argument);
  EXPECT_THROW(checks.add("", fine), std::invalid_argument);
  EXPECT_THROW(checks.add("a/b", fine), std::invalid_argument);
}

}  // namespace
}  // namespace gpupool::metrics
