#include "gpupool/webhook/tls_server.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <exception>
#include <latch>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <thread>

#include <httplib.h>
#include <spdlog/spdlog.h>

#include "connection_guard.h"
#include "gpupool/webhook/certificates.h"
#include "openssl_util.h"
#include "worker_pool.h"

namespace gpupool::webhook {
namespace {

// TLS 1.2 suites: forward secrecy and AEAD only (as Go's defaults for a
// server); TLS 1.3's suites are all acceptable and left at OpenSSL's default.
constexpr const char* kTls12Ciphers = "ECDHE+AESGCM:ECDHE+CHACHA20";
constexpr const char* kPlainText = "text/plain; charset=utf-8";
constexpr std::size_t kRequestsPerConnection = 1000;

struct Credentials {
  detail::X509Ptr cert;
  detail::PkeyPtr key;
  std::string serial;
};

std::shared_ptr<const Credentials> load_credentials(std::string_view cert_pem, std::string_view key_pem) {
  auto out = std::make_shared<Credentials>();
  out->cert = detail::parse_certificate(cert_pem, "serving certificate");
  out->key = detail::parse_private_key(key_pem, "serving key");
  if (!detail::key_matches(out->cert.get(), out->key.get())) {
    throw CertificateError("webhook certificates: serving key: does not match the serving certificate");
  }
  out->serial = read_certificate(cert_pem).serial_hex;
  return out;
}

// A Content-Length value: decimal digits only (httplib would read "12abc" as 12).
std::optional<std::uint64_t> content_length(const std::string& text) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  std::uint64_t n = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return n;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

detail::ConnectionGuard::Limits limits_of(const TlsServerOptions& o) {
  return {o.request_timeout, std::chrono::duration_cast<std::chrono::milliseconds>(o.keep_alive_timeout),
          o.max_header_bytes};
}

}  // namespace

struct TlsServer::Impl {
  explicit Impl(TlsServerOptions o)
      : options(std::move(o)), guard(limits_of(options), [gate = queue_gate] { return gate->unserved.load(); }) {
    queue_gate->on_unserved = [this] { guard.wake(); };
    queue_gate->on_accepted = options.on_connection;
  }

  TlsServerOptions options;
  std::string address;  // host:port as configured, for messages
  std::shared_ptr<detail::QueueGate> queue_gate = std::make_shared<detail::QueueGate>();
  // Declared before the server, whose SSL_CTX calls into it: destroyed after.
  detail::ConnectionGuard guard;

  mutable std::mutex credentials_mu;
  std::shared_ptr<const Credentials> credentials;  // never null

  std::map<std::string, PostHandler, std::less<>> handlers;

  httplib::SSLServer server{[this](SSL_CTX& ctx) { return configure(ctx); }};
  std::thread thread;
  bool started = false;
  int port = 0;
  std::mutex stop_mu;
  // Counted down once httplib's accept loop runs (it asks for its task queue
  // right after marking itself running, so from then on stop() reaches it),
  // or once listening ended without getting there.
  std::latch accepting{1};
  std::once_flag accepting_once;

  std::shared_ptr<const Credentials> current() const {
    std::lock_guard lock(credentials_mu);
    return credentials;
  }

  void signal_accepting() {
    std::call_once(accepting_once, [this] { accepting.count_down(); });
  }

  // OpenSSL's certificate callback, run in each handshake before the server
  // picks its certificate: the credentials current now. The SSL object takes
  // its own references, so a later swap does not affect this connection.
  static int select_certificate(SSL* ssl, void* arg) {
    const std::shared_ptr<const Credentials> creds = static_cast<const Impl*>(arg)->current();
    return SSL_use_cert_and_key(ssl, creds->cert.get(), creds->key.get(), nullptr, 1) == 1 ? 1 : 0;
  }

  bool configure(SSL_CTX& ctx) {
    SSL_CTX_set_options(&ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
    // An idle kept-alive connection holds no record buffers.
    SSL_CTX_set_mode(&ctx, SSL_MODE_RELEASE_BUFFERS);
    if (SSL_CTX_set_min_proto_version(&ctx, TLS1_2_VERSION) != 1) return false;
    if (SSL_CTX_set_cipher_list(&ctx, kTls12Ciphers) != 1) return false;
    SSL_CTX_set_cert_cb(&ctx, &Impl::select_certificate, this);
    guard.install(ctx);
    return true;
  }

  // Refuses what must not be read, from the headers alone (see tls_server.h),
  // and closes the connection once the answer is written: the body, if any,
  // is never read. A request with an acceptable body for a path without a
  // handler, or another method, goes on to its 404.
  httplib::Server::HandlerResponse screen(const httplib::Request& req, httplib::Response& res) {
    const auto refuse = [&](int status, const std::string& why) {
      res.status = status;
      res.set_content(why + "\n", kPlainText);
      guard.close_after_answer(req.ssl);
      return httplib::Server::HandlerResponse::Handled;
    };
    if (req.has_header("Transfer-Encoding")) return refuse(411, "a Content-Length is required, not a Transfer-Encoding");
    if (const std::string e = req.get_header_value("Content-Encoding"); !e.empty() && !iequals(e, "identity")) {
      return refuse(415, "compressed bodies are not accepted");
    }
    if (req.has_header("Content-Length")) {
      const auto length = content_length(req.get_header_value("Content-Length"));
      if (!length || req.get_header_value_count("Content-Length") != 1) return refuse(400, "bad Content-Length");
      if (*length > options.max_request_bytes) {
        return refuse(413, "the body is larger than " + std::to_string(options.max_request_bytes) + " bytes");
      }
    } else if (req.method == "POST") {
      return refuse(411, "a Content-Length is required");
    }
    guard.headers_accepted(req.ssl);
    return httplib::Server::HandlerResponse::Unhandled;
  }

  void serve(const httplib::Request& req, httplib::Response& res) {
    guard.handling(req.ssl);
    const auto handler = handlers.find(req.path);
    if (handler == handlers.end()) {
      res.status = 404;
      res.set_content("404 page not found\n", kPlainText);
      return;
    }
    HttpRequest request;
    request.path = req.path;
    if (const auto q = req.target.find('?'); q != std::string::npos) request.query = req.target.substr(q + 1);
    request.content_type = req.get_header_value("Content-Type");
    request.body = req.body;
    HttpResponse response = handler->second(request);
    res.status = response.status;
    res.set_content(std::move(response.body), response.content_type.c_str());
  }
};

TlsServer::TlsServer(TlsServerOptions options, std::string_view cert_pem, std::string_view key_pem)
    : impl_(std::make_unique<Impl>(std::move(options))) {
  Impl& impl = *impl_;
  impl.address = impl.options.host + ":" + std::to_string(impl.options.port);
  impl.credentials = load_credentials(cert_pem, key_pem);
  if (!impl.server.is_valid()) {
    ERR_clear_error();
    throw std::runtime_error("webhook server " + impl.address + ": cannot set up TLS");
  }

  auto& server = impl.server;
  server.new_task_queue = [p = &impl] {
    p->signal_accepting();
    return new detail::WorkerPool(std::max<std::size_t>(1, p->options.worker_threads),
                                  std::max<std::size_t>(1, p->options.max_pending_connections), p->queue_gate);
  };
  // SO_REUSEADDR only (httplib's default SO_REUSEPORT would let a second
  // process bind the same port and take half the requests).
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server.set_keep_alive_timeout(impl.options.keep_alive_timeout.count());
  // httplib's default of 5 would make kube-apiserver handshake again every
  // 5 admissions (the last is answered with "Connection: close", which is safe).
  server.set_keep_alive_max_count(kRequestsPerConnection);
  server.set_read_timeout(impl.options.io_timeout.count(), 0);
  server.set_write_timeout(impl.options.io_timeout.count(), 0);
  server.set_payload_max_length(impl.options.max_request_bytes);
  server.set_pre_routing_handler([p = &impl](const httplib::Request& req, httplib::Response& res) { return p->screen(req, res); });
  server.Post(".*", [p = &impl](const httplib::Request& req, httplib::Response& res) { p->serve(req, res); });
  // Called once each answer has been written.
  server.set_logger([p = &impl](const httplib::Request& req, const httplib::Response&) { p->guard.answered(req.ssl); });
  server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty()) res.set_content(std::to_string(res.status) + "\n", kPlainText);
  });
  server.set_exception_handler(
      [p = &impl](const httplib::Request& req, httplib::Response& res, std::exception_ptr error) {
        std::string what = "unknown exception";
        try {
          std::rethrow_exception(error);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        spdlog::error("webhook server {}: POST {}: {}", p->address, req.path, what);
        res.status = 500;
        res.set_content("internal server error\n", kPlainText);
      });
}

TlsServer::~TlsServer() { stop(); }

void TlsServer::handle_post(std::string path, PostHandler handler) {
  Impl& impl = *impl_;
  const std::string where = "webhook server " + impl.address + ": ";
  if (impl.started) throw std::logic_error(where + "handler for " + path + " added after start()");
  if (!path.starts_with('/')) throw std::logic_error(where + "path \"" + path + "\" is not absolute");
  if (!handler) throw std::logic_error(where + "empty handler for " + path);
  if (!impl.handlers.emplace(path, std::move(handler)).second) {
    throw std::logic_error(where + "two handlers for " + path);
  }
}

void TlsServer::start() {
  Impl& impl = *impl_;
  if (impl.started) throw std::logic_error("webhook server " + impl.address + " started twice");
  impl.started = true;

  errno = 0;
  int port = impl.options.port;
  if (port == 0) {
    port = impl.server.bind_to_any_port(impl.options.host);
  } else if (!impl.server.bind_to_port(impl.options.host, port)) {
    port = -1;
  }
  if (port <= 0) {
    const int error = errno;
    std::string message = "webhook server: cannot listen on " + impl.address;
    if (error != 0) message += ": " + std::error_code(error, std::generic_category()).message();
    throw std::runtime_error(message);
  }
  impl.port = port;
  impl.address = impl.options.host + ":" + std::to_string(port);
  impl.thread = std::thread([&impl] {
    // Writing to a connection the client closed must fail with EPIPE, not
    // raise SIGPIPE (OpenSSL writes with write(), not MSG_NOSIGNAL). The
    // worker threads httplib starts from here inherit this mask.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    if (!impl.server.listen_after_bind()) {
      spdlog::error("webhook server {}: stopped accepting connections", impl.address);
    }
    impl.signal_accepting();
  });
  impl.accepting.wait();
}

void TlsServer::stop() {
  std::lock_guard lock(impl_->stop_mu);
  if (!impl_->thread.joinable()) return;
  // Connections still waiting for a thread are dropped as they get one, and
  // an accept loop waiting for room in the queue goes on to see the stop.
  impl_->guard.refuse_new();
  impl_->queue_gate->open_for_stop();
  impl_->server.stop();
  impl_->thread.join();
}

void TlsServer::set_certificate(std::string_view cert_pem, std::string_view key_pem) {
  std::shared_ptr<const Credentials> next = load_credentials(cert_pem, key_pem);
  std::lock_guard lock(impl_->credentials_mu);
  impl_->credentials.swap(next);
  // The old credentials are released here, or by the last handshake using them.
}

std::string TlsServer::certificate_serial() const { return impl_->current()->serial; }

int TlsServer::port() const { return impl_->port; }

std::size_t TlsServer::dropped_connections() const { return impl_->guard.cut_count(); }

}  // namespace gpupool::webhook
