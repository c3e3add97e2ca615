// Private to lib/webhook: the limits TlsServer puts on each connection, which
// cpp-httplib 0.11 (Debian 12's) does not: it reads a request line or header
// line of any length into memory, any number of headers, and gives a client
// io_timeout per read, however many reads, so one trickling byte by byte
// holds a worker thread for ever.
//
//   - A deadline: a request must have arrived whole (TLS handshake, headers,
//     body) within request_timeout of the connection's start; after an answer,
//     the next one within idle_timeout + request_timeout. Not while a handler
//     runs.
//   - A budget: the request line and headers may take max_header_bytes (plus
//     one TLS record's worth of slack); the body is bounded by Content-Length,
//     which TlsServer checks before any of it is read.
//   - Idle kept-alive connections (answered, no byte of a next request yet)
//     give way: while a connection waits for a thread (`unserved`, from the
//     worker pool) the one idle longest is ended, every kUnservedRecheck; and
//     from refuse_new() (the server stopping) every idle one is ended, so
//     neither waits out a keep-alive timeout that is long on purpose
//     (tls_server.h).
//
// Hooked in through OpenSSL, as httplib leaves no other way: the SSL_CTX's
// info callback registers each connection when its handshake starts, the
// message callback counts the bytes of the TLS records it receives, and the
// SSL object's ex_data ties the registration to the SSL object, so httplib's
// SSL_free (always before it closes the socket) unregisters it. A watchdog
// thread ends an overdue connection under the worker serving it: the worker
// then reads the end of the stream and drops the connection.
#pragma once

#include <openssl/ssl.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <set>
#include <thread>

namespace gpupool::webhook::detail {

class ConnectionGuard {
 public:
  using Clock = std::chrono::steady_clock;

  struct Limits {
    std::chrono::milliseconds request_timeout;
    std::chrono::milliseconds idle_timeout;  // the keep-alive timeout
    std::size_t max_header_bytes;
  };

  // How often, while connections wait for a thread, one more idle
  // connection is ended (the thread freed by the last takes a moment).
  static constexpr std::chrono::milliseconds kUnservedRecheck{50};

  // `unserved`: how many accepted connections wait with no thread free.
  ConnectionGuard(Limits limits, std::function<std::size_t()> unserved);
  ~ConnectionGuard();  // after every connection is gone (the server has stopped)
  ConnectionGuard(const ConnectionGuard&) = delete;
  ConnectionGuard& operator=(const ConnectionGuard&) = delete;

  // Sets the callbacks on the server's SSL_CTX (once).
  void install(SSL_CTX& ctx);

  // From the worker serving `ssl`'s connection, as its request goes on:
  void headers_accepted(const SSL* ssl);    // headers complete and acceptable: the budget is lifted
  void close_after_answer(const SSL* ssl);  // refused from its headers: its body must not be read
  void handling(const SSL* ssl);            // a handler runs: no deadline meanwhile
  // The answer has been written: the connection is shut down if it was
  // refused, else the next request's deadline and budget start.
  void answered(const SSL* ssl);

  // Connections whose handshake starts from now on are cut at once, and
  // idle ones are ended now or once answered (stop()).
  void refuse_new();

  // A connection has started waiting for a thread: look at `unserved` now.
  void wake();

  // Connections cut so far, for tests and logs.
  std::size_t cut_count() const;

  struct Connection;  // per SSL object, in its ex_data

 private:
  static void on_info(const SSL* ssl, int where, int ret);
  static void on_message(int write_p, int version, int content_type, const void* buf, std::size_t len, SSL* ssl,
                         void* arg);
  static Connection* connection_of(const SSL* ssl);
  static int ssl_index();  // of the Connection in an SSL object's ex_data
  // The SSL object's ex_data destructor, run by SSL_free (for every SSL
  // object of the process; `ptr` is null for those not ours).
  static void free_connection(void* parent, void* ptr, CRYPTO_EX_DATA* ad, int index, long argl, void* argp);

  void add(Connection* c);
  void remove(Connection* c);
  void cut(Connection* c, const char* why);  // with mu_ held
  void end_connection(Connection* c);        // with mu_ held: ends it (once), not counted as a cut
  void watch();

  const Limits limits_;
  const std::function<std::size_t()> unserved_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::set<Connection*> live_;  // guarded by mu_
  bool refusing_ = false;       // guarded by mu_
  bool stopping_ = false;       // guarded by mu_
  bool woken_ = false;          // guarded by mu_: wake() since the watchdog last looked
  std::size_t cuts_ = 0;        // guarded by mu_
  std::thread watchdog_;
};

}  // namespace gpupool::webhook::detail
