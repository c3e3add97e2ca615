// The endpoint over real loopback sockets, with libcurl as the client.
#include "gpupool/metrics/http_endpoint.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>

#include "gpupool/metrics/exposition.h"

namespace gpupool::metrics {
namespace {

struct Response {
  CURLcode code = CURLE_OK;
  long status = 0;
  std::string content_type;
  std::string headers;
  std::string body;
};

std::size_t append(char* data, std::size_t size, std::size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

// `accept_encoding` empty: no Accept-Encoding sent.
Response http(int port, const std::string& target, const std::string& method = "GET",
              const std::string& accept_encoding = "") {
  Response out;
  CURL* curl = curl_easy_init();
  if (curl == nullptr) throw std::runtime_error("curl_easy_init failed");
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + target;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &out.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, append);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &out.headers);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 10L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  if (method == "HEAD") curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  if (!accept_encoding.empty()) curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, accept_encoding.c_str());
  out.code = curl_easy_perform(curl);
  if (out.code == CURLE_OK) {
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out.status);
    char* type = nullptr;
    curl_easy_getinfo(curl, CURLINFO_CONTENT_TYPE, &type);
    if (type != nullptr) out.content_type = type;
  }
  curl_easy_cleanup(curl);
  return out;
}

class HttpEndpointTest : public ::testing::Test {
 protected:
  HttpEndpointTest() : healthz_("healthz"), readyz_("readyz") {
    registry_.counter("requests_total", "Requests.", {"code"}).with({"200"}).inc(7);
    readyz_.add("informers", [this] { return synced_ ? std::nullopt : std::optional<std::string>("not synced"); });
  }

  Registry registry_;
  HealthChecks healthz_;
  HealthChecks readyz_;
  std::atomic<bool> synced_{false};
};

TEST_F(HttpEndpointTest, ServesMetricsInTheTextFormat) {
  HttpEndpoint endpoint("127.0.0.1:0");
  endpoint.serve_metrics(registry_);
  endpoint.start();
  ASSERT_GT(endpoint.port(), 0);
  const auto response = http(endpoint.port(), "/metrics");
  ASSERT_EQ(response.code, CURLE_OK) << curl_easy_strerror(response.code);
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.content_type, kTextContentType);
  EXPECT_EQ(response.body, render_text(registry_));
  EXPECT_NE(response.body.find("requests_total{code=\"200\"} 7\n"), std::string::npos);

  // Each scrape reads the registry afresh.
  registry_.gauge("later", "Added after start.").with({}).set(2);
  EXPECT_NE(http(endpoint.port(), "/metrics").body.find("later 2\n"), std::string::npos);
}

TEST_F(HttpEndpointTest, CompressesForClientsThatAcceptGzip) {
  HttpEndpoint endpoint("127.0.0.1:0");
  endpoint.serve_metrics(registry_);
  endpoint.start();
  const auto response = http(endpoint.port(), "/metrics", "GET", "gzip");
  ASSERT_EQ(response.code, CURLE_OK) << curl_easy_strerror(response.code);
  EXPECT_NE(response.headers.find("Content-Encoding: gzip"), std::string::npos) << response.headers;
  EXPECT_EQ(response.body, render_text(registry_));  // curl decoded it
}

TEST_F(HttpEndpointTest, HealthAndReadinessProbes) {
  HttpEndpoint endpoint("127.0.0.1:0");
  endpoint.serve_checks("/healthz", healthz_);
  endpoint.serve_checks("/readyz", readyz_);
  endpoint.start();
  const int port = endpoint.port();

  auto healthz = http(port, "/healthz");
  EXPECT_EQ(healthz.status, 200);
  EXPECT_EQ(healthz.body, "ok");
  EXPECT_EQ(healthz.content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(http(port, "/healthz?verbose").body, "[+]ping ok\nhealthz check passed\n");
  EXPECT_EQ(http(port, "/healthz/ping").body, "ok");

  auto readyz = http(port, "/readyz");
  EXPECT_EQ(readyz.status, 500);
  EXPECT_EQ(readyz.body, "[-]informers failed: reason withheld\nreadyz check failed\n");
  auto one = http(port, "/readyz/informers");
  EXPECT_EQ(one.status, 500);
  EXPECT_EQ(one.body, "internal server error: not synced");
  auto excluded = http(port, "/readyz?verbose&exclude=informers");
  EXPECT_EQ(excluded.status, 200);
  EXPECT_EQ(excluded.body, "[+]informers excluded: ok\nreadyz check passed\n");

  synced_ = true;
  EXPECT_EQ(http(port, "/readyz").status, 200);
  EXPECT_EQ(http(port, "/readyz?verbose=1").body, "[+]informers ok\nreadyz check passed\n");
  EXPECT_EQ(http(port, "/readyz/nope").status, 404);
}

TEST_F(HttpEndpointTest, UnknownPathsAre404) {
  HttpEndpoint endpoint("127.0.0.1:0");
  endpoint.serve_metrics(registry_);
  endpoint.serve_checks("/healthz", healthz_);
  endpoint.start();
  for (const char* path : {"/", "/metricsx", "/metrics/x", "/healthzz", "/favicon.ico"}) {
    const auto response = http(endpoint.port(), path);
    EXPECT_EQ(response.status, 404) << path;
    EXPECT_EQ(response.body, "404 page not found\n") << path;
  }
  const auto head = http(endpoint.port(), "/metrics", "HEAD");
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty());
}

TEST_F(HttpEndpointTest, MetricsAndProbesOnSeparatePorts) {
  HttpEndpoint metrics("127.0.0.1:0");
  metrics.serve_metrics(registry_);
  HttpEndpoint probes("127.0.0.1:0");
  probes.serve_checks("/healthz", healthz_);
  probes.serve_checks("/readyz", readyz_);
  metrics.start();
  probes.start();
  ASSERT_NE(metrics.port(), probes.port());
  EXPECT_EQ(http(metrics.port(), "/metrics").status, 200);
  EXPECT_EQ(http(metrics.port(), "/healthz").status, 404);
  EXPECT_EQ(http(probes.port(), "/healthz").status, 200);
  EXPECT_EQ(http(probes.port(), "/metrics").status, 404);
}

TEST_F(HttpEndpointTest, ZeroDisables) {
  HttpEndpoint endpoint("0");
  endpoint.serve_metrics(registry_);
  EXPECT_FALSE(endpoint.enabled());
  endpoint.start();
  EXPECT_EQ(endpoint.port(), 0);
  endpoint.stop();
}

TEST_F(HttpEndpointTest, RejectsMisuse) {
  EXPECT_THROW(HttpEndpoint("not-an-address"), std::invalid_argument);
  HttpEndpoint endpoint("127.0.0.1:0");
  EXPECT_THROW(endpoint.serve_metrics(registry_, "metrics"), std::invalid_argument);
  EXPECT_THROW(endpoint.serve_checks("/a b", healthz_), std::invalid_argument);
  endpoint.serve_metrics(registry_);
  endpoint.start();
  EXPECT_THROW(endpoint.serve_checks("/healthz", healthz_), std::logic_error);
  EXPECT_THROW(endpoint.start(), std::logic_error);
}

TEST_F(HttpEndpointTest, ATakenPortIsAnError) {
  HttpEndpoint first("127.0.0.1:0");
  first.serve_metrics(registry_);
  first.start();
  const std::string address = "127.0.0.1:" + std::to_string(first.port());
  HttpEndpoint second(address);
  try {
    second.start();
    FAIL() << "a second endpoint bound " << address;
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(address), std::string::npos) << e.what();
  }
  EXPECT_EQ(http(first.port(), "/metrics").status, 200);
}

TEST_F(HttpEndpointTest, StopIsPromptAndClosesThePort) {
  HttpEndpoint endpoint("127.0.0.1:0");
  endpoint.serve_metrics(registry_);
  endpoint.start();
  const int port = endpoint.port();
  ASSERT_EQ(http(port, "/metrics").status, 200);
  const auto started = std::chrono::steady_clock::now();
  endpoint.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(500));
  EXPECT_EQ(http(port, "/metrics").code, CURLE_COULDNT_CONNECT);
  endpoint.stop();  // idempotent
}

TEST_F(HttpEndpointTest, StopRightAfterStart) {
  for (int i = 0; i < 20; ++i) {
    HttpEndpoint endpoint("127.0.0.1:0");
    endpoint.serve_metrics(registry_);
    endpoint.start();
    endpoint.stop();
  }
}

TEST_F(HttpEndpointTest, AnIdleConnectionDelaysStopByAtMostTheKeepAliveTimeout) {
  HttpEndpoint endpoint("127.0.0.1:0");
  endpoint.serve_metrics(registry_);
  endpoint.start();
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(endpoint.port()));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  const auto started = std::chrono::steady_clock::now();
  endpoint.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(2500));
  ::close(fd);
}

}  // namespace
}  // namespace gpupool::metrics
