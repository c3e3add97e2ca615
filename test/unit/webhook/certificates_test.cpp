// Webhook certificates: the chain verifies (OpenSSL in-process, and the
// openssl command when installed), SANs and times are as asked, mismatched
// keys and foreign CAs are refused.
#include "gpupool/webhook/certificates.h"

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

namespace gpupool::webhook {
namespace {

using namespace std::chrono_literals;

const SubjectNames kNames{
    {"gpupool-webhook.gpupool-system.svc", "gpupool-webhook.gpupool-system.svc.cluster.local"},
    {"127.0.0.1", "::1"},
};

struct X509Free {
  void operator()(X509* p) const { X509_free(p); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;

X509Ptr parse(const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  return X509Ptr(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
}

// X509_verify_cert of `cert` against `ca` alone, for the TLS server purpose
// and the given DNS name or IP address. Returns the verification error (0 = ok).
int verify(const std::string& ca_pem, const std::string& cert_pem, const std::string& dns, const std::string& ip = "") {
  const X509Ptr ca = parse(ca_pem);
  const X509Ptr cert = parse(cert_pem);
  if (!ca || !cert) return -1;
  std::unique_ptr<X509_STORE, decltype(&X509_STORE_free)> store(X509_STORE_new(), &X509_STORE_free);
  X509_STORE_add_cert(store.get(), ca.get());
  std::unique_ptr<X509_STORE_CTX, decltype(&X509_STORE_CTX_free)> ctx(X509_STORE_CTX_new(), &X509_STORE_CTX_free);
  X509_STORE_CTX_init(ctx.get(), store.get(), cert.get(), nullptr);
  X509_VERIFY_PARAM* param = X509_STORE_CTX_get0_param(ctx.get());
  X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_SSL_SERVER);
  if (!dns.empty()) X509_VERIFY_PARAM_set1_host(param, dns.c_str(), dns.size());
  if (!ip.empty()) X509_VERIFY_PARAM_set1_ip_asc(param, ip.c_str());
  if (X509_verify_cert(ctx.get()) == 1) return 0;
  return X509_STORE_CTX_get_error(ctx.get());
}

TEST(WebhookCertificatesTest, GeneratedChainVerifiesForEveryName) {
  const CertificateBundle bundle = generate_bundle(kNames);
  EXPECT_EQ(verify(bundle.ca_cert_pem, bundle.cert_pem, "gpupool-webhook.gpupool-system.svc"), 0);
  EXPECT_EQ(verify(bundle.ca_cert_pem, bundle.cert_pem, "gpupool-webhook.gpupool-system.svc.cluster.local"), 0);
  EXPECT_EQ(verify(bundle.ca_cert_pem, bundle.cert_pem, "", "127.0.0.1"), 0);
  EXPECT_EQ(verify(bundle.ca_cert_pem, bundle.cert_pem, "", "::1"), 0);
  EXPECT_EQ(verify(bundle.ca_cert_pem, bundle.cert_pem, "gpupool-webhook.other.svc"), X509_V_ERR_HOSTNAME_MISMATCH);
  EXPECT_EQ(verify(bundle.ca_cert_pem, bundle.cert_pem, "", "10.0.0.1"), X509_V_ERR_IP_ADDRESS_MISMATCH);
  EXPECT_NO_THROW(check_bundle(bundle));
  EXPECT_NE(bundle.key_pem.find("BEGIN PRIVATE KEY"), std::string::npos);
  EXPECT_NE(bundle.ca_key_pem.find("BEGIN PRIVATE KEY"), std::string::npos);
}

TEST(WebhookCertificatesTest, AnotherCaDoesNotVerify) {
  const CertificateBundle one = generate_bundle(kNames);
  const CertificateBundle two = generate_bundle(kNames);
  EXPECT_NE(verify(two.ca_cert_pem, one.cert_pem, "gpupool-webhook.gpupool-system.svc"), 0);
  CertificateBundle mixed = one;
  mixed.ca_cert_pem = two.ca_cert_pem;
  mixed.ca_key_pem = two.ca_key_pem;
  EXPECT_THROW(check_bundle(mixed), CertificateError);
}

TEST(WebhookCertificatesTest, OpensslCommandVerifiesTheChain) {
  if (std::system("command -v openssl >/dev/null 2>&1") != 0) GTEST_SKIP() << "no openssl command on PATH";
  const CertificateBundle bundle = generate_bundle(kNames);
  std::string pattern = (std::filesystem::temp_directory_path() / "webhook-certs-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const std::filesystem::path dir = pattern;
  struct Cleanup {
    std::filesystem::path dir;
    ~Cleanup() { std::filesystem::remove_all(dir); }
  } cleanup{dir};
  std::ofstream(dir / "ca.crt") << bundle.ca_cert_pem;
  std::ofstream(dir / "tls.crt") << bundle.cert_pem;
  const std::string base = "openssl verify -purpose sslserver -CAfile " + (dir / "ca.crt").string() + " ";
  EXPECT_EQ(std::system((base + "-verify_hostname gpupool-webhook.gpupool-system.svc " + (dir / "tls.crt").string() +
                         " >/dev/null 2>&1")
                            .c_str()),
            0);
  EXPECT_EQ(std::system((base + "-verify_ip 127.0.0.1 " + (dir / "tls.crt").string() + " >/dev/null 2>&1").c_str()), 0);
  const std::string wrong_name = base + "-verify_hostname evil.example " + (dir / "tls.crt").string();
  EXPECT_NE(std::system((wrong_name + " >/dev/null 2>&1").c_str()), 0);
}

TEST(WebhookCertificatesTest, NamesAndTimesAreAsAsked) {
  const Clock::time_point now = Clock::from_time_t(1'800'000'000);
  CertificateOptions options;
  options.ca_validity = 1000h;
  options.serving_validity = 100h;
  options.backdate = 1h;
  const CertificateBundle bundle = generate_bundle(kNames, options, now);

  const CertificateInfo ca = read_certificate(bundle.ca_cert_pem);
  EXPECT_TRUE(ca.is_ca);
  EXPECT_EQ(ca.times.not_before, now - 1h);
  EXPECT_EQ(ca.times.not_after, now + 1000h);
  EXPECT_EQ(ca.subject_common_name, "gpupool-webhook-ca@1800000000");

  const CertificateInfo serving = read_certificate(bundle.cert_pem);
  EXPECT_FALSE(serving.is_ca);
  EXPECT_EQ(serving.names, kNames);
  EXPECT_EQ(serving.subject_common_name, "gpupool-webhook.gpupool-system.svc");
  EXPECT_EQ(serving.times.not_before, now - 1h);
  EXPECT_EQ(serving.times.not_after, now + 100h);
  EXPECT_FALSE(serving.serial_hex.empty());
  EXPECT_NE(serving.serial_hex, ca.serial_hex);
}

TEST(WebhookCertificatesTest, DefaultValidityIsFiveYearsForTheCaOneYearServing) {
  const Clock::time_point now = Clock::from_time_t(1'800'000'000);
  const CertificateBundle bundle = generate_bundle(kNames, {}, now);
  EXPECT_EQ(read_certificate(bundle.ca_cert_pem).times.not_after, now + std::chrono::hours(24 * 365 * 5));
  EXPECT_EQ(read_certificate(bundle.cert_pem).times.not_after, now + std::chrono::hours(24 * 365));
}

TEST(WebhookCertificatesTest, ReissuedServingCertificateKeepsTheCa) {
  const CertificateBundle bundle = generate_bundle(kNames);
  const SubjectNames more{{"gpupool-webhook.gpupool-system.svc", "webhook.example"}, {}};
  const ServingCertificate next = issue_serving_certificate(bundle.ca_cert_pem, bundle.ca_key_pem, more);
  EXPECT_EQ(verify(bundle.ca_cert_pem, next.cert_pem, "webhook.example"), 0);
  EXPECT_NE(read_certificate(next.cert_pem).serial_hex, read_certificate(bundle.cert_pem).serial_hex);
  EXPECT_TRUE(key_matches_certificate(next.cert_pem, next.key_pem));
  EXPECT_FALSE(key_matches_certificate(next.cert_pem, bundle.key_pem));
  EXPECT_NO_THROW(check_bundle({bundle.ca_cert_pem, bundle.ca_key_pem, next.cert_pem, next.key_pem}));
}

TEST(WebhookCertificatesTest, ServingCertificateNeverOutlivesItsCa) {
  const Clock::time_point now = Clock::from_time_t(1'800'000'000);
  CertificateOptions options;
  options.ca_validity = 10h;
  options.serving_validity = 100h;
  const CertificateBundle bundle = generate_bundle(kNames, options, now);
  EXPECT_EQ(read_certificate(bundle.cert_pem).times.not_after, now + 10h);
  const ServingCertificate next = issue_serving_certificate(bundle.ca_cert_pem, bundle.ca_key_pem, kNames, options,
                                                            now + 5h);
  EXPECT_EQ(read_certificate(next.cert_pem).times.not_after, now + 10h);
}

TEST(WebhookCertificatesTest, MismatchedKeysAreRefused) {
  const CertificateBundle one = generate_bundle(kNames);
  const CertificateBundle two = generate_bundle(kNames);

  CertificateBundle wrong_serving_key = one;
  wrong_serving_key.key_pem = two.key_pem;
  try {
    check_bundle(wrong_serving_key);
    FAIL() << "a serving key of another certificate was accepted";
  } catch (const CertificateError& e) {
    EXPECT_NE(std::string(e.what()).find("serving key: does not match"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("PRIVATE KEY"), std::string::npos) << "key material in the message";
  }

  CertificateBundle wrong_ca_key = one;
  wrong_ca_key.ca_key_pem = two.ca_key_pem;
  EXPECT_THROW(check_bundle(wrong_ca_key), CertificateError);
  EXPECT_THROW(issue_serving_certificate(one.ca_cert_pem, two.ca_key_pem, kNames), CertificateError);
  // A serving certificate is not a CA.
  EXPECT_THROW(issue_serving_certificate(one.cert_pem, one.key_pem, kNames), CertificateError);
}

TEST(WebhookCertificatesTest, GarbageAndBadNamesAreRefused) {
  EXPECT_THROW(read_certificate("not a certificate"), CertificateError);
  EXPECT_THROW(key_matches_certificate(generate_bundle(kNames).cert_pem, "-----BEGIN PRIVATE KEY-----\nAAAA\n"),
               CertificateError);
  EXPECT_THROW(generate_bundle({}), std::invalid_argument);
  EXPECT_THROW(generate_bundle({{"bad name,DNS:evil"}, {}}), std::invalid_argument);
  EXPECT_THROW(generate_bundle({{}, {"300.1.1.1"}}), std::invalid_argument);
  CertificateOptions zero;
  zero.serving_validity = std::chrono::seconds(0);
  EXPECT_THROW(generate_bundle(kNames, zero), std::invalid_argument);
}

TEST(WebhookCertificatesTest, IpOnlyCertificateIsNamedByItsAddress) {
  const CertificateBundle bundle = generate_bundle({{}, {"127.0.0.1"}});
  const CertificateInfo info = read_certificate(bundle.cert_pem);
  EXPECT_EQ(info.subject_common_name, "127.0.0.1");
  EXPECT_EQ(verify(bundle.ca_cert_pem, bundle.cert_pem, "", "127.0.0.1"), 0);
}

}  // namespace
}  // namespace gpupool::webhook
