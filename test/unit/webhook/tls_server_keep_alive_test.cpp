// The webhook server's kept-alive connections, on 127.0.0.1: idle ones stay
// open longer than kube-apiserver keeps them (so it is always the client that
// closes one, never a server racing its next request), many requests go over
// one connection, and yet idle connections give way to a connection waiting
// for a thread and to stop(). Threads start as connections come.
#include <dirent.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "gpupool/webhook/certificates.h"
#include "gpupool/webhook/tls_server.h"
#include "https_client.h"
#include "raw_client.h"

namespace gpupool::webhook {
namespace {

using namespace std::chrono_literals;
using testing::RawClient;
using Clock = std::chrono::steady_clock;

const SubjectNames kNames{{"gpupool-webhook.gpupool-system.svc"}, {"127.0.0.1"}};
// Bounds on what must happen at once; far below the keep-alive timeout.
constexpr auto kPrompt = 10s;
constexpr auto kLongKeepAlive = 120s;

TlsServerOptions kept_alive(std::size_t threads) {
  TlsServerOptions o;
  o.host = "127.0.0.1";
  o.port = 0;
  o.worker_threads = threads;
  o.keep_alive_timeout = std::chrono::duration_cast<std::chrono::seconds>(kLongKeepAlive);
  return o;
}

HttpResponse ok(const HttpRequest&) { return {200, "application/json", "{}"}; }

std::string request() {
  return "POST /validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
}

// Sends request() and reads its whole answer (the handler's is "{}").
::testing::AssertionResult answered(RawClient& c) {
  const auto deadline = Clock::now() + kPrompt;
  if (!c.send(request(), deadline)) return ::testing::AssertionFailure() << "could not send";
  std::string answer;
  while (!(answer.find("\r\n\r\n") != std::string::npos && answer.ends_with("{}"))) {
    const auto r = c.read_until_closed(deadline, 1);
    answer += r.bytes;
    if (r.closed || Clock::now() >= deadline) return ::testing::AssertionFailure() << "no whole answer: " << answer;
  }
  if (!answer.starts_with("HTTP/1.1 200 ")) return ::testing::AssertionFailure() << "answered: " << answer;
  return ::testing::AssertionSuccess();
}

// A kept-alive connection that has had one request answered (200).
::testing::AssertionResult answered_once(RawClient& c) {
  if (!c.start_tls(Clock::now() + kPrompt)) return ::testing::AssertionFailure() << "no handshake";
  return answered(c);
}

std::size_t threads_of_this_process() {
  std::size_t n = 0;
  if (DIR* d = ::opendir("/proc/self/task")) {
    while (const dirent* e = ::readdir(d)) n += e->d_name[0] != '.';
    ::closedir(d);
  }
  return n;
}

class WebhookTlsServerKeepAliveTest : public ::testing::Test {
 protected:
  void start(std::size_t threads) {
    TlsServerOptions options = kept_alive(threads);
    options.on_connection = [this] { accepted_.fetch_add(1); };
    server_ = std::make_unique<TlsServer>(options, bundle_.cert_pem, bundle_.key_pem);
    server_->handle_post("/validate", ok);
    server_->start();
  }

  const CertificateBundle bundle_ = generate_bundle(kNames);
  std::atomic<int> accepted_{0};  // declared before the server: outlives its threads
  std::unique_ptr<TlsServer> server_;
};

TEST_F(WebhookTlsServerKeepAliveTest, IdleConnectionsOutliveKubeApiserversOwnIdleTimeout) {
  // client-go's transport (kube-apiserver's webhook client) drops idle
  // connections after 90 s (net/http's DefaultTransport.IdleConnTimeout).
  EXPECT_GT(TlsServerOptions{}.keep_alive_timeout, 90s);
}

TEST_F(WebhookTlsServerKeepAliveTest, ManyRequestsGoOverOneConnection) {
  start(4);
  testing::HttpsClient kept(bundle_.ca_cert_pem, {}, /*reuse=*/true);
  int connections = 0;
  for (int i = 0; i < 12; ++i) {
    const auto r = kept.post(server_->port(), "/validate", "{}");
    ASSERT_TRUE(r.ok()) << i << ": " << r.status << " " << r.error;
    connections += r.new_connection;
  }
  // httplib's default closes a connection every 5 requests.
  EXPECT_EQ(connections, 1);
  EXPECT_EQ(accepted_.load(), 1);
}

// Two threads, both held by idle kept-alive connections: a third connection
// is served at once, by ending the one idle longest; the other stays.
TEST_F(WebhookTlsServerKeepAliveTest, AConnectionWaitingForAThreadEndsTheOneIdleLongest) {
  start(2);
  RawClient first(server_->port());
  ASSERT_TRUE(answered_once(first));
  RawClient second(server_->port());
  ASSERT_TRUE(answered_once(second));

  const auto start = Clock::now();
  const auto third = testing::https_post(server_->port(), bundle_.ca_cert_pem, "/validate", "{}");
  EXPECT_TRUE(third.ok()) << third.status << " " << third.error;
  EXPECT_LT(Clock::now() - start, kPrompt);

  EXPECT_TRUE(first.read_until_closed(Clock::now() + kPrompt).closed) << "the connection idle longest was kept";
  EXPECT_TRUE(answered(second)) << "the connection idle for less time was ended";
}

TEST_F(WebhookTlsServerKeepAliveTest, StopEndsIdleConnectionsAtOnce) {
  start(4);
  RawClient idle(server_->port());
  ASSERT_TRUE(answered_once(idle));
  const auto start = Clock::now();
  server_->stop();
  EXPECT_LT(Clock::now() - start, kPrompt) << "stop() waited for the idle connection";
  EXPECT_TRUE(idle.read_until_closed(Clock::now() + kPrompt).closed);
}

TEST_F(WebhookTlsServerKeepAliveTest, ThreadsStartAsConnectionsCome) {
  const std::size_t before = threads_of_this_process();
  start(TlsServerOptions{}.worker_threads);
  // The accept loop and the connection watchdog; no worker yet.
  EXPECT_LE(threads_of_this_process(), before + 2);

  std::vector<std::unique_ptr<RawClient>> clients;
  for (int i = 0; i < 6; ++i) {
    clients.push_back(std::make_unique<RawClient>(server_->port()));
    ASSERT_TRUE(answered_once(*clients.back())) << i;
  }
  // Each kept-alive connection holds a thread of its own.
  EXPECT_GE(threads_of_this_process(), before + 2 + 6);
}

}  // namespace
}  // namespace gpupool::webhook
