#include "connection_guard.h"

#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

namespace gpupool::webhook::detail {

// One connection: registered when its handshake starts, freed with its SSL object.
struct ConnectionGuard::Connection {
  ConnectionGuard* guard = nullptr;
  int fd = -1;
  Clock::time_point deadline;  // guarded by guard->mu_; max(): none (a handler runs)
  // Guarded by guard->mu_: when the last answer was written, while no byte
  // of the next request has come; max() otherwise.
  Clock::time_point idle_since = Clock::time_point::max();
  bool cut = false;            // guarded by guard->mu_
  // Touched only by the worker serving the connection (callbacks and hooks
  // all run on it): bytes of the application-data records received since the
  // current request began, and whether they are still counted.
  std::size_t received = 0;
  bool counting = true;
  bool close_after_answer = false;
};

namespace {

// A TLS record's header and its largest ciphertext: headers may end inside a
// record that carries the start of the body, or of the next request.
constexpr std::size_t kRecordSlack = 5 + 16384 + 256;

// Ends a connection whose socket httplib still holds. shutdown(2) wakes a
// worker blocked on it; but after a shutdown Linux still hands over whatever
// arrives, so a client that keeps sending would keep being read: a dead
// socket (the end of a socketpair whose other end is closed) goes in its
// place with dup2, and every later read sees the end of the stream. The
// original socket closes once a call still using it returns; httplib later
// closes the stand-in under the same number.
void disconnect(int fd) {
  ::shutdown(fd, SHUT_RDWR);
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return;  // the shutdown has to do
  ::close(pair[1]);
  ::dup2(pair[0], fd);
  ::close(pair[0]);
}

int ctx_index() {
  static const int index = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

}  // namespace

int ConnectionGuard::ssl_index() {
  static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, &ConnectionGuard::free_connection);
  return index;
}

ConnectionGuard::ConnectionGuard(Limits limits, std::function<std::size_t()> unserved)
    : limits_(limits), unserved_(std::move(unserved)) {
  watchdog_ = std::thread([this] { watch(); });
}

ConnectionGuard::~ConnectionGuard() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  watchdog_.join();
}

void ConnectionGuard::install(SSL_CTX& ctx) {
  SSL_CTX_set_ex_data(&ctx, ctx_index(), this);
  SSL_CTX_set_info_callback(&ctx, &ConnectionGuard::on_info);
  SSL_CTX_set_msg_callback(&ctx, &ConnectionGuard::on_message);
}

ConnectionGuard::Connection* ConnectionGuard::connection_of(const SSL* ssl) {
  return ssl == nullptr ? nullptr : static_cast<Connection*>(SSL_get_ex_data(ssl, ssl_index()));
}

void ConnectionGuard::on_info(const SSL* ssl, int where, int /*ret*/) {
  if ((where & SSL_CB_HANDSHAKE_START) == 0 || connection_of(ssl) != nullptr) return;
  auto* guard = static_cast<ConnectionGuard*>(SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), ctx_index()));
  if (guard == nullptr) return;
  auto* c = new Connection;
  c->guard = guard;
  c->fd = SSL_get_fd(ssl);
  // The SSL object is httplib's and not const; OpenSSL's callback type says const.
  if (SSL_set_ex_data(const_cast<SSL*>(ssl), ssl_index(), c) != 1) {
    delete c;
    return;
  }
  guard->add(c);
}

void ConnectionGuard::on_message(int write_p, int /*version*/, int content_type, const void* buf, std::size_t len,
                                 SSL* ssl, void* /*arg*/) {
  // Received record headers: type(1) version(2) length(2).
  if (write_p != 0 || content_type != SSL3_RT_HEADER || len < 5) return;
  const auto* h = static_cast<const unsigned char*>(buf);
  if (h[0] != SSL3_RT_APPLICATION_DATA) return;
  Connection* c = connection_of(ssl);
  if (c == nullptr || !c->counting) return;
  if (c->received == 0) {
    // The first record of a request: the connection is no longer idle.
    std::lock_guard lock(c->guard->mu_);
    c->idle_since = Clock::time_point::max();
  }
  c->received += 5 + ((std::size_t{h[3]} << 8) | h[4]);
  if (c->received > c->guard->limits_.max_header_bytes + kRecordSlack) {
    std::lock_guard lock(c->guard->mu_);
    c->guard->cut(c, "request line and headers over the limit");
  }
}

void ConnectionGuard::free_connection(void* /*parent*/, void* ptr, CRYPTO_EX_DATA* /*ad*/, int /*index*/,
                                      long /*argl*/, void* /*argp*/) {
  auto* c = static_cast<Connection*>(ptr);
  if (c == nullptr) return;
  c->guard->remove(c);
  delete c;
}

void ConnectionGuard::add(Connection* c) {
  {
    std::lock_guard lock(mu_);
    c->deadline = Clock::now() + limits_.request_timeout;
    live_.insert(c);
    woken_ = true;  // a new deadline
    if (refusing_) cut(c, "the server is stopping");
  }
  changed_.notify_all();
}

void ConnectionGuard::remove(Connection* c) {
  // After this returns the watchdog no longer knows the socket, so httplib
  // may close it (and the number be reused) safely.
  std::lock_guard lock(mu_);
  live_.erase(c);
}

void ConnectionGuard::headers_accepted(const SSL* ssl) {
  if (Connection* c = connection_of(ssl)) c->counting = false;
}

void ConnectionGuard::close_after_answer(const SSL* ssl) {
  if (Connection* c = connection_of(ssl)) c->close_after_answer = true;
}

void ConnectionGuard::handling(const SSL* ssl) {
  Connection* c = connection_of(ssl);
  if (c == nullptr) return;
  std::lock_guard lock(mu_);
  c->deadline = Clock::time_point::max();
}

void ConnectionGuard::answered(const SSL* ssl) {
  Connection* c = connection_of(ssl);
  if (c == nullptr) return;
  if (c->close_after_answer) {
    // The answer has been sent; the body after the headers is never read.
    std::lock_guard lock(mu_);
    end_connection(c);  // not counted as a cut: it was answered
    return;
  }
  c->received = 0;
  c->counting = true;
  {
    std::lock_guard lock(mu_);
    const auto now = Clock::now();
    c->deadline = now + limits_.idle_timeout + limits_.request_timeout;
    c->idle_since = now;
    woken_ = true;  // a new deadline
    if (refusing_) end_connection(c);
  }
  changed_.notify_all();
}

void ConnectionGuard::refuse_new() {
  std::lock_guard lock(mu_);
  refusing_ = true;
  for (Connection* c : live_) {
    if (c->idle_since != Clock::time_point::max()) end_connection(c);
  }
}

void ConnectionGuard::wake() {
  {
    std::lock_guard lock(mu_);
    woken_ = true;
  }
  changed_.notify_all();
}

std::size_t ConnectionGuard::cut_count() const {
  std::lock_guard lock(mu_);
  return cuts_;
}

void ConnectionGuard::cut(Connection* c, const char* why) {
  if (c->cut) return;
  end_connection(c);
  ++cuts_;
  spdlog::debug("webhook server: dropped a connection: {}", why);
}

void ConnectionGuard::end_connection(Connection* c) {
  if (c->cut) return;
  c->cut = true;
  disconnect(c->fd);
}

void ConnectionGuard::watch() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    woken_ = false;
    const auto now = Clock::now();
    auto next = Clock::time_point::max();
    Connection* idle_longest = nullptr;
    for (Connection* c : live_) {
      if (c->cut) continue;
      if (c->deadline <= now) {
        cut(c, "request not received in time");
        continue;
      }
      next = std::min(next, c->deadline);
      if (c->idle_since != Clock::time_point::max() && (idle_longest == nullptr || c->idle_since < idle_longest->idle_since)) {
        idle_longest = c;
      }
    }
    if (const std::size_t waiting = unserved_ ? unserved_() : 0; waiting > 0) {
      // Ending an idle connection races with a request the client may be
      // sending on it, which then fails: only when another cannot be served.
      if (idle_longest != nullptr) {
        end_connection(idle_longest);
        spdlog::debug("webhook server: ended an idle connection: {} waiting for a thread", waiting);
      }
      next = std::min(next, now + kUnservedRecheck);
    }
    if (next == Clock::time_point::max()) {
      changed_.wait(lock, [&] { return woken_ || stopping_; });
    } else {
      changed_.wait_until(lock, next, [&] { return woken_ || stopping_; });
    }
  }
}

}  // namespace gpupool::webhook::detail
