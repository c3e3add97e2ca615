// When the webhook's certificates are replaced: a table over times and names.
#include "gpupool/webhook/rotation.h"

#include <gtest/gtest.h>

namespace gpupool::webhook {
namespace {

using namespace std::chrono_literals;

const Clock::time_point T0 = Clock::from_time_t(1'800'000'000);
const SubjectNames kNames{{"gpupool-webhook.gpupool-system.svc", "gpupool-webhook.gpupool-system.svc.cluster.local"},
                          {"127.0.0.1"}};

CertificateInfo cert(Clock::time_point not_before, Clock::time_point not_after, SubjectNames names = kNames) {
  CertificateInfo info;
  info.times = {not_before, not_after};
  info.names = std::move(names);
  return info;
}

struct Case {
  const char* name;
  CertificateInfo ca;
  CertificateInfo serving;
  SubjectNames wanted;
  Clock::time_point now;
  Rotation expected;
};

TEST(WebhookRotationTest, Table) {
  const auto year = 24h * 365;
  const CertificateInfo ca = cert(T0, T0 + 5 * year, {});
  const CertificateInfo serving = cert(T0, T0 + year);
  const Case cases[] = {
      {"fresh", ca, serving, kNames, T0 + 1h, Rotation::none},
      {"just under two thirds elapsed", ca, serving, kNames, T0 + year * 2 / 3 - 1h, Rotation::none},
      {"two thirds elapsed", ca, serving, kNames, T0 + year * 2 / 3 + 1h, Rotation::serving},
      {"serving expired", ca, serving, kNames, T0 + year + 1h, Rotation::serving},
      {"serving not valid yet", ca, cert(T0 + 2h, T0 + year), kNames, T0 + 1h, Rotation::serving},
      {"a DNS name added", ca, serving,
       {{"gpupool-webhook.gpupool-system.svc", "gpupool-webhook.gpupool-system.svc.cluster.local", "x.example"},
        {"127.0.0.1"}},
       T0 + 1h, Rotation::serving},
      {"an IP removed", ca, serving, {kNames.dns_names, {}}, T0 + 1h, Rotation::serving},
      {"same names, other order and case, IPv4 spelled alike", ca, serving,
       {{"GPUPOOL-webhook.gpupool-system.svc.cluster.local", "gpupool-webhook.gpupool-system.svc"}, {"127.0.0.1"}},
       T0 + 1h, Rotation::none},
      {"CA expiring before the serving certificate", cert(T0, T0 + 200 * 24h, {}), serving, kNames, T0 + 1h,
       Rotation::all},
      {"CA in its last third", ca, cert(T0 + 4 * year, T0 + 4 * year + 200 * 24h), kNames, T0 + 4 * year + 1h,
       Rotation::all},
      {"CA expired", ca, serving, kNames, T0 + 5 * year + 1h, Rotation::all},
  };
  for (const Case& c : cases) {
    const RotationDecision decision = decide_rotation(c.ca, c.serving, c.wanted, c.now);
    EXPECT_EQ(decision.rotate, c.expected) << c.name << ": " << decision.reason;
    EXPECT_EQ(needs_rotation(c.ca, c.serving, c.wanted, c.now), c.expected != Rotation::none) << c.name;
    EXPECT_EQ(decision.reason.empty(), c.expected == Rotation::none) << c.name;
  }
}

TEST(WebhookRotationTest, FreshlyGeneratedBundleNeedsNoRotationUntilTwoThirds) {
  const CertificateBundle bundle = generate_bundle(kNames, {}, T0);
  const CertificateInfo ca = read_certificate(bundle.ca_cert_pem);
  const CertificateInfo serving = read_certificate(bundle.cert_pem);
  EXPECT_FALSE(needs_rotation(ca, serving, kNames, T0));
  EXPECT_FALSE(needs_rotation(ca, serving, kNames, T0 + 24h * 240));
  EXPECT_EQ(decide_rotation(ca, serving, kNames, T0 + 24h * 250).rotate, Rotation::serving);

  // Re-issued from the same CA at that point: fresh again, the CA unchanged.
  const ServingCertificate next = issue_serving_certificate(bundle.ca_cert_pem, bundle.ca_key_pem, kNames, {},
                                                            T0 + 24h * 250);
  EXPECT_FALSE(needs_rotation(ca, read_certificate(next.cert_pem), kNames, T0 + 24h * 250));
}

TEST(WebhookRotationTest, LastThirdBoundaries) {
  const CertificateTimes times{T0, T0 + 300s};
  EXPECT_TRUE(in_last_third(times, T0 - 1s));
  EXPECT_FALSE(in_last_third(times, T0));
  EXPECT_FALSE(in_last_third(times, T0 + 200s));  // exactly a third left
  EXPECT_TRUE(in_last_third(times, T0 + 201s));
  EXPECT_TRUE(in_last_third(times, T0 + 300s));
}

}  // namespace
}  // namespace gpupool::webhook
