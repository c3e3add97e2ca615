// A fault-injecting HTTP/1.1 proxy between a component and a kube-apiserver,
// for fault tests: it passes requests through unchanged and, on command,
// cuts open connections (watches included), delays requests, answers a
// share of them (seeded, deterministic) or the next N matching ones with an
// error status and a metav1.Status body, or refuses connections for a while.
//
// Serving: listens on loopback (Options::listen); with a certificate it
// terminates TLS and offers only http/1.1 over ALPN (so libcurl and Go
// clients speak HTTP/1.1 to it); without one it speaks plain HTTP. Each
// client connection gets its own upstream connection (TLS verified against
// Options::upstream_ca_pem, http/1.1 over ALPN), opened on its first
// forwarded request and kept alive with it. Request bodies (Content-Length or
// chunked, at most 16 MiB) are read whole and forwarded with a
// Content-Length; responses are relayed byte for byte as they arrive
// (Content-Length, chunked or close-delimited), so watch streams flow event
// by event and keep-alive works. "Expect: 100-continue" is answered by the
// proxy; hop-by-hop headers (Connection, Keep-Alive, TE, Upgrade, ...) are
// not forwarded, so protocol upgrades (exec, attach, port-forward) are not
// supported: the apiserver sees a plain request. A client that closes (or
// half-closes) its connection while waiting for an answer is taken as gone:
// its upstream connection is dropped too.
//
// A cut shuts both sockets of a connection down and closes the client side
// with a TCP reset, without TLS close_notify: the client sees its response
// (a watch stream mid-way) end with a transfer error. When the upstream
// cannot be reached the client gets 502 with a metav1.Status body.
//
// Bounds: at most Options::max_connections client connections (one thread
// each; more are refused), a request head of 64 KiB, relaying through a
// 16 KiB buffer. Idle client connections close after Options::idle_timeout.
// stop() (and the destructor) cuts everything and joins every thread. The
// serving threads never throw: bad input from a client gets 400 and a close,
// garbage from the upstream a cut.
//
// Thread-safe: every method may be called from any thread (stop() from one
// thread at a time).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "gpupool/faultproxy/fault_plan.h"

namespace gpupool::faultproxy {

struct Options {
  // Where to forward: "https://HOST:PORT" (or "http://HOST:PORT"); no path.
  std::string upstream_url;
  // CAs trusted for the upstream's certificate (required for https).
  std::string upstream_ca_pem;
  // The proxy's serving certificate (chain) and key, PEM. Both empty: plain
  // HTTP towards the clients.
  std::string cert_pem;
  std::string key_pem;
  // Seed of the fault draws (see fault_plan.h).
  std::uint64_t seed = 1;
  // "HOST:PORT" to listen on (numeric address; port 0: an ephemeral one).
  std::string listen = "127.0.0.1:0";
  // "HOST:PORT" of the control port (see control_server.h); empty: none.
  std::string control_listen;
  std::size_t max_connections = 128;
  std::chrono::milliseconds idle_timeout{std::chrono::seconds(90)};
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(5)};
};

struct Stats {
  std::uint64_t connections = 0;       // client connections accepted and served
  std::uint64_t open_connections = 0;  // of which still open
  // Client connections accepted and reset at once: over max_connections, or
  // in the instant a refusal began (attempts the kernel refused are not seen).
  std::uint64_t refused = 0;
  std::uint64_t requests = 0;          // requests read from clients
  std::uint64_t forwarded = 0;         // requests sent upstream
  std::uint64_t injected = 0;          // requests answered with an injected error status
  std::uint64_t delayed = 0;           // requests delayed before their answer
  std::uint64_t cut = 0;               // connections cut (cut_connections, refuse_for, Cut faults)
  std::uint64_t upstream_errors = 0;   // upstream unreachable: answered 502
};

class FaultProxy {
 public:
  // Binds (and the control port, when asked) and starts serving. Throws
  // std::invalid_argument for bad options (upstream URL, addresses, PEM) and
  // std::runtime_error when it cannot listen.
  explicit FaultProxy(Options options);
  ~FaultProxy();  // stop()
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  // "https://HOST:PORT" ("http://" without a certificate), HOST being the
  // listen address (127.0.0.1 for an unspecified one, IPv6 in brackets).
  std::string url() const;
  int port() const;
  // The control port, 0 when there is none; its URL ("http://127.0.0.1:PORT").
  int control_port() const;
  std::string control_url() const;

  // Cuts every open client connection and its upstream connection now,
  // watches included; returns how many. New connections are served as usual.
  std::size_t cut_connections();
  // Every request waits this long before it is answered or forwarded (a cut
  // or stop() ends the wait). 0: none.
  void set_delay(std::chrono::milliseconds delay);
  // This share (0..1) of requests (fitting `match`) is answered `status`
  // (400..599) instead of being forwarded; which ones is decided by the seed.
  // 429 carries Retry-After: 1 unless told otherwise. Share 0 removes it.
  // Throws std::invalid_argument for a bad status or share.
  void set_error_share(int status, double share, int retry_after_seconds = Fault::kDefaultRetryAfter,
                       Match match = {});
  // The next `count` requests fitting `match` are answered `status`.
  void fail_next(int status, int count, Match match = {});
  // The general form: the next rule.count requests fitting rule.match get
  // rule.fault (error status, delay, or cut).
  void add_rule(Rule rule);
  // For `duration`, as when the apiserver goes away: the proxy's socket stops
  // listening (connection attempts get ECONNREFUSED; the port stays
  // reserved) and the open connections are cut now. Afterwards it listens
  // and serves again. 0 ends a refusal early.
  void refuse_for(std::chrono::milliseconds duration);
  // Restarts the request numbering and the fault draws from `seed`.
  void set_seed(std::uint64_t seed);
  // No faults any more (delay, shares, rules, refusal); open connections stay.
  // The seed and the request numbering go on.
  void reset();

  Stats stats() const;

  // Stops accepting, cuts every connection, joins every thread. Idempotent.
  void stop();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpupool::faultproxy
