// The webhook's HTTPS server on 127.0.0.1, with libcurl as the client
// verifying it against the CA and a Service name: POST handlers, TLS 1.1
// refused, and certificate rotation under load without a failed request.
#include "gpupool/webhook/tls_server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gpupool/webhook/certificates.h"
#include "https_client.h"

namespace gpupool::webhook {
namespace {

using testing::https_post;
using testing::PostOptions;

const std::string kService = "gpupool-webhook.gpupool-system.svc";
const SubjectNames kNames{{kService, kService + ".cluster.local"}, {"127.0.0.1"}};

PostOptions as_service() {
  PostOptions options;
  options.name = kService;
  return options;
}

TlsServerOptions loopback() {
  TlsServerOptions options;
  options.host = "127.0.0.1";
  options.port = 0;
  options.worker_threads = 4;
  options.keep_alive_timeout = std::chrono::seconds(1);
  return options;
}

HttpResponse echo(const HttpRequest& req) {
  return {200, "application/json", "{\"path\":\"" + req.path + "\",\"query\":\"" + req.query + "\",\"type\":\"" +
                                       req.content_type + "\",\"body\":" + req.body + "}"};
}

TEST(WebhookTlsServerTest, ServesRegisteredPostHandlers) {
  const CertificateBundle bundle = generate_bundle(kNames);
  TlsServer server(loopback(), bundle.cert_pem, bundle.key_pem);
  server.handle_post("/validate", echo);
  server.handle_post("/fail", [](const HttpRequest&) -> HttpResponse { throw std::runtime_error("boom"); });
  server.start();
  ASSERT_GT(server.port(), 0);

  const auto ok = https_post(server.port(), bundle.ca_cert_pem, "/validate?timeout=10s", "{\"a\":1}", as_service());
  ASSERT_EQ(ok.code, CURLE_OK) << ok.error;
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, R"({"path":"/validate","query":"timeout=10s","type":"application/json","body":{"a":1}})");
  EXPECT_EQ(ok.peer_serial, read_certificate(bundle.cert_pem).serial_hex);
  EXPECT_EQ(server.certificate_serial(), ok.peer_serial);

  // Verified by IP SAN too.
  const auto by_ip = https_post(server.port(), bundle.ca_cert_pem, "/validate", "{}");
  EXPECT_TRUE(by_ip.ok()) << by_ip.error;

  const auto missing = https_post(server.port(), bundle.ca_cert_pem, "/mutate", "{}", as_service());
  EXPECT_EQ(missing.status, 404) << missing.error;
  const auto thrown = https_post(server.port(), bundle.ca_cert_pem, "/fail", "{}", as_service());
  EXPECT_EQ(thrown.status, 500) << thrown.error;
  EXPECT_EQ(thrown.body.find("boom"), std::string::npos);

  // A client trusting another CA, or expecting another name, refuses the server.
  const auto other_ca = https_post(server.port(), generate_bundle(kNames).ca_cert_pem, "/validate", "{}", as_service());
  EXPECT_EQ(other_ca.code, CURLE_PEER_FAILED_VERIFICATION) << other_ca.error;
  PostOptions wrong_name;
  wrong_name.name = "gpupool-webhook.elsewhere.svc";
  const auto other_name = https_post(server.port(), bundle.ca_cert_pem, "/validate", "{}", wrong_name);
  EXPECT_EQ(other_name.code, CURLE_PEER_FAILED_VERIFICATION) << other_name.error;

  server.stop();
  server.stop();  // idempotent
}

TEST(WebhookTlsServerTest, Tls12And13AcceptedTls11Refused) {
  const CertificateBundle bundle = generate_bundle(kNames);
  TlsServer server(loopback(), bundle.cert_pem, bundle.key_pem);
  server.handle_post("/validate", echo);
  server.start();

  PostOptions tls12 = as_service();
  tls12.ssl_version = static_cast<long>(CURL_SSLVERSION_TLSv1_2) | static_cast<long>(CURL_SSLVERSION_MAX_TLSv1_2);
  const auto r12 = https_post(server.port(), bundle.ca_cert_pem, "/validate", "{}", tls12);
  EXPECT_TRUE(r12.ok()) << r12.error;
  PostOptions tls13 = as_service();
  tls13.ssl_version = static_cast<long>(CURL_SSLVERSION_TLSv1_3) | static_cast<long>(CURL_SSLVERSION_MAX_TLSv1_3);
  const auto r13 = https_post(server.port(), bundle.ca_cert_pem, "/validate", "{}", tls13);
  EXPECT_TRUE(r13.ok()) << r13.error;

  // OpenSSL 3 offers TLS 1.1 only at security level 0.
  PostOptions tls11 = as_service();
  tls11.ssl_version = static_cast<long>(CURL_SSLVERSION_TLSv1_1) | static_cast<long>(CURL_SSLVERSION_MAX_TLSv1_1);
  tls11.cipher_list = "DEFAULT:@SECLEVEL=0";
  const auto r11 = https_post(server.port(), bundle.ca_cert_pem, "/validate", "{}", tls11);
  ASSERT_NE(r11.code, CURLE_OK) << "a TLS 1.1 client was served";
  // The server's protocol_version alert proves the client did offer TLS 1.1;
  // a client that could not even offer it proves nothing.
  if (r11.error.find("alert protocol version") == std::string::npos) {
    GTEST_SKIP() << "this OpenSSL build does not let the client offer TLS 1.1: " << r11.error;
  }
}

TEST(WebhookTlsServerTest, RefusesMismatchedCertificateAndKeepsServing) {
  const CertificateBundle one = generate_bundle(kNames);
  const CertificateBundle two = generate_bundle(kNames);
  EXPECT_THROW(TlsServer(loopback(), one.cert_pem, two.key_pem), CertificateError);

  TlsServer server(loopback(), one.cert_pem, one.key_pem);
  server.handle_post("/validate", echo);
  EXPECT_THROW(server.handle_post("/validate", echo), std::logic_error);
  server.start();
  EXPECT_THROW(server.handle_post("/late", echo), std::logic_error);
  EXPECT_THROW(server.set_certificate(one.cert_pem, two.key_pem), CertificateError);
  EXPECT_THROW(server.set_certificate("garbage", one.key_pem), CertificateError);
  const auto r = https_post(server.port(), one.ca_cert_pem, "/validate", "{}", as_service());
  EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.peer_serial, read_certificate(one.cert_pem).serial_hex);
}

TEST(WebhookTlsServerTest, SecondListenerOnTheSamePortIsRefused) {
  const CertificateBundle bundle = generate_bundle(kNames);
  TlsServer first(loopback(), bundle.cert_pem, bundle.key_pem);
  first.start();
  TlsServerOptions same = loopback();
  same.port = first.port();
  TlsServer second(same, bundle.cert_pem, bundle.key_pem);
  EXPECT_THROW(second.start(), std::runtime_error);
}

// A kept-alive connection (as kube-apiserver keeps them) goes on working
// across a rotation with the certificate it was made with; new connections
// get the new one.
TEST(WebhookTlsServerTest, EstablishedConnectionOutlivesARotation) {
  const CertificateBundle bundle = generate_bundle(kNames);
  TlsServerOptions options = loopback();
  options.keep_alive_timeout = std::chrono::seconds(30);  // not the limit here
  TlsServer server(options, bundle.cert_pem, bundle.key_pem);
  server.handle_post("/validate", echo);
  server.start();

  testing::HttpsClient kept(bundle.ca_cert_pem, as_service(), /*reuse=*/true);
  const auto first = kept.post(server.port(), "/validate", "{}");
  ASSERT_TRUE(first.ok()) << first.error;
  EXPECT_TRUE(first.new_connection);
  EXPECT_EQ(first.peer_serial, read_certificate(bundle.cert_pem).serial_hex);

  const ServingCertificate next = issue_serving_certificate(bundle.ca_cert_pem, bundle.ca_key_pem, kNames);
  server.set_certificate(next.cert_pem, next.key_pem);

  const auto second = kept.post(server.port(), "/validate", "{}");
  ASSERT_TRUE(second.ok()) << second.error;
  EXPECT_FALSE(second.new_connection) << "the kept connection was not reused";
  const auto fresh = https_post(server.port(), bundle.ca_cert_pem, "/validate", "{}", as_service());
  ASSERT_TRUE(fresh.ok()) << fresh.error;
  EXPECT_EQ(fresh.peer_serial, read_certificate(next.cert_pem).serial_hex);
}

// Client threads POST in a loop, each request on a new connection verified
// against the one CA, while the serving certificate is replaced several
// times: no request fails, and a connection made after each replacement sees
// the new certificate.
TEST(WebhookTlsServerTest, RotationUnderLoadDropsNothing) {
  constexpr int kClients = 3;
  constexpr int kRotations = 5;
  constexpr int kRequestsBetweenRotations = 6;  // at least, by all clients together
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);

  const CertificateBundle bundle = generate_bundle(kNames);
  TlsServer server(loopback(), bundle.cert_pem, bundle.key_pem);
  server.handle_post("/validate", echo);
  server.start();

  std::atomic<int> succeeded{0};
  std::atomic<int> failed{0};
  std::mutex failures_mu;
  std::vector<std::string> failures;
  {
    // Declared after the server: joined (stop requested) before it is
    // destroyed, on every path out of this block, failed assertions included.
    std::vector<std::jthread> clients;
    for (int i = 0; i < kClients; ++i) {
      clients.emplace_back([&, i](std::stop_token stop) {
        const std::string body = "{\"client\":" + std::to_string(i) + "}";
        while (!stop.stop_requested() && std::chrono::steady_clock::now() < deadline) {
          const auto r = https_post(server.port(), bundle.ca_cert_pem, "/validate", body, as_service());
          if (r.ok()) {
            succeeded.fetch_add(1);
          } else {
            failed.fetch_add(1);
            std::lock_guard lock(failures_mu);
            failures.push_back(std::to_string(r.status) + " " + r.error);
          }
        }
      });
    }

    const auto wait_for_requests = [&](int at_least) {
      while (succeeded.load() + failed.load() < at_least && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));  // a poll, bounded by the deadline
      }
      return succeeded.load() + failed.load() >= at_least;
    };

    ASSERT_TRUE(wait_for_requests(kRequestsBetweenRotations)) << "no load before the first rotation";
    for (int rotation = 0; rotation < kRotations; ++rotation) {
      const ServingCertificate next = issue_serving_certificate(bundle.ca_cert_pem, bundle.ca_key_pem, kNames);
      const std::string serial = read_certificate(next.cert_pem).serial_hex;
      const int before = succeeded.load() + failed.load();
      server.set_certificate(next.cert_pem, next.key_pem);
      EXPECT_EQ(server.certificate_serial(), serial);

      const auto fresh = https_post(server.port(), bundle.ca_cert_pem, "/validate", "{}", as_service());
      ASSERT_TRUE(fresh.ok()) << fresh.error;
      EXPECT_EQ(fresh.peer_serial, serial) << "rotation " << rotation;
      ASSERT_TRUE(wait_for_requests(before + kRequestsBetweenRotations)) << "load stalled after rotation " << rotation;
    }
  }
  EXPECT_EQ(failed.load(), 0) << (failures.empty() ? "" : failures.front());
  EXPECT_GE(succeeded.load(), kRequestsBetweenRotations * (kRotations + 1));
  server.stop();
}

}  // namespace
}  // namespace gpupool::webhook
