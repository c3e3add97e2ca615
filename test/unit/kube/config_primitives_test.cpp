// base64, RFC 3339 and PEM checks used by the configuration loaders.
#include <gtest/gtest.h>

#include <chrono>

#include "config_test_util.h"
#include "gpupool/kube/base64.h"
#include "gpupool/kube/pem.h"
#include "gpupool/common/rfc3339.h"

namespace gpupool::kube {
namespace {

using namespace std::chrono;

TEST(Base64, RoundTripsEveryLength) {
  std::string bytes;
  for (int i = 0; i < 70; ++i) {
    auto decoded = base64_decode(base64_encode(bytes));
    ASSERT_TRUE(decoded.has_value()) << i;
    EXPECT_EQ(*decoded, bytes);
    bytes += static_cast<char>(i * 37);
  }
}

TEST(Base64, KnownVectors) {
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_decode("Zm9vYmE=").value(), "fooba");
  EXPECT_EQ(base64_decode("").value(), "");
}

TEST(Base64, IgnoresWhitespace) { EXPECT_EQ(base64_decode(" Zm9v\nYmFy\r\n ").value(), "foobar"); }

TEST(Base64, RejectsInvalidInput) {
  for (const char* bad : {"Zm9v!mFy", "Zm9vYmE", "Zg=", "Z===", "=Zm9", "Zg==Zg==", "Zm9vYmFy=", "Zg=a", "a", "Zm-_"}) {
    EXPECT_FALSE(base64_decode(bad).has_value()) << bad;
  }
}

TEST(Rfc3339, ParsesUtcOffsetsAndFractions) {
  const auto base = sys_days{2024y / May / 1} + 12h;
  EXPECT_EQ(parse_rfc3339("2024-05-01T12:00:00Z").value(), base);
  EXPECT_FALSE(parse_rfc3339("2024-05-01t12:00:00z").has_value());  // Go is case-sensitive here
  EXPECT_EQ(parse_rfc3339("2024-05-01T14:30:00+02:30").value(), base);
  EXPECT_EQ(parse_rfc3339("2024-05-01T07:00:00-05:00").value(), base);
  EXPECT_EQ(parse_rfc3339("2024-05-01T12:00:00.25Z").value(), base + 250ms);
}

TEST(Rfc3339, RejectsMalformedTimes) {
  for (const char* bad : {"", "2024-05-01", "2024-05-01T12:00:00", "2024-13-01T12:00:00Z", "2024-02-30T12:00:00Z",
                          "2024-05-01T25:00:00Z", "2024-05-01T12:00:00.Z", "2024-05-01T12:00:00Zjunk",
                          "2024-05-01 12:00:00Z", "2024-05-01T12:00:00+0200"}) {
    EXPECT_FALSE(parse_rfc3339(bad).has_value()) << bad;
  }
}

TEST(Pem, AcceptsCertificatesAndKeys) {
  EXPECT_EQ(check_certificates_pem(testing::kCertPem), std::nullopt);
  EXPECT_EQ(check_certificates_pem(std::string(testing::kCertPem) + testing::kCertPem), std::nullopt);
  EXPECT_EQ(check_private_key_pem(testing::kKeyPem), std::nullopt);
}

TEST(Pem, RejectsOtherData) {
  EXPECT_TRUE(check_certificates_pem("hello").has_value());
  EXPECT_TRUE(check_certificates_pem(testing::kKeyPem).has_value());
  EXPECT_TRUE(check_certificates_pem("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n").has_value());
  EXPECT_TRUE(check_private_key_pem(testing::kCertPem).has_value());
  EXPECT_TRUE(check_private_key_pem("").has_value());
}

}  // namespace
}  // namespace gpupool::kube
