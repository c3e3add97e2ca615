// next_certificates: the Secret's steps, and what the caBundle holds at each.
#include <gtest/gtest.h>

#include "gpupool/webhook/stored_certificates.h"

namespace gpupool::webhook {
namespace {

using std::chrono::hours;
using std::chrono::seconds;

constexpr seconds kOverlap{120};

SubjectNames names() {
  SubjectNames n;
  n.dns_names = {"gpupool-webhook.gpupool-system.svc"};
  return n;
}

// CA 90 days (due after 60), serving 75 days (due after 50), no backdate.
CertificateOptions short_lived() {
  CertificateOptions o;
  o.ca_validity = hours(24 * 90);
  o.serving_validity = hours(24 * 75);
  o.backdate = seconds(0);
  return o;
}

int cas_in(const std::string& pem) {
  int n = 0;
  for (auto at = pem.find("BEGIN CERTIFICATE"); at != std::string::npos; at = pem.find("BEGIN CERTIFICATE", at + 1)) ++n;
  return n;
}

TEST(StoredCertificates, StartsWithOneCaAndKeepsItWhileValid) {
  const auto now = Clock::now();
  const NextCertificates first = next_certificates(std::nullopt, names(), short_lived(), kOverlap, now);
  ASSERT_TRUE(first.changed);
  EXPECT_EQ(first.reason, "no certificates yet");
  EXPECT_TRUE(first.stored.previous_ca_pem.empty());
  EXPECT_FALSE(first.stored.step_at);
  EXPECT_EQ(first.stored.trusted_pem(), first.stored.bundle.ca_cert_pem);
  EXPECT_TRUE(servable(first.stored));

  const NextCertificates same = next_certificates(first.stored, names(), short_lived(), kOverlap, now + hours(24));
  EXPECT_FALSE(same.changed);
  EXPECT_EQ(same.stored, first.stored);
}

TEST(StoredCertificates, ReissuesTheServingCertificateFromTheSameCa) {
  const auto now = Clock::now();
  const StoredCertificates s = next_certificates(std::nullopt, names(), short_lived(), kOverlap, now).stored;
  const NextCertificates later = next_certificates(s, names(), short_lived(), kOverlap, now + hours(24 * 51));
  ASSERT_TRUE(later.changed);
  EXPECT_EQ(later.reason.rfind("serving certificate re-issued", 0), 0u) << later.reason;
  EXPECT_EQ(later.stored.trusted_pem(), s.trusted_pem()) << "the caBundle stays";
  EXPECT_NE(later.stored.bundle.cert_pem, s.bundle.cert_pem);
  EXPECT_TRUE(issued_by(later.stored.bundle.cert_pem, s.bundle.ca_cert_pem));
}

TEST(StoredCertificates, RotatesTheCaInThreeStepsWithBothTrustedMeanwhile) {
  const auto start = Clock::now();
  const StoredCertificates s0 = next_certificates(std::nullopt, names(), short_lived(), kOverlap, start).stored;
  const std::string old_ca = s0.bundle.ca_cert_pem;
  const std::string old_cert = s0.bundle.cert_pem;

  // Step 1, once the CA is in its last third: a new CA trusted next to the
  // old one; the old CA's certificate still served.
  const auto t1 = start + hours(24 * 61);
  const NextCertificates step1 = next_certificates(s0, names(), short_lived(), kOverlap, t1);
  ASSERT_TRUE(step1.changed);
  EXPECT_EQ(step1.reason.rfind("CA rotation, step 1 of 3", 0), 0u) << step1.reason;
  const StoredCertificates& s1 = step1.stored;
  EXPECT_NE(s1.bundle.ca_cert_pem, old_ca);
  EXPECT_EQ(s1.previous_ca_pem, old_ca);
  // Near its end (day 61 of 75), the served certificate is re-issued, from the old CA.
  EXPECT_NE(s1.bundle.cert_pem, old_cert);
  EXPECT_TRUE(issued_by(s1.bundle.cert_pem, old_ca)) << "nothing the new caBundle alone trusts is served yet";
  EXPECT_EQ(s1.step_at, t1);
  EXPECT_EQ(s1.trusted_pem(), s1.bundle.ca_cert_pem + old_ca);
  EXPECT_EQ(cas_in(s1.trusted_pem()), 2);
  EXPECT_TRUE(servable(s1));

  // Within the overlap: nothing moves.
  EXPECT_FALSE(next_certificates(s1, names(), short_lived(), kOverlap, t1 + kOverlap - seconds(1)).changed);

  // Step 2: the new CA's certificate served; both still trusted.
  const auto t2 = t1 + kOverlap;
  const NextCertificates step2 = next_certificates(s1, names(), short_lived(), kOverlap, t2);
  ASSERT_TRUE(step2.changed);
  EXPECT_EQ(step2.reason.rfind("CA rotation, step 2 of 3", 0), 0u) << step2.reason;
  const StoredCertificates& s2 = step2.stored;
  EXPECT_EQ(s2.trusted_pem(), s1.trusted_pem()) << "the caBundle does not change with what is served";
  EXPECT_TRUE(issued_by(s2.bundle.cert_pem, s1.bundle.ca_cert_pem));
  EXPECT_EQ(s2.step_at, t2);
  EXPECT_TRUE(servable(s2));
  EXPECT_FALSE(next_certificates(s2, names(), short_lived(), kOverlap, t2 + kOverlap - seconds(1)).changed);

  // Step 3: the old CA dropped.
  const auto t3 = t2 + kOverlap;
  const NextCertificates step3 = next_certificates(s2, names(), short_lived(), kOverlap, t3);
  ASSERT_TRUE(step3.changed);
  EXPECT_EQ(step3.reason.rfind("CA rotation, step 3 of 3", 0), 0u) << step3.reason;
  const StoredCertificates& s3 = step3.stored;
  EXPECT_TRUE(s3.previous_ca_pem.empty());
  EXPECT_FALSE(s3.step_at);
  EXPECT_EQ(s3.bundle, s2.bundle);
  EXPECT_EQ(s3.trusted_pem(), s1.bundle.ca_cert_pem);

  // And then steady again.
  EXPECT_FALSE(next_certificates(s3, names(), short_lived(), kOverlap, t3 + seconds(1)).changed);
}

TEST(StoredCertificates, EveryStepTrustsWhatTheStepBeforeServed) {
  // Replicas lag one step behind: the caBundle of each state must trust the
  // certificate of the state before it, and of itself.
  const auto start = Clock::now();
  std::vector<StoredCertificates> states{next_certificates(std::nullopt, names(), short_lived(), kOverlap, start).stored};
  auto t = start + hours(24 * 61);
  for (int i = 0; i < 3; ++i, t += kOverlap) {
    const NextCertificates n = next_certificates(states.back(), names(), short_lived(), kOverlap, t);
    ASSERT_TRUE(n.changed) << i;
    states.push_back(n.stored);
  }
  auto trusts = [](const StoredCertificates& s, const std::string& cert) {
    return issued_by(cert, s.bundle.ca_cert_pem) || (!s.previous_ca_pem.empty() && issued_by(cert, s.previous_ca_pem));
  };
  for (std::size_t i = 1; i < states.size(); ++i) {
    EXPECT_TRUE(trusts(states[i], states[i].bundle.cert_pem)) << "state " << i;
    // Step 3 comes only after every replica has had the overlap to serve step 2's.
    if (i < 3) {
      EXPECT_TRUE(trusts(states[i], states[i - 1].bundle.cert_pem)) << "state " << i;
    }
  }
  // The API server learns a caBundle (step 1) before anything it does not
  // hold in its previous caBundle is served (step 2).
  EXPECT_TRUE(issued_by(states[1].bundle.cert_pem, states[0].bundle.ca_cert_pem));
}

TEST(StoredCertificates, KeepsServingAFreshCertificateOfTheOldCaAtStepOne) {
  const auto start = Clock::now();
  const StoredCertificates s0 = next_certificates(std::nullopt, names(), short_lived(), kOverlap, start).stored;
  const NextCertificates fresh = next_certificates(s0, names(), short_lived(), kOverlap, start + hours(24 * 55));
  ASSERT_EQ(fresh.reason.rfind("serving certificate re-issued", 0), 0u) << fresh.reason;
  const NextCertificates step1 = next_certificates(fresh.stored, names(), short_lived(), kOverlap, start + hours(24 * 61));
  ASSERT_FALSE(step1.stored.previous_ca_pem.empty()) << step1.reason;
  EXPECT_EQ(step1.stored.bundle.cert_pem, fresh.stored.bundle.cert_pem);
  EXPECT_EQ(step1.reason.find("re-issued"), std::string::npos) << step1.reason;
}

TEST(StoredCertificates, ServesTheNewCaAtOnceWhenTheOldCertificateExpiresDuringTheOverlap) {
  const auto start = Clock::now();
  CertificateOptions o = short_lived();
  const StoredCertificates s0 = next_certificates(std::nullopt, names(), o, kOverlap, start).stored;
  StoredCertificates s1 = next_certificates(s0, names(), o, kOverlap, start + hours(24 * 61)).stored;
  ASSERT_FALSE(s1.previous_ca_pem.empty());
  // Step 1 written just now, but the old CA's certificate (until day 90) has expired.
  const auto late = start + hours(24 * 91);
  s1.step_at = late;
  const NextCertificates n = next_certificates(s1, names(), o, kOverlap, late + seconds(1));
  ASSERT_TRUE(n.changed);
  EXPECT_EQ(n.reason.rfind("CA rotation, step 2 of 3", 0), 0u) << n.reason;
}

TEST(StoredCertificates, StartsOverWithoutOverlapWhenNothingServedIsValid) {
  const auto start = Clock::now();
  const StoredCertificates s0 = next_certificates(std::nullopt, names(), short_lived(), kOverlap, start).stored;
  const NextCertificates n = next_certificates(s0, names(), short_lived(), kOverlap, start + hours(24 * 100));
  ASSERT_TRUE(n.changed);
  EXPECT_TRUE(n.stored.previous_ca_pem.empty());
  EXPECT_NE(n.stored.bundle.ca_cert_pem, s0.bundle.ca_cert_pem);
  EXPECT_EQ(n.reason.rfind("new CA, at once", 0), 0u) << n.reason;
}

TEST(StoredCertificates, StartsOverWhenTheSecretIsUnusable) {
  const auto now = Clock::now();
  const StoredCertificates s0 = next_certificates(std::nullopt, names(), short_lived(), kOverlap, now).stored;
  StoredCertificates broken = s0;
  broken.bundle.key_pem = "not a key";
  EXPECT_FALSE(servable(broken));
  const NextCertificates fresh = next_certificates(broken, names(), short_lived(), kOverlap, now);
  ASSERT_TRUE(fresh.changed);
  EXPECT_EQ(fresh.reason.rfind("the stored certificates are unusable", 0), 0u) << fresh.reason;
  EXPECT_TRUE(servable(fresh.stored));

  // A serving certificate signed by neither CA.
  const StoredCertificates other = next_certificates(std::nullopt, names(), short_lived(), kOverlap, now).stored;
  const StoredCertificates third = next_certificates(std::nullopt, names(), short_lived(), kOverlap, now).stored;
  StoredCertificates foreign = s0;
  foreign.previous_ca_pem = other.bundle.ca_cert_pem;
  foreign.bundle.cert_pem = third.bundle.cert_pem;
  foreign.bundle.key_pem = third.bundle.key_pem;
  EXPECT_FALSE(servable(foreign));
  EXPECT_EQ(next_certificates(foreign, names(), short_lived(), kOverlap, now).reason.rfind("the stored certificates are unusable", 0), 0u);
}

TEST(StoredCertificates, DropsAStrayStepTime) {
  const auto now = Clock::now();
  StoredCertificates s = next_certificates(std::nullopt, names(), short_lived(), kOverlap, now).stored;
  s.step_at = now;
  const NextCertificates n = next_certificates(s, names(), short_lived(), kOverlap, now);
  EXPECT_TRUE(n.changed);
  EXPECT_FALSE(n.stored.step_at);
}

TEST(StoredCertificates, IssuedByTellsCasApart) {
  const auto now = Clock::now();
  const StoredCertificates a = next_certificates(std::nullopt, names(), short_lived(), kOverlap, now).stored;
  const StoredCertificates b = next_certificates(std::nullopt, names(), short_lived(), kOverlap, now).stored;
  EXPECT_TRUE(issued_by(a.bundle.cert_pem, a.bundle.ca_cert_pem));
  EXPECT_FALSE(issued_by(a.bundle.cert_pem, b.bundle.ca_cert_pem));
  EXPECT_FALSE(issued_by("garbage", a.bundle.ca_cert_pem));
}

}  // namespace
}  // namespace gpupool::webhook
