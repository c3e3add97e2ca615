// The fault proxy end to end, with the scripted TLS server as the upstream and
// the project's libcurl transport as the client.
#include "gpupool/faultproxy/fault_proxy.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gpupool/kube/errors.h"
#include "gpupool/kube/http.h"
#include "gpupool/netutil/socket_stream.h"
#include "gpupool/netutil/tcp.h"
#include "gpupool/netutil/tls_certs.h"
#include "gpupool/netutil/tls_context.h"
#include "support/kube_test_helpers.h"
#include "support/scripted_server.h"

namespace gpupool::faultproxy {
namespace {

using namespace std::chrono_literals;
using test::ScriptedServer;
using test::Step;

constexpr auto kDeadline = 10s;

const std::string kEvent1 = test::watch_event_json("ADDED", R"({"metadata":{"name":"a","resourceVersion":"1"}})");
const std::string kEvent2 = test::watch_event_json("MODIFIED", R"({"metadata":{"name":"a","resourceVersion":"2"}})");

// A watch answer: the first event, then the stream stays open until release().
Step held_watch() {
  Step s;
  s.query_contains = "watch=true";
  s.body = kEvent1;
  s.hold_open = true;
  return s;
}

// A stream read on its own thread, for watching it from the test.
class BackgroundStream {
 public:
  BackgroundStream(std::shared_ptr<kube::HttpTransport> http, std::string url) {
    thread_ = std::thread([this, http = std::move(http), url = std::move(url)] {
      kube::StreamHandler handler;
      handler.on_data = [this](std::string_view chunk) {
        std::lock_guard lock(mu_);
        data_.append(chunk);
        return true;
      };
      try {
        const int status = http->stream({"GET", url, {}, "", 0ms}, handler);
        std::lock_guard lock(mu_);
        status_ = status;
      } catch (const kube::TransportError& e) {
        std::lock_guard lock(mu_);
        error_ = e.what();
      }
      done_ = true;
    });
  }
  ~BackgroundStream() { join(); }
  void join() {
    if (thread_.joinable()) thread_.join();
  }
  std::string data() const {
    std::lock_guard lock(mu_);
    return data_;
  }
  bool done() const { return done_; }
  std::optional<int> status() const {
    std::lock_guard lock(mu_);
    return status_;
  }
  std::string error() const {
    std::lock_guard lock(mu_);
    return error_;
  }

 private:
  mutable std::mutex mu_;
  std::string data_;
  std::optional<int> status_;
  std::string error_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

class FaultProxyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    upstream_.set_default(test::json_step(200, R"({"kind":"Status","status":"Success"})"));
    proxy_ = make_proxy();
    http_ = new_client();
  }

  std::unique_ptr<FaultProxy> make_proxy(std::uint64_t seed = 1, std::string control = "") {
    Options o;
    o.upstream_url = upstream_.url();
    o.upstream_ca_pem = upstream_.ca_pem();
    o.cert_pem = certs_.server_cert_pem;
    o.key_pem = certs_.server_key_pem;
    o.seed = seed;
    o.control_listen = std::move(control);
    return std::make_unique<FaultProxy>(o);
  }

  // A client with its own connections, trusting the proxy's certificate.
  std::shared_ptr<kube::HttpTransport> new_client() const {
    kube::RestConfig config;
    config.tls.ca_pem = certs_.ca_pem;
    return kube::make_curl_transport(config);
  }

  // Sends `bytes` on a new connection (TLS or not), half-closes it when told
  // (the proxy takes that as the client leaving) and returns everything the
  // proxy answered until it closed.
  std::string raw_exchange(const std::string& bytes, bool use_tls, bool half_close = true) {
    auto tls = netutil::make_client_tls_context(certs_.ca_pem);
    std::string error;
    const int fd = netutil::connect_tcp("127.0.0.1", proxy_->port(), 5s, &error);
    EXPECT_GE(fd, 0) << error;
    if (fd < 0) return "";
    netutil::set_read_timeout(fd, 5s);
    std::string answer;
    {
      netutil::SocketStream s(fd, use_tls ? tls.get() : nullptr);
      if (s.connect_handshake("127.0.0.1") && s.write_all(bytes)) {
        if (half_close) ::shutdown(fd, SHUT_WR);
        while (s.read_some(answer)) {
        }
      }
    }
    ::close(fd);
    return answer;
  }

  kube::HttpResponse get(const std::string& path, kube::HttpTransport* http = nullptr) {
    return (http != nullptr ? http : http_.get())->send({"GET", proxy_->url() + path, {}, "", 10s});
  }

  ScriptedServer upstream_{ScriptedServer::Options{.tls = true}};
  netutil::TestCertificates certs_ = netutil::make_test_certificates();
  std::unique_ptr<FaultProxy> proxy_;
  std::shared_ptr<kube::HttpTransport> http_;
};

TEST_F(FaultProxyTest, PassesRequestsAndAnswersThroughUnchanged) {
  EXPECT_EQ(proxy_->url(), "https://127.0.0.1:" + std::to_string(proxy_->port()));
  Step answer = test::json_step(201, R"({"kind":"ConfigMap","metadata":{"name":"c"}})");
  answer.headers = {{"Audit-Id", "abc-123"}, {"X-Answer", "yes"}};
  upstream_.enqueue(answer);
  const std::string body = R"({"kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"v"}})";
  const auto r = http_->send({"POST", proxy_->url() + "/api/v1/namespaces/a/configmaps?fieldManager=t",
                              {{"Content-Type", "application/json"}, {"X-Request", "r1"}}, body, 10s});
  EXPECT_EQ(r.status, 201);
  EXPECT_EQ(r.http_major, 1);
  EXPECT_EQ(r.body, answer.body);
  EXPECT_EQ(r.headers.at("audit-id"), "abc-123");
  EXPECT_EQ(r.headers.at("x-answer"), "yes");
  EXPECT_EQ(r.headers.at("content-type"), "application/json");
  EXPECT_EQ(r.headers.count("x-fault-proxy"), 0u);

  const auto seen = upstream_.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].target, "/api/v1/namespaces/a/configmaps?fieldManager=t");
  EXPECT_EQ(seen[0].body, body);
  EXPECT_EQ(seen[0].headers.at("x-request"), "r1");
  EXPECT_EQ(seen[0].headers.at("content-type"), "application/json");
  EXPECT_EQ(seen[0].headers.at("content-length"), std::to_string(body.size()));

  const Stats s = proxy_->stats();
  EXPECT_EQ(s.requests, 1u);
  EXPECT_EQ(s.forwarded, 1u);
  EXPECT_EQ(s.injected, 0u);
}

TEST_F(FaultProxyTest, KeepsConnectionsAliveOnBothSides) {
  Step no_content;
  no_content.status = 204;
  upstream_.enqueue(no_content);
  EXPECT_EQ(get("/a").status, 204);
  const auto third = get("/c");
  EXPECT_EQ(third.status, 200);
  EXPECT_EQ(third.new_connections, 0);
  EXPECT_EQ(upstream_.connection_count(), 1u);
  EXPECT_EQ(proxy_->stats().connections, 1u);
  EXPECT_EQ(proxy_->stats().open_connections, 1u);
}

TEST_F(FaultProxyTest, RelaysPipelinedRequestsAndHeadAnswers) {
  const std::string answer = raw_exchange(
      "HEAD /h HTTP/1.1\r\nHost: x\r\n\r\nGET /g HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", true,
      false);
  const std::string body = R"({"kind":"Status","status":"Success"})";
  // HEAD: the head only (announcing the length); GET: head and body; then the close.
  ASSERT_EQ(answer.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << answer;
  const auto second = answer.find("HTTP/1.1 200 OK\r\n", 1);
  ASSERT_NE(second, std::string::npos) << answer;
  EXPECT_EQ(answer.find(body), answer.size() - body.size()) << answer;
  EXPECT_NE(answer.find("Connection: close\r\n", second), std::string::npos) << answer;
  const auto seen = upstream_.requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].method, "HEAD");
  EXPECT_EQ(seen[1].method, "GET");
  EXPECT_EQ(upstream_.connection_count(), 1u);
}

TEST_F(FaultProxyTest, RelaysAWatchStreamEventByEvent) {
  Step watch = held_watch();
  watch.chunks = {kEvent2};
  upstream_.enqueue(watch);
  BackgroundStream stream(http_, proxy_->url() + "/api/v1/pods?watch=true");
  // Both events arrive while the upstream still holds the stream open.
  test::wait_for(kDeadline, [&] { return stream.data() == kEvent1 + kEvent2; }, "both watch events");
  EXPECT_FALSE(stream.done());
  upstream_.release();
  stream.join();
  EXPECT_EQ(stream.status(), 200);
  EXPECT_EQ(stream.error(), "");
  // The same connection serves the next request.
  EXPECT_EQ(get("/after").status, 200);
  EXPECT_EQ(upstream_.connection_count(), 1u);
}

TEST_F(FaultProxyTest, CutConnectionsEndsAnOpenWatchMidStream) {
  upstream_.enqueue(held_watch());
  BackgroundStream stream(http_, proxy_->url() + "/api/v1/pods?watch=true");
  test::wait_for(kDeadline, [&] { return stream.data() == kEvent1; }, "the first watch event");
  EXPECT_EQ(proxy_->cut_connections(), 1u);
  stream.join();
  EXPECT_FALSE(stream.status().has_value());
  EXPECT_NE(stream.error(), "") << "the client must see a transfer error";
  EXPECT_EQ(proxy_->stats().cut, 1u);
  test::wait_for(kDeadline, [&] { return proxy_->stats().open_connections == 0; }, "the cut connection to close");
  // New connections are served as before.
  EXPECT_EQ(get("/after").status, 200);
}

TEST_F(FaultProxyTest, ErrorShareWithASeedIsDeterministic) {
  auto sequence = [&](std::uint64_t seed) {
    proxy_ = make_proxy(seed);
    proxy_->set_error_share(500, 0.5);
    auto http = new_client();
    std::vector<int> out;
    for (int i = 0; i < 24; ++i) out.push_back(get("/api/v1/pods", http.get()).status);
    return out;
  };
  const auto first = sequence(42);
  EXPECT_EQ(sequence(42), first);
  EXPECT_NE(sequence(7), first);
  for (std::size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i], FaultPlan::draw(42, i) < 0.5 ? 500 : 200) << "request " << i;
  }
}

TEST_F(FaultProxyTest, InjectedTooManyRequestsCarriesRetryAfter) {
  proxy_->fail_next(429, 1);
  const auto r = get("/api/v1/namespaces/ns/pods");
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.headers.at("retry-after"), "1");
  EXPECT_EQ(r.headers.at("x-fault-proxy"), "injected");
  EXPECT_NE(r.body.find(R"("reason":"TooManyRequests")"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(R"("retryAfterSeconds":1)"), std::string::npos) << r.body;
  EXPECT_TRUE(upstream_.requests().empty()) << "an injected error never reaches the upstream";
  EXPECT_EQ(get("/api/v1/namespaces/ns/pods").status, 200);
  const Stats s = proxy_->stats();
  EXPECT_EQ(s.injected, 1u);
  EXPECT_EQ(s.forwarded, 1u);
  EXPECT_EQ(s.connections, 1u) << "an injected error keeps the connection alive";
}

TEST_F(FaultProxyTest, FailNextAppliesToMatchingRequestsOnly) {
  proxy_->fail_next(409, 2, {.method = "PUT", .path_prefix = "/apis/"});
  EXPECT_EQ(get("/apis/x/v1/things/t").status, 200);
  const auto put = [&] { return http_->send({"PUT", proxy_->url() + "/apis/x/v1/things/t", {}, "{}", 10s}); };
  const auto conflict = put();
  EXPECT_EQ(conflict.status, 409);
  EXPECT_NE(conflict.body.find(R"(Operation cannot be fulfilled on things.x \"t\")"), std::string::npos)
      << conflict.body;
  EXPECT_EQ(put().status, 409);
  EXPECT_EQ(put().status, 200);
}

TEST_F(FaultProxyTest, DelayIsAppliedToEveryRequest) {
  proxy_->set_delay(300ms);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(get("/slow").status, 200);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 300ms);
  EXPECT_EQ(proxy_->stats().delayed, 1u);
  proxy_->reset();
  EXPECT_EQ(get("/fast").status, 200);
  EXPECT_EQ(proxy_->stats().delayed, 1u);
}

TEST_F(FaultProxyTest, RefuseForRefusesThenRecovers) {
  EXPECT_EQ(get("/before").status, 200);
  const auto start = std::chrono::steady_clock::now();
  proxy_->refuse_for(800ms);
  try {
    get("/during", new_client().get());
    ADD_FAILURE() << "a connection during the refusal must fail";
  } catch (const kube::TransportError& e) {
    EXPECT_EQ(e.kind(), kube::TransportError::Kind::Connect) << e.what();
  }
  test::wait_for(kDeadline, [&] { return get("/after", new_client().get()).status == 200; }, "serving again");
  EXPECT_GE(std::chrono::steady_clock::now() - start, 800ms);
  EXPECT_GE(proxy_->stats().cut, 1u) << "the open connection was cut";
  EXPECT_EQ(proxy_->url(), "https://127.0.0.1:" + std::to_string(proxy_->port())) << "the port stays";

  proxy_->refuse_for(10min);
  EXPECT_THROW(get("/during", new_client().get()), kube::TransportError);
  proxy_->reset();  // ends the refusal early
  EXPECT_EQ(get("/after-reset", new_client().get()).status, 200);
}

TEST_F(FaultProxyTest, CutRulesCutBeforeOrDuringTheResponse) {
  proxy_->add_rule({{}, Fault::cut(), 1});
  EXPECT_THROW(get("/a", new_client().get()), kube::TransportError);
  EXPECT_TRUE(upstream_.requests().empty());

  upstream_.enqueue(test::json_step(200, R"({"items":")" + std::string(5000, 'x') + R"("})"));
  proxy_->add_rule({{}, Fault::cut(300), 1});
  EXPECT_THROW(get("/b", new_client().get()), kube::TransportError);
  EXPECT_EQ(upstream_.requests().size(), 1u);
  EXPECT_EQ(proxy_->stats().cut, 2u);
  EXPECT_EQ(get("/c").status, 200);
}

TEST_F(FaultProxyTest, UnreachableOrUntrustedUpstreamGets502) {
  int port = 0;
  ::close(netutil::listen_tcp("127.0.0.1", 0, 1, &port));  // a port nobody listens on
  Options o;
  o.upstream_url = "https://127.0.0.1:" + std::to_string(port);
  o.upstream_ca_pem = upstream_.ca_pem();
  o.cert_pem = certs_.server_cert_pem;
  o.key_pem = certs_.server_key_pem;
  proxy_ = std::make_unique<FaultProxy>(o);
  auto r = get("/x");
  EXPECT_EQ(r.status, 502);
  EXPECT_EQ(r.headers.at("x-fault-proxy"), "error");

  o.upstream_url = upstream_.url();
  o.upstream_ca_pem = certs_.ca_pem;  // not the CA that signed the upstream's certificate
  proxy_ = std::make_unique<FaultProxy>(o);
  r = get("/x", new_client().get());
  EXPECT_EQ(r.status, 502);
  EXPECT_NE(r.body.find("certificate"), std::string::npos) << r.body;
  EXPECT_EQ(proxy_->stats().upstream_errors, 1u);
}

TEST_F(FaultProxyTest, SurvivesMalformedInput) {
  EXPECT_EQ(raw_exchange("BAD REQUEST LINE\r\n\r\n", true).rfind("HTTP/1.1 400 ", 0), 0u);
  std::mt19937 random(3);
  for (int i = 0; i < 20; ++i) {
    std::string junk(static_cast<std::size_t>(random() % 3000), '\0');
    for (char& c : junk) c = static_cast<char>(random());
    raw_exchange(junk, i % 2 == 0);  // garbage inside TLS, and garbage instead of TLS
  }
  EXPECT_EQ(get("/still-fine").status, 200);
}

TEST_F(FaultProxyTest, ControlPortDrivesTheProxy) {
  proxy_ = make_proxy(1, "127.0.0.1:0");
  ASSERT_NE(proxy_->control_port(), 0);
  auto control = kube::make_curl_transport(kube::RestConfig{});
  auto call = [&](const std::string& method, const std::string& path) {
    return control->send({method, proxy_->control_url() + path, {}, "", 10s});
  };
  auto r = call("POST", "/errors?status=500&share=1");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "{\"ok\":true}\n");
  EXPECT_EQ(get("/x").status, 500);
  r = call("GET", "/stats");
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.body.find(R"("injected":1)"), std::string::npos) << r.body;
  EXPECT_EQ(call("POST", "/reset").status, 200);
  EXPECT_EQ(get("/x").status, 200);

  EXPECT_EQ(call("POST", "/fail-next?status=429&count=1&path_prefix=%2Fapis").status, 200);
  EXPECT_EQ(get("/api/v1/x").status, 200);
  EXPECT_EQ(get("/apis/x").status, 429);
  EXPECT_EQ(call("POST", "/next?count=1&delay_ms=200").status, 200);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(get("/x").status, 200);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 200ms);

  r = call("POST", "/cut");
  EXPECT_EQ(r.body, "{\"cut\":1}\n");
  EXPECT_EQ(call("POST", "/errors?status=abc&share=1").status, 400);
  EXPECT_EQ(call("POST", "/errors?status=500").status, 400);
  EXPECT_EQ(call("POST", "/delay?ms=-1").status, 400);
  EXPECT_EQ(call("POST", "/nope").status, 404);
  EXPECT_EQ(call("GET", "/cut").status, 405);
  EXPECT_EQ(call("POST", "/refuse?ms=0").status, 200);
  EXPECT_EQ(call("POST", "/seed?value=9").status, 200);
  EXPECT_EQ(call("GET", "/healthz").body, "{\"ok\":true}\n");
}

TEST_F(FaultProxyTest, StopEndsOpenStreamsAndJoins) {
  upstream_.enqueue(held_watch());
  BackgroundStream stream(http_, proxy_->url() + "/api/v1/pods?watch=true");
  test::wait_for(kDeadline, [&] { return stream.data() == kEvent1; }, "the first watch event");
  proxy_->stop();
  stream.join();
  EXPECT_NE(stream.error(), "");
  proxy_->stop();  // idempotent
}

TEST_F(FaultProxyTest, ServesPlainHttpWithoutACertificate) {
  Options o;
  o.upstream_url = upstream_.url();
  o.upstream_ca_pem = upstream_.ca_pem();
  proxy_ = std::make_unique<FaultProxy>(o);
  EXPECT_EQ(proxy_->url().rfind("http://", 0), 0u);
  EXPECT_EQ(get("/plain").status, 200);
}

TEST_F(FaultProxyTest, RejectsBadOptions) {
  Options o;
  o.upstream_url = "ftp://x";
  EXPECT_THROW(FaultProxy{o}, std::invalid_argument);
  o.upstream_url = upstream_.url();
  EXPECT_THROW(FaultProxy{o}, std::invalid_argument) << "https upstream without a CA";
  o.upstream_ca_pem = upstream_.ca_pem();
  o.cert_pem = certs_.server_cert_pem;
  EXPECT_THROW(FaultProxy{o}, std::invalid_argument) << "certificate without key";
  o.key_pem = "not a key";
  EXPECT_THROW(FaultProxy{o}, std::invalid_argument);
  o.key_pem = certs_.server_key_pem;
  o.listen = "nonsense";
  EXPECT_THROW(FaultProxy{o}, std::invalid_argument);
}

}  // namespace
}  // namespace gpupool::faultproxy
