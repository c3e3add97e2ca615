// keep_bundle: keep, re-issue the serving certificate, or start over.
#include <gtest/gtest.h>

#include "gpupool/webhook/certificate_keeper.h"

namespace gpupool::webhook {
namespace {

TEST(CertificateKeeper, KeepsReissuesOrStartsOver) {
  SubjectNames names;
  names.dns_names = {"gpupool-webhook.gpupool-system.svc"};
  const auto now = Clock::now();
  const KeptBundle first = keep_bundle(std::nullopt, names, {}, now);
  EXPECT_TRUE(first.changed);
  EXPECT_EQ(first.reason, "no certificates yet");

  const KeptBundle same = keep_bundle(first.bundle, names, {}, now + std::chrono::hours(24));
  EXPECT_FALSE(same.changed);
  EXPECT_EQ(same.bundle, first.bundle);

  // Nine months on (serving valid a year): re-issued from the same CA.
  const KeptBundle later = keep_bundle(first.bundle, names, {}, now + std::chrono::hours(24 * 270));
  EXPECT_TRUE(later.changed);
  EXPECT_EQ(later.bundle.ca_cert_pem, first.bundle.ca_cert_pem) << "the caBundle stays";
  EXPECT_NE(later.bundle.cert_pem, first.bundle.cert_pem);
  EXPECT_EQ(later.reason.rfind("serving certificate re-issued", 0), 0u) << later.reason;

  // Another Service name: re-issued for it.
  SubjectNames other = names;
  other.ip_addresses = {"127.0.0.1"};
  const KeptBundle renamed = keep_bundle(first.bundle, other, {}, now);
  EXPECT_TRUE(renamed.changed);
  EXPECT_EQ(read_certificate(renamed.bundle.cert_pem).names.ip_addresses, std::vector<std::string>{"127.0.0.1"});

  // Garbage in the Secret: everything new.
  CertificateBundle broken = first.bundle;
  broken.key_pem = "not a key";
  const KeptBundle fresh = keep_bundle(broken, names, {}, now);
  EXPECT_TRUE(fresh.changed);
  EXPECT_NE(fresh.bundle.ca_cert_pem, first.bundle.ca_cert_pem);
  EXPECT_EQ(fresh.reason.rfind("the stored certificates are unusable", 0), 0u) << fresh.reason;
}

}  // namespace
}  // namespace gpupool::webhook
