// The scripted test server, driven by libcurl as a client.
#include "support/scripted_server.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace gpupool::test {
namespace {

using namespace std::chrono_literals;

constexpr auto kDeadline = 10s;

struct RequestSpec {
  std::string url;
  std::string method = "GET";
  std::vector<std::string> headers;
  std::optional<std::string> body;
  bool chunked_upload = false;  // send the body with Transfer-Encoding: chunked
  std::string ca_pem;           // empty: curl's default trust store
  bool http2 = false;           // offer h2 via ALPN
  long timeout_ms = 10000;
  std::vector<std::string> resolve;               // CURLOPT_RESOLVE entries
  std::function<void(std::string_view)> on_data;  // called for each delivery
};

struct Transfer {
  CURLcode code = CURLE_OK;
  long status = 0;
  std::string body;
  std::vector<std::string> deliveries;        // body as the write callback saw it
  std::map<std::string, std::string> headers;  // names lower-cased
  long new_connections = 0;
  long http_version = 0;
};

// One curl easy handle: its connection cache survives between perform() calls.
class Client {
 public:
  Client() : handle_(curl_easy_init()) {}
  ~Client() { curl_easy_cleanup(handle_); }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  Transfer perform(const RequestSpec& spec) {
    curl_easy_reset(handle_);
    Context ctx{&spec, {}, 0};
    curl_slist* headers = nullptr;
    for (const auto& h : spec.headers) headers = curl_slist_append(headers, h.c_str());
    if (spec.chunked_upload) headers = curl_slist_append(headers, "Transfer-Encoding: chunked");
    curl_slist* resolve = nullptr;
    for (const auto& r : spec.resolve) resolve = curl_slist_append(resolve, r.c_str());

    curl_easy_setopt(handle_, CURLOPT_URL, spec.url.c_str());
    curl_easy_setopt(handle_, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(handle_, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(handle_, CURLOPT_TIMEOUT_MS, spec.timeout_ms);
    curl_easy_setopt(handle_, CURLOPT_HTTP_VERSION,
                     spec.http2 ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(handle_, CURLOPT_CUSTOMREQUEST, spec.method.c_str());
    curl_easy_setopt(handle_, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(handle_, CURLOPT_RESOLVE, resolve);
    curl_easy_setopt(handle_, CURLOPT_WRITEFUNCTION, &Client::on_write);
    curl_easy_setopt(handle_, CURLOPT_WRITEDATA, &ctx);
    curl_easy_setopt(handle_, CURLOPT_HEADERFUNCTION, &Client::on_header);
    curl_easy_setopt(handle_, CURLOPT_HEADERDATA, &ctx);
    if (spec.body && spec.chunked_upload) {
      curl_easy_setopt(handle_, CURLOPT_POST, 1L);
      curl_easy_setopt(handle_, CURLOPT_READFUNCTION, &Client::on_read);
      curl_easy_setopt(handle_, CURLOPT_READDATA, &ctx);
    } else if (spec.body) {
      curl_easy_setopt(handle_, CURLOPT_POSTFIELDS, spec.body->c_str());
      curl_easy_setopt(handle_, CURLOPT_POSTFIELDSIZE, static_cast<long>(spec.body->size()));
    }
    curl_blob ca{};
    if (!spec.ca_pem.empty()) {
      ca.data = const_cast<char*>(spec.ca_pem.data());
      ca.len = spec.ca_pem.size();
      ca.flags = CURL_BLOB_COPY;
      curl_easy_setopt(handle_, CURLOPT_CAINFO_BLOB, &ca);
    }

    ctx.result.code = curl_easy_perform(handle_);
    curl_easy_getinfo(handle_, CURLINFO_RESPONSE_CODE, &ctx.result.status);
    curl_easy_getinfo(handle_, CURLINFO_NUM_CONNECTS, &ctx.result.new_connections);
    curl_easy_getinfo(handle_, CURLINFO_HTTP_VERSION, &ctx.result.http_version);
    curl_slist_free_all(headers);
    curl_slist_free_all(resolve);
    return std::move(ctx.result);
  }

 private:
  struct Context {
    const RequestSpec* spec;
    Transfer result;
    std::size_t uploaded;
  };

  static std::size_t on_write(char* data, std::size_t size, std::size_t count, void* user) {
    auto* ctx = static_cast<Context*>(user);
    const std::string_view piece(data, size * count);
    ctx->result.body.append(piece);
    ctx->result.deliveries.emplace_back(piece);
    if (ctx->spec->on_data) ctx->spec->on_data(piece);
    return size * count;
  }

  static std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
    auto* ctx = static_cast<Context*>(user);
    std::string_view line(data, size * count);
    const auto colon = line.find(':');
    if (colon != std::string_view::npos) {
      std::string name(line.substr(0, colon));
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && (value.front() == ' ')) value.remove_prefix(1);
      while (!value.empty() && (value.back() == '\r' || value.back() == '\n')) value.remove_suffix(1);
      ctx->result.headers[name] = std::string(value);
    }
    return size * count;
  }

  // Uploads the body in pieces of at most 7 bytes, to exercise chunk parsing.
  static std::size_t on_read(char* buffer, std::size_t size, std::size_t count, void* user) {
    auto* ctx = static_cast<Context*>(user);
    const std::string& body = *ctx->spec->body;
    const std::size_t n = std::min({size * count, body.size() - ctx->uploaded, std::size_t{7}});
    body.copy(buffer, n, ctx->uploaded);
    ctx->uploaded += n;
    return n;
  }

  CURL* handle_;
};

Transfer fetch(const RequestSpec& spec) {
  Client client;
  return client.perform(spec);
}

RequestSpec get(const std::string& url) {
  RequestSpec spec;
  spec.url = url;
  return spec;
}

// Runs a transfer on its own thread, for answers that stay open.
class BackgroundTransfer {
 public:
  BackgroundTransfer(ScriptedServer& server, RequestSpec spec) : server_(server) {
    spec.on_data = [this](std::string_view d) {
      std::lock_guard lock(mu_);
      received_.append(d);
      cv_.notify_all();
    };
    thread_ = std::thread([this, spec = std::move(spec)] {
      Transfer t = fetch(spec);
      std::lock_guard lock(mu_);
      result_ = std::move(t);
      done_ = true;
      cv_.notify_all();
    });
  }
  // Stops the server first so that a failed assertion never leaves the thread blocked.
  ~BackgroundTransfer() {
    server_.stop();
    thread_.join();
  }

  bool wait_received(std::size_t bytes) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, kDeadline, [&] { return received_.size() >= bytes || done_; }) &&
           received_.size() >= bytes;
  }
  bool done() {
    std::lock_guard lock(mu_);
    return done_;
  }
  std::optional<Transfer> wait_done() {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, kDeadline, [&] { return done_; })) return std::nullopt;
    return result_;
  }

 private:
  ScriptedServer& server_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string received_;
  bool done_ = false;
  Transfer result_;
  std::thread thread_;
};

bool is_cut(CURLcode code) { return code == CURLE_PARTIAL_FILE || code == CURLE_RECV_ERROR; }

// Sends raw bytes on a fresh connection and reads until the server closes.
std::string raw_exchange(int port, const std::string& bytes) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  timeval tv{};
  tv.tv_sec = 10;
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  std::string answer;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size())) {
    char buf[4096];
    ssize_t n = 0;
    while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) answer.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return answer;
}

// ---- plain HTTP ----------------------------------------------------------------

TEST(ScriptedServer, AnswersWithTheDefault404Status) {
  ScriptedServer server;
  EXPECT_EQ(server.url(), "http://127.0.0.1:" + std::to_string(server.port()));
  const Transfer t = fetch(get(server.url() + "/api/v1/nothing"));
  ASSERT_EQ(t.code, CURLE_OK);
  EXPECT_EQ(t.status, 404);
  EXPECT_EQ(t.headers.at("content-type"), "application/json");
  EXPECT_EQ(t.body, status_json(404, "NotFound", "the server could not find the requested resource"));
  EXPECT_NE(t.body.find(R"("kind":"Status")"), std::string::npos);
  EXPECT_NE(t.body.find(R"("code":404)"), std::string::npos);
}

TEST(ScriptedServer, RecordsMethodPathQueryHeadersAndBody) {
  ScriptedServer server;
  server.enqueue(json_step(201, R"({"kind":"Pod"})"));
  RequestSpec spec;
  spec.url = server.url() + "/api/v1/namespaces/ns/pods?fieldManager=test&dryRun=All";
  spec.method = "POST";
  spec.headers = {"Content-Type: application/json", "X-Custom: Value 1"};
  spec.body = R"({"metadata":{"name":"p"}})";
  const Transfer t = fetch(spec);
  ASSERT_EQ(t.code, CURLE_OK);
  EXPECT_EQ(t.status, 201);
  EXPECT_EQ(t.body, R"({"kind":"Pod"})");

  ASSERT_TRUE(server.wait_for_requests(1, kDeadline));
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  const RecordedRequest& r = requests[0];
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.target, "/api/v1/namespaces/ns/pods?fieldManager=test&dryRun=All");
  EXPECT_EQ(r.path, "/api/v1/namespaces/ns/pods");
  EXPECT_EQ(r.query, "fieldManager=test&dryRun=All");
  EXPECT_EQ(r.headers.at("content-type"), "application/json");
  EXPECT_EQ(r.headers.at("x-custom"), "Value 1");
  EXPECT_EQ(r.headers.at("content-length"), std::to_string(spec.body->size()));
  EXPECT_EQ(r.body, *spec.body);
}

TEST(ScriptedServer, DecodesChunkedRequestBodies) {
  ScriptedServer server;
  RequestSpec spec;
  spec.url = server.url() + "/apis/x/v1/things";
  spec.method = "PATCH";
  spec.body = std::string(100, 'x') + "-end";
  spec.chunked_upload = true;
  const Transfer t = fetch(spec);
  ASSERT_EQ(t.code, CURLE_OK);
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "PATCH");
  EXPECT_EQ(requests[0].headers.at("transfer-encoding"), "chunked");
  EXPECT_EQ(requests[0].body, *spec.body);
}

TEST(ScriptedServer, AnswersExpectContinue) {
  ScriptedServer server;
  RequestSpec spec;
  spec.url = server.url() + "/upload";
  spec.method = "PUT";
  spec.headers = {"Expect: 100-continue"};
  spec.body = std::string(4096, 'b');
  const Transfer t = fetch(spec);
  ASSERT_EQ(t.code, CURLE_OK);
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(server.requests()[0].body, *spec.body);
}

TEST(ScriptedServer, ReusesOneConnectionForSeveralRequests) {
  ScriptedServer server;
  server.enqueue(json_step(200, "first"));
  server.enqueue(json_step(200, "second"));
  Client client;
  const Transfer a = client.perform(get(server.url() + "/a"));
  const Transfer b = client.perform(get(server.url() + "/b"));
  ASSERT_EQ(a.code, CURLE_OK);
  ASSERT_EQ(b.code, CURLE_OK);
  EXPECT_EQ(a.body, "first");
  EXPECT_EQ(b.body, "second");
  EXPECT_EQ(a.new_connections, 1);
  EXPECT_EQ(b.new_connections, 0);
  EXPECT_EQ(server.connection_count(), 1u);
}

TEST(ScriptedServer, CloseAfterEndsTheConnection) {
  ScriptedServer server;
  Step closing = json_step(200, "bye");
  closing.close_after = true;
  server.enqueue(closing);
  Client client;
  const Transfer a = client.perform(get(server.url() + "/a"));
  EXPECT_EQ(a.headers.at("connection"), "close");
  const Transfer b = client.perform(get(server.url() + "/b"));
  ASSERT_EQ(a.code, CURLE_OK);
  ASSERT_EQ(b.code, CURLE_OK);
  EXPECT_EQ(b.new_connections, 1);
  EXPECT_EQ(server.connection_count(), 2u);
}

TEST(ScriptedServer, ConsumesStepsInOrderAndByMatchers) {
  ScriptedServer server;
  Step apis = json_step(200, "apis");
  apis.path_prefix = "/apis/";
  Step watch = json_step(200, "watch");
  watch.query_contains = "watch=true";
  Step post = json_step(201, "post");
  post.method = "POST";
  server.enqueue(apis);
  server.enqueue(watch);
  server.enqueue(json_step(200, "any-1"));
  server.enqueue(post);
  server.enqueue(json_step(200, "any-2"));

  Client client;
  // "/api/v1/pods" skips the /apis/ step and takes the first step it matches.
  EXPECT_EQ(client.perform(get(server.url() + "/api/v1/pods?watch=true")).body, "watch");
  EXPECT_EQ(client.perform(get(server.url() + "/api/v1/pods")).body, "any-1");
  EXPECT_EQ(client.perform(get(server.url() + "/apis/apps/v1/deployments")).body, "apis");
  RequestSpec post_spec = get(server.url() + "/api/v1/pods");
  post_spec.method = "POST";
  post_spec.body = "{}";
  EXPECT_EQ(client.perform(post_spec).body, "post");
  EXPECT_EQ(client.perform(get(server.url() + "/x")).body, "any-2");
  EXPECT_EQ(server.pending_steps(), 0u);
  // Queue empty: the default answers.
  EXPECT_EQ(client.perform(get(server.url() + "/x")).status, 404);
  server.set_default(json_step(200, "fallback"));
  EXPECT_EQ(client.perform(get(server.url() + "/y")).body, "fallback");
  EXPECT_EQ(server.requests().size(), 7u);
}

TEST(ScriptedServer, TooManyRequestsCarriesRetryAfter) {
  ScriptedServer server;
  Step throttled = status_step(429, "TooManyRequests", "the server has received too many requests");
  throttled.headers = {{"Retry-After", "2"}};
  server.enqueue(throttled);
  server.enqueue(status_step(500, "InternalError", "boom"));
  Client client;
  const Transfer a = client.perform(get(server.url() + "/api/v1/pods"));
  ASSERT_EQ(a.code, CURLE_OK);
  EXPECT_EQ(a.status, 429);
  EXPECT_EQ(a.headers.at("retry-after"), "2");
  EXPECT_NE(a.body.find(R"("reason":"TooManyRequests")"), std::string::npos);
  const Transfer b = client.perform(get(server.url() + "/api/v1/pods"));
  EXPECT_EQ(b.status, 500);
  EXPECT_EQ(b.new_connections, 0);  // error answers keep the connection
}

TEST(ScriptedServer, StreamsChunksInPieces) {
  ScriptedServer server;
  Step watch;
  watch.chunks = {watch_event_json("ADDED", R"({"a":1})"), watch_event_json("MODIFIED", R"({"a":2})"),
                  watch_event_json("DELETED", R"({"a":3})")};
  watch.chunk_pause = 150ms;
  server.enqueue(watch);
  const Transfer t = fetch(get(server.url() + "/api/v1/pods?watch=true"));
  ASSERT_EQ(t.code, CURLE_OK);
  EXPECT_EQ(t.headers.at("transfer-encoding"), "chunked");
  EXPECT_EQ(t.body, watch.chunks[0] + watch.chunks[1] + watch.chunks[2]);
  // Pauses separate the pieces: the first delivery holds no more than the first event.
  ASSERT_GE(t.deliveries.size(), 2u);
  EXPECT_EQ(t.deliveries[0], watch.chunks[0]);
}

TEST(ScriptedServer, HoldOpenKeepsTheStreamUntilRelease) {
  ScriptedServer server;
  Step watch;
  watch.body = watch_event_json("ADDED", R"({"n":1})");
  watch.chunks = {watch_event_json("ADDED", R"({"n":2})")};
  watch.hold_open = true;
  server.enqueue(watch);
  BackgroundTransfer transfer(server, get(server.url() + "/api/v1/pods?watch=true"));
  const std::string expected = watch.body + watch.chunks[0];
  // Both pieces arrive while the stream is held open.
  ASSERT_TRUE(transfer.wait_received(expected.size()));
  EXPECT_FALSE(transfer.done());
  server.release();
  const auto result = transfer.wait_done();
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->code, CURLE_OK);
  EXPECT_EQ(result->body, expected);
}

TEST(ScriptedServer, StopEndsAHeldStream) {
  ScriptedServer server;
  Step watch;
  watch.chunks = {watch_event_json("ADDED", "{}")};
  watch.hold_open = true;
  server.enqueue(watch);
  BackgroundTransfer transfer(server, get(server.url() + "/watch"));
  ASSERT_TRUE(transfer.wait_received(watch.chunks[0].size()));
  const auto started = std::chrono::steady_clock::now();
  server.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
  const auto result = transfer.wait_done();
  ASSERT_TRUE(result.has_value());
  EXPECT_TRUE(is_cut(result->code)) << curl_easy_strerror(result->code);
}

TEST(ScriptedServer, CutAfterBytesEndsAStreamMidEvent) {
  ScriptedServer server;
  Step watch;
  watch.chunks = {watch_event_json("ADDED", R"({"n":1})"), watch_event_json("ADDED", R"({"n":2})")};
  watch.cut_after_bytes = watch.chunks[0].size() + 5;
  server.enqueue(watch);
  const Transfer t = fetch(get(server.url() + "/api/v1/pods?watch=true"));
  EXPECT_TRUE(is_cut(t.code)) << curl_easy_strerror(t.code);
  EXPECT_EQ(t.status, 200);
  EXPECT_EQ(t.body, watch.chunks[0] + watch.chunks[1].substr(0, 5));
}

TEST(ScriptedServer, CutAfterBytesShortensAFixedBody) {
  ScriptedServer server;
  Step list = json_step(200, R"({"kind":"PodList","items":[]})");
  list.cut_after_bytes = 10;
  server.enqueue(list);
  const Transfer t = fetch(get(server.url() + "/api/v1/pods"));
  EXPECT_EQ(t.code, CURLE_PARTIAL_FILE) << curl_easy_strerror(t.code);
  EXPECT_EQ(t.body, list.body.substr(0, 10));
}

TEST(ScriptedServer, CutAfterTheLastPieceLeavesTheStreamUnterminated) {
  ScriptedServer server;
  Step watch;
  watch.chunks = {watch_event_json("ADDED", "{}")};
  watch.cut_after_bytes = 1000;
  server.enqueue(watch);
  const Transfer t = fetch(get(server.url() + "/watch"));
  EXPECT_TRUE(is_cut(t.code)) << curl_easy_strerror(t.code);
  EXPECT_EQ(t.body, watch.chunks[0]);
}

TEST(ScriptedServer, WatchErrorEventCarriesA410Status) {
  ScriptedServer server;
  Step watch;
  watch.chunks = {watch_event_json("ERROR", status_json(410, "Expired", "too old resource version: 1 (42)"))};
  server.enqueue(watch);
  const Transfer t = fetch(get(server.url() + "/api/v1/pods?watch=true&resourceVersion=1"));
  ASSERT_EQ(t.code, CURLE_OK);
  EXPECT_EQ(t.body,
            R"j({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)j"
            R"j("message":"too old resource version: 1 (42)","reason":"Expired","code":410}})j"
            "\n");
}

TEST(ScriptedServer, RefuseClosesWithoutAnswering) {
  ScriptedServer server;
  Step refuse;
  refuse.refuse = true;
  server.enqueue(refuse);
  const Transfer t = fetch(get(server.url() + "/api/v1/pods"));
  EXPECT_EQ(t.code, CURLE_GOT_NOTHING) << curl_easy_strerror(t.code);
  EXPECT_EQ(server.requests().size(), 1u);
  // The server goes on serving.
  EXPECT_EQ(fetch(get(server.url() + "/api/v1/pods")).status, 404);
}

TEST(ScriptedServer, HangAnswersNothingUntilRelease) {
  ScriptedServer server;
  Step hang;
  hang.hang = true;
  server.enqueue(hang);
  BackgroundTransfer transfer(server, get(server.url() + "/api/v1/pods"));
  ASSERT_TRUE(server.wait_for_requests(1, kDeadline));
  EXPECT_FALSE(transfer.done());
  server.release();
  const auto result = transfer.wait_done();
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->code, CURLE_GOT_NOTHING) << curl_easy_strerror(result->code);
}

TEST(ScriptedServer, HangLetsAClientTimeOut) {
  ScriptedServer server;
  Step hang;
  hang.hang = true;
  server.enqueue(hang);
  RequestSpec spec = get(server.url() + "/slow");
  spec.timeout_ms = 200;
  EXPECT_EQ(fetch(spec).code, CURLE_OPERATION_TIMEDOUT);
}

TEST(ScriptedServer, StopReturnsPromptlyWithIdleKeepAliveConnections) {
  ScriptedServer server;
  Client client;
  ASSERT_EQ(client.perform(get(server.url() + "/a")).code, CURLE_OK);
  const auto started = std::chrono::steady_clock::now();
  server.stop();
  server.stop();  // idempotent
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
}

TEST(ScriptedServer, WaitForRequestsTimesOut) {
  ScriptedServer server;
  EXPECT_FALSE(server.wait_for_requests(1, 10ms));
}

TEST(ScriptedServer, MalformedRequestsGet400) {
  ScriptedServer server;
  const std::vector<std::string> malformed = {"GARBAGE\r\n\r\n", "GET /x HTTP/2.0\r\n\r\n", "GET x HTTP/1.1\r\n\r\n",
                                "GET /x HTTP/1.1\r\nno colon here\r\n\r\n",
                                "POST /x HTTP/1.1\r\nContent-Length: abc\r\n\r\n",
                                "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                                "GET /x HTTP/1.1\r\nX: " + std::string(70 * 1024, 'a') + "\r\n\r\n"};
  for (const std::string& bad : malformed) {
    const std::string answer = raw_exchange(server.port(), bad);
    EXPECT_EQ(answer.rfind("HTTP/1.1 400 Bad Request\r\n", 0), 0u) << bad.substr(0, 40) << " -> " << answer;
    EXPECT_NE(answer.find(R"("reason":"BadRequest")"), std::string::npos);
  }
  EXPECT_TRUE(server.requests().empty());
  EXPECT_EQ(fetch(get(server.url() + "/still-serving")).status, 404);
}

TEST(ScriptedServer, ServesPipelinedRequestsOnOneConnection) {
  ScriptedServer server;
  server.enqueue(json_step(200, "one"));
  server.enqueue(json_step(200, "two"));
  const std::string answer = raw_exchange(server.port(),
                                          "GET /1 HTTP/1.1\r\nHost: x\r\n\r\n"
                                          "POST /2 HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc");
  EXPECT_NE(answer.find("\r\n\r\none"), std::string::npos) << answer;
  EXPECT_NE(answer.find("Connection: close\r\n"), std::string::npos) << answer;
  EXPECT_EQ(answer.substr(answer.size() - 3), "two");
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[1].body, "abc");
}

// ---- HTTPS ---------------------------------------------------------------------

ScriptedServer::Options tls_options() {
  ScriptedServer::Options options;
  options.tls = true;
  return options;
}

TEST(ScriptedServerTls, VerifiesWithTheServersCa) {
  ScriptedServer server(tls_options());
  EXPECT_EQ(server.url().rfind("https://127.0.0.1:", 0), 0u);
  EXPECT_EQ(server.ca_pem().rfind("-----BEGIN CERTIFICATE-----", 0), 0u);
  server.enqueue(json_step(200, "secure"));
  RequestSpec spec = get(server.url() + "/version");
  spec.ca_pem = server.ca_pem();
  const Transfer t = fetch(spec);
  ASSERT_EQ(t.code, CURLE_OK) << curl_easy_strerror(t.code);
  EXPECT_EQ(t.body, "secure");
}

TEST(ScriptedServerTls, VerifiesByHostNameLocalhost) {
  ScriptedServer server(tls_options());
  const std::string port = std::to_string(server.port());
  RequestSpec spec = get("https://localhost:" + port + "/version");
  spec.ca_pem = server.ca_pem();
  spec.resolve = {"localhost:" + port + ":127.0.0.1"};  // the server listens on IPv4 only
  const Transfer t = fetch(spec);
  EXPECT_EQ(t.code, CURLE_OK) << curl_easy_strerror(t.code);
  EXPECT_EQ(t.status, 404);
}

TEST(ScriptedServerTls, FailsVerificationWithoutTheCa) {
  ScriptedServer server(tls_options());
  const Transfer t = fetch(get(server.url() + "/version"));
  EXPECT_EQ(t.code, CURLE_PEER_FAILED_VERIFICATION) << curl_easy_strerror(t.code);
  EXPECT_TRUE(server.requests().empty());
}

TEST(ScriptedServerTls, FailsVerificationWithAnotherServersCa) {
  ScriptedServer server(tls_options());
  ScriptedServer other(tls_options());
  RequestSpec spec = get(server.url() + "/version");
  spec.ca_pem = other.ca_pem();
  EXPECT_EQ(fetch(spec).code, CURLE_PEER_FAILED_VERIFICATION);
}

TEST(ScriptedServerTls, NegotiatesHttp11AndReusesTheConnection) {
  ScriptedServer server(tls_options());
  Client client;
  RequestSpec spec = get(server.url() + "/a");
  spec.ca_pem = server.ca_pem();
  spec.http2 = true;  // offered, not taken
  const Transfer a = client.perform(spec);
  const Transfer b = client.perform(spec);
  ASSERT_EQ(a.code, CURLE_OK) << curl_easy_strerror(a.code);
  ASSERT_EQ(b.code, CURLE_OK) << curl_easy_strerror(b.code);
  EXPECT_EQ(a.http_version, CURL_HTTP_VERSION_1_1);
  EXPECT_EQ(b.new_connections, 0);
  EXPECT_EQ(server.connection_count(), 1u);
}

TEST(ScriptedServerTls, CutAfterBytesGivesATransferError) {
  ScriptedServer server(tls_options());
  Step watch;
  watch.chunks = {watch_event_json("ADDED", R"({"n":1})"), watch_event_json("ADDED", R"({"n":2})")};
  watch.cut_after_bytes = watch.chunks[0].size() + 3;
  server.enqueue(watch);
  RequestSpec spec = get(server.url() + "/watch");
  spec.ca_pem = server.ca_pem();
  const Transfer t = fetch(spec);
  EXPECT_TRUE(is_cut(t.code)) << curl_easy_strerror(t.code);
  EXPECT_EQ(t.body, watch.chunks[0] + watch.chunks[1].substr(0, 3));
}

TEST(ScriptedServerTls, HoldOpenAndReleaseOverTls) {
  ScriptedServer server(tls_options());
  Step watch;
  watch.chunks = {watch_event_json("ADDED", "{}")};
  watch.hold_open = true;
  server.enqueue(watch);
  RequestSpec spec = get(server.url() + "/watch");
  spec.ca_pem = server.ca_pem();
  BackgroundTransfer transfer(server, spec);
  ASSERT_TRUE(transfer.wait_received(watch.chunks[0].size()));
  EXPECT_FALSE(transfer.done());
  server.release();
  const auto result = transfer.wait_done();
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->code, CURLE_OK) << curl_easy_strerror(result->code);
}

// ---- answer builders -------------------------------------------------------------

TEST(ScriptedAnswers, StatusJsonEscapesAndOmitsAnEmptyReason) {
  EXPECT_EQ(status_json(200, "", "ok \"quoted\"\n"),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","message":"ok \"quoted\"\n","code":200})");
  EXPECT_EQ(watch_event_json("BOOKMARK", R"({"x":1})"), "{\"type\":\"BOOKMARK\",\"object\":{\"x\":1}}\n");
}

}  // namespace
}  // namespace gpupool::test
